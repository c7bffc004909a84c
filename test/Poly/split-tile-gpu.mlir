// Split tiles on the GPU: --split-tile without sizes tiles for the CPU
// (bands of 8 steps in 2D) and leaves split_tile_auto; poly-to-gpu tiles
// again with the GPU's sizes (bands of 4 steps, periods 16 x 64, steps
// unrolled) and maps each of the four colors to a kernel; the whole
// pipeline launches one kernel per color in the band loop.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile | FileCheck %s --check-prefix=CPU
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu | FileCheck %s --check-prefix=TREE
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu | grep -o 'mark: \\22kernel\\22' | count 4
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --convert-to-gpu=host-to-llvm=false | FileCheck %s --check-prefix=LAUNCH
// Explicit sizes are kept (no re-tiling).
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile="h=2 widths=8,32" --poly-to-gpu | FileCheck %s --check-prefix=KEPT

// CPU: poly.scop steps{{.*}}schedule = "{ domain: {{.*}} child: { schedule: \22[{ S0[t, s1, s2] -> [(floor((t)/8))] }]\22
// CPU-SAME: split_tile_auto = {}

// TREE-NOT: split_tile_auto
// TREE: child: { schedule: \22[{ S0[t, s1, s2] -> [(floor((t)/4))] }]\22
// TREE-SAME: mark: \22kernel\22
// TREE-SAME: options: \22{ unroll[0] }\22

// LAUNCH: scf.for
// LAUNCH-COUNT-4: gpu.launch_func
// LAUNCH-NOT: gpu.launch_func
// LAUNCH: gpu.module

// KEPT: child: { schedule: \22[{ S0[t, s1, s2] -> [(floor((t)/2))] }]\22
// KEPT-SAME: (floor((s2)/32))
