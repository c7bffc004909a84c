// A cellular automaton on an i1 field (a byte per element in memory).
func.func @bool_steps(%a: !stencil.field<[-1,21]x[-1,13]xi1>, %b: !stencil.field<[-1,21]x[-1,13]xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 6 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (!stencil.field<[-1,21]x[-1,13]xi1>, !stencil.field<[-1,21]x[-1,13]xi1>) {
    %t = stencil.load %x : !stencil.field<[-1,21]x[-1,13]xi1> -> !stencil.temp<?x?xi1>
    %o = stencil.apply(%u = %t : !stencil.temp<?x?xi1>) -> (!stencil.temp<?x?xi1>) {
      %w = stencil.access %u[-1, 0] : !stencil.temp<?x?xi1>
      %e = stencil.access %u[1, 0] : !stencil.temp<?x?xi1>
      %n1 = stencil.access %u[0, 1] : !stencil.temp<?x?xi1>
      %c = stencil.access %u[0, 0] : !stencil.temp<?x?xi1>
      %p = arith.xori %w, %e : i1
      %q = arith.andi %n1, %c : i1
      %s = arith.xori %p, %q : i1
      stencil.return %s : i1
    }
    stencil.store %o to %y(<[0, 0], [20, 12]>) : !stencil.temp<?x?xi1> to !stencil.field<[-1,21]x[-1,13]xi1>
    scf.yield %y, %x : !stencil.field<[-1,21]x[-1,13]xi1>, !stencil.field<[-1,21]x[-1,13]xi1>
  }
  func.return
}
