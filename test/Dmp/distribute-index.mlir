// RUN: stencil-opt %s --stencil-distribute="grid=3x2" | FileCheck %s

// stencil.index reads the global position: each per-rank copy takes where
// its rank's block starts along each decomposed dimension (relative to the
// domain's start) and the apply adds it to the local position. 31 points on
// 3 ranks: blocks of 11, 10, 10 starting at 0, 11, 21 = coord * 10 +
// min(coord, 1).
// CHECK-LABEL: func.func private @pos_dmp_11x13(
// CHECK-SAME: %{{.*}}: !stencil.field<[-1,12]x[-1,14]x[0,4]xf64>, %{{.*}}: !stencil.field<[-1,12]x[-1,14]x[0,4]xf64>, %[[S0:.*]]: index, %[[S1:.*]]: index)
// CHECK: stencil.apply(%{{.*}} = %{{.*}} : !stencil.temp<{{.*}}>, %[[A0:.*]] = %[[S0]] : index, %[[A1:.*]] = %[[S1]] : index)
// CHECK: %[[I:.*]] = stencil.index 0 <[1, 0, 0]>
// CHECK-NEXT: %[[GI:.*]] = arith.addi %[[I]], %[[A0]] : index
// CHECK: %[[J:.*]] = stencil.index 1 <[0, -2, 0]>
// CHECK-NEXT: %[[GJ:.*]] = arith.addi %[[J]], %[[A1]] : index
// The third dimension is not decomposed: its position is already global.
// CHECK: %[[K:.*]] = stencil.index 2 <[0, 0, 0]>
// CHECK: arith.muli %[[GI]], %{{.*}} : index
// CHECK-NOT: arith.addi %[[K]], %arg
// CHECK: stencil.return
// CHECK-LABEL: func.func private @pos_dmp_10x13(
// The dispatcher: the start along dimension 0 from the rank's coordinate.
// CHECK-LABEL: func.func @pos(
// CHECK: %[[C0:.*]] = arith.remui %{{.*}}, %c3 : index
// CHECK-DAG: %[[R0:.*]] = arith.minui %[[C0]], %c1 : index
// CHECK-DAG: %[[M0:.*]] = arith.muli %[[C0]], %c10 : index
// CHECK: %[[B0:.*]] = arith.addi %[[M0]], %[[R0]] : index
// CHECK: %[[C1:.*]] = arith.remui %{{.*}}, %c2{{.*}} : index
// CHECK-DAG: %[[R1:.*]] = arith.minui %[[C1]], %c0{{.*}} : index
// CHECK-DAG: %[[M1:.*]] = arith.muli %[[C1]], %c13 : index
// CHECK: %[[B1:.*]] = arith.addi %[[M1]], %[[R1]] : index
// CHECK: call @pos_dmp_11x13(%{{.*}}, %{{.*}}, %[[B0]], %[[B1]])
// CHECK: call @pos_dmp_10x13(%{{.*}}, %{{.*}}, %[[B0]], %[[B1]])
func.func @pos(%a : !stencil.field<[-1,32]x[-1,27]x[0,4]xf64>, %b : !stencil.field<[-1,32]x[-1,27]x[0,4]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,32]x[-1,27]x[0,4]xf64> -> !stencil.temp<?x?x?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
    %v = stencil.access %x[-1, 0, 0] : !stencil.temp<?x?x?xf64>
    %i = stencil.index 0 <[1, 0, 0]>
    %j = stencil.index 1 <[0, -2, 0]>
    %k = stencil.index 2 <[0, 0, 0]>
    %c100 = arith.constant 100 : index
    %i100 = arith.muli %i, %c100 : index
    %ij = arith.addi %i100, %j : index
    %ijk = arith.addi %ij, %k : index
    %n = arith.index_cast %ijk : index to i64
    %f = arith.sitofp %n : i64 to f64
    %r = arith.addf %v, %f : f64
    %res = stencil.store_result %r : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0, 0, 0], [31, 26, 4]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-1,32]x[-1,27]x[0,4]xf64>
  return
}
