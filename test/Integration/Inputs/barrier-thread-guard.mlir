// Found by stencil.randomgen --hex-tile --emulate-gpu (seed 4702, program 66):
// isl guarded a step's barrier by a thread-filter condition that holds for
// every thread wherever the barrier runs (test/Integration/gpu-random-findings.py).
func.func @rnd66(%u0 : !stencil.field<[-2,15]x[-6,15]xf32>, %u1 : !stencil.field<[-2,15]x[-6,15]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 2 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-2,15]x[-6,15]xf32>, !stencil.field<[-2,15]x[-6,15]xf32>) {
      %in = stencil.load %a : !stencil.field<[-2,15]x[-6,15]xf32> -> !stencil.temp<?x?xf32>
      %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a0[0, 0] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 0.75 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a0[0, -2] : !stencil.temp<?x?xf32>
        %w1 = arith.constant 0.25 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %v2 = stencil.access %a0[0, 2] : !stencil.temp<?x?xf32>
        %w2 = arith.constant 0.125 : f32
        %p2 = arith.mulf %v2, %w2 : f32
        %s2 = arith.addf %s1, %p2 : f32
        %res = stencil.store_result %s2 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r1 = stencil.apply(%a1 = %r0 : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a1[3, 0] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 1.5 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a1[0, -2] : !stencil.temp<?x?xf32>
        %w1 = arith.constant -1.0 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %res = stencil.store_result %s1 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r2 = stencil.apply(%a0 = %in : !stencil.temp<?x?xf32>, %a2 = %r1 : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a2[-2, -1] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 0.5 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a0[2, -2] : !stencil.temp<?x?xf32>
        %w1 = arith.constant 0.20000000298023224 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %res = stencil.store_result %s1 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      stencil.store %r2 to %b(<[0, 0], [12, 13]>) : !stencil.temp<?x?xf32> to !stencil.field<[-2,15]x[-6,15]xf32>
    scf.yield %b, %a : !stencil.field<[-2,15]x[-6,15]xf32>, !stencil.field<[-2,15]x[-6,15]xf32>
  }
  %fin = stencil.load %r#0 : !stencil.field<[-2,15]x[-6,15]xf32> -> !stencil.temp<?x?xf32>
  %cp = stencil.apply(%x = %fin : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf32>
    stencil.return %v : f32
  }
  stencil.store %cp to %r#1(<[0, 0], [12, 13]>) : !stencil.temp<?x?xf32> to !stencil.field<[-2,15]x[-6,15]xf32>
  func.return
}
