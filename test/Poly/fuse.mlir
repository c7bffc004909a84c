// Fusion by overlapped tiling (--fuse): the two applies of a 2D sweep run
// in one tiled loop nest; the intermediate is computed on the tile and a
// halo of one point along j (the consumer reads it at j - 1 and j + 1) into
// an 8x18 buffer local to the tile, and the tiles run in parallel.
// RUN: split-file %s %t
// RUN: stencil-opt %t/sweep.mlir --fuse="tile=8,16 report cache-kib=512" 2>&1 | FileCheck %s
// RUN: stencil-opt %t/sweep.mlir --fuse="tile=8,16" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=LOOPS
// Mapped to a GPU, one kernel, the tile buffer in shared memory, barriers after
// the producer and at the end of each tile.
// RUN: stencil-opt %t/sweep.mlir --fuse="tile=8,16" --poly-to-gpu="threads=16,4" | FileCheck %s --check-prefix=GPU
// RUN: stencil-opt %t/sweep.mlir --fuse="tile=8,16" --poly-to-gpu="threads=16,4" --convert-stencil-to-loops | FileCheck %s --check-prefix=KERNEL
// Without sizes the model chooses them (8 or more tiles along i, rows of
// 32 points or the whole row).
// RUN: stencil-opt %t/sweep.mlir --fuse="report cache-kib=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// A time loop: the statements of each step are fused, the steps run in
// order (band [t] outermost).
// RUN: stencil-opt %t/loop.mlir --fuse="tile=16" | FileCheck %s --check-prefix=LOOP
// Time tiling takes over: --fuse leaves a time-tiled loop as it is, and
// --hex-tile after --fuse replaces the fusion.
// RUN: stencil-opt %t/loop.mlir --hex-tile --fuse | FileCheck %s --check-prefix=TIMETILED
// RUN: stencil-opt %t/loop.mlir --fuse --hex-tile | FileCheck %s --check-prefix=TIMETILED
// One statement: nothing to fuse.
// RUN: stencil-opt %t/single.mlir --fuse=report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SINGLE
// A field read before the same sweep stores it (at an offset): its store
// starts a second nest of one statement, and on a GPU each nest is a
// kernel, whose loops isl generates alone (the tree restricted to it).
// RUN: stencil-opt %t/field.mlir --fuse=report -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIELD-REPORT
// RUN: stencil-opt %t/field.mlir --fuse --poly-to-gpu | FileCheck %s --check-prefix=FIELD
// RUN: stencil-opt %t/field.mlir --fuse --convert-to-gpu=format=isa | FileCheck %s --check-prefix=FIELD-ISA

// CHECK: remark: fuse: groups (S0 S1), tiles 8x16 (given), local buffers @T2 8x18; model: recomputation 1.062, footprint 5 KiB (budget 512 KiB)
// CHECK-LABEL: func.func @laplap
// CHECK: poly.scop attributes {fuse_request = {tile = array<i64: 8, 16>}, fused_local = [{array = @T2, offset = "{ [t, T0, T1] -> T2[(8T0), (-1 + 16T1)] }", shape = array<i64: 8, 18>}]
// The writer's instances make the tile loops; below the tile band every
// statement runs as its instances in the tile, S0 on the halo too.
// CHECK-SAME: child: { filter: \22{ S1[t, i0, i1] }\22, child: { mark: \22parallel\22, child: { schedule: \22[{ S1[t, i0, i1] -> [(floor((i0)/8))] }, { S1[t, i0, i1] -> [(floor((i1)/16))] }]\22, permutable: 1, coincident: [ 1, 1 ], child: { mark: \22fused\22
// CHECK-SAME: S0_fused[0, T0, T1, i0, i1] : i0 >= 8T0 and 0 <= i0 <= 31 and i0 <= 7 + 8T0 and i1 >= -1 + 16T1 and -1 <= i1 <= 32 and i1 <= 16 + 16T1
// The domain's instances are filtered out right below the extension.
// CHECK-SAME: child: { filter: \22{ S0_fused[t, T0, T1, i0, i1]; S1_fused[t, T0, T1, i0, i1] }\22, child: { sequence: [ { filter: \22{ S0_fused[t, T0, T1, i0, i1] }\22
// CHECK-SAME: { filter: \22{ S1_fused[t, T0, T1, i0, i1] }\22

// LOOPS-LABEL: func.func @laplap
// LOOPS-NOT: memref.alloc() {{.*}} : memref<32x34xf64>
// LOOPS: scf.parallel (%[[T0:.*]]) =
// LOOPS-NEXT: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x18xf64>
// LOOPS: scf.for
// LOOPS: memref.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}] {stencil.update} : memref<8x18xf64>
// LOOPS: memref.load %[[BUF]]
// LOOPS: memref.load %[[BUF]]
// LOOPS: memref.store %{{.*}}, %arg1
// LOOPS: memref.dealloc %[[BUF]] : memref<8x18xf64>
// LOOPS-NEXT: scf.reduce

// GPU: gpu_threads = array<i64: 16, 4>
// GPU-SAME: mark: \22kernel\22, child: { context: \22[tid_x, tid_y] -> { [t] : 0 <= tid_x <= 15 and 0 <= tid_y <= 3 }\22
// GPU-SAME: filter: \22[tid_x, tid_y] -> { S0_fused[t, T0, T1, i0, i1] : (-tid_y + i0) mod 4 = 0 and (-tid_x + i1) mod 16 = 0
// GPU-SAME: { filter: \22{ barrier_fused0_0[t, T0, T1] }\22 }
// GPU-SAME: S1_fused
// GPU-SAME: { filter: \22{ barrier_fused0_end[t, T0, T1] }\22 }

// KERNEL: gpu.launch
// KERNEL-SAME: workgroup(%[[SH:.*]] : memref<8x18xf64, #gpu.address_space<workgroup>>)
// KERNEL: memref.store %{{.*}}, %[[SH]]
// KERNEL: gpu.barrier
// KERNEL: memref.load %[[SH]]
// KERNEL: gpu.barrier

// MODEL: remark: fuse: groups (S0 S1), tiles 4x34 (model), local buffers @T2 4x36; model: recomputation 1.029, footprint {{[0-9]+}} KiB (budget 64 KiB)

// LOOP-LABEL: func.func @chain
// LOOP: fused_local = [{array = @T1, offset = "{ [t, T0] -> T1[(16T0)] }", shape = array<i64: 17>}]
// LOOP-SAME: schedule: \22[{ S0[t, i0] -> [(t)]; S1[t, i0] -> [(t)] }]\22
// LOOP-SAME: S0_fused[t, T0, i0] : 0 <= t <= 7 and i0 >= 16T0 and 0 <= i0 <= 64 and i0 <= 16 + 16T0

// TIMETILED-LABEL: func.func @chain
// TIMETILED-NOT: fuse
// TIMETILED: poly.scop steps
// TIMETILED-NOT: fuse
// TIMETILED: return

// SINGLE: remark: fuse: nothing to fuse (no two statements of a step can share a tile)

// FIELD-REPORT: remark: fuse: groups (S0 S1) (S2)
// The one-statement nest keeps its filter below the extension: restricted
// to that kernel, isl's gist drops the sequence of one child with its
// filter, and the domain's instances would reach the point band.
// FIELD: gpu_threads
// FIELD-SAME: { filter: \22{ S2[t, i0, i1] }\22, child: { mark: \22kernel\22
// FIELD-SAME: extension: \22{ [t = 0, T0, T1] -> S2_fused[0, T0, T1, i0, i1] : {{[^}]*}} }\22, child: { filter: \22{ S2_fused[t, T0, T1, i0, i1] }\22, child: { sequence: [ { filter: \22{ S2_fused[t, T0, T1, i0, i1] }\22

// FIELD-ISA-LABEL: llvm.func @m(
// FIELD-ISA: gpu.launch_func {{.*}} @m_kernel::@m_kernel
// FIELD-ISA: gpu.launch_func {{.*}} @m_kernel_0::@m_kernel
// FIELD-ISA: gpu.binary @m_kernel
// FIELD-ISA: gpu.binary @m_kernel_0

//--- sweep.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %c = stencil.access %a[0, 0] : !stencil.temp<?x?xf64>
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %w = stencil.access %a[-1, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %e, %w : f64
    %r = arith.subf %c, %s : f64
    %res = stencil.store_result %r : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %s = stencil.access %b[0, -1] : !stencil.temp<?x?xf64>
    %r = arith.addf %n, %s : f64
    %res = stencil.store_result %r : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}
//--- loop.mlir
!f1 = !stencil.field<[-2,66]xf64>
func.func @chain(%a : !f1, %b : !f1) -> !f1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %m = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[0] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      %res = stencil.store_result %s : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    %n = stencil.apply(%u = %m : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[0] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      %res = stencil.store_result %s : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %n to %y(<[0], [64]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  func.return %r#0 : !f1
}
//--- single.mlir
func.func @one(%in : !stencil.field<[-1,33]xf64>, %out : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  %a = stencil.apply(%u = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %u[-1] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %a to %out(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  func.return
}
//--- field.mlir
func.func @m(%a : !stencil.field<[-1,17]x[-1,9]xf64>, %b : !stencil.field<[-1,17]x[-1,9]xf64>, %c : !stencil.field<[-1,17]x[-1,9]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,17]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %rr = stencil.store_result %v : !stencil.result<f64>
    stencil.return %rr : !stencil.result<f64>
  }
  %s = stencil.apply(%x = %b : !stencil.field<[-1,17]x[-1,9]xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 1] : !stencil.field<[-1,17]x[-1,9]xf64>
    %rr = stencil.store_result %v : !stencil.result<f64>
    stencil.return %rr : !stencil.result<f64>
  }
  stencil.store %r to %b(<[0, 0], [16, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,17]x[-1,9]xf64>
  stencil.store %s to %c(<[0, 0], [16, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,17]x[-1,9]xf64>
  func.return
}
