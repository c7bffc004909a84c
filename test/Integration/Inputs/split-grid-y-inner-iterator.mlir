// stencil.randomgen --split-tile --default-sizes --emulate-gpu (seed 5901,
// program 122): see gpu-random-findings.py.
func.func @rnd122(%u0 : !stencil.field<?x?x?xf64>, %u1 : !stencil.field<?x?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 2 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<?x?x?xf64>, !stencil.field<?x?x?xf64>) {
      %as = stencil.cast %a : !stencil.field<?x?x?xf64> -> !stencil.field<[-5,10]x[-2,9]x[-8,11]xf64>
      %bs = stencil.cast %b : !stencil.field<?x?x?xf64> -> !stencil.field<[-5,10]x[-2,9]x[-8,11]xf64>
      %in = stencil.load %as : !stencil.field<[-5,10]x[-2,9]x[-8,11]xf64> -> !stencil.temp<?x?x?xf64>
      %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
        %v0 = stencil.access %a0[0, 2, 0] : !stencil.temp<?x?x?xf64>
        %w0 = arith.constant 0.2 : f64
        %p0 = arith.mulf %v0, %w0 : f64
        %v1 = stencil.access %a0[0, 3, -3] : !stencil.temp<?x?x?xf64>
        %w1 = arith.constant 0.75 : f64
        %p1 = arith.mulf %v1, %w1 : f64
        %s1 = arith.addf %p0, %p1 : f64
        %v2 = stencil.access %a0[-2, 0, 0] : !stencil.temp<?x?x?xf64>
        %w2 = arith.constant 0.2 : f64
        %p2 = arith.mulf %v2, %w2 : f64
        %s2 = arith.addf %s1, %p2 : f64
        %v3 = stencil.access %a0[1, 2, 3] : !stencil.temp<?x?x?xf64>
        %w3 = arith.constant 0.1 : f64
        %p3 = arith.mulf %v3, %w3 : f64
        %s3 = arith.addf %s2, %p3 : f64
        %res = stencil.store_result %s3 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      %r1 = stencil.apply(%a0 = %in : !stencil.temp<?x?x?xf64>, %a1 = %r0 : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
        %v0 = stencil.access %a1[0, -2, -1] : !stencil.temp<?x?x?xf64>
        %w0 = arith.constant 0.5 : f64
        %p0 = arith.mulf %v0, %w0 : f64
        %v1 = stencil.access %a0[0, 0, -1] : !stencil.temp<?x?x?xf64>
        %w1 = arith.constant 0.125 : f64
        %p1 = arith.mulf %v1, %w1 : f64
        %s1 = arith.addf %p0, %p1 : f64
        %res = stencil.store_result %s1 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      %r2 = stencil.apply(%a2 = %r1 : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
        %v0 = stencil.access %a2[-1, 0, 0] : !stencil.temp<?x?x?xf64>
        %w0 = arith.constant 0.125 : f64
        %p0 = arith.mulf %v0, %w0 : f64
        %v1 = stencil.access %a2[-3, 1, -3] : !stencil.temp<?x?x?xf64>
        %w1 = arith.constant 1.5 : f64
        %p1 = arith.mulf %v1, %w1 : f64
        %s1 = arith.addf %p0, %p1 : f64
        %v2 = stencil.access %a2[2, 1, 3] : !stencil.temp<?x?x?xf64>
        %w2 = arith.constant 0.2 : f64
        %p2 = arith.mulf %v2, %w2 : f64
        %s2 = arith.addf %s1, %p2 : f64
        %res = stencil.store_result %s2 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      stencil.store %r2 to %bs(<[0, 0, 0], [6, 5, 6]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-5,10]x[-2,9]x[-8,11]xf64>
    scf.yield %b, %a : !stencil.field<?x?x?xf64>, !stencil.field<?x?x?xf64>
  }
  func.return
}
