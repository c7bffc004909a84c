// RUN: not stencil-opt %s --stencil-distribute="grid=2xa" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not stencil-opt %s --stencil-distribute="grid=2x0" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not stencil-opt %s --stencil-distribute="grid=2x2x2x2" 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not stencil-opt %s --stencil-distribute 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not stencil-opt %s --stencil-distribute="grid=2 depth=0" 2>&1 | FileCheck %s --check-prefix=DEPTH
// RUN: stencil-opt %s --stencil-distribute="grid=3" | FileCheck %s --check-prefix=ONE
// BAD: error: --stencil-distribute: grid={{.*}} is not a list of positive rank counts such as 2x2
// DEEP: error: --stencil-distribute: grid=2x2x2x2 has more than 3 dimensions
// NONE: error: --stencil-distribute needs grid=PxQ (ranks per dimension)
// DEPTH: error: --stencil-distribute: depth=0 is not a number of steps (1: exchange every step)
// 32 = 11 + 11 + 10 along dimension 0 only: two block shapes.
// ONE: func.func private @f_dmp_11(
// ONE: #dmp.grid_slice_1d<#dmp.topo<3>, false>
// ONE: func.func private @f_dmp_10(
// ONE: func.func @f({{.*}}dmp.grid = array<i64: 3>
func.func @f(%u0 : !stencil.field<[-1,33]x[-1,33]xf64>, %u1 : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %c1 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]x[-1,33]xf64>, !stencil.field<[-1,33]x[-1,33]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %x[-1, 1] : !stencil.temp<?x?xf64>
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]x[-1,33]xf64>, !stencil.field<[-1,33]x[-1,33]xf64>
  }
  return
}
