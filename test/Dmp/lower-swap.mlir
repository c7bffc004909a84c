// RUN: stencil-opt %s --convert-stencil-to-loops | FileCheck %s

// A pair of face exchanges lowered (the first shown): the rank's grid coordinates, the neighbour (or
// -1 at the edge of the grid), packing the sent box under the edge test,
// receive and send posted, one wait for all, unpacking under the same test.
// CHECK-LABEL: func.func @swap(
// CHECK: %[[RANK:.*]] = call @stencil_mpi_grid_rank(%c4_i64) : (i64) -> i64
// CHECK: %[[VALID:.*]] = arith.andi
// CHECK: %[[PEER:.*]] = arith.select %[[VALID]], %{{.*}}, %c-1_i64 : i64
// CHECK: %[[SEND:.*]] = memref.alloc() : memref<1x32xf64>
// CHECK: %[[RECV:.*]] = memref.alloc() : memref<1x32xf64>
// Boxes are in the domain's coordinates: the row sent, 31 (32 + source
// offset -1), is row 32 of the buffer that starts at -1; the row received,
// 32, is row 33.
// CHECK: scf.if %[[VALID]] {
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c32{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %c1{{.*}} : index
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK: memref.store %{{.*}}, %[[SEND]][
// CHECK: call @stencil_mpi_irecv(%{{.*}}, %c256_i64, %[[PEER]], %c1_i64)
// CHECK: call @stencil_mpi_isend(%{{.*}}, %c256_i64, %[[PEER]], %c7_i64)
// CHECK: call @stencil_mpi_waitall()
// CHECK: scf.if %[[VALID]] {
// CHECK: memref.load %[[RECV]][
// CHECK: %[[ROW2:.*]] = arith.addi %{{.*}}, %c33{{.*}} : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW2]],
// CHECK: memref.dealloc %[[SEND]]
// CHECK: memref.dealloc %[[RECV]]
func.func @swap(%u : !stencil.field<[-1,33]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  return
}

// Consecutive swaps exchange in one round: both fields' messages posted
// (the second swap's tags offset by 27), one wait, then both unpacked.
// CHECK-LABEL: func.func @two_swaps(
// CHECK: call @stencil_mpi_grid_rank(
// CHECK-NOT: call @stencil_mpi_grid_rank(
// CHECK: call @stencil_mpi_isend(%{{.*}}, %c256_i64, %{{.*}}, %c7_i64)
// CHECK: call @stencil_mpi_isend(%{{.*}}, %c256_i64{{.*}}, %{{.*}}, %c34_i64)
// CHECK: call @stencil_mpi_waitall()
// CHECK-NOT: call @stencil_mpi_waitall()
// CHECK: return
func.func @two_swaps(%u : !stencil.field<[-1,33]x[-1,33]xf64>, %v : !stencil.field<[-1,33]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  "dmp.swap"(%v) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  return
}
