// A heat step with a source that depends on the global position: the
// stencil.index results must be global coordinates on every rank.
func.func @pos(%u0 : !stencil.field<[-1,32]x[-1,27]xf64>, %u1 : !stencil.field<[-1,32]x[-1,27]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 5 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,32]x[-1,27]xf64>, !stencil.field<[-1,32]x[-1,27]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,32]x[-1,27]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %w = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %e = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
      %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
      %nn = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %v1 = arith.addf %w, %e : f64
      %v2 = arith.addf %s, %nn : f64
      %v = arith.addf %v1, %v2 : f64
      %q = arith.constant 0.25 : f64
      %avg = arith.mulf %v, %q : f64
      %i = stencil.index 0 <[1, 0]>
      %j = stencil.index 1 <[0, -2]>
      %c100 = arith.constant 100 : index
      %i100 = arith.muli %i, %c100 : index
      %ij = arith.addi %i100, %j : index
      %iji = arith.index_cast %ij : index to i64
      %ijf = arith.sitofp %iji : i64 to f64
      %eps = arith.constant 0.0001 : f64
      %src = arith.mulf %ijf, %eps : f64
      %c7 = arith.constant 7 : index
      %edge = arith.cmpi slt, %i, %c7 : index
      %zero = arith.constant 0.0 : f64
      %srcm = arith.select %edge, %zero, %src : f64
      %res0 = arith.addf %avg, %srcm : f64
      %res = stencil.store_result %res0 : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [31, 26]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,32]x[-1,27]xf64>
    scf.yield %b, %a : !stencil.field<[-1,32]x[-1,27]xf64>, !stencil.field<[-1,32]x[-1,27]xf64>
  }
  return
}
