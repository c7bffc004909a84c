// An apply reads field %b (at offsets) that the same sweep stores later:
// --fuse splits the sweep into two nests, the second of the one statement
// that stores into %b (fuse-programs.py).
func.func @read_before_store(%a : !stencil.field<[-1,17]x[-1,9]xf64>, %b : !stencil.field<[-1,17]x[-1,9]xf64>, %c : !stencil.field<[-1,17]x[-1,9]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,17]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %w = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %v, %w : f64
    %rr = stencil.store_result %s : !stencil.result<f64>
    stencil.return %rr : !stencil.result<f64>
  }
  %s = stencil.apply(%f = %b : !stencil.field<[-1,17]x[-1,9]xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %f[-1, 0] : !stencil.field<[-1,17]x[-1,9]xf64>
    %w = stencil.access %f[0, 1] : !stencil.field<[-1,17]x[-1,9]xf64>
    %s = arith.subf %v, %w : f64
    %rr = stencil.store_result %s : !stencil.result<f64>
    stencil.return %rr : !stencil.result<f64>
  }
  stencil.store %r to %b(<[0, 0], [16, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,17]x[-1,9]xf64>
  stencil.store %s to %c(<[0, 0], [16, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,17]x[-1,9]xf64>
  func.return
}
