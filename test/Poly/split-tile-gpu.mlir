// Split tiles on the GPU: --split-tile without sizes tiles for the CPU
// (with model=false the fixed bands of 8 steps in 2D) and leaves
// split_tile_auto; poly-to-gpu tiles
// again with the GPU's sizes (bands of 4 steps, periods 16 x 64, steps
// unrolled) and maps each of the four colors to a kernel; the whole
// pipeline launches one kernel per color in the band loop.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile=model=false | FileCheck %s --check-prefix=CPU
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu | FileCheck %s --check-prefix=TREE
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu | grep -o 'mark: \\22kernel\\22' | count 4
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --convert-to-gpu=host-to-llvm=false | FileCheck %s --check-prefix=LAUNCH
// 3D: the second tile dimension of each color goes over the grid's y
// (tile-grid, on by default; heat3d's 20 rows: 3 tiles of 8), the last
// stays a stream within the block; tile-grid=0 keeps the tiles after the
// first in sequence.
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile --poly-to-gpu | FileCheck %s --check-prefix=GRID
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile --poly-to-gpu | grep -o 'mark: \\22grid_y_3\\22' | count 8
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile --poly-to-gpu=tile-grid=0 | FileCheck %s --check-prefix=NOGRID
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile --convert-to-gpu=host-to-llvm=false | FileCheck %s --check-prefix=GRIDLAUNCH
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile --convert-to-gpu="host-to-llvm=false tile-grid=0" | FileCheck %s --check-prefix=NOGRIDLAUNCH
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

// GRID: mark: \22kernel\22
// GRID-SAME: [(floor((s1)/8))] }]\22, permutable: 1, coincident: [ 1 ], child: { mark: \22grid_y_3\22, child: { schedule: \22[{ S0[t, s1, s2, s3] -> [(floor((s2)/8))] }, { S0[t, s1, s2, s3] -> [(floor((s3)/128))] }]\22

// NOGRID-NOT: grid_y
// NOGRID: mark: \22kernel\22
// NOGRID-NOT: grid_y

// GRIDLAUNCH-COUNT-8: gpu.launch_func {{.*}} blocks in (%{{.*}}, %c3, %c1)
// GRIDLAUNCH: gpu.func @heat3d_kernel
// Tile y runs on block floormod(y, grid): the loop over the y tiles (from
// 0 here) starts at floormod(block_id_y - 0, grid_dim_y).
// GRIDLAUNCH: %[[REM:.*]] = arith.remsi %block_id_y, %grid_dim_y : index
// GRIDLAUNCH: %[[NEG:.*]] = arith.cmpi slt, %[[REM]], %c0 : index
// GRIDLAUNCH: %[[UP:.*]] = arith.addi %[[REM]], %grid_dim_y : index
// GRIDLAUNCH: %[[FIRST:.*]] = arith.select %[[NEG]], %[[UP]], %[[REM]] : index
// GRIDLAUNCH: scf.for %{{.*}} = %block_id_x to %{{.*}} step %grid_dim_x {
// GRIDLAUNCH: scf.for %{{.*}} = %[[FIRST]] to %c3 step %grid_dim_y {

// NOGRIDLAUNCH-COUNT-8: gpu.launch_func {{.*}} blocks in (%{{.*}}, %c1, %c1)
// NOGRIDLAUNCH-NOT: block_id_y
