// RUN: stencil-opt %s -split-input-file -stencil-inlining | FileCheck %s
// Inlining then shape inference gives a module that verifies (stencil-opt
// verifies after each pass), with the bounds of the fused program.
// RUN: stencil-opt %s -split-input-file -stencil-inlining -cse -stencil-shape-inference | FileCheck %s --check-prefix=SHAPE

// Laplacian of a laplacian: the producer is recomputed at the two offsets
// the consumer reads it at, and disappears.
// CHECK-LABEL: func.func @lap_lap
// CHECK:         %[[T:.*]] = stencil.load
// CHECK-NEXT:    %[[R:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
// CHECK-NEXT:      %[[E1:.*]] = stencil.access %[[X]][2, 0]
// CHECK-NEXT:      %[[W1:.*]] = stencil.access %[[X]][0, 0]
// CHECK-NEXT:      %[[N1:.*]] = stencil.access %[[X]][1, 1]
// CHECK-NEXT:      %[[S1:.*]] = stencil.access %[[X]][1, -1]
// CHECK-NEXT:      %[[C1:.*]] = stencil.access %[[X]][1, 0]
// CHECK-NEXT:      %[[A1:.*]] = arith.addf %[[E1]], %[[W1]] : f64
// CHECK-NEXT:      %[[B1:.*]] = arith.addf %[[N1]], %[[S1]] : f64
// CHECK-NEXT:      %[[D1:.*]] = arith.addf %[[A1]], %[[B1]] : f64
// CHECK-NEXT:      %[[K1:.*]] = arith.constant -4.000000e+00 : f64
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[C1]], %[[K1]] : f64
// CHECK-NEXT:      %[[L1:.*]] = arith.addf %[[D1]], %[[M1]] : f64
// CHECK-NEXT:      %[[E2:.*]] = stencil.access %[[X]][0, 0]
// CHECK-NEXT:      %[[W2:.*]] = stencil.access %[[X]][-2, 0]
// CHECK-NEXT:      %[[N2:.*]] = stencil.access %[[X]][-1, 1]
// CHECK-NEXT:      %[[S2:.*]] = stencil.access %[[X]][-1, -1]
// CHECK-NEXT:      %[[C2:.*]] = stencil.access %[[X]][-1, 0]
// CHECK-NEXT:      %[[A2:.*]] = arith.addf %[[E2]], %[[W2]] : f64
// CHECK-NEXT:      %[[B2:.*]] = arith.addf %[[N2]], %[[S2]] : f64
// CHECK-NEXT:      %[[D2:.*]] = arith.addf %[[A2]], %[[B2]] : f64
// CHECK-NEXT:      %[[K2:.*]] = arith.constant -4.000000e+00 : f64
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[C2]], %[[K2]] : f64
// CHECK-NEXT:      %[[L2:.*]] = arith.addf %[[D2]], %[[M2]] : f64
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[L1]], %[[L2]] : f64
// CHECK-NEXT:      %[[RES:.*]] = stencil.store_result %[[SUM]] : !stencil.result<f64>
// CHECK-NEXT:      stencil.return %[[RES]] : !stencil.result<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    stencil.store %[[R]] to
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @lap_lap
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[-2,66]x[-1,65]xf64>
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[0,64]x[0,64]xf64>)
// SHAPE-NOT:     stencil.apply
func.func @lap_lap(%in : !stencil.field<[-4,68]x[-4,68]xf64>, %out : !stencil.field<[-4,68]x[-4,68]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,68]x[-4,68]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %w = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
    %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %c = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %a0 = arith.addf %e, %w : f64
    %a1 = arith.addf %n, %s : f64
    %a2 = arith.addf %a0, %a1 : f64
    %cst = arith.constant -4.0 : f64
    %m = arith.mulf %c, %cst : f64
    %r = arith.addf %a2, %m : f64
    %res = stencil.store_result %r : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %lap2 = stencil.apply(%y = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %y[1, 0] : !stencil.temp<?x?xf64>
    %w = stencil.access %y[-1, 0] : !stencil.temp<?x?xf64>
    %a0 = arith.addf %e, %w : f64
    %res = stencil.store_result %a0 : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %lap2 to %out(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,68]x[-4,68]xf64>
  func.return
}

// -----

// A chain of three: everything collapses into the last apply; the operand
// shared by the first and the last apply gets one region argument.
// CHECK-LABEL: func.func @chain3
// CHECK:         %[[T:.*]] = stencil.load
// CHECK-NEXT:    %[[C:.*]] = arith.constant 2.000000e+00
// CHECK-NEXT:    %[[R:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<?xf64>, %[[S:.*]] = %[[C]] : f64) -> (!stencil.temp<?xf64>) {
// CHECK-DAG:       stencil.access %[[X]][-3] : !stencil.temp<?xf64>
// CHECK-DAG:       stencil.access %[[X]][3] : !stencil.temp<?xf64>
// CHECK-DAG:       arith.mulf %{{.*}}, %[[S]] : f64
// CHECK:           stencil.return
// CHECK-NEXT:    }
// CHECK-NEXT:    stencil.store %[[R]] to
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @chain3
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[-3,67]xf64>
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[0,64]xf64>)
func.func @chain3(%in : !stencil.field<[-4,68]xf64>, %out : !stencil.field<[-4,68]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,68]xf64> -> !stencil.temp<?xf64>
  %two = arith.constant 2.0 : f64
  %a = stencil.apply(%x = %t : !stencil.temp<?xf64>, %s = %two : f64) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf64>
    %m = arith.mulf %l, %s : f64
    %res = stencil.store_result %m : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %b = stencil.apply(%y = %a : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %y[-1] : !stencil.temp<?xf64>
    %u = stencil.access %y[1] : !stencil.temp<?xf64>
    %d = arith.subf %u, %l : f64
    %res = stencil.store_result %d : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c = stencil.apply(%z = %b : !stencil.temp<?xf64>, %x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %u = stencil.access %z[-1] : !stencil.temp<?xf64>
    %v = stencil.access %x[3] : !stencil.temp<?xf64>
    %d = arith.addf %u, %v : f64
    %res = stencil.store_result %d : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-4,68]xf64>
  func.return
}

// -----

// One producer, two consumers: each gets its own copy.
// CHECK-LABEL: func.func @two_consumers
// CHECK:         %[[T:.*]] = stencil.load
// CHECK-NEXT:    %[[A:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
// CHECK-NEXT:      %[[V:.*]] = stencil.access %[[X]][1, 0] : !stencil.temp<?x?xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT:      %[[R:.*]] = stencil.store_result %[[N]] : !stencil.result<f32>
// CHECK-NEXT:      stencil.return %[[R]]
// CHECK:         %[[B:.*]] = stencil.apply(%[[Y:.*]] = %[[T]] : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
// CHECK-NEXT:      %[[V2:.*]] = stencil.access %[[Y]][0, -2] : !stencil.temp<?x?xf32>
// CHECK-NEXT:      %[[N2:.*]] = arith.negf %[[V2]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[N2]], %[[N2]] : f32
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @two_consumers
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[0,9]x[-2,8]xf32>
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[-1,8]x[0,8]xf32>)
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[0,8]x[0,8]xf32>)
func.func @two_consumers(%in : !stencil.field<[-4,12]x[-4,12]xf32>, %o1 : !stencil.field<[-4,12]x[-4,12]xf32>, %o2 : !stencil.field<[-4,12]x[-4,12]xf32>) {
  %t = stencil.load %in : !stencil.field<[-4,12]x[-4,12]xf32> -> !stencil.temp<?x?xf32>
  %p = stencil.apply(%x = %t : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf32>
    %n = arith.negf %v : f32
    %res = stencil.store_result %n : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  %a = stencil.apply(%y = %p : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %y[1, 0] : !stencil.temp<?x?xf32>
    %res = stencil.store_result %v : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  %b = stencil.apply(%y = %p : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %y[0, -2] : !stencil.temp<?x?xf32>
    %m = arith.mulf %v, %v : f32
    %res = stencil.store_result %m : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  stencil.store %a to %o1(<[-1, 0], [8, 8]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,12]x[-4,12]xf32>
  stencil.store %b to %o2(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,12]x[-4,12]xf32>
  func.return
}

// -----

// A producer whose result is also stored, buffered, or read with dyn_access,
// stays.
// CHECK-LABEL: func.func @not_inlined
// CHECK-COUNT-6: stencil.apply
func.func @not_inlined(%in : !stencil.field<[-4,12]xf64>, %o1 : !stencil.field<[-4,12]xf64>, %o2 : !stencil.field<[-4,12]xf64>, %o3 : !stencil.field<[-4,12]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %stored = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %buffered = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %buf = stencil.buffer %buffered : !stencil.temp<?xf64> -> !stencil.temp<?xf64>
  %dynread = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[-1] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c1 = stencil.apply(%y = %stored : !stencil.temp<?xf64>, %z = %buf : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %y[1] : !stencil.temp<?xf64>
    %b = stencil.access %z[-1] : !stencil.temp<?xf64>
    %s = arith.addf %a, %b : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c2 = stencil.apply(%y = %dynread : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %i = stencil.index 0 <[0]>
    %v = stencil.dyn_access %y[%i] in <[0]> : <[0]> : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // An empty store_result leaves points unwritten: not inlined either.
  %partial = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %res = stencil.store_result : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c3 = stencil.apply(%y = %partial : !stencil.temp<?xf64>, %c = %c2 : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %y[0] : !stencil.temp<?xf64>
    %b = stencil.access %c[0] : !stencil.temp<?xf64>
    %s = arith.addf %a, %b : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %stored to %o1(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  stencil.store %c1 to %o2(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  stencil.store %c3 to %o3(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  func.return
}

// -----

// Index ops and dyn_access ranges of the producer are shifted by the
// offset of the access they replace.
// CHECK-LABEL: func.func @shifted_index
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
// CHECK-NEXT:      %[[I:.*]] = stencil.index 0 <[2, -1]>
// CHECK-NEXT:      %[[J:.*]] = stencil.index 1 <[2, -1]>
// CHECK-NEXT:      stencil.dyn_access %[[X]][%[[I]], %[[J]]] in <[2, -1]> : <[2, -1]> : !stencil.temp<?x?xf64>
// CHECK:           stencil.index 0 <[0, 0]>
// CHECK-NEXT:      stencil.index 1 <[0, 0]>
// CHECK-NEXT:      stencil.dyn_access %[[X]][%{{.*}}, %{{.*}}] in <[0, 0]> : <[0, 0]>
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @shifted_index
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[0,10]x[-1,8]xf64>
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[0,8]x[0,8]xf64>)
func.func @shifted_index(%in : !stencil.field<[-4,12]x[-4,12]xf64>, %out : !stencil.field<[-4,12]x[-4,12]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,12]x[-4,12]xf64> -> !stencil.temp<?x?xf64>
  %p = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 0 <[0, 0]>
    %j = stencil.index 1 <[0, 0]>
    %v = stencil.dyn_access %x[%i, %j] in <[0, 0]> : <[0, 0]> : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %a = stencil.access %y[2, -1] : !stencil.temp<?x?xf64>
    %b = stencil.access %y[0, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %a, %b : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,12]x[-4,12]xf64>
  func.return
}

// -----

// Multiple results: an access picks the value of its result, and the copy of
// the other result's computation is dropped. Lower-rank operands of the
// producer keep their `_` dimensions.
// CHECK-LABEL: func.func @multi_result
// CHECK:         stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?x?xf64>, %[[K:.*]] = %{{.*}} : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
// CHECK-NEXT:      %[[A:.*]] = stencil.access %[[X]][1, 2]
// CHECK-NEXT:      %[[B:.*]] = stencil.access %[[K]][_, 3]
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f64
// CHECK-NEXT:      %[[V:.*]] = stencil.access %[[X]][1, 2] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[M]], %[[V]] : f64
// CHECK-NEXT:      stencil.store_result %[[S]]
// CHECK-NOT:     stencil.apply

// The dropped access [-3, 0] of result #1 does not widen the load.
// SHAPE-LABEL: func.func @multi_result
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[1,9]x[2,10]xf64>
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[3,11]xf64>
func.func @multi_result(%in : !stencil.field<[-4,12]x[-4,12]xf64>, %kin : !stencil.field<[-4,12]xf64>, %out : !stencil.field<[-4,12]x[-4,12]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,12]x[-4,12]xf64> -> !stencil.temp<?x?xf64>
  %k = stencil.load %kin : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %p:2 = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %kk = %k : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %a = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %b = stencil.access %kk[_, 1] : !stencil.temp<?xf64>
    %m = arith.mulf %a, %b : f64
    %c = stencil.access %x[-3, 0] : !stencil.temp<?x?xf64>
    %r0 = stencil.store_result %m : !stencil.result<f64>
    %r1 = stencil.store_result %c : !stencil.result<f64>
    stencil.return %r0, %r1 : !stencil.result<f64>, !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p#0 : !stencil.temp<?x?xf64>, %x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %a = stencil.access %y[1, 2] : !stencil.temp<?x?xf64>
    %v = stencil.access %x[1, 2] : !stencil.temp<?x?xf64>
    %s = arith.subf %a, %v : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,12]x[-4,12]xf64>
  func.return
}

// -----

// Time loop: inlining works inside the scf.for body.
// CHECK-LABEL: func.func @time_loop
// CHECK:         scf.for
// CHECK:           stencil.load
// CHECK-NEXT:      stencil.apply
// CHECK-NOT:       stencil.apply
// CHECK:           stencil.store
// CHECK:           scf.yield

// SHAPE-LABEL: func.func @time_loop
// SHAPE:           stencil.load %{{.*}} -> !stencil.temp<[-2,66]xf64>
// SHAPE-NEXT:      stencil.apply({{.*}}) -> (!stencil.temp<[0,64]xf64>)
func.func @time_loop(%u0 : !stencil.field<[-2,66]xf64>, %u1 : !stencil.field<[-2,66]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 10 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-2,66]xf64>, !stencil.field<[-2,66]xf64>) {
    %in = stencil.load %a : !stencil.field<[-2,66]xf64> -> !stencil.temp<?xf64>
    %p = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %u = stencil.access %x[1] : !stencil.temp<?xf64>
      %v = arith.addf %l, %u : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    %q = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %y[-1] : !stencil.temp<?xf64>
      %u = stencil.access %y[1] : !stencil.temp<?xf64>
      %v = arith.addf %l, %u : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %q to %b(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-2,66]xf64>
    scf.yield %b, %a : !stencil.field<[-2,66]xf64>, !stencil.field<[-2,66]xf64>
  }
  func.return
}

// -----

// A producer that reads a field directly is inlined only where no write can
// come between it and its consumer.
// CHECK-LABEL: func.func @field_operand
// CHECK:         stencil.apply(%[[F:.*]] = %{{.*}} : !stencil.field<[-4,12]xf64>) -> (!stencil.temp<?xf64>) {
// CHECK-NEXT:      stencil.access %[[F]][3] : !stencil.field<[-4,12]xf64>
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @field_operand
// SHAPE:         stencil.apply({{.*}}) -> (!stencil.temp<[0,8]xf64>)
func.func @field_operand(%in : !stencil.field<[-4,12]xf64>, %out : !stencil.field<[-4,12]xf64>) {
  %p = stencil.apply(%f = %in : !stencil.field<[-4,12]xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %f[1] : !stencil.field<[-4,12]xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %y[2] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  func.return
}

// CHECK-LABEL: func.func @field_written_between
// CHECK-COUNT-3: stencil.apply
func.func @field_written_between(%in : !stencil.field<[-4,12]xf64>, %out : !stencil.field<[-4,12]xf64>) {
  %p = stencil.apply(%f = %in : !stencil.field<[-4,12]xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %f[1] : !stencil.field<[-4,12]xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %cst = arith.constant 0.0 : f64
  %z = stencil.apply(%s = %cst : f64) -> (!stencil.temp<?xf64>) {
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %z to %in(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  %c = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %y[2] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  func.return
}

// CHECK-LABEL: func.func @field_consumer_outs
// CHECK-COUNT-2: stencil.apply
func.func @field_consumer_outs(%in : !stencil.field<[-4,12]xf64>, %out : !stencil.field<[-4,12]xf64>) {
  %p = stencil.apply(%f = %in : !stencil.field<[-4,12]xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %f[1] : !stencil.field<[-4,12]xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.apply(%y = %p : !stencil.temp<?xf64>) outs (%in : !stencil.field<[-4,12]xf64>) {
    %v = stencil.access %y[2] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  } to <[0], [8]>
  func.return
}

// -----

// An apply with `outs` consumes the producer; each of its two operands bound
// to the producer result is replaced, and the operand shared with the
// producer is reused.
// CHECK-LABEL: func.func @outs_consumer
// CHECK:         stencil.apply(%[[S:.*]] = %{{.*}} : f64, %[[X:.*]] = %{{.*}} : !stencil.temp<?xf64>) outs
// CHECK-DAG:       stencil.access %[[X]][1] : !stencil.temp<?xf64>
// CHECK-DAG:       stencil.access %[[X]][-1] : !stencil.temp<?xf64>
// CHECK-DAG:       arith.mulf %{{.*}}, %[[S]] : f64
// CHECK:         } to <[0], [8]>
// CHECK-NOT:     stencil.apply

// SHAPE-LABEL: func.func @outs_consumer
// SHAPE:         stencil.load %{{.*}} -> !stencil.temp<[-1,9]xf64>
func.func @outs_consumer(%in : !stencil.field<[-4,12]xf64>, %out : !stencil.field<[-4,12]xf64>, %s : f64) {
  %t = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %p = stencil.apply(%x = %t : !stencil.temp<?xf64>, %k = %s : f64) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    %m = arith.mulf %v, %k : f64
    %res = stencil.store_result %m : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.apply(%y = %p : !stencil.temp<?xf64>, %k = %s : f64, %y2 = %p : !stencil.temp<?xf64>) outs (%out : !stencil.field<[-4,12]xf64>) {
    %a = stencil.access %y[1] : !stencil.temp<?xf64>
    %b = stencil.access %y2[-1] : !stencil.temp<?xf64>
    %c = arith.addf %a, %b : f64
    %d = arith.mulf %c, %k : f64
    %res = stencil.store_result %d : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  } to <[0], [8]>
  func.return
}

// -----

// A producer unrolled as xDSL's stencil-unroll writes it (point 1 is point
// 0 shifted by one along x): it is re-rolled and inlined. A producer whose
// points are not shifted copies stays.
// CHECK-LABEL: func.func @unrolled_producer
// CHECK:         stencil.apply
// CHECK-NEXT:      stencil.access %{{.*}}[1]
// CHECK-NEXT:      stencil.access %{{.*}}[-1]
// CHECK-NEXT:      arith.addf
// CHECK-NOT:       stencil.access
// CHECK:           stencil.return
// CHECK-NOT:     stencil.apply
// CHECK-LABEL: func.func @unrolled_not_shifted
// CHECK-COUNT-2: stencil.apply
func.func @unrolled_producer(%in : !stencil.field<[-4,68]xf64>, %out : !stencil.field<[-4,68]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,68]xf64> -> !stencil.temp<?xf64>
  %p = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[0] : !stencil.temp<?xf64>
    %r0 = stencil.store_result %a : !stencil.result<f64>
    %a1 = stencil.access %x[1] : !stencil.temp<?xf64>
    %r1 = stencil.store_result %a1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %e = stencil.access %y[1] : !stencil.temp<?xf64>
    %w = stencil.access %y[-1] : !stencil.temp<?xf64>
    %s = arith.addf %e, %w : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-4,68]xf64>
  return
}
func.func @unrolled_not_shifted(%in : !stencil.field<[-4,68]xf64>, %out : !stencil.field<[-4,68]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,68]xf64> -> !stencil.temp<?xf64>
  %p = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[0] : !stencil.temp<?xf64>
    %r0 = stencil.store_result %a : !stencil.result<f64>
    %a1 = stencil.access %x[2] : !stencil.temp<?xf64>
    %r1 = stencil.store_result %a1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  %c = stencil.apply(%y = %p : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %e = stencil.access %y[1] : !stencil.temp<?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-4,68]xf64>
  return
}
