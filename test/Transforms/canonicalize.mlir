// RUN: stencil-opt %s -canonicalize | FileCheck %s

// Unused results are dropped with their store_result ops.
// CHECK-LABEL: func.func @unused_results
// CHECK:         %[[R:.*]] = stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
// CHECK-NEXT:      %[[B:.*]] = stencil.access %[[X]][1] : !stencil.temp<?xf64>
// CHECK-NEXT:      %[[RB:.*]] = stencil.store_result %[[B]] : !stencil.result<f64>
// CHECK-NEXT:      stencil.return %[[RB]] : !stencil.result<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    stencil.store %[[R]] to
func.func @unused_results(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r:3 = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>, !stencil.temp<?xf64>, !stencil.temp<?xf64>) {
    %a = stencil.access %x[0] : !stencil.temp<?xf64>
    %b = stencil.access %x[1] : !stencil.temp<?xf64>
    %c = arith.addf %a, %b : f64
    %ra = stencil.store_result %a : !stencil.result<f64>
    %rb = stencil.store_result %b : !stencil.result<f64>
    %rc = stencil.store_result %c : !stencil.result<f64>
    stencil.return %ra, %rb, %rc : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %r#1 to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// With unroll, the whole group of values of a dropped result goes.
// CHECK-LABEL: func.func @unused_results_unroll
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
// CHECK-DAG:       %[[A0:.*]] = stencil.access %[[X]][0]
// CHECK-DAG:       %[[A1:.*]] = stencil.access %[[X]][1]
// CHECK-DAG:       %[[N0:.*]] = arith.negf %[[A0]] : f64
// CHECK-DAG:       %[[N1:.*]] = arith.negf %[[A1]] : f64
// CHECK-DAG:       %[[R0:.*]] = stencil.store_result %[[N0]] : !stencil.result<f64>
// CHECK-DAG:       %[[R1:.*]] = stencil.store_result %[[N1]] : !stencil.result<f64>
// CHECK:           stencil.return %[[R0]], %[[R1]] unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
// CHECK-NOT:     stencil.store_result
func.func @unused_results_unroll(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r:2 = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>, !stencil.temp<?xf64>) {
    %a0 = stencil.access %x[0] : !stencil.temp<?xf64>
    %a1 = stencil.access %x[1] : !stencil.temp<?xf64>
    %b0 = arith.negf %a0 : f64
    %b1 = arith.negf %a1 : f64
    %ra0 = stencil.store_result %a0 : !stencil.result<f64>
    %ra1 = stencil.store_result %a1 : !stencil.result<f64>
    %rb0 = stencil.store_result %b0 : !stencil.result<f64>
    %rb1 = stencil.store_result %b1 : !stencil.result<f64>
    stencil.return %ra0, %ra1, %rb0, %rb1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %r#1 to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// Unused operands are dropped (and their dead load with them), duplicated
// operands merged into one region argument.
// CHECK-LABEL: func.func @operands
// CHECK:         %[[T:.*]] = stencil.load
// CHECK-NOT:     stencil.load
// CHECK:         stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
// CHECK-NEXT:      stencil.access %[[X]][-1] : !stencil.temp<?xf64>
// CHECK-NEXT:      stencil.access %[[X]][1] : !stencil.temp<?xf64>
func.func @operands(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %u = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>, %unused = %u : !stencil.temp<?xf64>, %y = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[-1] : !stencil.temp<?xf64>
    %b = stencil.access %y[1] : !stencil.temp<?xf64>
    %c = arith.addf %a, %b : f64
    %rc = stencil.store_result %c : !stencil.result<f64>
    stencil.return %rc : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// Canonicalization keeps inferred bounds and operand/argument types in step.
// CHECK-LABEL: func.func @operands_bounded
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<[-1,65]xf64>, %[[S:.*]] = %{{.*}} : f64) -> (!stencil.temp<[0,64]xf64>) {
// CHECK-NEXT:      stencil.access %[[X]][-1] : !stencil.temp<[-1,65]xf64>
// CHECK-NEXT:      stencil.access %[[X]][1] : !stencil.temp<[-1,65]xf64>
func.func @operands_bounded(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>, %s : f64) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<[-1,65]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-1,65]xf64>, %y = %t : !stencil.temp<[-1,65]xf64>, %z = %s : f64, %w = %s : f64) -> (!stencil.temp<[0,64]xf64>) {
    %a = stencil.access %x[-1] : !stencil.temp<[-1,65]xf64>
    %b = stencil.access %y[1] : !stencil.temp<[-1,65]xf64>
    %c = arith.addf %a, %b : f64
    %d = arith.addf %c, %w : f64
    %rc = stencil.store_result %d : !stencil.result<f64>
    stencil.return %rc : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<[0,64]xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// A dead apply is erased, and so is the load that fed it.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT:    return
func.func @dead(%in : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[-1] : !stencil.temp<?xf64>
    %rc = stencil.store_result %a : !stencil.result<f64>
    stencil.return %rc : !stencil.result<f64>
  }
  func.return
}

// An apply with `outs` writes memory: it stays, only its unused operand goes.
// CHECK-LABEL: func.func @outs_kept
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?xf64>) outs (%{{.*}} : !stencil.field<[-1,65]xf64>) {
// CHECK:         } to <[0], [64]>
func.func @outs_kept(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>, %s : f64) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  stencil.apply(%x = %t : !stencil.temp<?xf64>, %unused = %s : f64) outs (%out : !stencil.field<[-1,65]xf64>) {
    %a = stencil.access %x[-1] : !stencil.temp<?xf64>
    %rc = stencil.store_result %a : !stencil.result<f64>
    stencil.return %rc : !stencil.result<f64>
  } to <[0], [64]>
  func.return
}
