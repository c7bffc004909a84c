// Found by stencil.randomgen (seed 4601, program 139): inter-tile reuse of
// the shared-memory boxes gave wrong results with full tiles isolated and
// hexagons of height 1 and width 6 (test/Integration/gpu-random-findings.py).
func.func @rnd139(%u0 : !stencil.field<?x?xf64>, %u1 : !stencil.field<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 5 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<?x?xf64>, !stencil.field<?x?xf64>) {
      %as = stencil.cast %a : !stencil.field<?x?xf64> -> !stencil.field<[-3,11]x[-1,17]xf64>
      %bs = stencil.cast %b : !stencil.field<?x?xf64> -> !stencil.field<[-3,11]x[-1,17]xf64>
      %in = stencil.load %as : !stencil.field<[-3,11]x[-1,17]xf64> -> !stencil.temp<?x?xf64>
      %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
        %v0 = stencil.access %a0[-2, 0] : !stencil.temp<?x?xf64>
        %w0 = arith.constant 0.25 : f64
        %p0 = arith.mulf %v0, %w0 : f64
        %v1 = stencil.access %a0[-2, -1] : !stencil.temp<?x?xf64>
        %w1 = arith.constant 0.125 : f64
        %p1 = arith.mulf %v1, %w1 : f64
        %s1 = arith.addf %p0, %p1 : f64
        %res = stencil.store_result %s1 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      stencil.store %r0 to %bs(<[0, 0], [11, 17]>) : !stencil.temp<?x?xf64> to !stencil.field<[-3,11]x[-1,17]xf64>
    scf.yield %b, %a : !stencil.field<?x?xf64>, !stencil.field<?x?xf64>
  }
  func.return
}
