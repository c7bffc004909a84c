// The tile-size model (model=true, the default): without h and widths the
// CPU sizes are the ones whose full tile moves the fewest elements per
// update (counted with isl) within the cache budget, reported with report.
// RUN: stencil-opt %s --hex-tile="model=true report cache-kib=16" 2>&1 | FileCheck %s --check-prefix=HEX
// RUN: stencil-opt %s --split-tile="model=true report cache-kib=16" 2>&1 | FileCheck %s --check-prefix=SPLIT
// The model is the default: the same sizes without model=true.
// RUN: stencil-opt %s --hex-tile="report cache-kib=16" 2>&1 | FileCheck %s --check-prefix=HEX
// RUN: stencil-opt %s --split-tile="report cache-kib=16" 2>&1 | FileCheck %s --check-prefix=SPLIT
// model=false: the fixed defaults (h = 15, w0 = 512 in 1D).
// RUN: stencil-opt %s --hex-tile=model=false | FileCheck %s --check-prefix=DEFAULT
// No tile within the budget: a tile larger than the cache reuses nothing
// there, so the fixed defaults are taken (the same tiling as model=false).
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --hex-tile="report cache-kib=4" 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile="report cache-kib=4" 2>&1 | FileCheck %s --check-prefix=OVER-SPLIT
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --hex-tile="cache-kib=4" > %t.over.mlir
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --hex-tile=model=false > %t.fixed.mlir
// RUN: diff %t.over.mlir %t.fixed.mlir
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile="cache-kib=4" > %t.over-split.mlir
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --split-tile=model=false > %t.fixed-split.mlir
// RUN: diff %t.over-split.mlir %t.fixed-split.mlir
// OVER: remark: hex-tile: no tile within the budget (the smallest the model found: h=0 widths=4,4,256, {{.*}} footprint 170 KiB (budget 4 KiB)); the defaults
// OVER-SPLIT: remark: split-tile: no tile within the budget (the smallest the model found: {{.*}} (budget 4 KiB)); the defaults
// Given sizes win over the model.
// RUN: stencil-opt %s --hex-tile="model=true report h=3 widths=8" 2>&1 | FileCheck %s --check-prefix=GIVEN

// HEX: remark: hex-tile: sizes h=23 widths=512 (model): 0.0671 loads+stores per update (609 loads, 1118 stores, 25728 updates per tile), footprint 9 KiB (budget 16 KiB)
// HEX: poly.scop steps
// HEX-SAME: floor((t)/48)
// SPLIT: remark: split-tile: sizes h=24 widths=512 (model): 0.1398 loads+stores per update (606 loads, 1112 stores, 12288 updates per tile), footprint 9 KiB (budget 16 KiB)
// SPLIT: poly.scop steps
// SPLIT-SAME: floor((t)/24)
// DEFAULT: poly.scop steps
// DEFAULT-SAME: floor((t)/32)
// GIVEN-NOT: remark
// GIVEN: poly.scop steps
// GIVEN-SAME: floor((t)/8)

func.func @jacobi(%u0 : !stencil.field<[-1,257]xf64>, %u1 : !stencil.field<[-1,257]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 100 : index
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,257]xf64>, !stencil.field<[-1,257]xf64>) {
    %l = stencil.load %a : !stencil.field<[-1,257]xf64> -> !stencil.temp<?xf64>
    %n = stencil.apply(%x = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %w = stencil.access %x[-1] : !stencil.temp<?xf64>
      %c = stencil.access %x[0] : !stencil.temp<?xf64>
      %e = stencil.access %x[1] : !stencil.temp<?xf64>
      %s = arith.addf %w, %c : f64
      %v = arith.addf %s, %e : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %n to %b(<[0], [256]>) : !stencil.temp<?xf64> to !stencil.field<[-1,257]xf64>
    scf.yield %b, %a : !stencil.field<[-1,257]xf64>, !stencil.field<[-1,257]xf64>
  }
  func.return
}
