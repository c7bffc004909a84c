// RUN: stencil-opt %s --stencil-parallel-to-gpu --cse -split-input-file | FileCheck %s

// 1D: 256 threads per block along x, ceildiv(100, 256) = 1 block, and a
// bounds check since 256 does not divide 100. The body moves into the
// check; the module becomes a GPU container.

// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @one_d(
// CHECK-SAME:      %[[A:.*]]: memref<100xf32>, %[[B:.*]]: memref<100xf32>)
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:        threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C256]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK:           %[[FIRST:.*]] = arith.muli %[[BX]], %[[C256]] : index
// CHECK:           %[[I:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[C100]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[V:.*]] = memref.load %[[A]][%[[I]]] : memref<100xf32>
// CHECK:             memref.store %[[V]], %[[B]][%[[I]]] : memref<100xf32>
// CHECK:           }
// CHECK:           gpu.terminator
// CHECK:         }
// CHECK:         return
func.func @one_d(%a: memref<100xf32>, %b: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
    %v = memref.load %a[%i] : memref<100xf32>
    memref.store %v, %b[%i] : memref<100xf32>
    scf.reduce
  }
  return
}

// -----

// 2D: the inner (contiguous) dimension goes to x, the outer to y; 32x8
// threads. Lower bounds and steps enter the induction variables: j = (bx *
// 32 + tx) * 2 covers 20 iterations in one block of 32 (checked), i = by * 8
// + ty + 1 covers 63 in 8 blocks of 8 (checked: 64 threads).

// CHECK-LABEL: func.func @two_d(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C8]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:        threads(%[[TX:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[C32]], %{{[a-z0-9_]+}} = %[[C8]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK:           %[[Y0:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK:           %[[Y1:.*]] = arith.addi %[[Y0]], %[[TY]] : index
// CHECK:           %[[I:.*]] = arith.addi %[[Y1]], %[[C1]] : index
// CHECK:           %[[INI:.*]] = arith.cmpi slt, %[[I]], %[[C64]] : index
// CHECK:           %[[X0:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:           %[[X1:.*]] = arith.addi %[[X0]], %[[TX]] : index
// CHECK:           %[[J:.*]] = arith.muli %[[X1]], %[[C2]] : index
// CHECK:           %[[INJ:.*]] = arith.cmpi slt, %[[J]], %[[C40]] : index
// CHECK:           %[[IN:.*]] = arith.andi %[[INI]], %[[INJ]] : i1
// CHECK:           scf.if %[[IN]] {
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<64x40xf32>
func.func @two_d(%a: memref<64x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c1, %c0) to (%c64, %c40) step (%c1, %c2) {
    memref.store %cst, %a[%i, %j] : memref<64x40xf32>
    scf.reduce
  }
  return
}

// -----

// 3D: 32x4x4 threads. Block sizes that divide the extents need no bounds
// check at all.

// CHECK-LABEL: func.func @three_d(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BZ:[a-z0-9_]+]]) in (%{{[a-z0-9_]+}} = %[[C2]], %{{[a-z0-9_]+}} = %[[C4]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:        threads(%[[TX:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %[[TZ:[a-z0-9_]+]]) in (%{{[a-z0-9_]+}} = %[[C32]], %{{[a-z0-9_]+}} = %[[C4]], %{{[a-z0-9_]+}} = %[[C4]])
// CHECK:           %[[K:.*]] = arith.addi %{{.*}}, %[[TZ]] : index
// CHECK:           %[[J:.*]] = arith.addi %{{.*}}, %[[TY]] : index
// CHECK:           %[[I:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK-NOT:       scf.if
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[K]], %[[J]], %[[I]]] : memref<4x16x64xf32>
// CHECK-NEXT:      gpu.terminator
func.func @three_d(%a: memref<4x16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%k, %j, %i) = (%c0, %c0, %c0) to (%c4, %c16, %c64) step (%c1, %c1, %c1) {
    memref.store %cst, %a[%k, %j, %i] : memref<4x16x64xf32>
    scf.reduce
  }
  return
}

// -----

// 4D: the inner three dimensions are mapped, the outermost one becomes a
// loop in every thread (inside the bounds check, which only z needs: 4
// threads for 3 iterations).

// CHECK-LABEL: func.func @four_d(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         gpu.launch
// CHECK:           %[[K:.*]] = arith.addi %{{.*}} : index
// CHECK:           %[[INK:.*]] = arith.cmpi slt, %[[K]], %[[C3]] : index
// CHECK:           %[[J:.*]] = arith.addi %{{.*}} : index
// CHECK:           %[[I:.*]] = arith.addi %{{.*}} : index
// CHECK:           scf.if %[[INK]] {
// CHECK:             scf.for %[[L:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK:               memref.store %{{.*}}, %{{.*}}[%[[L]], %[[K]], %[[J]], %[[I]]] : memref<2x3x4x64xf32>
func.func @four_d(%a: memref<2x3x4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%l, %k, %j, %i) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c4, %c64) step (%c1, %c1, %c1, %c1) {
    memref.store %cst, %a[%l, %k, %j, %i] : memref<2x3x4x64xf32>
    scf.reduce
  }
  return
}

// -----

// The reference lowering's form: one parallel dimension with a sequential
// inner loop, which stays as it is inside the thread.

// CHECK-LABEL: func.func @inner_loop(
// CHECK:         gpu.launch
// CHECK:           scf.if
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          memref.load
// CHECK-NEXT:          memref.store
func.func @inner_loop(%a: memref<8x8xf64>, %b: memref<8x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<8x8xf64>
      memref.store %v, %b[%i, %j] : memref<8x8xf64>
    }
    scf.reduce
  }
  return
}

// -----

// Dynamic bounds: the grid is computed on the host, clamped to CUDA's limit,
// and the blocks loop over the rest (grid-stride loop).

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[A:.*]]: memref<?xf32>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index)
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[EXTENT:.*]] = arith.subi %[[UB]], %[[LB]] : index
// CHECK:         %[[TRIPS:.*]] = arith.ceildivsi %[[EXTENT]], %[[STEP]] : index
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivsi %[[TRIPS]], %[[C256]] : index
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[ATLEAST1:.*]] = arith.maxsi %[[BLOCKS]], %[[C1]] : index
// CHECK:         %[[MAX:.*]] = arith.constant 2147483647 : index
// CHECK:         %[[GRID:.*]] = arith.minsi %[[ATLEAST1]], %[[MAX]] : index
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%[[GX:[a-z0-9_]+]] = %[[GRID]], %{{[a-z0-9_]+}} = %[[C1]], %{{[a-z0-9_]+}} = %[[C1]])
// CHECK-SAME:        threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in
// CHECK:           scf.for %[[B:.*]] = %[[BX]] to %[[BLOCKS]] step %[[GX]] {
// CHECK:             %[[FIRST:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK:             %[[LIN:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// CHECK:             %[[OFF:.*]] = arith.muli %[[LIN]], %[[STEP]] : index
// CHECK:             %[[I:.*]] = arith.addi %[[LB]], %[[OFF]] : index
// CHECK:             %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[UB]] : index
// CHECK:             scf.if %[[IN]] {
// CHECK:               memref.store %{{.*}}, %[[A]][%[[I]]] : memref<?xf32>
func.func @dynamic(%a: memref<?xf32>, %lb: index, %ub: index, %step: index) {
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%lb) to (%ub) step (%step) {
    memref.store %cst, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A static grid beyond CUDA's 65535 blocks along y is clamped; the blocks
// loop over all 70000 block rows.

// CHECK-LABEL: func.func @huge_y(
// CHECK-DAG:     %[[C65535:.*]] = arith.constant 65535 : index
// CHECK-DAG:     %[[C70000:.*]] = arith.constant 70000 : index
// CHECK:         gpu.launch blocks(%{{[a-z0-9_]+}}, %[[BY:[a-z0-9_]+]], %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %[[GY:[a-z0-9_]+]] = %[[C65535]], %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}})
// CHECK:           scf.for %[[B:.*]] = %[[BY]] to %[[C70000]] step %[[GY]] {
// CHECK:             arith.muli %[[B]]
func.func @huge_y(%a: memref<560000x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %n = arith.constant 560000 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c32) step (%c1, %c1) {
    memref.store %cst, %a[%i, %j] : memref<560000x32xf32>
    scf.reduce
  }
  return
}

// -----

// A time loop with two applies per step: two launches in the loop body. Host
// code that only chooses buffers (select, cast) stays.

// CHECK-LABEL: func.func @time_loop(
// CHECK:         scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}})
// CHECK:           %[[S:.*]] = arith.select %{{.*}}, %[[X]], %[[Y]] : memref<16xf64>
// CHECK:           gpu.launch
// CHECK:             memref.load %[[S]]
// CHECK:             memref.store %{{.*}}, %[[Y]]
// CHECK:             gpu.terminator
// CHECK:           gpu.launch
// CHECK:             memref.load %[[Y]]
// CHECK:             memref.store %{{.*}}, %[[X]]
// CHECK:             gpu.terminator
// CHECK:           scf.yield %[[Y]], %[[X]]
func.func @time_loop(%a: memref<16xf64>, %b: memref<16xf64>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r:2 = scf.for %t = %c0 to %c16 step %c1 iter_args(%x = %a, %y = %b) -> (memref<16xf64>, memref<16xf64>) {
    %s = arith.select %flag, %x, %y : memref<16xf64>
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %s[%i] : memref<16xf64>
      memref.store %v, %y[%i] : memref<16xf64>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %y[%i] : memref<16xf64>
      memref.store %v, %x[%i] : memref<16xf64>
      scf.reduce
    }
    scf.yield %y, %x : memref<16xf64>, memref<16xf64>
  }
  return
}

// -----

// Buffers of the host code live on the GPU; allocations inside kernels stay.

// CHECK-LABEL: func.func @buffers(
// CHECK:         %[[BUF:.*]] = gpu.alloc () : memref<8xf32>
// CHECK:         %[[DYN:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK:         gpu.launch
// CHECK:           %[[PRIVATE:.*]] = memref.alloca() : memref<4xf32>
// CHECK:           memref.store %{{.*}}, %[[PRIVATE]]
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK:           memref.store %{{.*}}, %[[DYN]]
// CHECK:         gpu.dealloc %[[BUF]] : memref<8xf32>
// CHECK:         gpu.dealloc %[[DYN]] : memref<?xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
func.func @buffers(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  %buf = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %private = memref.alloca() : memref<4xf32>
    memref.store %cst, %private[%c0] : memref<4xf32>
    memref.store %cst, %buf[%i] : memref<8xf32>
    memref.store %cst, %dyn[%i] : memref<?xf32>
    scf.reduce
  }
  memref.dealloc %buf : memref<8xf32>
  memref.dealloc %dyn : memref<?xf32>
  return
}

// -----

// Functions without kernels keep host memory and host accesses; a module
// without kernels is no GPU container.

// CHECK-NOT:   gpu.container_module
// CHECK-LABEL: func.func @host_only(
// CHECK:         memref.alloc
// CHECK:         memref.store
func.func @host_only() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<8xf32>
  memref.store %cst, %buf[%c0] : memref<8xf32>
  memref.dealloc %buf : memref<8xf32>
  return
}

// -----

// Launches that exist already (poly-to-gpu's) are left alone, parallel
// loops inside them included.

// CHECK-LABEL: func.func @existing_launch(
// CHECK:         gpu.launch
// CHECK:           scf.parallel
// CHECK-NOT:     gpu.launch
func.func @existing_launch(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %cst, %a[%i] : memref<8xf32>
      scf.reduce
    }
    gpu.terminator
  }
  return
}
