// RUN: stencil-opt %s --stencil-distribute="grid=auto ranks=5,7" -split-input-file -verify-diagnostics

// Every rank count gives blocks too small for the radius-2 exchange.
// expected-error@+1 {{'func.func' op has blocks too small for its halo at every rank count of grid=auto: 5 ranks (5): an exchange 2 points wide in dimension 0, blocks of 1; 7 ranks (7): an exchange 2 points wide in dimension 0, blocks of 1}}
func.func @wide(%u0 : !stencil.field<[-2,10]x[-2,8]xf64>, %u1 : !stencil.field<[-2,10]x[-2,8]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-2,10]x[-2,8]xf64>, !stencil.field<[-2,10]x[-2,8]xf64>) {
    %in = stencil.load %a : !stencil.field<[-2,10]x[-2,8]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-2, 0] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[0, 2] : !stencil.temp<?x?xf64>
      %s = arith.addf %l, %r : f64
      %res = stencil.store_result %s : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [8, 6]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,10]x[-2,8]xf64>
    scf.yield %b, %a : !stencil.field<[-2,10]x[-2,8]xf64>, !stencil.field<[-2,10]x[-2,8]xf64>
  }
  return
}
