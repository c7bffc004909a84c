// A 3D diffusion step whose weights come from lower-rank fields, as climate
// codes hold vertical profiles and latitude factors: %c over dimension 2
// (read at k-1, k, k+1), %s over dimensions 1 and 2, %p over dimension 0
// with a wider halo than %u's (read at i-2 and i+1). Distributed, each rank
// holds what its block reads of them.
func.func @column(%u0 : !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>, %u1 : !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>,
                  %c : !stencil.field<[-1,9]xf64>, %s : !stencil.field<[0,12]x[0,8]xf64>,
                  %p : !stencil.field<[-2,21]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %ct = stencil.load %c : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  %st = stencil.load %s : !stencil.field<[0,12]x[0,8]xf64> -> !stencil.temp<?x?xf64>
  %pt = stencil.load %p : !stencil.field<[-2,21]xf64> -> !stencil.temp<?xf64>
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>, !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64> -> !stencil.temp<?x?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?x?xf64>, %w = %ct : !stencil.temp<?xf64>, %v = %st : !stencil.temp<?x?xf64>, %lat = %pt : !stencil.temp<?xf64>) -> (!stencil.temp<?x?x?xf64>) {
      %xw = stencil.access %x[-1, 0, 0] : !stencil.temp<?x?x?xf64>
      %xe = stencil.access %x[1, 0, 0] : !stencil.temp<?x?x?xf64>
      %xs = stencil.access %x[0, -1, 0] : !stencil.temp<?x?x?xf64>
      %xn = stencil.access %x[0, 1, 0] : !stencil.temp<?x?x?xf64>
      %xd = stencil.access %x[0, 0, -1] : !stencil.temp<?x?x?xf64>
      %xu = stencil.access %x[0, 0, 1] : !stencil.temp<?x?x?xf64>
      %wd = stencil.access %w[_, _, -1] : !stencil.temp<?xf64>
      %wc = stencil.access %w[_, _, 0] : !stencil.temp<?xf64>
      %wu = stencil.access %w[_, _, 1] : !stencil.temp<?xf64>
      %vv = stencil.access %v[_, 0, 0] : !stencil.temp<?x?xf64>
      %qw = stencil.access %lat[-2, _, _] : !stencil.temp<?xf64>
      %qe = stencil.access %lat[1, _, _] : !stencil.temp<?xf64>
      %h1 = arith.addf %xw, %xe : f64
      %h2 = arith.addf %xs, %xn : f64
      %h = arith.addf %h1, %h2 : f64
      %hv = arith.mulf %h, %vv : f64
      %z1 = arith.mulf %xd, %wd : f64
      %z2 = arith.mulf %xu, %wu : f64
      %z = arith.addf %z1, %z2 : f64
      %zc = arith.mulf %z, %wc : f64
      %qq = arith.addf %qw, %qe : f64
      %hq = arith.mulf %hv, %qq : f64
      %sum = arith.addf %hq, %zc : f64
      %q = arith.constant 0.125 : f64
      %res0 = arith.mulf %sum, %q : f64
      %res = stencil.store_result %res0 : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0, 0], [20, 12, 8]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>, !stencil.field<[-1,21]x[-1,13]x[-1,9]xf64>
  }
  return
}
