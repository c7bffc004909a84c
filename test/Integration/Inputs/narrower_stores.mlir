// Stores of different boxes in one function (as xDSL's stencil-inlining
// tests write them): the time loop updates u on the whole 40x24 domain and
// v only on [2, 38) x [4, 20), from u's neighbours; w, after the loop, on
// [3, 40) x [0, 24). --stencil-distribute decomposes the stores' bounding
// box; each rank writes each store's part of its block.
func.func @narrower(%u0 : !stencil.field<[-1,41]x[-1,25]xf64>, %u1 : !stencil.field<[-1,41]x[-1,25]xf64>, %v : !stencil.field<[-1,41]x[-1,25]xf64>, %w : !stencil.field<[-1,41]x[-1,25]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r:2 = scf.for %t = %c0 to %c5 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,41]x[-1,25]xf64>, !stencil.field<[-1,41]x[-1,25]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,41]x[-1,25]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
      %d = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
      %up = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %s1 = arith.addf %l, %r : f64
      %s2 = arith.addf %d, %up : f64
      %s = arith.addf %s1, %s2 : f64
      %q = arith.constant 0.25 : f64
      %m = arith.mulf %s, %q : f64
      %res = stencil.store_result %m : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    %n = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-1, 1] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[1, -1] : !stencil.temp<?x?xf64>
      %s = arith.subf %l, %r : f64
      %res = stencil.store_result %s : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [40, 24]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,41]x[-1,25]xf64>
    stencil.store %n to %v(<[2, 4], [38, 20]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,41]x[-1,25]xf64>
    scf.yield %b, %a : !stencil.field<[-1,41]x[-1,25]xf64>, !stencil.field<[-1,41]x[-1,25]xf64>
  }
  %fin = stencil.load %r#0 : !stencil.field<[-1,41]x[-1,25]xf64> -> !stencil.temp<?x?xf64>
  %g = stencil.apply(%x = %fin : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
    %c = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %s = arith.subf %c, %l : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %g to %w(<[3, 0], [40, 24]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,41]x[-1,25]xf64>
  return
}
