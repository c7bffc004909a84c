// A time loop whose update takes a square root (as the Open Earth
// Compiler's hdiffsmag does).
func.func @sqrt_steps(%a: !stencil.field<[-1,33]x[-1,17]xf64>, %b: !stencil.field<[-1,33]x[-1,17]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (!stencil.field<[-1,33]x[-1,17]xf64>, !stencil.field<[-1,33]x[-1,17]xf64>) {
    %t = stencil.load %x : !stencil.field<[-1,33]x[-1,17]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%u = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %w = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      %e = stencil.access %u[1, 0] : !stencil.temp<?x?xf64>
      %n1 = stencil.access %u[0, 1] : !stencil.temp<?x?xf64>
      %p = arith.mulf %w, %e : f64
      %q = arith.addf %p, %n1 : f64
      %s = math.sqrt %q : f64
      stencil.return %s : f64
    }
    stencil.store %o to %y(<[0, 0], [32, 16]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,17]xf64>
    scf.yield %y, %x : !stencil.field<[-1,33]x[-1,17]xf64>, !stencil.field<[-1,33]x[-1,17]xf64>
  }
  func.return
}
