// RUN: stencil-opt %s --stencil-parallel-to-gpu=block-sizes=16,4,2 --cse | FileCheck %s --check-prefix=XYZ
// RUN: stencil-opt %s --stencil-parallel-to-gpu=block-sizes=64 --cse | FileCheck %s --check-prefix=X
// RUN: not stencil-opt %s --stencil-parallel-to-gpu=block-sizes=0 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not="see current operation"
// RUN: not stencil-opt %s --stencil-parallel-to-gpu=block-sizes=64,32 2>&1 | FileCheck %s --check-prefix=TOTAL --implicit-check-not="see current operation"
// RUN: not stencil-opt %s --stencil-parallel-to-gpu=block-sizes=1,1,128 2>&1 | FileCheck %s --check-prefix=Z --implicit-check-not="see current operation"
// RUN: not stencil-opt %s --stencil-parallel-to-gpu=block-sizes=1,1,1,1 2>&1 | FileCheck %s --check-prefix=FOUR --implicit-check-not="see current operation"

// Explicit block sizes are x (innermost dimension), y, z; missing ones are
// 1 and entries beyond the mapped dimensions are not used.

// XYZ-LABEL: func.func @three_d(
// XYZ-DAG:     %[[C2:.*]] = arith.constant 2 : index
// XYZ-DAG:     %[[C4:.*]] = arith.constant 4 : index
// XYZ-DAG:     %[[C5:.*]] = arith.constant 5 : index
// XYZ-DAG:     %[[C16:.*]] = arith.constant 16 : index
// XYZ:         gpu.launch blocks({{.*}}) in (%{{[a-z0-9_]+}} = %[[C4]], %{{[a-z0-9_]+}} = %[[C5]], %{{[a-z0-9_]+}} = %[[C5]])
// XYZ-SAME:        threads({{.*}}) in (%{{[a-z0-9_]+}} = %[[C16]], %{{[a-z0-9_]+}} = %[[C4]], %{{[a-z0-9_]+}} = %[[C2]])

// XYZ-LABEL: func.func @one_d(
// XYZ-DAG:     %[[C1:.*]] = arith.constant 1 : index
// XYZ-DAG:     %[[C16:.*]] = arith.constant 16 : index
// XYZ-DAG:     %[[C7:.*]] = arith.constant 7 : index
// XYZ:         gpu.launch blocks({{.*}}) in (%{{[a-z0-9_]+}} = %[[C7]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// XYZ-SAME:        threads({{.*}}) in (%{{[a-z0-9_]+}} = %[[C16]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])

// X-LABEL: func.func @three_d(
// X-DAG:     %[[C1:.*]] = arith.constant 1 : index
// X-DAG:     %[[C9:.*]] = arith.constant 9 : index
// X-DAG:     %[[C18:.*]] = arith.constant 18 : index
// X-DAG:     %[[C64:.*]] = arith.constant 64 : index
// X:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BZ:[a-z0-9_]+]]) in (%{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C18]], %{{[a-z0-9_]+}} = %[[C9]])
// X-SAME:        threads(%[[TX:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %[[TZ:[a-z0-9_]+]]) in (%{{[a-z0-9_]+}} = %[[C64]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// One thread per block along y and z, and only x needs a bounds check.
// X-NEXT:      %[[K:.*]] = arith.addi %[[BZ]], %[[TZ]] : index
// X-NEXT:      %[[J:.*]] = arith.addi %[[BY]], %[[TY]] : index
// X-NEXT:      %[[FIRST:.*]] = arith.muli %[[BX]], %[[C64]] : index
// X-NEXT:      %[[I:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// X-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// X-NOT:       arith.cmpi
// X:           scf.if %[[IN]]
// X-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[K]], %[[J]], %[[I]]]

// Located at the first loop to map (not at the module's line 0).
// ZERO: parallel-to-gpu-block-sizes.mlir:{{[1-9][0-9]*}}:{{[0-9]+}}: error: block-sizes entry 0 is 0; CUDA allows 1 to 1024
// TOTAL: error: block-sizes give 2048 threads per block; CUDA allows at most 1024
// Z: error: block-sizes entry 2 is 128; CUDA allows 1 to 64
// FOUR: error: block-sizes takes at most 3 entries (x, y, z), got 4

func.func @three_d(%a: memref<9x18x50xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c18 = arith.constant 18 : index
  %c50 = arith.constant 50 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%k, %j, %i) = (%c0, %c0, %c0) to (%c9, %c18, %c50) step (%c1, %c1, %c1) {
    memref.store %cst, %a[%k, %j, %i] : memref<9x18x50xf32>
    scf.reduce
  }
  return
}

func.func @one_d(%a: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
    memref.store %cst, %a[%i] : memref<100xf32>
    scf.reduce
  }
  return
}
