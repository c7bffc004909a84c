// RUN: stencil-opt %s --stencil-distribute="grid=4" -split-input-file | FileCheck %s
// RUN: stencil-opt %s --stencil-distribute="grid=auto" -split-input-file 2>&1 | FileCheck %s --check-prefix=AUTO
// grid=auto leaves out 8 ranks: blocks of 4, and [0, 4) misses [4, 30).
// AUTO: remark: grid=auto: no decomposition for 8 ranks (8): a store of [4, 30) in dimension 0 misses the blocks of some ranks
// AUTO: @f_grids("1, 2, 3, 4, 5, 6, 7\00")

// Stores of different boxes: the domain is their bounding box [0, 32),
// cut into blocks of 8; each rank writes each store's part of its block.
// The store of [4, 30) covers [4, 8) of block 0, all of blocks 1 and 2 and
// [0, 6) of block 3: three classes of one size, named by their number.
// CHECK-LABEL: func.func private @f_dmp_8c0(
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[4], [8]>)
// CHECK-LABEL: func.func private @f_dmp_8c1(
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
// CHECK-LABEL: func.func private @f_dmp_8c2(
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [6]>)
// The dispatcher picks the class by coordinate: 1 for coordinates 1 and 2,
// 2 for coordinate 3.
// CHECK-LABEL: func.func @f(
// CHECK-SAME: dmp.core_lb = array<i64: 0>, dmp.core_ub = array<i64: 32>
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[COORD:.*]], %c1{{.*}} : index
// CHECK: %[[TWO:.*]] = arith.cmpi eq, %[[COORD]], %c2{{.*}} : index
// CHECK: %[[EITHER:.*]] = arith.ori %[[ONE]], %[[TWO]] : i1
// CHECK: arith.select %[[EITHER]], %c1
// CHECK: %[[THREE:.*]] = arith.cmpi eq, %[[COORD]], %c3{{.*}} : index
// CHECK: arith.select %[[THREE]], %c2
func.func @f(%a : !stencil.field<[-1,33]xf64>, %b : !stencil.field<[-1,33]xf64>, %c : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf64>
    %res = stencil.store_result %l : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %p = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %r = stencil.access %x[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %r : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  stencil.store %p to %c(<[4], [30]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  return
}

// -----

// Block 0 writes [3, 8) of the second store and reads [2, 8) of %b: of
// itself nothing beyond its block. Its neighbour reads one point of it,
// so block 0 exchanges as every block does (partners move the same
// boxes).
// CHECK-LABEL: func.func private @g_dmp_8c0(
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<4>, false>, swaps = [#dmp.exchange<at [-1] size [1] source offset [1] to [-1]>, #dmp.exchange<at [8] size [1] source offset [-1] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[3], [8]>)
// CHECK-LABEL: func.func private @g_dmp_8c1(
// CHECK: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<4>, false>, swaps = [#dmp.exchange<at [-1] size [1] source offset [1] to [-1]>, #dmp.exchange<at [8] size [1] source offset [-1] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [8]>)
func.func @g(%a : !stencil.field<[-1,33]xf64>, %b : !stencil.field<[-1,33]xf64>, %c : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %l : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  %u = stencil.load %b : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  %p = stencil.apply(%x = %u : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf64>
    %res = stencil.store_result %l : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %p to %c(<[3], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  return
}
