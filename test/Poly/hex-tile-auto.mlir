// --hex-tile without sizes or target (target=auto) tiles with the CPU's
// default sizes and marks the scop, so that a GPU mapping that follows
// (poly-to-gpu, e.g. inside --convert-to-gpu) tiles it again with the GPU's:
// the headline command `--hex-tile --convert-to-gpu` gets GPU-sized tiles.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile | FileCheck %s --check-prefix=AUTO
// For a chip outside the device table (sm_75) these are the GPU table's
// sizes, as --hex-tile=target=gpu gives them.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --poly-to-gpu=chip=sm_75 > %t.auto.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=target=gpu --poly-to-gpu=chip=sm_75 > %t.gpu.mlir
// RUN: diff %t.auto.mlir %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.auto.mlir
// Other hex-tile options carry over to the GPU tiling.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="hex-dim=1 isolate=false" --poly-to-gpu=chip=sm_75 > %t.auto1.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="target=gpu hex-dim=1 isolate=false" --poly-to-gpu=chip=sm_75 > %t.gpu1.mlir
// RUN: diff %t.auto1.mlir %t.gpu1.mlir
// The GPU tiling unrolls the time steps of a tile (the t' band) unless
// --hex-tile says otherwise, which then carries over.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --poly-to-gpu=chip=sm_75 | FileCheck %s --check-prefix=UNROLL
// UNROLL: { S0[t, s1, s2] -> [((4 + t) mod 8)] }]\22, options: \22{ unroll[0] }\22
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=unroll=false | FileCheck %s --check-prefix=UNROLL-ASKED
// UNROLL-ASKED: hex_tile_auto = {hex_dim = 0 : i64, unroll = false}
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=unroll=false --poly-to-gpu=chip=sm_75 | FileCheck %s --check-prefix=NO-UNROLL
// NO-UNROLL: poly.scop
// NO-UNROLL-NOT: unroll[0]
// For sm_90 (132 SMs) the hexagons narrow to the smallest valid w0 (1:
// W = 10), as 66 rows cannot give 264 blocks per phase (docs/gpu.md,
// "Kernels sized for the device").
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=SM90
// SM90: floor((4 + t)/8)
// SM90-SAME: floor((5 + s1)/10)
// SM90-SAME: /64
// In 3D, isolation is off unless --hex-tile asked for it (full- and
// partial-tile code in one kernel would spill there).
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=NOISO
// NOISO: poly.scop
// NOISO-NOT: isolate
// NOISO: gpu_threads
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --hex-tile=isolate=true | FileCheck %s --check-prefix=ISO-ASKED
// ISO-ASKED: hex_tile_auto = {hex_dim = 0 : i64, isolate = true}
// RUN: %python -m stencil.benchmarks gen heat3d --shape 32,32,96 --steps 8 --dtype f32 > %t.heat3d.mlir
// RUN: stencil-opt %t.heat3d.mlir --hex-tile=isolate=true --poly-to-gpu | FileCheck %s --check-prefix=ISO
// RUN: stencil-opt %t.heat3d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=NOISO
// ISO: options: \22{ isolate[
// In 2D with one statement per step the GPU tiling isolates full tiles
// (ISO2D); with several (fdtd-2d's three), it does not unless asked: the
// full-tile copy of every statement spills and multiplies the loop
// generation there too.
// RUN: %python -m stencil.benchmarks gen jacobi2d --shape 256,256 --steps 32 --dtype f32 > %t.jacobi2d.mlir
// RUN: stencil-opt %t.jacobi2d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=ISO2D
// ISO2D: options: \22{ atomic[0]; isolate[
// RUN: %python -m stencil.benchmarks gen fdtd2d --shape 256,256 --steps 32 --dtype f32 > %t.fdtd2d.mlir
// RUN: stencil-opt %t.fdtd2d.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %t.fdtd2d.mlir --hex-tile=isolate=true --poly-to-gpu | FileCheck %s --check-prefix=ISO2D
// Nor with one statement of more than 20 operations (Devito's heat form at
// order 2: 24), whose full-tile copy doubles the registers and the compile
// time; the same with --hex-tile=target=gpu.
// RUN: %python -m stencil.devito_forms gen heat --order 2 --shape 256,256 --steps 8 -o %t.heat2.mlir
// RUN: stencil-opt %t.heat2.mlir --hex-tile --poly-to-gpu | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %t.heat2.mlir --hex-tile=target=gpu --poly-to-gpu | FileCheck %s --check-prefix=NOISO
// RUN: stencil-opt %t.heat2.mlir --hex-tile=isolate=true --poly-to-gpu | FileCheck %s --check-prefix=ISO2DN
// RUN: stencil-opt %t.heat2.mlir --hex-tile="target=gpu isolate=true" --poly-to-gpu | FileCheck %s --check-prefix=ISO2DN
// (Its step count is a parameter: `[N] -> { ... }`.)
// ISO2DN: options: \22[N] -> { atomic[0]; isolate[
// With poly-to-gpu next (only shape inference may stand between), the
// CPU tiling would be thrown away: stencil-opt lets --hex-tile leave the
// scop's canonical schedule with the mark alone (DEFER), in a
// --pass-pipeline too. Any other pass between them, or a fused scop, gets
// the CPU tiling first (TILED); the GPU tiling is the same either way.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --poly-to-gpu=chip=sm_75 -mlir-print-ir-after=hex-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFER
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --pass-pipeline="builtin.module(hex-tile,stencil-shape-inference,poly-to-gpu{chip=sm_75})" -mlir-print-ir-after=hex-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFER
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --convert-to-gpu=format=isa -mlir-print-ir-after=hex-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFER
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --symbol-dce --poly-to-gpu=chip=sm_75 -mlir-print-ir-after=hex-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=TILED
// RUN: stencil-opt %stencil_src/examples/fdtd2d.mlir --fuse --hex-tile --poly-to-gpu=chip=sm_75 -mlir-print-ir-after=hex-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=TILED
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --symbol-dce --poly-to-gpu=chip=sm_75 > %t.kept.mlir
// RUN: diff %t.auto.mlir %t.kept.mlir
// The same for --split-tile.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu=chip=sm_75 -mlir-print-ir-after=split-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFER
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --poly-to-gpu=chip=sm_75 > %t.split.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --split-tile --symbol-dce --poly-to-gpu=chip=sm_75 > %t.split-kept.mlir
// RUN: diff %t.split.mlir %t.split-kept.mlir
// DEFER: poly.scop
// DEFER-SAME: _tile_auto = {
// DEFER-NOT: floor(
// DEFER: poly.yield
// TILED: poly.scop
// TILED-SAME: floor(
// Explicit sizes or an explicit target are kept.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=target=cpu | FileCheck %s --check-prefix=KEEP
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=h=2 | FileCheck %s --check-prefix=KEEP

// AUTO: poly.scop
// AUTO-SAME: hex_tile_auto = {hex_dim = 0 : i64}
// The GPU's 2D default sizes (h=3, widths 16,64): tiles of 8 steps, hexagon
// tiles 40 apart, parallelograms 64 wide.
// MAPPED-NOT: hex_tile_auto
// MAPPED: floor((4 + t)/8)
// MAPPED-SAME: floor((20 + s1)/40)
// MAPPED-SAME: /64
// KEEP-NOT: hex_tile_auto
