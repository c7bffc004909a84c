// RUN: stencil-opt %s --stencil-hoist-out-of-branches | FileCheck %s

// Pure ops whose operands come from outside leave the branches, inner
// branches first; memory accesses, divisions by a value that may be zero
// and what depends on them stay.
// CHECK-LABEL: func.func @guards
func.func @guards(%m: memref<8xf32>, %t: index, %i: index, %d: index, %c: i1, %e: i1) {
  %c2 = arith.constant 2 : index
  // CHECK: %[[LEVEL:.*]] = arith.remsi %{{.*}}, %c2
  // CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[LEVEL]], %{{.*}}
  // CHECK-NEXT: %[[INNER:.*]] = arith.muli %[[ROW]], %c2
  // CHECK-NEXT: scf.if
  scf.if %c {
    %level = arith.remsi %t, %c2 : index
    %row = arith.addi %level, %i : index
    // CHECK-NEXT: memref.load
    // CHECK-NEXT: arith.divsi %{{.*}}, %{{.*}} : index
    // CHECK-NEXT: memref.store
    %v = memref.load %m[%row] : memref<8xf32>
    %q = arith.divsi %i, %d : index
    memref.store %v, %m[%q] : memref<8xf32>
    scf.if %e {
      %inner = arith.muli %row, %c2 : index
      // The sum of the loaded values leaves the inner branch, not the outer.
      // CHECK-NEXT: %[[FROM_LOAD:.*]] = arith.addf
      // CHECK-NEXT: scf.if
      // CHECK-NEXT: memref.store %[[FROM_LOAD]], %{{.*}}[%[[INNER]]]
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%inner] : memref<8xf32>
    }
  }
  return
}

// Both branches of an if-else give up what they compute from outside
// values; CSE merges the copies afterwards.
// CHECK-LABEL: func.func @both_branches
// CHECK: arith.addi
// CHECK-NEXT: arith.addi
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK: } else {
// CHECK-NEXT: memref.store
func.func @both_branches(%m: memref<8xf32>, %i: index, %c: i1, %v: f32) {
  %c1 = arith.constant 1 : index
  scf.if %c {
    %j = arith.addi %i, %c1 : index
    memref.store %v, %m[%j] : memref<8xf32>
  } else {
    %j = arith.addi %i, %c1 : index
    memref.store %v, %m[%j] : memref<8xf32>
  }
  return
}
