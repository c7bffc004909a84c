// Shared-memory promotion of hex-tiled kernels (poly-to-gpu promote=...):
// the promoted tree, and the kernels it lowers to.
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" | FileCheck %s --check-prefix=TREE
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=COPY
// Promoted scops print, parse and lower in another process.
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" | stencil-opt --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=COPY
// The default (interleaved): no copy-out, each value stored to both memories.
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=WT
// Rotating buffers of a 2D program: both time levels in one box, the
// threads 2D over it (x on the innermost dimension).
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4 promote=copy" | FileCheck %s --check-prefix=TREE2D
// The copy loop along the innermost dimension (on thread x) is unrolled
// (isl's unroll loop type on the copy band's last member; a 25-wide row of
// the box over 16 threads is 2 copies per thread); unroll=false keeps it.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4" | FileCheck %s --check-prefix=UNROLL-COPY
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4 unroll=false" | FileCheck %s --check-prefix=LOOP-COPY
// UNROLL-COPY: { copy_in_0_A0[p0, p1, p2, l0, l1, l2] -> [(floor((l2)/16))] }]\22, options: \22{ unroll[2] }\22
// LOOP-COPY: { copy_in_0_A0[p0, p1, p2, l0, l1, l2] -> [(floor((l2)/16))] }]\22 }
// inter-tile-reuse=false loads every box whole.
// RUN: %python -m stencil.benchmarks gen jacobi2d --shape 128,254 --steps 16 --dtype f32 > %t.j2.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4 inter-tile-reuse=false" | FileCheck %s --check-prefix=NOREUSE
// NOREUSE-NOT: reuse =
// NOREUSE-NOT: move_
// No reuse when the shift (16) is not a multiple of the threads along x (a
// thread would move elements another thread copies).
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=32,4" | FileCheck %s --check-prefix=NOREUSE
// With several statements per step the default (auto) leaves reuse off:
// every array's moves multiply the copy code (fdtd-2d: +34% modeled
// instructions, 250 instead of 160 registers); true asks for it.
// RUN: %python -m stencil.benchmarks gen fdtd2d --shape 256,256 --steps 32 --dtype f32 > %t.fdtd2d.mlir
// RUN: stencil-opt %t.fdtd2d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=NOREUSE
// RUN: stencil-opt %t.fdtd2d.mlir --hex-tile --poly-to-gpu=inter-tile-reuse=auto | FileCheck %s --check-prefix=NOREUSE
// RUN: stencil-opt %t.fdtd2d.mlir --hex-tile --poly-to-gpu=inter-tile-reuse=true | FileCheck %s --check-prefix=REUSE
// RUN: stencil-opt %t.j2.mlir --hex-tile --poly-to-gpu=inter-tile-reuse=auto | FileCheck %s --check-prefix=REUSE
// REUSE: reuse = array<i64:
// REUSE: move_0_A0
// The moves lowered: a load from the buffer and a store to it, before the
// loads from global memory and the barrier.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4" --convert-stencil-to-loops --canonicalize --cse | FileCheck %s --check-prefix=MOVE
// MOVE: gpu.launch
// MOVE-SAME: workgroup(%[[SH:.*]] : memref<2x17x25xf64, #gpu.address_space<workgroup>>)
// MOVE: %[[M:.*]] = memref.load %[[SH]][{{.*}}] : memref<2x17x25xf64, #gpu.address_space<workgroup>>
// MOVE-NEXT: memref.store %[[M]], %[[SH]][{{.*}}] : memref<2x17x25xf64, #gpu.address_space<workgroup>>
// MOVE: memref.load %{{.*}} : memref<66x66xf64>
// MOVE: gpu.barrier
// Aligned loads (step d): --hex-tile with default sizes is translated so
// that the part a following tile loads starts a 128-byte line: the box
// offset -8 + 64 i2 (73 wide, 64 new columns from local 9, i.e. column 2 of
// the rows, which start at -1) becomes -10 + 64 i2 (column 0).
// RUN: stencil-opt %t.j2.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=ALIGN
// RUN: stencil-opt %t.j2.mlir --hex-tile --poly-to-gpu=align-loads=false | FileCheck %s --check-prefix=NOALIGN
// ALIGN: offset = "{ [i0, i1, i2] -> A0[(0), ({{.*}}), (-10 + 64i2)] }", reuse = array<i64: 0, 0, 64>, shape = array<i64: 2, 10, 73>
// NOALIGN: offset = "{ [i0, i1, i2] -> A0[(0), ({{.*}}), (-8 + 64i2)] }", reuse = array<i64: 0, 0, 64>, shape = array<i64: 2, 10, 73>
// Thread points: cyclic (the default) gives thread y every fourth row,
// blocked four consecutive rows of the tile (local row 4 tid_y .. 4 tid_y + 3).
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4 thread-points=blocked" | FileCheck %s --check-prefix=BLOCKED
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4" | FileCheck %s --check-prefix=CYCLIC
// BLOCKED: filter: \22[tid_x, tid_y] -> { S0[t, s1, s2] : ({{.*}}) mod 16 = 0 and 0 <= tid_x <= 15 and 9 - 4tid_y + s1 <= 24*floor((12 + s1)/24) <= 12 - 4tid_y + s1 }
// CYCLIC: filter: \22[tid_x, tid_y] -> { S0[t, s1, s2] : (-tid_y + s1) mod 4 = 0 and ({{.*}}) mod 16 = 0 and 0 <= tid_x <= 15 and 0 <= tid_y <= 3 }
// What does not fit stays in global memory, with a remark; the program
// still lowers (random programs in gpu-emulation-random.test mix promoted
// and unpromoted arrays).
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="shared-budget=6000" --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=BUDGET
// Promoted, the headline command's sizes fit the budget: heat3d f32 at 96^3
// with the GPU's 3D defaults (h=1, widths 8,8,32) needs 50024 bytes per
// tile; with --hex-tile alone (target=auto) poly-to-gpu halves the widest
// outer width until the tile fits (4,8,32: 34632 bytes); explicit sizes
// are kept. By default (promote=auto) 3D kernels are not promoted: no
// buffers, no remark.
// RUN: %python -m stencil.benchmarks gen heat3d --shape 96,96,96 --steps 8 --dtype f32 > %t.heat3d.mlir
// RUN: stencil-opt %t.heat3d.mlir --hex-tile --poly-to-gpu="chip=sm_75 promote=interleaved" 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: stencil-opt %t.heat3d.mlir --hex-tile=target=gpu --poly-to-gpu=promote=interleaved 2>&1 | FileCheck %s --check-prefix=NOFIT
// RUN: stencil-opt %t.heat3d.mlir --hex-tile --poly-to-gpu=chip=sm_75 2>&1 | FileCheck %s --check-prefix=AUTO3D
// promote=none is the unpromoted mapping.
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=none" | FileCheck %s --check-prefix=NONE

// Per kernel, the box of the tile: its offset an affine function of the
// tile (T, S_hex), two time levels of 17 elements.
// TREE: gpu_shared = [{array = @A0, kernel = 0 : i64, offset = "{ [i0, i1] -> A0[(0), (-13 + 24i1)] }", shape = array<i64: 2, 17>}, {array = @A0, kernel = 1 : i64, offset = "{ [i0, i1] -> A0[(0), (-1 + 24i1)] }", shape = array<i64: 2, 17>}]
// The copies and their barriers below the "shared" mark, the steps between
// them; copy-in over the box clipped to the array (here 0..257, so
// 12 - 24p1 <= l1 <= 269 - 24p1), copy-out of the elements written.
// TREE: mark: \22kernel\22
// TREE-SAME: mark: \22shared\22, child: { extension: \22{ [i0, i1] -> barrier_in[i0, i1]
// TREE-SAME: copy_out_0_A0[i0, i1, o2, o3] : exists
// TREE-SAME: copy_in_0_A0[p0' = p0, p1' = p1, l0, l1] : 0 <= p0 <= 1 and 0 <= p1 <= 11 and 0 <= l0 <= 1 and l1 >= 0 and 12 - 24p1 <= l1 <= 269 - 24p1 and l1 <= 16
// TREE-SAME: barrier_out[i0, i1]
// TREE-SAME: sequence: [ { filter: \22{ copy_in_0_A0[p0, p1, l0, l1] }\22, child: { mark: \22threads\22, child: { filter: \22[tid_x] -> { copy_in_0_A0[p0, p1, l0, l1] : (-tid_x + l1) mod 8 = 0 and 0 <= tid_x <= 7 }\22
// TREE-SAME: { filter: \22{ barrier_in[i0, i1] }\22 }, { filter: \22{ S0[t, i0] }\22
// TREE-SAME: filter: \22{ barrier[i0, i1, i2] }\22
// TREE-SAME: { filter: \22{ copy_out_0_A0[i0, i1, i2, i3] }\22
// TREE-SAME: { filter: \22{ barrier_out[i0, i1] }\22 } ]
// TREE-SAME: mark: \22kernel\22
// TREE-SAME: mark: \22shared\22

// Each kernel: a workgroup buffer; copy-in from global, a barrier, the
// steps on the buffer only, copy-out to global, a barrier.
// COPY: gpu.launch
// COPY-SAME: workgroup(%[[SH:.*]] : memref<2x17xf64, #gpu.address_space<workgroup>>)
// COPY: %[[V:.*]] = memref.load %{{.*}} : memref<258xf64>
// COPY-NEXT: memref.store %[[V]], %[[SH]][{{.*}}] : memref<2x17xf64, #gpu.address_space<workgroup>>
// COPY: gpu.barrier
// COPY-NOT: memref<258xf64>
// COPY: memref.store %{{.*}}, %[[SH]][{{.*}}] {stencil.update} : memref<2x17xf64, #gpu.address_space<workgroup>>
// COPY-NOT: memref<258xf64>
// COPY: gpu.barrier
// COPY: %[[W:.*]] = memref.load %[[SH]][{{.*}}] : memref<2x17xf64, #gpu.address_space<workgroup>>
// COPY-NOT: gpu.barrier
// COPY: memref.store %[[W]], %{{.*}} : memref<258xf64>
// COPY: gpu.barrier
// COPY: gpu.launch
// COPY-SAME: workgroup(

// WT: gpu.launch
// WT-SAME: workgroup(%[[SH:.*]] : memref<2x17xf64, #gpu.address_space<workgroup>>)
// WT: memref.store %{{.*}}, %[[SH]][{{.*}}] : memref<2x17xf64, #gpu.address_space<workgroup>>
// WT: gpu.barrier
// WT: memref.store %[[X:.*]], %[[SH]][{{.*}}] {stencil.update} : memref<2x17xf64, #gpu.address_space<workgroup>>
// WT-NOT: gpu.barrier
// WT: memref.store %[[X]], %{{.*}} : memref<258xf64>
// WT: gpu.launch

// TREE2D: gpu_shared = [{array = @A0, kernel = 0 : i64, offset = "{ [i0, i1, i2] -> A0[(0), (-13 + 24i1), (-8 + 16i2)] }", reuse = array<i64: 0, 0, 16>, shape = array<i64: 2, 17, 25>}
// Inter-tile reuse (step f, the default): a tile after the first of its
// row along x (p2 > 0) moves the 9 columns both boxes hold (local 16..24
// to 0..8) and loads the 16 new ones (9..24 of its box, clipped to the
// array); the first tile (p2 = 0) loads its whole box. The moves come
// first, on the threads that copy those elements (the shift, 16, is a
// multiple of the 16 threads along x).
// TREE2D-SAME: [p0, p1, p2] -> copy_in_0_A0[p0' = p0, p1' = p1, p2' = p2, l0, l1, l2] : 0 <= p0 <= 1 and p2 > 0 and 0 <= l0 <= 1 and l1 >= 0 and 12 - 24p1 <= l1 <= 77 - 24p1 and l1 <= 16 and 9 <= l2 <= 72 - 16p2 and l2 <= 24;
// TREE2D-SAME: [p0, p1, p2 = 0] -> copy_in_0_A0[p0' = p0, p1' = p1, p2' = 0, l0, l1, l2] : 0 <= p0 <= 1 and 0 <= l0 <= 1 and l1 >= 0 and 12 - 24p1 <= l1 <= 77 - 24p1 and l1 <= 16 and 7 <= l2 <= 24;
// TREE2D-SAME: [p0, p1, p2] -> move_0_A0[p0' = p0, p1' = p1, p2' = p2, l0, l1, l2] : 0 <= p0 <= 1 and 0 < p2 <= 4 and 0 <= l0 <= 1 and l1 >= 0 and 12 - 24p1 <= l1 <= 77 - 24p1 and l1 <= 16 and 0 <= l2 <= 8
// TREE2D-SAME: sequence: [ { filter: \22{ move_0_A0[p0, p1, p2, l0, l1, l2] }\22, child: { mark: \22threads\22, child: { filter: \22[tid_x, tid_y] -> { move_0_A0[p0, p1, p2, l0, l1, l2] : (-tid_y + l1) mod 4 = 0 and (-tid_x + l2) mod 16 = 0
// TREE2D-SAME: filter: \22[tid_x, tid_y] -> { copy_in_0_A0[p0, p1, p2, l0, l1, l2] : (-tid_y + l1) mod 4 = 0 and (-tid_x + l2) mod 16 = 0

// BUDGET: remark: array @A0 stays in global memory: its tile footprint (6800 bytes) does not fit in the shared-memory budget (6000 of 6000 bytes left)
// The remark points at the loop, without the scop printed after it.
// BUDGET-NOT: see current operation
// BUDGET-NOT: workgroup
// BUDGET: gpu.launch
// BUDGET-NOT: workgroup

// NONE-NOT: gpu_shared
// NONE-NOT: shared
// NONE: gpu_threads

// FIT-NOT: remark
// FIT: gpu_shared = [{array = @A0, kernel = 0 : i64, offset = {{.*}}, shape = array<i64: 2, 9, 13, 37>}
// NOFIT: remark: array @A0 stays in global memory: its tile footprint (50024 bytes) does not fit
// NOFIT-NOT: gpu_shared
// AUTO3D-NOT: remark
// AUTO3D-NOT: gpu_shared
// AUTO3D: gpu_threads = array<i64: 32, 4, 2>
// AUTO3D-NOT: gpu_shared
