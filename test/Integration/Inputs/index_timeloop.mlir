// A time loop over index fields (two applies per step, asymmetric offsets):
// their element size is 8 bytes for the tile-size model, the fusion buffers
// and shared-memory promotion.
func.func @index_steps(%a: !stencil.field<[-2,34]x[-2,34]xindex>, %b: !stencil.field<[-2,34]x[-2,34]xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 5 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (!stencil.field<[-2,34]x[-2,34]xindex>, !stencil.field<[-2,34]x[-2,34]xindex>) {
    %t = stencil.load %x : !stencil.field<[-2,34]x[-2,34]xindex> -> !stencil.temp<?x?xindex>
    %o = stencil.apply(%u = %t : !stencil.temp<?x?xindex>) -> (!stencil.temp<?x?xindex>) {
      %l = stencil.access %u[-1, 0] : !stencil.temp<?x?xindex>
      %r = stencil.access %u[1, 1] : !stencil.temp<?x?xindex>
      %one = arith.constant 1 : index
      %s = arith.addi %l, %r : index
      %s1 = arith.addi %s, %one : index
      stencil.return %s1 : index
    }
    %t2 = stencil.load %y : !stencil.field<[-2,34]x[-2,34]xindex> -> !stencil.temp<?x?xindex>
    %o2 = stencil.apply(%u = %o : !stencil.temp<?x?xindex>, %w = %t2 : !stencil.temp<?x?xindex>) -> (!stencil.temp<?x?xindex>) {
      %l = stencil.access %u[0, -1] : !stencil.temp<?x?xindex>
      %r = stencil.access %u[0, 1] : !stencil.temp<?x?xindex>
      %q = stencil.access %w[0, 0] : !stencil.temp<?x?xindex>
      %s = arith.addi %l, %r : index
      %s2 = arith.addi %s, %q : index
      stencil.return %s2 : index
    }
    stencil.store %o2 to %y(<[0, 0], [32, 32]>) : !stencil.temp<?x?xindex> to !stencil.field<[-2,34]x[-2,34]xindex>
    scf.yield %y, %x : !stencil.field<[-2,34]x[-2,34]xindex>, !stencil.field<[-2,34]x[-2,34]xindex>
  }
  func.return
}
