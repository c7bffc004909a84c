// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=2 block-loops=true" -split-input-file -verify-diagnostics

// Rolling a block's steps into a loop moves its swaps before the loop: a
// swapped field made inside the step (other than by casts) cannot move.
func.func @selected(%u0 : !stencil.field<[-1,33]xf64>, %u1 : !stencil.field<[-1,33]xf64>, %c : i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    %f = arith.select %c, %a, %b : !stencil.field<[-1,33]xf64>
    // expected-error@+1 {{'dmp.swap' op exchanges a field made inside its block of steps, which cannot be rolled into a loop}}
    %in = stencil.load %f : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %w = stencil.access %x[-1] : !stencil.temp<?xf64>
      %e = stencil.access %x[1] : !stencil.temp<?xf64>
      %v = arith.addf %w, %e : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %f(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}
