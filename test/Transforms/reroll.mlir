// RUN: stencil-opt %s --stencil-reroll --split-input-file -verify-diagnostics | FileCheck %s
// The remark names the apply's line, without printing the apply.
// RUN: stencil-opt %s --stencil-reroll --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK --implicit-check-not="see current operation"
// REMARK: reroll.mlir:{{[0-9]+}}:8: remark: the unrolled points are not shifted copies of one computation; the apply stays unrolled

// xDSL's stencil-unroll of a 2D Laplacian by [1, 2], on an odd extent: point
// (0, 1) reads every operand one row further. Point 0's computation remains,
// without `unroll`; the other point's copy is gone.
// CHECK-LABEL: func.func @laplace
// CHECK: stencil.apply
// CHECK-COUNT-5: stencil.access
// CHECK-NOT: stencil.access
// CHECK: stencil.return %{{.*}} : !stencil.result<f64>
// CHECK-NOT: unroll
func.func @laplace(%in: !stencil.field<[-1,8]x[-1,8]xf64>, %out: !stencil.field<[-1,8]x[-1,8]xf64>) {
  %0 = stencil.load %in : !stencil.field<[-1,8]x[-1,8]xf64> -> !stencil.temp<[-1,8]x[-1,8]xf64>
  %1 = stencil.apply(%a = %0 : !stencil.temp<[-1,8]x[-1,8]xf64>) -> (!stencil.temp<[0,7]x[0,7]xf64>) {
    %c = arith.constant 4.0 : f64
    %l = stencil.access %a[-1, 0] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %r = stencil.access %a[1, 0] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %d = stencil.access %a[0, -1] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %u = stencil.access %a[0, 1] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %m = stencil.access %a[0, 0] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %s1 = arith.addf %l, %r : f64
    %s2 = arith.addf %d, %u : f64
    %s3 = arith.addf %s1, %s2 : f64
    %cm = arith.mulf %c, %m : f64
    %v = arith.subf %s3, %cm : f64
    %res = stencil.store_result %v : !stencil.result<f64>
    // Point (0, 1); the constant is shared with point 0.
    %l1 = stencil.access %a[-1, 1] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %r1 = stencil.access %a[1, 1] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %d1 = stencil.access %a[0, 0] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %u1 = stencil.access %a[0, 2] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %m1 = stencil.access %a[0, 1] : !stencil.temp<[-1,8]x[-1,8]xf64>
    %t1 = arith.addf %l1, %r1 : f64
    %t2 = arith.addf %d1, %u1 : f64
    %t3 = arith.addf %t1, %t2 : f64
    %cm1 = arith.mulf %c, %m1 : f64
    %v1 = arith.subf %t3, %cm1 : f64
    %res1 = stencil.store_result %v1 : !stencil.result<f64>
    stencil.return %res, %res1 unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %1 to %out(<[0, 0], [7, 7]>) : !stencil.temp<[0,7]x[0,7]xf64> to !stencil.field<[-1,8]x[-1,8]xf64>
  return
}

// -----

// Two results, unrolled by [2, 1, 1] in 3D (operand r * 2 + p is result r at
// point p), with a stencil.index, a lower-rank operand (offset_mapping), a
// dynamic access and a branch. Each is shifted as xDSL shifts it.
// CHECK-LABEL: func.func @several
// CHECK: stencil.apply
// CHECK: stencil.index 0 <[0, 0, 0]>
// CHECK: stencil.access %{{.*}}[0, _, 0]
// CHECK: stencil.dyn_access %{{.*}} in <[-1, 0, 0]> : <[1, 0, 0]>
// CHECK: scf.if
// CHECK: stencil.access %{{.*}}[1, 0, 0]
// CHECK: stencil.return %{{[^,]*}}, %{{[^,]*}} : !stencil.result<f64>, !stencil.result<f64>
// CHECK-NOT: stencil.access
// CHECK: return
func.func @several(%x: !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>, %k: !stencil.temp<[0,5]x[0,4]xf64>) -> (!stencil.temp<[0,4]x[0,4]x[0,4]xf64>, !stencil.temp<[0,4]x[0,4]x[0,4]xf64>) {
  %0:2 = stencil.apply(%a = %x : !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>, %b = %k : !stencil.temp<[0,5]x[0,4]xf64>) -> (!stencil.temp<[0,4]x[0,4]x[0,4]xf64>, !stencil.temp<[0,4]x[0,4]x[0,4]xf64>) {
    %i = stencil.index 0 <[0, 0, 0]>
    %kv = stencil.access %b[0, _, 0] : !stencil.temp<[0,5]x[0,4]xf64>
    %c0 = arith.constant 0 : index
    %dv = stencil.dyn_access %a[%i, %c0, %c0] in <[-1, 0, 0]> : <[1, 0, 0]> : !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>
    %z = arith.constant 0.0 : f64
    %pos = arith.cmpf ogt, %kv, %z : f64
    %br = scf.if %pos -> (f64) {
      %n = stencil.access %a[1, 0, 0] : !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>
      scf.yield %n : f64
    } else {
      scf.yield %dv : f64
    }
    %r0 = stencil.store_result %br : !stencil.result<f64>
    %q0 = arith.mulf %kv, %dv : f64
    %s0 = stencil.store_result %q0 : !stencil.result<f64>
    // Point (1, 0, 0).
    %i1 = stencil.index 0 <[1, 0, 0]>
    %kv1 = stencil.access %b[1, _, 0] : !stencil.temp<[0,5]x[0,4]xf64>
    %dv1 = stencil.dyn_access %a[%i1, %c0, %c0] in <[0, 0, 0]> : <[2, 0, 0]> : !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>
    %pos1 = arith.cmpf ogt, %kv1, %z : f64
    %br1 = scf.if %pos1 -> (f64) {
      %n1 = stencil.access %a[2, 0, 0] : !stencil.temp<[-1,5]x[0,4]x[0,4]xf64>
      scf.yield %n1 : f64
    } else {
      scf.yield %dv1 : f64
    }
    %r1 = stencil.store_result %br1 : !stencil.result<f64>
    %q1 = arith.mulf %kv1, %dv1 : f64
    %s1 = stencil.store_result %q1 : !stencil.result<f64>
    stencil.return %r0, %r1, %s0, %s1 unroll <[2, 1, 1]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
  }
  return %0#0, %0#1 : !stencil.temp<[0,4]x[0,4]x[0,4]xf64>, !stencil.temp<[0,4]x[0,4]x[0,4]xf64>
}

// -----

// Point 1 reads one row too far: not a shifted copy, stays unrolled.
// CHECK-LABEL: func.func @wrong_offset
// CHECK: unroll <[2]>
func.func @wrong_offset(%x: !stencil.temp<[-1,9]xf64>) -> !stencil.temp<[0,8]xf64> {
  // expected-remark @below {{the unrolled points are not shifted copies of one computation; the apply stays unrolled}}
  %0 = stencil.apply(%a = %x : !stencil.temp<[-1,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %l = stencil.access %a[-1] : !stencil.temp<[-1,9]xf64>
    %r0 = stencil.store_result %l : !stencil.result<f64>
    %l1 = stencil.access %a[1] : !stencil.temp<[-1,9]xf64>
    %r1 = stencil.store_result %l1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  return %0 : !stencil.temp<[0,8]xf64>
}

// -----

// Point 1 multiplies by another constant.
// CHECK-LABEL: func.func @other_constant
// CHECK: unroll <[2]>
func.func @other_constant(%x: !stencil.temp<[0,8]xf64>) -> !stencil.temp<[0,8]xf64> {
  // expected-remark @below {{the apply stays unrolled}}
  %0 = stencil.apply(%a = %x : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %c = arith.constant 2.0 : f64
    %c1 = arith.constant 3.0 : f64
    %v = stencil.access %a[0] : !stencil.temp<[0,8]xf64>
    %m = arith.mulf %v, %c : f64
    %r0 = stencil.store_result %m : !stencil.result<f64>
    %v1 = stencil.access %a[1] : !stencil.temp<[0,8]xf64>
    %m1 = arith.mulf %v1, %c1 : f64
    %r1 = stencil.store_result %m1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  return %0 : !stencil.temp<[0,8]xf64>
}

// -----

// Both points use one access (as after CSE of a body that is not a shifted
// copy): point 1 would need the next element.
// CHECK-LABEL: func.func @shared_access
// CHECK: unroll <[2]>
func.func @shared_access(%x: !stencil.temp<[0,9]xf64>) -> !stencil.temp<[0,8]xf64> {
  // expected-remark @below {{the apply stays unrolled}}
  %0 = stencil.apply(%a = %x : !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %a[1] : !stencil.temp<[0,9]xf64>
    %r0 = stencil.store_result %v : !stencil.result<f64>
    %r1 = stencil.store_result %v : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  return %0 : !stencil.temp<[0,8]xf64>
}

// -----

// Point 1 reads the other operand, and its index is not shifted.
// CHECK-LABEL: func.func @other_operand
// CHECK: unroll <[2]>
func.func @other_operand(%x: !stencil.temp<[0,9]xf64>, %y: !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>, !stencil.temp<[0,8]xf64>) {
  // expected-remark @below {{the apply stays unrolled}}
  %0 = stencil.apply(%a = %x : !stencil.temp<[0,9]xf64>, %b = %y : !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %a[0] : !stencil.temp<[0,9]xf64>
    %r0 = stencil.store_result %v : !stencil.result<f64>
    %v1 = stencil.access %b[1] : !stencil.temp<[0,9]xf64>
    %r1 = stencil.store_result %v1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  // expected-remark @below {{the apply stays unrolled}}
  %1 = stencil.apply(%a = %x : !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %i = stencil.index 0 <[0]>
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f64
    %r0 = stencil.store_result %g : !stencil.result<f64>
    %i1 = stencil.index 0 <[0]>
    %f1 = arith.index_cast %i1 : index to i64
    %g1 = arith.sitofp %f1 : i64 to f64
    %r1 = stencil.store_result %g1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  return %0, %1 : !stencil.temp<[0,8]xf64>, !stencil.temp<[0,8]xf64>
}

// -----

// Two results with the return ordered point by point, as xDSL's
// stencil-unroll writes it: the remark says so.
// CHECK-LABEL: func.func @point_major
// CHECK: unroll <[2]>
func.func @point_major(%x: !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>, !stencil.temp<[0,8]xf64>) {
  // expected-remark @below {{its return operands are ordered point by point, as xDSL's stencil-unroll writes them for several results; `unroll` reads operand r * U + p as result r at point p}}
  %0:2 = stencil.apply(%a = %x : !stencil.temp<[0,9]xf64>) -> (!stencil.temp<[0,8]xf64>, !stencil.temp<[0,8]xf64>) {
    %v = stencil.access %a[0] : !stencil.temp<[0,9]xf64>
    %w = arith.mulf %v, %v : f64
    %v1 = stencil.access %a[1] : !stencil.temp<[0,9]xf64>
    %w1 = arith.mulf %v1, %v1 : f64
    stencil.return %v, %w, %v1, %w1 unroll <[2]> : f64, f64, f64, f64
  }
  return %0#0, %0#1 : !stencil.temp<[0,8]xf64>, !stencil.temp<[0,8]xf64>
}
