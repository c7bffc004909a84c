// RUN: stencil-opt %s -stencil-inlining | FileCheck %s
// RUN: stencil-opt %s -stencil-inlining -canonicalize -cse | FileCheck %s --check-prefix=CANON

// Inlining a program that already has bounds infers them again: the fused
// apply reads the load directly, on a box that differs from the one the
// producer read (the producer's access for its unused result is gone).
// CHECK-LABEL: func.func @bounded
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} : !stencil.field<[-8,24]xf64> -> !stencil.temp<[-2,10]xf64>
// CHECK-NEXT:    %[[R:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<[-2,10]xf64>) -> (!stencil.temp<[0,8]xf64>) {
// CHECK-NEXT:      stencil.access %[[X]][-2] : !stencil.temp<[-2,10]xf64>
// CHECK-NEXT:      stencil.access %[[X]][0] : !stencil.temp<[-2,10]xf64>
// CHECK:           stencil.access %[[X]][0] : !stencil.temp<[-2,10]xf64>
// CHECK-NEXT:      stencil.access %[[X]][2] : !stencil.temp<[-2,10]xf64>
// CHECK:         stencil.store %[[R]] to %{{.*}}(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[-8,24]xf64>
// A second, unrelated function without bounds stays without bounds.
// CHECK-LABEL: func.func @unbounded
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<?xf64>
// CHECK-NEXT:    stencil.apply(%{{.*}} = %{{.*}} : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>)
// CHECK-NOT:     stencil.apply

// CANON-LABEL: func.func @bounded
// CANON:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<[-2,10]xf64>) -> (!stencil.temp<[0,8]xf64>) {
// CANON-NEXT:      %[[A:.*]] = stencil.access %[[X]][-2]
// CANON-NEXT:      %[[B:.*]] = stencil.access %[[X]][0]
// CANON-NEXT:      %[[L:.*]] = arith.addf %[[A]], %[[B]] : f64
// CANON-NEXT:      %[[C:.*]] = stencil.access %[[X]][2]
// CANON-NEXT:      %[[U:.*]] = arith.addf %[[B]], %[[C]] : f64
// CANON-NEXT:      %[[S:.*]] = arith.addf %[[L]], %[[U]] : f64
func.func @bounded(%in : !stencil.field<[-8,24]xf64>, %out : !stencil.field<[-8,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-8,24]xf64> -> !stencil.temp<[-6,10]xf64>
  %p:2 = stencil.apply(%x = %t : !stencil.temp<[-6,10]xf64>) -> (!stencil.temp<[-1,9]xf64>, !stencil.temp<[-1,9]xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<[-6,10]xf64>
    %u = stencil.access %x[1] : !stencil.temp<[-6,10]xf64>
    %s = arith.addf %l, %u : f64
    %far = stencil.access %x[-5] : !stencil.temp<[-6,10]xf64>
    %r0 = stencil.store_result %s : !stencil.result<f64>
    %r1 = stencil.store_result %far : !stencil.result<f64>
    stencil.return %r0, %r1 : !stencil.result<f64>, !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p#0 : !stencil.temp<[-1,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %l = stencil.access %y[-1] : !stencil.temp<[-1,9]xf64>
    %u = stencil.access %y[1] : !stencil.temp<[-1,9]xf64>
    %s = arith.addf %l, %u : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[-8,24]xf64>
  func.return
}

func.func @unbounded(%in : !stencil.field<[-8,24]xf64>, %out : !stencil.field<[-8,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-8,24]xf64> -> !stencil.temp<?xf64>
  %p = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %y[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-8,24]xf64>
  func.return
}
