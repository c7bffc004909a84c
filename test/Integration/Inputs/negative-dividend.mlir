// Found by stencil.randomgen --hex-tile --emulate-gpu --race-check (seed 4702,
// program 148): a loop bound divided a negative number as unsigned, and the
// emulated kernel hung (test/Integration/gpu-random-findings.py).
func.func @rnd148(%u0 : !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>, %u1 : !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 7 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>, !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>) {
      %in = stencil.load %a : !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32> -> !stencil.temp<?x?x?xf32>
      %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?x?xf32>) -> (!stencil.temp<?x?x?xf32>) {
        %v0 = stencil.access %a0[-2, -2, 2] : !stencil.temp<?x?x?xf32>
        %w0 = arith.constant 0.25 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a0[-2, 3, 0] : !stencil.temp<?x?x?xf32>
        %w1 = arith.constant 0.125 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %v2 = stencil.access %a0[-3, -3, 1] : !stencil.temp<?x?x?xf32>
        %w2 = arith.constant 0.10000000149011612 : f32
        %p2 = arith.mulf %v2, %w2 : f32
        %s2 = arith.addf %s1, %p2 : f32
        %v3 = stencil.access %a0[0, 0, 1] : !stencil.temp<?x?x?xf32>
        %w3 = arith.constant 0.10000000149011612 : f32
        %p3 = arith.mulf %v3, %w3 : f32
        %s3 = arith.addf %s2, %p3 : f32
        %v4 = stencil.access %a0[0, -1, -3] : !stencil.temp<?x?x?xf32>
        %w4 = arith.constant -1.0 : f32
        %p4 = arith.mulf %v4, %w4 : f32
        %s4 = arith.addf %s3, %p4 : f32
        %res = stencil.store_result %s4 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r1 = stencil.apply(%a1 = %r0 : !stencil.temp<?x?x?xf32>) -> (!stencil.temp<?x?x?xf32>) {
        %v0 = stencil.access %a1[0, -2, 0] : !stencil.temp<?x?x?xf32>
        %w0 = arith.constant 0.5 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %res = stencil.store_result %p0 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r2 = stencil.apply(%a2 = %r1 : !stencil.temp<?x?x?xf32>) -> (!stencil.temp<?x?x?xf32>) {
        %v0 = stencil.access %a2[0, 2, 0] : !stencil.temp<?x?x?xf32>
        %w0 = arith.constant 0.75 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %res = stencil.store_result %p0 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      stencil.store %r2 to %b(<[0, 0, 0], [6, 4, 4]>) : !stencil.temp<?x?x?xf32> to !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>
    scf.yield %b, %a : !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>, !stencil.field<[-4,7]x[-5,7]x[-4,7]xf32>
  }
  func.return
}
