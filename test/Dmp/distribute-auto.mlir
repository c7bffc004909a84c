// RUN: stencil-opt %s --stencil-distribute="grid=auto ranks=1,2,4,5,49" | FileCheck %s
// RUN: stencil-opt %s --stencil-distribute="grid=auto ranks=1,2,4,5,49" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %s --stencil-distribute="grid=auto" | FileCheck %s --check-prefix=DEFAULT
// RUN: not stencil-opt %s --stencil-distribute="grid=2 ranks=2" 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not stencil-opt %s --stencil-distribute="grid=auto ranks=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// FIXED: error: --stencil-distribute: ranks= needs grid=auto (grid=2 fixes the rank count)
// ZERO: error: --stencil-distribute: ranks=0 is not a positive rank count

// A radius-2 stencil over 8x6 points. Per rank count the grid of
// MPI_Dims_create over 2 dimensions, trailing 1s dropped: 1 -> 1, 2 -> 2,
// 4 -> 2x2 get a private dispatcher and copies each; 5 -> 5 gives blocks
// of 1 point, narrower than the exchange, and 49 -> 7x7 more ranks than
// the 6 points of dimension 1: no decomposition, named in a remark.
// CHECK: llvm.mlir.global internal constant @wide_grids("1, 2, 2x2\00")
// CHECK: func.func private @wide_g1_dmp_8(%{{.*}}: !stencil.field<[-2,10]x[-2,8]xf64>
// CHECK: func.func private @wide_g1(
// CHECK-SAME: dmp.grid = array<i64: 1>, dmp.halo = array<i64: 2>
// CHECK: call @stencil_mpi_enter(%{{.*}}, %c1_i64)
// CHECK: func.func private @wide_g2_dmp_4(%{{.*}}: !stencil.field<[-2,6]x[-2,8]xf64>
// CHECK: #dmp.grid_slice_1d<#dmp.topo<2>, false>
// CHECK: func.func private @wide_g2(
// CHECK: func.func private @wide_g2x2_dmp_4x3(%{{.*}}: !stencil.field<[-2,6]x[-2,5]xf64>
// CHECK: #dmp.grid_slice_2d<#dmp.topo<2x2>, false>
// CHECK: func.func private @wide_g2x2(
// CHECK-SAME: dmp.grid = array<i64: 2, 2>, dmp.halo = array<i64: 2, 2>
// CHECK-NOT: @wide_g5
// CHECK-NOT: @wide_g7x7
// The function picks at run time the grid MPI_Dims_create gives the
// communicator's size, encoded 20 bits per dimension (2x2: 2 + 2 << 20).
// CHECK: func.func @wide(%{{.*}}: !stencil.field<?x?xf64>, %{{.*}}: !stencil.field<?x?xf64>, %[[COMM:.*]]: !llvm.ptr)
// CHECK-SAME: dmp.core_lb = array<i64: 0, 0>, dmp.core_ub = array<i64: 8, 6>
// CHECK-SAME: dmp.grids = [array<i64: 1>, array<i64: 2>, array<i64: 2, 2>], dmp.halos = [array<i64: 2>, array<i64: 2>, array<i64: 2, 2>]
// CHECK-NOT: dmp.grid =
// CHECK: %[[CODE:.*]] = call @stencil_mpi_grid_code(%[[COMM]], %c2_i64)
// CHECK: scf.index_switch
// CHECK-NEXT: case 1048577 {
// CHECK-NEXT: func.call @wide_g1(
// CHECK: case 1048578 {
// CHECK-NEXT: func.call @wide_g2(
// CHECK: case 2097154 {
// CHECK-NEXT: func.call @wide_g2x2(
// CHECK: default {
// CHECK: func.call @stencil_mpi_no_grid(%[[CODE]], %c2_i64,
// Default rank counts 1 to 8: 1, 2, 3, 2x2, 5 (dropped), 3x2, 7 (dropped),
// 4x2.
// DEFAULT: @wide_grids("1, 2, 3, 2x2, 3x2, 4x2\00")
// expected-remark@+1 {{grid=auto: no decomposition for 5 ranks (5): an exchange 2 points wide in dimension 0, blocks of 1; 49 ranks (7x7): 7 ranks for 6 points in dimension 1}}
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
