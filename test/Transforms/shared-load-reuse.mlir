// RUN: stencil-opt %s --stencil-shared-load-reuse | FileCheck %s

// Within a block of a kernel, a workgroup element is loaded once: a second
// load of the same buffer and indices reuses the first, a store to another
// time level (a different constant index) keeps it, a store there forwards
// its value, a store that may touch it, a barrier and a loop body forget.
// Global memory is left alone.

// CHECK-LABEL: func.func @reuse
// CHECK: gpu.launch
// CHECK: %[[A:.*]] = memref.load %[[SH:.*]][%c0, %[[I:.*]]] : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.store %[[A]], %[[SH]][%c1, %[[I]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %[[SH]][%c1, %[[J:.*]]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[SUM]], %[[A]] : f32
// CHECK-NEXT: memref.store %[[SQ]], %[[SH]][%[[L:.*]], %[[I]]]
// CHECK-NEXT: %[[RELOAD:.*]] = memref.load %[[SH]][%c0, %[[I]]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[RELOAD]], %[[G:.*]][%[[I]]] : memref<64xf32>
// CHECK-NEXT: memref.store %[[RELOAD]], %[[SH]][%c0, %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[AFTER:.*]] = memref.load %[[SH]][%c0, %[[J]]]
// CHECK-NEXT: %[[GL:.*]] = memref.load %[[G]][%[[I]]] : memref<64xf32>
// CHECK-NEXT: %[[GL2:.*]] = memref.load %[[G]][%[[I]]] : memref<64xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[B:.*]] = memref.load %[[SH]][%c0, %[[I]]]
// CHECK: scf.for
// CHECK-NEXT: %[[INLOOP:.*]] = memref.load %[[SH]][%c0, %[[I]]]
func.func @reuse(%g : memref<64xf32>, %i : index, %j : index, %l : index, %c : i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<2x64xf32, #gpu.address_space<workgroup>>) {
    %a = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    // Another time level: %a stays known.
    memref.store %a, %sh[%c1, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %a2 = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %a, %a2 : f32
    // Forwarded to the load below.
    memref.store %sum, %sh[%c1, %j] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %s2 = memref.load %sh[%c1, %j] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %a3 = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %sq = arith.mulf %s2, %a3 : f32
    // An unknown level may be level 0: %a is forgotten.
    memref.store %sq, %sh[%l, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %a4 = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    scf.if %c {
      // A branch starts with what is known before it.
      %a5 = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
      memref.store %a5, %g[%i] : memref<64xf32>
      memref.store %a4, %sh[%c0, %j] : memref<2x64xf32, #gpu.address_space<workgroup>>
    }
    // The branch's store may have happened: reload.
    %b0 = memref.load %sh[%c0, %j] : memref<2x64xf32, #gpu.address_space<workgroup>>
    // Global loads stay.
    %g1 = memref.load %g[%i] : memref<64xf32>
    %g2 = memref.load %g[%i] : memref<64xf32>
    gpu.barrier
    %b = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %c4 step %c1 {
      // A loop body starts with nothing known.
      %x = memref.load %sh[%c0, %i] : memref<2x64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %sh[%c1, %k] : memref<2x64xf32, #gpu.address_space<workgroup>>
    }
    %use = arith.addf %b0, %b : f32
    %use2 = arith.addf %g1, %g2 : f32
    memref.store %use, %g[%j] : memref<64xf32>
    memref.store %use2, %g[%l] : memref<64xf32>
    gpu.terminator
  }
  return
}

// A store through a view of a workgroup buffer may touch any element of
// it: the base's loads are forgotten. Distinct attributions stay apart.
// CHECK-LABEL: func.func @views
// CHECK: %[[X:.*]] = memref.load %[[A:.*]][%c0] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[B:.*]][%c0] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.store %[[X]], %[[B]][%c0]
// CHECK-NEXT: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: memref.store %[[Y]], %[[V]][%c0] : memref<8xf32, strided<[1]>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[X2:.*]] = memref.load %[[A]][%c0]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X2]], %[[X]]
// CHECK-NEXT: arith.addf %[[S]], %[[X2]]
func.func @views(%g : memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>,
                       %b : memref<64xf32, #gpu.address_space<workgroup>>) {
    %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    // Another attribution: %x stays known.
    memref.store %x, %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %v = memref.subview %a[0] [8] [1] : memref<64xf32, #gpu.address_space<workgroup>> to memref<8xf32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %y, %v[%c0] : memref<8xf32, strided<[1]>, #gpu.address_space<workgroup>>
    // A view of %a was written: reload.
    %x2 = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %x3 = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %x2, %x : f32
    %t = arith.addf %s, %x3 : f32
    memref.store %t, %g[%c0] : memref<64xf32>
    gpu.terminator
  }
  return
}
