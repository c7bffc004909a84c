// Hybrid hexagonal tiling of a 1D ping-pong Jacobi with the sizes of the
// hybrid-tiling paper's Figure 4 (h = 2, w0 = 3; slopes 1 from the
// dependences): a time tile spans 2h+2 = 6 steps, hexagons repeat every
// W = 2*w0 + 2 + floor(h) + floor(h) = 12 points, the phase-0 offset is
// floor(delta1 h) + w0 + 1 = 6 (eq. 2, 3), phase 1 has none (eq. 4, 5).
// RUN: stencil-opt %s --hex-tile="h=2 widths=3" | FileCheck %s
// Code generation: each phase's full tiles run as one scf.parallel.
// RUN: stencil-opt %s --hex-tile="h=2 widths=3" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @jacobi1d
// CHECK: poly.scop steps
// The time-tile band, piecewise over the two phases.
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [(floor((3 + t)/6))] : {{[^;]*}}; S0[t, s1] -> [(floor((t)/6))] : {{[^}]*}} }]\22
// CHECK-SAME: child: { sequence: [ { filter:
// Phase 0: hexagonal tiles in parallel, full tiles isolated.
// CHECK-SAME: child: { mark: \22parallel\22, child: { schedule: \22[{ S0[t, s1] -> [(floor((6 + s1)/12))] }]\22, permutable: 1, coincident: [ 1 ], options: \22{ isolate{{\[\[}}1] -> [i1]] : 0 < i1 <= 21 }\22
// Intra-tile time and space start at 0 (a = (t + h + 1) mod (2h + 2)).
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [((3 + t) mod 6)] }]\22, child: { schedule: \22[{ S0[t, s1] -> [((6 + s1) mod 12)] }]\22, coincident: [ 1 ] }
// Phase 1.
// CHECK-SAME: { filter:
// CHECK-SAME: child: { mark: \22parallel\22, child: { schedule: \22[{ S0[t, s1] -> [(floor((s1)/12))] }]\22, permutable: 1, coincident: [ 1 ], options: \22{ isolate{{\[\[}}0] -> [i1]] : 0 <= i1 <= 20 }\22
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [((t) mod 6)] }]\22, child: { schedule: \22[{ S0[t, s1] -> [((s1) mod 12)] }]\22, coincident: [ 1 ] }

// With unroll=true the intra-tile time loop is unrolled by isl: a full tile
// is a straight sequence of one point loop per time step, each with constant
// bounds and its buffers known (no select).
// RUN: stencil-opt %s --hex-tile="h=2 widths=3 unroll=true" | FileCheck %s --check-prefix=UNROLL-TREE
// UNROLL-TREE: child: { schedule: \22[{ S0[t, s1] -> [((3 + t) mod 6)] }]\22, options: \22{ unroll[0] }\22
// RUN: stencil-opt %s --hex-tile="h=2 widths=3 unroll=true" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=UNROLL
// UNROLL: scf.parallel (%{{.*}}) = (%c1) to (%c22) step (%c1) {
// UNROLL-NEXT: scf.for %{{.*}} = %c2 to %c6 step %c1 {
// UNROLL-NOT: arith.select
// UNROLL: memref.load %arg1
// UNROLL: memref.store %{{.*}}, %arg0
// UNROLL: scf.for %{{.*}} = %c1 to %c7 step %c1 {
// UNROLL-NOT: arith.select
// UNROLL: memref.load %arg0
// UNROLL: memref.store %{{.*}}, %arg1

// LOOPS-LABEL: func.func @jacobi1d
// LOOPS: scf.for %[[T:.*]] =
// LOOPS: scf.parallel (%[[S0:.*]]) =
// LOOPS-NEXT: scf.for %[[TT:.*]] = %{{.*}} to %{{.*}} step
// LOOPS: scf.for %[[SS:.*]] = %{{.*}} to %{{.*}} step
// The buffer of each access follows the time step (t mod 2 as a floor
// modulo: isl's "non-negative dividend" forms are not trusted where a value
// is computed whether or not it is used).
// LOOPS: %[[REM:.*]] = arith.remsi %{{.*}}, %c2
// LOOPS: %[[NEG:.*]] = arith.cmpi slt, %[[REM]], %c0
// LOOPS: %[[UP:.*]] = arith.addi %[[REM]], %c2
// LOOPS: arith.select %[[NEG]], %[[UP]], %[[REM]]
// LOOPS: arith.select %{{.*}}, %arg1, %arg0 : memref<258xf64>
// LOOPS: memref.load
// LOOPS: memref.store
// LOOPS: scf.reduce
// LOOPS-NOT: poly.
!f1 = !stencil.field<[-1,257]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1) {
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
