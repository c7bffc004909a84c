// --hex-tile without sizes or target (target=auto) tiles with the CPU's
// default sizes and marks the scop, so that a GPU mapping that follows
// (poly-to-gpu, e.g. inside --convert-to-gpu) tiles it again with the GPU's:
// the headline command `--hex-tile --convert-to-gpu` gets GPU-sized tiles.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile | FileCheck %s --check-prefix=AUTO
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --poly-to-gpu > %t.auto.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=target=gpu --poly-to-gpu > %t.gpu.mlir
// RUN: diff %t.auto.mlir %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.auto.mlir
// Other hex-tile options carry over to the GPU tiling.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="hex-dim=1 isolate=false" --poly-to-gpu > %t.auto1.mlir
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="target=gpu hex-dim=1 isolate=false" --poly-to-gpu > %t.gpu1.mlir
// RUN: diff %t.auto1.mlir %t.gpu1.mlir
// Explicit sizes or an explicit target are kept.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=target=cpu | FileCheck %s --check-prefix=KEEP
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile=h=2 | FileCheck %s --check-prefix=KEEP

// AUTO: poly.scop
// AUTO-SAME: hex_tile_auto = {hex_dim = 0 : i64, isolate = true, unroll = false}
// The GPU's 2D default sizes (h=3, widths 16,64): tiles of 8 steps, hexagon
// tiles 40 apart, parallelograms 64 wide.
// MAPPED-NOT: hex_tile_auto
// MAPPED: floor((4 + t)/8)
// MAPPED-SAME: floor((20 + s1)/40)
// MAPPED-SAME: /64
// KEEP-NOT: hex_tile_auto
