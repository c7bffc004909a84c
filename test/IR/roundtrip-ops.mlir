// Every stencil op in its custom form, printed, re-parsed and printed again;
// then the same through the generic form.
// RUN: stencil-opt %s -split-input-file | stencil-opt -split-input-file | FileCheck %s
// RUN: stencil-opt %s -split-input-file -mlir-print-op-generic | stencil-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cast_load_store
// CHECK-SAME:      (%[[IN:.*]]: !stencil.field<?x?x?xf64>, %[[OUT:.*]]: !stencil.field<?x?x?xf64>)
// CHECK:         %[[A:.*]] = stencil.cast %[[IN]] : !stencil.field<?x?x?xf64> -> !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
// CHECK:         %[[B:.*]] = stencil.cast %[[OUT]] : !stencil.field<?x?x?xf64> -> !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
// CHECK:         %[[T:.*]] = stencil.load %[[A]] : !stencil.field<[-4,68]x[-4,68]x[0,64]xf64> -> !stencil.temp<?x?x?xf64>
// CHECK:         %[[TB:.*]] = stencil.load %[[A]] : !stencil.field<[-4,68]x[-4,68]x[0,64]xf64> -> !stencil.temp<[0,64]x[0,64]x[0,64]xf64>
// CHECK:         stencil.store %[[TB]] to %[[B]](<[0, 0, 0], [64, 64, 64]>) : !stencil.temp<[0,64]x[0,64]x[0,64]xf64> to !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
func.func @cast_load_store(%in: !stencil.field<?x?x?xf64>, %out: !stencil.field<?x?x?xf64>) {
  %a = stencil.cast %in : !stencil.field<?x?x?xf64> -> !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
  %b = stencil.cast %out : !stencil.field<?x?x?xf64> -> !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
  %t = stencil.load %a : !stencil.field<[-4,68]x[-4,68]x[0,64]xf64> -> !stencil.temp<?x?x?xf64>
  %tb = stencil.load %a : !stencil.field<[-4,68]x[-4,68]x[0,64]xf64> -> !stencil.temp<[0,64]x[0,64]x[0,64]xf64>
  stencil.store %tb to %b(<[0, 0, 0], [64, 64, 64]>) : !stencil.temp<[0,64]x[0,64]x[0,64]xf64> to !stencil.field<[-4,68]x[-4,68]x[0,64]xf64>
  func.return
}

// -----

// An apply without operands, with one result.
// CHECK-LABEL: func.func @apply_no_operands
// CHECK:         %{{.*}} = stencil.apply() -> (!stencil.temp<?xf32>) {
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = stencil.store_result %[[C]] : !stencil.result<f32>
// CHECK-NEXT:      stencil.return %[[R]] : !stencil.result<f32>
// CHECK-NEXT:    }
func.func @apply_no_operands(%out: !stencil.field<[0,16]xf32>) {
  %r = stencil.apply() -> (!stencil.temp<?xf32>) {
    %c = arith.constant 1.0 : f32
    %s = stencil.store_result %c : !stencil.result<f32>
    stencil.return %s : !stencil.result<f32>
  }
  stencil.store %r to %out(<[0], [16]>) : !stencil.temp<?xf32> to !stencil.field<[0,16]xf32>
  func.return
}

// -----

// Several operands (temps and scalars of several types), several results,
// and an attribute dictionary.
// CHECK-LABEL: func.func @apply_many
// CHECK:         %{{.*}}:3 = stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?x?xf64>, %[[Y:.*]] = %{{.*}} : !stencil.temp<?x?xf64>, %[[S:.*]] = %{{.*}} : f64, %[[N:.*]] = %{{.*}} : index) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xi64>) attributes {note = "three results"} {
// CHECK-NEXT:      %[[XN:.*]] = stencil.access %[[X]][0, 1] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      %[[YW:.*]] = stencil.access %[[Y]][-1, 0] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[XN]], %[[YW]] : f64
// CHECK-NEXT:      %[[PROD:.*]] = arith.mulf %[[SUM]], %[[S]] : f64
// CHECK-NEXT:      %[[I:.*]] = stencil.index 1 <[0, 2]>
// CHECK-NEXT:      %[[J:.*]] = arith.addi %[[I]], %[[N]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      %[[R0:.*]] = stencil.store_result %[[SUM]] : !stencil.result<f64>
// CHECK-NEXT:      %[[R1:.*]] = stencil.store_result %[[PROD]] : !stencil.result<f64>
// CHECK-NEXT:      %[[R2:.*]] = stencil.store_result %[[K]] : !stencil.result<i64>
// CHECK-NEXT:      stencil.return %[[R0]], %[[R1]], %[[R2]] : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<i64>
// CHECK-NEXT:    }
func.func @apply_many(%x: !stencil.temp<?x?xf64>, %y: !stencil.temp<?x?xf64>, %s: f64, %n: index) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xi64>) {
  %r:3 = stencil.apply(%xa = %x : !stencil.temp<?x?xf64>, %ya = %y : !stencil.temp<?x?xf64>, %sa = %s : f64, %na = %n : index) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xi64>) attributes {note = "three results"} {
    %xn = stencil.access %xa[0, 1] : !stencil.temp<?x?xf64>
    %yw = stencil.access %ya[-1, 0] : !stencil.temp<?x?xf64>
    %sum = arith.addf %xn, %yw : f64
    %prod = arith.mulf %sum, %sa : f64
    %i = stencil.index 1 <[0, 2]>
    %j = arith.addi %i, %na : index
    %k = arith.index_cast %j : index to i64
    %r0 = stencil.store_result %sum : !stencil.result<f64>
    %r1 = stencil.store_result %prod : !stencil.result<f64>
    %r2 = stencil.store_result %k : !stencil.result<i64>
    stencil.return %r0, %r1, %r2 : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<i64>
  }
  func.return %r#0, %r#1, %r#2 : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xi64>
}

// -----

// Lower-rank operands in a 3D apply: `_` marks the dimensions they lack.
// CHECK-LABEL: func.func @access_lower_rank
// CHECK:         stencil.apply(%[[V:.*]] = %{{.*}} : !stencil.temp<?x?x?xf64>, %[[Z:.*]] = %{{.*}} : !stencil.temp<?xf64>, %[[P:.*]] = %{{.*}} : !stencil.temp<?x?xf64>, %[[Q:.*]] = %{{.*}} : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
// CHECK-NEXT:      stencil.access %[[V]][-1, 0, 1] : !stencil.temp<?x?x?xf64>
// CHECK-NEXT:      stencil.access %[[Z]][_, _, 2] : !stencil.temp<?xf64>
// CHECK-NEXT:      stencil.access %[[Z]][-3, _, _] : !stencil.temp<?xf64>
// CHECK-NEXT:      stencil.access %[[P]][1, _, -1] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      stencil.access %[[Q]][_, 0, 4] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      stencil.access %[[Q]][0, 0, _] : !stencil.temp<?x?xf64>
func.func @access_lower_rank(%v: !stencil.temp<?x?x?xf64>, %z: !stencil.temp<?xf64>, %p: !stencil.temp<?x?xf64>, %q: !stencil.temp<?x?xf64>) -> !stencil.temp<?x?x?xf64> {
  %r = stencil.apply(%va = %v : !stencil.temp<?x?x?xf64>, %za = %z : !stencil.temp<?xf64>, %pa = %p : !stencil.temp<?x?xf64>, %qa = %q : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
    %0 = stencil.access %va[-1, 0, 1] : !stencil.temp<?x?x?xf64>
    %1 = stencil.access %za[_, _, 2] : !stencil.temp<?xf64>
    %2 = stencil.access %za[-3, _, _] : !stencil.temp<?xf64>
    %3 = stencil.access %pa[1, _, -1] : !stencil.temp<?x?xf64>
    %4 = stencil.access %qa[_, 0, 4] : !stencil.temp<?x?xf64>
    %5 = stencil.access %qa[0, 0, _] : !stencil.temp<?x?xf64>
    %6 = arith.addf %0, %1 : f64
    %7 = arith.addf %2, %3 : f64
    %8 = arith.addf %4, %5 : f64
    %9 = arith.addf %6, %7 : f64
    %10 = arith.addf %8, %9 : f64
    %11 = stencil.store_result %10 : !stencil.result<f64>
    stencil.return %11 : !stencil.result<f64>
  }
  func.return %r : !stencil.temp<?x?x?xf64>
}

// -----

// The buffer form: fields as operands and `outs` destinations, `to` bounds;
// the return takes plain values.
// CHECK-LABEL: func.func @apply_outs
// CHECK:         stencil.apply(%[[F:.*]] = %{{.*}} : !stencil.field<[-1,65]x[-1,65]xf32>, %[[C:.*]] = %{{.*}} : f32) outs (%{{.*}} : !stencil.field<[-1,65]x[-1,65]xf32>, %{{.*}} : !stencil.field<[-1,65]x[-1,65]xf32>) {
// CHECK-NEXT:      %[[W:.*]] = stencil.access %[[F]][-1, 0] : !stencil.field<[-1,65]x[-1,65]xf32>
// CHECK-NEXT:      %[[E:.*]] = stencil.access %[[F]][1, 0] : !stencil.field<[-1,65]x[-1,65]xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[W]], %[[E]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[S]], %[[C]] : f32
// CHECK-NEXT:      stencil.return %[[S]], %[[M]] : f32, f32
// CHECK-NEXT:    } to <[0, 0], [64, 64]>
func.func @apply_outs(%in: !stencil.field<[-1,65]x[-1,65]xf32>, %o1: !stencil.field<[-1,65]x[-1,65]xf32>, %o2: !stencil.field<[-1,65]x[-1,65]xf32>, %c: f32) {
  stencil.apply(%f = %in : !stencil.field<[-1,65]x[-1,65]xf32>, %k = %c : f32) outs (%o1 : !stencil.field<[-1,65]x[-1,65]xf32>, %o2 : !stencil.field<[-1,65]x[-1,65]xf32>) {
    %w = stencil.access %f[-1, 0] : !stencil.field<[-1,65]x[-1,65]xf32>
    %e = stencil.access %f[1, 0] : !stencil.field<[-1,65]x[-1,65]xf32>
    %s = arith.addf %w, %e : f32
    %m = arith.mulf %s, %k : f32
    stencil.return %s, %m : f32, f32
  } to <[0, 0], [64, 64]>
  func.return
}

// -----

// Bounded temps, an unrolled return, store_result with and without a value.
// CHECK-LABEL: func.func @unrolled
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<[0,8]x[0,9]xf64>) -> (!stencil.temp<[0,8]x[0,8]xf64>) {
// CHECK-NEXT:      %[[A:.*]] = stencil.access %[[X]][0, 0] : !stencil.temp<[0,8]x[0,9]xf64>
// CHECK-NEXT:      %[[B:.*]] = stencil.access %[[X]][0, 1] : !stencil.temp<[0,8]x[0,9]xf64>
// CHECK-NEXT:      %[[RA:.*]] = stencil.store_result %[[A]] : !stencil.result<f64>
// CHECK-NEXT:      %[[RB:.*]] = stencil.store_result : !stencil.result<f64>
// CHECK-NEXT:      stencil.return %[[RA]], %[[RB]] unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
// CHECK-NEXT:    }
func.func @unrolled(%x: !stencil.temp<[0,8]x[0,9]xf64>) -> !stencil.temp<[0,8]x[0,8]xf64> {
  %r = stencil.apply(%xa = %x : !stencil.temp<[0,8]x[0,9]xf64>) -> (!stencil.temp<[0,8]x[0,8]xf64>) {
    %a = stencil.access %xa[0, 0] : !stencil.temp<[0,8]x[0,9]xf64>
    %b = stencil.access %xa[0, 1] : !stencil.temp<[0,8]x[0,9]xf64>
    %ra = stencil.store_result %a : !stencil.result<f64>
    %rb = stencil.store_result : !stencil.result<f64>
    stencil.return %ra, %rb unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  func.return %r : !stencil.temp<[0,8]x[0,8]xf64>
}

// -----

// dyn_access and index, also inside a nested region of the apply body.
// CHECK-LABEL: func.func @dynamic
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
// CHECK-NEXT:      %[[I:.*]] = stencil.index 0 <[0, 0]>
// CHECK-NEXT:      %[[J:.*]] = stencil.index 1 <[0, -1]>
// CHECK-NEXT:      %[[V:.*]] = stencil.dyn_access %[[X]][%[[I]], %[[J]]] in <[-1, -1]> : <[1, 1]> : !stencil.temp<?x?xf32>
// CHECK:           %[[IF:.*]] = scf.if %{{.*}} -> (!stencil.result<f32>) {
// CHECK-NEXT:        %[[N:.*]] = stencil.access %[[X]][0, 1] : !stencil.temp<?x?xf32>
// CHECK-NEXT:        %[[RN:.*]] = stencil.store_result %[[N]] : !stencil.result<f32>
// CHECK-NEXT:        scf.yield %[[RN]] : !stencil.result<f32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[RE:.*]] = stencil.store_result : !stencil.result<f32>
// CHECK-NEXT:        scf.yield %[[RE]] : !stencil.result<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      stencil.return %[[IF]] : !stencil.result<f32>
func.func @dynamic(%x: !stencil.temp<?x?xf32>) -> !stencil.temp<?x?xf32> {
  %r = stencil.apply(%xa = %x : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %i = stencil.index 0 <[0, 0]>
    %j = stencil.index 1 <[0, -1]>
    %v = stencil.dyn_access %xa[%i, %j] in <[-1, -1]> : <[1, 1]> : !stencil.temp<?x?xf32>
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    %res = scf.if %pos -> (!stencil.result<f32>) {
      %n = stencil.access %xa[0, 1] : !stencil.temp<?x?xf32>
      %rn = stencil.store_result %n : !stencil.result<f32>
      scf.yield %rn : !stencil.result<f32>
    } else {
      %re = stencil.store_result : !stencil.result<f32>
      scf.yield %re : !stencil.result<f32>
    }
    stencil.return %res : !stencil.result<f32>
  }
  func.return %r : !stencil.temp<?x?xf32>
}

// -----

// buffer and combine (with and without the one-sided operands).
// CHECK-LABEL: func.func @buffer_combine
// CHECK:         %[[L:.*]]:2 = stencil.apply
// CHECK:         %[[U:.*]]:2 = stencil.apply
// CHECK:         %[[C1:.*]] = stencil.combine 0 at 32 lower = (%[[L]]#0 : !stencil.temp<?x?xf64>) upper = (%[[U]]#0 : !stencil.temp<?x?xf64>) : !stencil.temp<?x?xf64>
// CHECK:         %[[C2:.*]]:3 = stencil.combine 1 at 7 lower = (%[[L]]#0 : !stencil.temp<?x?xf64>) upper = (%[[U]]#0 : !stencil.temp<?x?xf64>) lowerext = %[[L]]#1 : !stencil.temp<?x?xf64> upperext = %[[U]]#1 : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
// CHECK:         %[[C3:.*]]:2 = stencil.combine 1 at 7 lower = (%[[L]]#0 : !stencil.temp<?x?xf64>) upper = (%[[U]]#0 : !stencil.temp<?x?xf64>) upperext = %[[U]]#1 : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
// CHECK:         %{{.*}} = stencil.buffer %[[C1]] : !stencil.temp<?x?xf64> -> !stencil.temp<?x?xf64>
func.func @buffer_combine() -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
  %l:2 = stencil.apply() -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %c = arith.constant 1.0 : f64
    %r = stencil.store_result %c : !stencil.result<f64>
    stencil.return %r, %r : !stencil.result<f64>, !stencil.result<f64>
  }
  %u:2 = stencil.apply() -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %c = arith.constant 2.0 : f64
    %r = stencil.store_result %c : !stencil.result<f64>
    stencil.return %r, %r : !stencil.result<f64>, !stencil.result<f64>
  }
  %c1 = stencil.combine 0 at 32 lower = (%l#0 : !stencil.temp<?x?xf64>) upper = (%u#0 : !stencil.temp<?x?xf64>) : !stencil.temp<?x?xf64>
  %c2:3 = stencil.combine 1 at 7 lower = (%l#0 : !stencil.temp<?x?xf64>) upper = (%u#0 : !stencil.temp<?x?xf64>) lowerext = %l#1 : !stencil.temp<?x?xf64> upperext = %u#1 : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
  %c3:2 = stencil.combine 1 at 7 lower = (%l#0 : !stencil.temp<?x?xf64>) upper = (%u#0 : !stencil.temp<?x?xf64>) upperext = %u#1 : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
  %b = stencil.buffer %c1 : !stencil.temp<?x?xf64> -> !stencil.temp<?x?xf64>
  func.return %b, %c2#2, %c3#1 : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
}

// -----

// Fields from and to external memory, a field allocated by bufferization and
// a buffer into a field (the forms xDSL's bufferization produces).
// CHECK-LABEL: func.func @external_and_alloc
// CHECK:         %[[F:.*]] = stencil.external_load %{{.*}} : memref<66x66xf64> -> !stencil.field<[-1,65]x[-1,65]xf64>
// CHECK:         %[[D:.*]] = stencil.external_load %{{.*}} : memref<?x?xf64> -> !stencil.field<?x?xf64>
// CHECK:         %[[M:.*]] = stencil.external_load %{{.*}} : memref<?x?xf64> -> memref<?x?xf64>
// CHECK:         %[[AL:.*]] = stencil.alloc : !stencil.field<[0,64]x[0,64]xf64>
// CHECK:         %[[T:.*]] = stencil.load %[[F]] : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[0,64]x[0,64]xf64>
// CHECK:         %[[BF:.*]] = stencil.buffer %[[T]] : !stencil.temp<[0,64]x[0,64]xf64> -> !stencil.field<[0,64]x[0,64]xf64>
// CHECK:         stencil.external_store %[[F]] to %{{.*}} : !stencil.field<[-1,65]x[-1,65]xf64> to memref<66x66xf64>
// CHECK:         stencil.external_store %[[D]] to %{{.*}} : !stencil.field<?x?xf64> to !llvm.ptr
func.func @external_and_alloc(%m: memref<66x66xf64>, %dm: memref<?x?xf64>, %p: !llvm.ptr) {
  %f = stencil.external_load %m : memref<66x66xf64> -> !stencil.field<[-1,65]x[-1,65]xf64>
  %d = stencil.external_load %dm : memref<?x?xf64> -> !stencil.field<?x?xf64>
  %mm = stencil.external_load %dm : memref<?x?xf64> -> memref<?x?xf64>
  %a = stencil.alloc : !stencil.field<[0,64]x[0,64]xf64>
  %t = stencil.load %f : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[0,64]x[0,64]xf64>
  %bf = stencil.buffer %t : !stencil.temp<[0,64]x[0,64]xf64> -> !stencil.field<[0,64]x[0,64]xf64>
  stencil.external_store %f to %m : !stencil.field<[-1,65]x[-1,65]xf64> to memref<66x66xf64>
  stencil.external_store %d to %p : !stencil.field<?x?xf64> to !llvm.ptr
  func.return
}

// -----

// xDSL's reduction form: an accumulator, its initial value and a body that
// combines two values (parsed, verified and printed; no lowering).
// CHECK-LABEL: func.func @reduce
// CHECK:         stencil.reduce %{{.*}} init %{{.*}} {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f64
// CHECK-NEXT:      stencil.yield %[[S]] : f64
// CHECK-NEXT:    } : f64
func.func @reduce(%a: f64, %b: f64) {
  stencil.reduce %a init %b {
  ^bb0(%x: f64, %y: f64):
    %s = arith.addf %x, %y : f64
    stencil.yield %s : f64
  } : f64
  func.return
}

// -----

// An `outs` apply may read the field it writes at the point it writes
// (offset 0; unrolled, each point at its own offset).
// CHECK-LABEL: func.func @outs_in_place
// CHECK-COUNT-2: stencil.apply
func.func @outs_in_place(%a: !stencil.field<[0,8]xf64>) {
  stencil.apply(%f = %a : !stencil.field<[0,8]xf64>) outs (%a : !stencil.field<[0,8]xf64>) {
    %v = stencil.access %f[0] : !stencil.field<[0,8]xf64>
    %w = arith.mulf %v, %v : f64
    stencil.return %w : f64
  } to <[0], [8]>
  stencil.apply(%f = %a : !stencil.field<[0,8]xf64>) outs (%a : !stencil.field<[0,8]xf64>) {
    %v0 = stencil.access %f[0] : !stencil.field<[0,8]xf64>
    %v1 = stencil.access %f[1] : !stencil.field<[0,8]xf64>
    stencil.return %v0, %v1 unroll <[2]> : f64, f64
  } to <[0], [8]>
  func.return
}
