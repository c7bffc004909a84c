// Extraction of stencil regions into the polyhedral form: arrays for
// rotating buffers (the buffer index is part of every access), statements
// with their domains and accesses, the canonical schedule tree.
// RUN: stencil-opt %s --stencil-to-poly | FileCheck %s
// The form prints and parses back unchanged.
// RUN: stencil-opt %s --stencil-to-poly | stencil-opt | FileCheck %s

// Ping-pong: one array of two buffers, step t reads buffer t mod 2.
// CHECK-LABEL: func.func @pingpong
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %{{.*}}:2 = poly.scop steps(%[[N]]) attributes {result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>,
// CHECK-SAME: schedule = "{ domain: \22{ S0[t, i0] : 0 <= t <= 9 and 0 <= i0 <= 255 }\22, child: { schedule: \22[{ S0[t, s1] -> [(t)] : {{.*}} }]\22, child: { mark: \22parallel\22, child: { schedule: \22[{ S0[t, s1] -> [(s1)] : {{.*}} }]\22, coincident: [ 1 ] } } } }"}
// CHECK-NEXT: poly.array @A0 buffers(%arg0, %arg1 : {{.*}}) box [-1] to [257] of f64
// CHECK-NEXT: poly.stmt @S0 domain "{ S0[t, i0] : 0 <= t < 10 and 0 <= i0 < 256 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
// CHECK-NEXT: ^bb0(%[[L:.*]]: f64, %[[R:.*]]: f64, %{{.*}}: index):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[L]], %[[R]] : f64
// CHECK-NEXT: poly.yield %[[S]] : f64
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

// Three buffers in rotation, a run-time step count (the isl parameter N,
// from bounds that are not 0..N), two earlier time levels read.
// CHECK-LABEL: func.func @wave
// CHECK: %[[D:.*]] = arith.subi %arg4, %arg3
// CHECK: %[[Q:.*]] = arith.ceildivsi %[[D]], %c2
// CHECK: %[[N:.*]] = arith.maxsi %[[Q]]
// CHECK: poly.scop steps(%[[N]]) attributes {result_arrays = [@A0, @A0, @A0], result_offsets = array<i64: 0, 1, 2>
// CHECK: poly.array @A0 buffers(%arg0, %arg1, %arg2 : {{.*}}) box [-2] to [34] of f32
// CHECK-NEXT: poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 32 }" writes "{ S0[t, i0] -> A0[(t + 2) mod 3, i0] }" reads ["{ S0[t, i0] -> A0[(t + 1) mod 3, i0 - 2] }", "{ S0[t, i0] -> A0[(t + 1) mod 3, i0 + 2] }", "{ S0[t, i0] -> A0[t mod 3, i0] }"]
!f = !stencil.field<[-2,34]xf32>
func.func @wave(%a : !f, %b : !f, %c : !f, %lo : index, %hi : index) {
  %c2 = arith.constant 2 : index
  %r:3 = scf.for %t = %lo to %hi step %c2 iter_args(%prev = %a, %cur = %b, %next = %c) -> (!f, !f, !f) {
    %p = stencil.load %prev : !f -> !stencil.temp<?xf32>
    %u = stencil.load %cur : !f -> !stencil.temp<?xf32>
    %n = stencil.apply(%x = %u : !stencil.temp<?xf32>, %y = %p : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %l = stencil.access %x[-2] : !stencil.temp<?xf32>

      %q = stencil.access %x[2] : !stencil.temp<?xf32>
      %o = stencil.access %y[0] : !stencil.temp<?xf32>
      %s = arith.addf %l, %q : f32
      %d = arith.subf %s, %o : f32

      stencil.return %d : f32
    }
    stencil.store %n to %next(<[0], [32]>) : !stencil.temp<?xf32> to !f
    scf.yield %cur, %next, %prev : !f, !f, !f
  }
  return
}
// in place: the apply reads the field it stores to

// In place without iter_args: the apply reads the field it stores to, so
// it writes a temp (T1) and a copy statement (S1) stores it afterwards.
// CHECK-LABEL: func.func @inplace
// CHECK-NOT: scf.for
// CHECK: poly.scop attributes
// CHECK-NEXT: poly.array @A0 buffers(%arg0 : {{.*}}) box [-1, -1] to [17, 17] of f64
// CHECK-NEXT: poly.array @T1 box [0, 0] to [16, 16] of f64
// CHECK-NEXT: poly.stmt @S0 domain "{ S0[t, i0, i1] : 0 <= t < 4 and 0 <= i0 < 16 and 0 <= i1 < 16 }" writes "{ S0[t, i0, i1] -> T1[i0, i1] }" reads ["{ S0[t, i0, i1] -> A0[i0 - 1, i1] }", "{ S0[t, i0, i1] -> A0[i0, i1 + 1] }"]
// CHECK: poly.stmt @S1 domain "{ S1[t, i0, i1] : 0 <= t < 4 and 0 <= i0 < 16 and 0 <= i1 < 16 }" writes "{ S1[t, i0, i1] -> A0[i0, i1] }" reads ["{ S1[t, i0, i1] -> T1[i0, i1] }"] {
// CHECK-NEXT: ^bb0(%[[V:.*]]: f64, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: poly.yield %[[V]] : f64
func.func @inplace(%a : !stencil.field<[-1,17]x[-1,17]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %t = %c0 to %c4 step %c1 {
    %u = stencil.load %a : !stencil.field<[-1,17]x[-1,17]xf64> -> !stencil.temp<?x?xf64>
    %n = stencil.apply(%x = %u : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %l, %r : f64
      stencil.return %s : f64
    }
    stencil.store %n to %a(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,17]x[-1,17]xf64>
  }
  return
}

// A staggered pair: the second apply of a step reads, through a load after
// the store, the field the first apply stored (the new values). A lower-rank
// coefficient field and stencil.index are read too.
// CHECK-LABEL: func.func @staggered
// CHECK: poly.array @A0 buffers(%arg0, %arg1 : {{.*}})
// CHECK-NEXT: poly.array @A1 buffers(%arg2, %arg3 : {{.*}})
// CHECK-NEXT: poly.array @A2 buffers(%arg4 : !stencil.field<[0,16]xf64>) box [0] to [16] of f64
// CHECK-NEXT: poly.stmt @S0 {{.*}} writes "{ S0[t, i0, i1] -> A0[(t + 1) mod 2, i0, i1] }" reads ["{ S0[t, i0, i1] -> A0[t mod 2, i0, i1] }", "{ S0[t, i0, i1] -> A1[t mod 2, i0, i1 - 1] }", "{ S0[t, i0, i1] -> A2[i1] }"]
// CHECK: arith.index_cast
// CHECK: poly.stmt @S1 {{.*}} writes "{ S1[t, i0, i1] -> A1[(t + 1) mod 2, i0, i1] }" reads ["{ S1[t, i0, i1] -> A1[t mod 2, i0, i1] }", "{ S1[t, i0, i1] -> A0[(t + 1) mod 2, i0 + 1, i1] }"]
!f2 = !stencil.field<[-1,17]x[-1,17]xf64>
!c1 = !stencil.field<[0,16]xf64>
func.func @staggered(%v0 : !f2, %v1 : !f2, %s0 : !f2, %s1 : !f2, %coef : !c1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %r:4 = scf.for %t = %c0 to %c6 step %c1 iter_args(%v = %v0, %vn = %v1, %s = %s0, %sn = %s1) -> (!f2, !f2, !f2, !f2) {
    %vt = stencil.load %v : !f2 -> !stencil.temp<?x?xf64>
    %st = stencil.load %s : !f2 -> !stencil.temp<?x?xf64>
    %ct = stencil.load %coef : !c1 -> !stencil.temp<?xf64>
    %vnew = stencil.apply(%a = %vt : !stencil.temp<?x?xf64>, %b = %st : !stencil.temp<?x?xf64>, %c = %ct : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
      %x = stencil.access %a[0, 0] : !stencil.temp<?x?xf64>
      %y = stencil.access %b[0, -1] : !stencil.temp<?x?xf64>
      %k = stencil.access %c[_, 0] : !stencil.temp<?xf64>
      %i = stencil.index 1 <[0, 0]>
      %ii = arith.index_cast %i : index to i64
      %if = arith.sitofp %ii : i64 to f64
      %m = arith.mulf %y, %k : f64
      %z = arith.addf %x, %m : f64
      %w = arith.addf %z, %if : f64
      stencil.return %w : f64
    }
    stencil.store %vnew to %vn(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !f2
    %vt2 = stencil.load %vn : !f2 -> !stencil.temp<?x?xf64>
    %snew = stencil.apply(%a = %st : !stencil.temp<?x?xf64>, %b = %vt2 : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %x = stencil.access %a[0, 0] : !stencil.temp<?x?xf64>
      %y = stencil.access %b[1, 0] : !stencil.temp<?x?xf64>
      %z = arith.subf %x, %y : f64
      stencil.return %z : f64
    }
    stencil.store %snew to %sn(<[0, 0], [15, 16]>) : !stencil.temp<?x?xf64> to !f2
    scf.yield %vn, %v, %sn, %s : !f2, !f2, !f2, !f2
  }
  return
}

// A single sweep with two applies: the intermediate temp gets storage.
// CHECK-LABEL: func.func @sweep
// CHECK: poly.scop attributes {result_arrays = [], result_offsets = array<i64>
// CHECK: poly.array @T2 box [0] to [15] of f64
// CHECK-NEXT: poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 15 }" writes "{ S0[t, i0] -> T2[i0] }"
// CHECK: poly.stmt @S1 domain "{ S1[t, i0] : t = 0 and 0 <= i0 < 14 }" writes "{ S1[t, i0] -> A1[i0] }" reads ["{ S1[t, i0] -> T2[i0] }", "{ S1[t, i0] -> T2[i0 + 1] }"]
!f3 = !stencil.field<[0,16]xf64>
func.func @sweep(%in : !f3, %out : !f3) {
  %l = stencil.load %in : !f3 -> !stencil.temp<?xf64>
  %a = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %u[1] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  %b = stencil.apply(%u = %a : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %u[0] : !stencil.temp<?xf64>
    %w = stencil.access %u[1] : !stencil.temp<?xf64>
    %s = arith.addf %v, %w : f64
    stencil.return %s : f64
  }
  stencil.store %b to %out(<[0], [14]>) : !stencil.temp<?xf64> to !f3
  return
}

// A time loop without steps: an empty domain, a schedule without bands, and
// loops that do nothing.
// CHECK-LABEL: func.func @no_steps
// CHECK: poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \22{  }\22 }"}
func.func @no_steps(%f : !stencil.field<[0,16]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %c0 step %c1 {
    %a = stencil.apply() -> (!stencil.temp<[0,16]xf32>) {
      %one = arith.constant 1.0 : f32
      stencil.return %one : f32
    }
    stencil.store %a to %f(<[0], [16]>) : !stencil.temp<[0,16]xf32> to !stencil.field<[0,16]xf32>
  }
  return
}

// A sweep with an op whose result nothing needs (it reads an apply of the
// region): it goes with the region (found by the fuzzer: a dangling use).
// CHECK-LABEL: func.func @unneeded_combine
// CHECK-NOT: stencil.combine
// CHECK: poly.scop
// CHECK-NOT: stencil.{{(load|apply|store|combine)}}
// CHECK: return
func.func @unneeded_combine(%in : !stencil.field<[-4,68]xf64>, %out : !stencil.field<[-4,68]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,68]xf64> -> !stencil.temp<?xf64>
  %b = stencil.apply(%y = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %y[-1] : !stencil.temp<?xf64>
    stencil.return %l : f64
  }
  %u = stencil.combine 0 at 4 lower = (%b : !stencil.temp<?xf64>) upper = (%b : !stencil.temp<?xf64>) : !stencil.temp<?xf64>
  stencil.store %b to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-4,68]xf64>
  func.return
}
