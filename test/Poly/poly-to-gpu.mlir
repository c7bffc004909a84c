// The GPU mapping of hybrid-tiled schedules (--poly-to-gpu): the mapped
// schedule tree, and the host loop + kernels it lowers to, without
// shared-memory promotion (promote=none; see poly-to-gpu-promote.mlir).
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 max-blocks=2 promote=none" | FileCheck %s --check-prefix=TREE
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 max-blocks=2 promote=none" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=LOOPS
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu=promote=none | FileCheck %s --check-prefix=DEFAULT
// Mapped scops print and parse back.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu=promote=none | stencil-opt | FileCheck %s --check-prefix=DEFAULT
// unroll-budget: a thread's step of jacobi 2D is 4 points of 7 operations;
// within the budget its point loops are unrolled, past it they stay loops.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="promote=none unroll-budget=28" | FileCheck %s --check-prefix=BUDGET-IN
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="promote=none unroll-budget=27" | FileCheck %s --check-prefix=BUDGET-OUT
// An untiled scop: one launch per time step, rows over the blocks, the
// innermost dimension over the threads.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --stencil-to-poly --poly-to-gpu | FileCheck %s --check-prefix=UNTILED
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --stencil-to-poly --poly-to-gpu --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=UNTILED-LOOPS
// The mapped scop lowers in another process too (the GPU dialect is loaded
// by convert-stencil-to-loops itself).
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu=promote=none | stencil-opt --convert-stencil-to-loops | FileCheck %s --check-prefix=REPARSE
// Full tiles of a 512x512 grid with the time steps unrolled and the rows of
// the hexagon in one thread: every step of a full tile is straight-line code
// followed by a barrier.
// RUN: %python -m stencil.benchmarks gen jacobi2d --shape 512,512 --steps 40 --dtype f32 > %t.mlir
// RUN: stencil-opt %t.mlir --hex-tile="h=3 widths=16,64 unroll=true" --poly-to-gpu="threads=64,1 promote=none" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=FULL

// Two phases: a kernel mark each, the thread ids bounded by a context node,
// the steps distributed over the threads and followed by a barrier statement.
// TREE: poly.scop steps
// TREE-SAME: gpu_max_blocks = 2 : i64, gpu_threads = array<i64: 8>
// TREE-SAME: mark: \22kernel\22, child: { context: \22[tid_x] -> { [T] : 0 <= tid_x <= 7 }\22
// TREE-SAME: extension: \22{ [i0, i1, i2] -> barrier[i0, i1, i2]
// TREE-SAME: mark: \22threads\22, child: { filter: \22[tid_x] -> { S0[t, s1] :
// TREE-SAME: options: \22{ unroll[0] }\22
// TREE-SAME: filter: \22{ barrier[i0, i1, i2] }\22
// TREE-SAME: mark: \22kernel\22

// The time-tile loop on the host launches one kernel per phase; blocks take
// the hexagons with the grid's stride; a barrier ends every step, outside
// the guards that test thread ids.
// LOOPS-LABEL: func.func @jacobi1d_3pt(
// LOOPS:         scf.for %[[T:.*]] = %c0 to %c2 step %c1 {
// LOOPS:           gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%[[G:.*]] = %c2, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) {
// LOOPS-NEXT:        scf.for %{{.*}} = %[[B]] to %c12 step %[[G]] {
// LOOPS:               scf.for %[[STEP:.*]] = %{{.*}} to %{{.*}} step %c1 {
// LOOPS:                 scf.if
// LOOPS:                   memref.store
// LOOPS:                 gpu.barrier
// LOOPS-NEXT:          }
// LOOPS:             gpu.terminator
// LOOPS:           gpu.launch blocks
// LOOPS-SAME:        threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1)
// LOOPS:             scf.for %{{.*}} = %{{.*}} to %c11 step
// LOOPS:               gpu.barrier
// LOOPS:           gpu.terminator
// LOOPS-NOT:     gpu.launch

// Default threads: 32 along x (the innermost dimension, capped by the tile
// width 16) and 4 along y.
// DEFAULT: gpu_threads = array<i64: 16, 4>
// DEFAULT-SAME: context: \22[tid_x, tid_y] -> { [T] : 0 <= tid_x <= 15 and 0 <= tid_y <= 3 }\22
// The block's walk over its parallelogram tiles is one (atomic) loop.
// DEFAULT-SAME: permutable: 1, options: \22{ atomic[0] }\22

// BUDGET-IN: mark: \22threads\22
// BUDGET-IN-SAME: options: \22{ unroll[i0] : 0 <= i0 <= 1 }\22
// BUDGET-OUT: mark: \22threads\22
// BUDGET-OUT-NOT: unroll[i0]

// UNTILED: gpu_threads = array<i64: 64>
// UNTILED-SAME: mark: \22kernel\22, child: { context: \22[tid_x] -> { [T] : 0 <= tid_x <= 63 }\22
// UNTILED-SAME: mark: \22threads\22, child: { filter: \22[tid_x] -> { S0[t, s1, s2 = tid_x] }\22
// UNTILED-LOOPS:      scf.for %{{.*}} = %c0 to %c11 step %c1 {
// UNTILED-LOOPS-NEXT:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1)
// UNTILED-LOOPS-NOT:    gpu.barrier
// UNTILED-LOOPS:        memref.store
// UNTILED-LOOPS-NOT:    gpu.launch

// REPARSE-COUNT-2: gpu.launch

// FULL:      gpu.launch
// FULL:        scf.for %{{.*}} = %c1 to %c8 step %c1 {
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NOT:      scf.if
// FULL:          gpu.barrier
// FULL-NEXT:   }
