// Split tiling of a 1D ping-pong Jacobi (slopes 1 from the dependences)
// with bands of h = 4 steps and a period of W = 16 points (GPGPU'13 sec.
// 4): color 0 holds the upright trapezoids t' <= s mod 16 <= 15 - t' of
// tile floor(s / 16), color 1 the inverted ones between them, tile
// floor((s + t') / 16) (the ceiling of lower * t' is t'), whose local
// coordinate starts at ceil(lower * (h-1)) = 3 - t'.
// RUN: split-file %s %t
// RUN: stencil-opt %t/one.mlir --split-tile="h=4 widths=16" | FileCheck %s
// Code generation: the tiles of each color run as one scf.parallel, the
// colors one after the other inside the band loop.
// RUN: stencil-opt %t/one.mlir --split-tile="h=4 widths=16" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=LOOPS
// In 2D, one color per subset of the dimensions: 4 parallel loop nests.
// RUN: stencil-opt %t/two.mlir --split-tile="h=2 widths=8,8" | FileCheck %s --check-prefix=TWO
// RUN: stencil-opt %t/two.mlir --split-tile="h=2 widths=8,8" --convert-stencil-to-loops | FileCheck %s --check-prefix=TWO-LOOPS

// CHECK-LABEL: func.func @jacobi1d
// CHECK: poly.scop steps
// The band of h steps.
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [(floor((t)/4))] }]\22
// CHECK-SAME: child: { sequence: [ { filter:
// Color 0: upright trapezoids in parallel, full tiles isolated.
// CHECK-SAME: child: { mark: \22parallel\22, child: { schedule: \22[{ S0[t, s1] -> [(floor((s1)/16))] }]\22, permutable: 1, coincident: [ 1 ], options: \22{ isolate{{\[\[}}i0] -> [i1]] : 0 <= i0 <= 1 and 0 <= i1 <= 15 }\22
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [((t) mod 4)] }]\22, child: { schedule: \22[{ S0[t, s1] -> [((s1) mod 16)] }]\22, coincident: [ 1 ] }
// Color 1: inverted trapezoids.
// CHECK-SAME: { filter:
// CHECK-SAME: child: { mark: \22parallel\22, child: { schedule: \22[{ S0[t, s1] -> [(floor((t + s1 - 4*floor((t)/4))/16))] }]\22, permutable: 1, coincident: [ 1 ], options: \22{ isolate{{\[\[}}i0] -> [i1]] : 0 <= i0 <= 1 and 0 < i1 <= 15 }\22
// CHECK-SAME: child: { schedule: \22[{ S0[t, s1] -> [((t) mod 4)] }]\22, child: { schedule: \22[{ S0[t, s1] -> [(3 - (t) mod 4 + (s1 + (t) mod 4) mod 16)] }]\22, coincident: [ 1 ] }

// LOOPS-LABEL: func.func @jacobi1d
// LOOPS: scf.for %[[T:.*]] =
// LOOPS: scf.parallel
// LOOPS: memref.store
// LOOPS: scf.reduce
// LOOPS: scf.parallel
// LOOPS: memref.store
// LOOPS: scf.reduce
// LOOPS-NOT: poly.

// TWO-LABEL: func.func @jacobi2d
// TWO-COUNT-4: mark: \22parallel\22, child: { schedule: {{[^}]*}} }, { S0[t, s1, s2] -> {{[^}]*}} }]\22, permutable: 1, coincident: [ 1, 1 ]
// TWO-LOOPS-LABEL: func.func @jacobi2d
// TWO-LOOPS-COUNT-4: scf.parallel
// TWO-LOOPS-NOT: scf.parallel
// TWO-LOOPS: return

//--- one.mlir
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

//--- two.mlir
!f2 = !stencil.field<[-1,33]x[-1,33]xf64>
func.func @jacobi2d(%a : !f2, %b : !f2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %r:2 = scf.for %t = %c0 to %c6 step %c1 iter_args(%x = %a, %y = %b) -> (!f2, !f2) {
    %l = stencil.load %x : !f2 -> !stencil.temp<?x?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      %w = stencil.access %u[1, 0] : !stencil.temp<?x?xf64>
      %p = stencil.access %u[0, -1] : !stencil.temp<?x?xf64>
      %q = stencil.access %u[0, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %v, %w : f64
      %s2 = arith.addf %p, %q : f64
      %s3 = arith.addf %s, %s2 : f64
      stencil.return %s3 : f64
    }
    stencil.store %n to %y(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !f2
    scf.yield %y, %x : !f2, !f2
  }
  return
}
