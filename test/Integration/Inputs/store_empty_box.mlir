// A store of an empty box stores nothing; the temp it stores needs no point.
func.func @store_nothing(%a: !stencil.field<[-1,9]xf64>, %b: !stencil.field<[-1,9]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf64>
    stencil.return %l : f64
  }
  stencil.store %o to %b(<[3], [3]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
  func.return
}
