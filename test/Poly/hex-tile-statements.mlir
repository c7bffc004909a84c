// Hex-tiled CPU code of a step with two statements (1D FDTD: e from h, then
// h from the new e): inside a tile, one loop over the steps and below it a
// loop of its own for each statement, in the order of the step (the folded
// time t' = 2t + k orders them the same way).
// RUN: stencil-opt %s --hex-tile="h=3 widths=4 isolate=false" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s
// With several statements per step the CPU tilings isolate full tiles only
// when asked (their loop generation multiplies, and the CPU gains nothing
// measurable, docs/performance.md), nor do the GPU's (target=gpu: there the
// full-tile code spills, docs/gpu.md).
// RUN: stencil-opt %s --hex-tile="h=5 widths=4" | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %s --split-tile="h=4 widths=16" | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %s --hex-tile="h=5 widths=4 isolate=true" | FileCheck %s --check-prefix=ISO
// RUN: stencil-opt %s --split-tile="h=4 widths=16 isolate=true" | FileCheck %s --check-prefix=ISO
// RUN: stencil-opt %s --hex-tile="h=5 widths=4 target=gpu" | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %s --hex-tile="h=5 widths=4 target=gpu isolate=true" | FileCheck %s --check-prefix=ISO
// NOISO: poly.scop
// NOISO-NOT: isolate
// NOISO: poly.yield
// ISO: poly.scop
// ISO-SAME: isolate

// CHECK-LABEL: func.func @fdtd1d
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK-NOT: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NOT: memref.store
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] {stencil.update}
// CHECK-NEXT: }
// CHECK-NOT: memref.store
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] {stencil.update}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce

!f1 = !stencil.field<[-1,65]xf64>
func.func @fdtd1d(%e0 : !f1, %e1 : !f1, %h0 : !f1, %h1 : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:4 = scf.for %t = %c0 to %c8 step %c1 iter_args(%e = %e0, %en = %e1, %h = %h0, %hn = %h1) -> (!f1, !f1, !f1, !f1) {
    %le = stencil.load %e : !f1 -> !stencil.temp<?xf64>
    %lh = stencil.load %h : !f1 -> !stencil.temp<?xf64>
    %ne = stencil.apply(%u = %le : !stencil.temp<?xf64>, %v = %lh : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %a = stencil.access %u[0] : !stencil.temp<?xf64>
      %b = stencil.access %v[0] : !stencil.temp<?xf64>
      %c = stencil.access %v[-1] : !stencil.temp<?xf64>
      %d = arith.subf %b, %c : f64
      %x = arith.subf %a, %d : f64
      stencil.return %x : f64
    }
    stencil.store %ne to %en(<[0], [64]>) : !stencil.temp<?xf64> to !f1
    %le2 = stencil.load %en : !f1 -> !stencil.temp<?xf64>
    %nh = stencil.apply(%u = %lh : !stencil.temp<?xf64>, %v = %le2 : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %a = stencil.access %u[0] : !stencil.temp<?xf64>
      %b = stencil.access %v[1] : !stencil.temp<?xf64>
      %c = stencil.access %v[0] : !stencil.temp<?xf64>
      %d = arith.subf %b, %c : f64
      %x = arith.subf %a, %d : f64
      stencil.return %x : f64
    }
    stencil.store %nh to %hn(<[0], [64]>) : !stencil.temp<?xf64> to !f1
    scf.yield %en, %e, %hn, %h : !f1, !f1, !f1, !f1
  }
  return
}
