// A time loop of two applies over a rotating pair (Devito form: casts
// inside the loop), reduced from a random program: a promoted access whose
// time level differs by +1 from the write in one kernel and by -1 in the
// other (test/Integration/promoted-time-levels.py).
func.func @rnd22(%u0 : !stencil.field<?x?xf32>, %u1 : !stencil.field<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 2 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<?x?xf32>, !stencil.field<?x?xf32>) {
      %as = stencil.cast %a : !stencil.field<?x?xf32> -> !stencil.field<[-4,9]x[-3,17]xf32>
      %bs = stencil.cast %b : !stencil.field<?x?xf32> -> !stencil.field<[-4,9]x[-3,17]xf32>
      %in = stencil.load %as : !stencil.field<[-4,9]x[-3,17]xf32> -> !stencil.temp<?x?xf32>
      %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a0[0, 1] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 0.125 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a0[0, 0] : !stencil.temp<?x?xf32>
        %w1 = arith.constant 0.5 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %v2 = stencil.access %a0[0, 0] : !stencil.temp<?x?xf32>
        %w2 = arith.constant -1.0 : f32
        %p2 = arith.mulf %v2, %w2 : f32
        %s2 = arith.addf %s1, %p2 : f32
        %v3 = stencil.access %a0[0, -1] : !stencil.temp<?x?xf32>
        %w3 = arith.constant -1.0 : f32
        %p3 = arith.mulf %v3, %w3 : f32
        %s3 = arith.addf %s2, %p3 : f32
        %v4 = stencil.access %a0[0, 0] : !stencil.temp<?x?xf32>
        %w4 = arith.constant 0.25 : f32
        %p4 = arith.mulf %v4, %w4 : f32
        %s4 = arith.addf %s3, %p4 : f32
        %res = stencil.store_result %s4 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r1 = stencil.apply(%a1 = %r0 : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a1[0, 1] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 0.10000000149011612 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a1[0, 0] : !stencil.temp<?x?xf32>
        %w1 = arith.constant 0.10000000149011612 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %v2 = stencil.access %a1[-1, -1] : !stencil.temp<?x?xf32>
        %w2 = arith.constant -1.0 : f32
        %p2 = arith.mulf %v2, %w2 : f32
        %s2 = arith.addf %s1, %p2 : f32
        %res = stencil.store_result %s2 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      %r2 = stencil.apply(%a0 = %in : !stencil.temp<?x?xf32>, %a2 = %r0 : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %v0 = stencil.access %a2[1, 0] : !stencil.temp<?x?xf32>
        %w0 = arith.constant 0.25 : f32
        %p0 = arith.mulf %v0, %w0 : f32
        %v1 = stencil.access %a0[-2, -2] : !stencil.temp<?x?xf32>
        %w1 = arith.constant 1.5 : f32
        %p1 = arith.mulf %v1, %w1 : f32
        %s1 = arith.addf %p0, %p1 : f32
        %v2 = stencil.access %a2[3, 0] : !stencil.temp<?x?xf32>
        %w2 = arith.constant 0.20000000298023224 : f32
        %p2 = arith.mulf %v2, %w2 : f32
        %s2 = arith.addf %s1, %p2 : f32
        %res = stencil.store_result %s2 : !stencil.result<f32>
        stencil.return %res : !stencil.result<f32>
      }
      stencil.store %r2 to %bs(<[0, 0], [3, 14]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,9]x[-3,17]xf32>
    scf.yield %b, %a : !stencil.field<?x?xf32>, !stencil.field<?x?xf32>
  }
  %n0 = stencil.cast %r#0 : !stencil.field<?x?xf32> -> !stencil.field<[-4,9]x[-3,17]xf32>
  %n1 = stencil.cast %r#1 : !stencil.field<?x?xf32> -> !stencil.field<[-4,9]x[-3,17]xf32>
  %fin = stencil.load %n0 : !stencil.field<[-4,9]x[-3,17]xf32> -> !stencil.temp<?x?xf32>
  %cp = stencil.apply(%x = %fin : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf32>
    stencil.return %v : f32
  }
  stencil.store %cp to %n1(<[0, 0], [3, 14]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,9]x[-3,17]xf32>
  func.return
}
