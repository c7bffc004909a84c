// RUN: stencil-opt %s --stencil-gpu-emulate --cse -split-input-file | FileCheck %s
// RUN: stencil-opt %s --stencil-gpu-emulate=parallel-blocks --cse -split-input-file | FileCheck %s --check-prefix=PAR

// No barrier: loops over the blocks (z, y, x), and inside each block one
// loop nest over the threads (z, y, x) at the end of the body. The block's
// first index does not depend on the thread and stays outside the thread
// loops; the ids become loop indices, the sizes the launch's operands.

// CHECK-NOT:   gpu.container_module
// CHECK-LABEL: func.func @no_barrier(
// CHECK-SAME:      %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:      scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:        scf.for %[[BX:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:          %[[FIRST:.*]] = arith.muli %[[BX]], %[[C32]] : index
// CHECK-NEXT:          scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:            scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:              scf.for %[[TX:.*]] = %[[C0]] to %[[C32]] step %[[C1]] {
// CHECK-NEXT:                %[[I:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// CHECK-NEXT:                %[[V:.*]] = memref.load %[[A]][%[[I]]] : memref<64xf32>
// CHECK-NEXT:                %[[W:.*]] = arith.mulf %[[V]], %{{.*}} : f32
// CHECK-NEXT:                memref.store %[[W]], %[[B]][%[[I]]] : memref<64xf32>
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// With parallel-blocks, one scf.parallel over the blocks.
// PAR-LABEL: func.func @no_barrier(
// PAR-DAG:     %[[C0:.*]] = arith.constant 0 : index
// PAR-DAG:     %[[C1:.*]] = arith.constant 1 : index
// PAR-DAG:     %[[C2:.*]] = arith.constant 2 : index
// PAR-DAG:     %[[C32:.*]] = arith.constant 32 : index
// PAR:         scf.parallel (%{{.*}}, %{{.*}}, %[[BX:.*]]) = (%[[C0]], %[[C0]], %[[C0]]) to (%[[C1]], %[[C1]], %[[C2]]) step (%[[C1]], %[[C1]], %[[C1]]) {
// PAR-NEXT:      arith.muli %[[BX]], %[[C32]] : index
// PAR-NEXT:      scf.for
// PAR-NEXT:        scf.for
// PAR-NEXT:          scf.for %{{.*}} = %[[C0]] to %[[C32]] step %[[C1]] {
// PAR:           scf.reduce
module attributes {gpu.container_module} {
  func.func @no_barrier(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %cst = arith.constant 2.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %first = arith.muli %bx, %sx : index
      %i = arith.addi %first, %tx : index
      %v = memref.load %a[%i] : memref<64xf32>
      %w = arith.mulf %v, %cst : f32
      memref.store %w, %b[%i] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// A time loop inside the kernel with barriers: the loop is the same for all
// threads, so it is kept and entered once per block; each stretch between
// barriers of its body gets its own thread loops. Ops are cut at the
// barrier: the rotation reads from %buf before, writes it back after.

// CHECK-LABEL: func.func @barrier_in_loop(
// CHECK-SAME:      %[[BUF:.*]]: memref<2x8xf32>, %[[TMP:.*]]: memref<2x8xf32>, %[[N:.*]]: index)
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        scf.for %[[BX:.*]] = %{{.*}} to %[[C2]] step
// CHECK-NEXT:          scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              scf.for
// CHECK-NEXT:                scf.for %[[T1:.*]] = %{{.*}} to %[[C8]] step
// CHECK-NEXT:                  %[[NEXT:.*]] = arith.addi %[[T1]], %{{.*}} : index
// CHECK-NEXT:                  %[[J:.*]] = arith.remui %[[NEXT]], %[[C8]] : index
// CHECK-NEXT:                  %[[V:.*]] = memref.load %[[BUF]][%[[BX]], %[[J]]]
// CHECK-NEXT:                  memref.store %[[V]], %[[TMP]][%[[BX]], %[[T1]]]
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              scf.for
// CHECK-NEXT:                scf.for %[[T2:.*]] = %{{.*}} to %[[C8]] step
// CHECK-NEXT:                  %[[W:.*]] = memref.load %[[TMP]][%[[BX]], %[[T2]]]
// CHECK-NEXT:                  memref.store %[[W]], %[[BUF]][%[[BX]], %[[T2]]]
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NOT:     gpu.
module attributes {gpu.container_module} {
  func.func @barrier_in_loop(%buf: memref<2x8xf32>, %tmp: memref<2x8xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      scf.for %t = %c0 to %n step %c1 {
        %next = arith.addi %tx, %c1 : index
        %j = arith.remui %next, %sx : index
        %v = memref.load %buf[%bx, %j] : memref<2x8xf32>
        memref.store %v, %tmp[%bx, %tx] : memref<2x8xf32>
        gpu.barrier
        %tid = gpu.thread_id x
        %w = memref.load %tmp[%bx, %tid] : memref<2x8xf32>
        memref.store %w, %buf[%bx, %tid] : memref<2x8xf32>
        gpu.barrier
      }
      gpu.terminator
    }
    return
  }
}

// -----

// Nested scf.if around a barrier, on conditions that only depend on the
// block (kept, entered once per block); an scf.if on the thread id without
// barrier is per-thread code like any other. Loop-carried values of a kept
// loop are the same for all threads, and so is their update, which stays
// where it is between the thread loops.

// CHECK-LABEL: func.func @nested_if(
// CHECK-SAME:      %[[A:.*]]: memref<4x16xf32>, %[[FLAG:.*]]: i1)
// CHECK:         scf.for
// CHECK-NEXT:      scf.for %[[BY:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[ODD:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      scf.if %[[ODD]] {
// CHECK-NEXT:        scf.if %[[FLAG]] {
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for %[[TY:.*]] =
// CHECK-NEXT:              scf.for %[[TX:.*]] =
// CHECK-NEXT:                %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}} : index
// CHECK-NEXT:                scf.if %[[FIRST]] {
// CHECK-NEXT:                  memref.store %{{.*}}, %[[A]][%[[BY]], %[[TY]]]
// CHECK:               } else {
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              scf.for
// CHECK-NEXT:                memref.store
// CHECK:           %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (index) {
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              memref.store %{{.*}}, %[[A]][%[[ACC]],
// CHECK:             %[[NEXT:.*]] = arith.addi %[[ACC]], %{{.*}} : index
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              %[[V:.*]] = memref.load %[[A]][%[[ACC]],
// CHECK-NEXT:              memref.store %[[V]], %[[A]][%[[ACC]],
// CHECK:             scf.yield %[[NEXT]] : index
module attributes {gpu.container_module} {
  func.func @nested_if(%a: memref<4x16xf32>, %flag: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %cst = arith.constant 1.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c4, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c16, %sz = %c1) {
      %parity = arith.remui %by, %c2 : index
      %odd = arith.cmpi eq, %parity, %c1 : index
      scf.if %odd {
        scf.if %flag {
          %first = arith.cmpi eq, %tx, %c0 : index
          scf.if %first {
            memref.store %cst, %a[%by, %ty] : memref<4x16xf32>
          }
          gpu.barrier
        } else {
          memref.store %cst, %a[%by, %tx] : memref<4x16xf32>
          gpu.barrier
        }
      }
      %sum = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %c0) -> (index) {
        memref.store %cst, %a[%acc, %tx] : memref<4x16xf32>
        gpu.barrier
        %v = memref.load %a[%acc, %ty] : memref<4x16xf32>
        memref.store %v, %a[%acc, %tx] : memref<4x16xf32>
        %next = arith.addi %acc, %c1 : index
        scf.yield %next : index
      }
      gpu.terminator
    }
    return
  }
}

// -----

// Id and size ops (as outlined kernels spell them) are the same as the
// region arguments; device memory becomes host memory, aligned like the
// reference lowering's buffers.

// CHECK-LABEL: func.func @ids_and_memory(
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<15xindex>
// CHECK:         scf.for %[[BX:.*]] = %{{.*}} to %[[C3]] step
// CHECK-NEXT:          %[[FIRST:.*]] = arith.muli %[[BX]], %[[C5]] : index
// CHECK-NEXT:          %[[ALL:.*]] = arith.muli %[[C3]], %[[C5]] : index
// CHECK:                 scf.for %[[TX:.*]] = %{{.*}} to %[[C5]] step
// CHECK-NEXT:              %[[I:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// CHECK-NEXT:              memref.store %[[ALL]], %[[BUF]][%[[I]]] : memref<15xindex>
// CHECK:         memref.dealloc %[[BUF]] : memref<15xindex>
// CHECK-NOT:     gpu.
module attributes {gpu.container_module} {
  func.func @ids_and_memory() {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %buf = gpu.alloc () : memref<15xindex>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c5, %sy = %c1, %sz = %c1) {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %dim = gpu.block_dim x
      %grid = gpu.grid_dim x
      %first = arith.muli %b, %dim : index
      %i = arith.addi %first, %t : index
      %all = arith.muli %grid, %dim : index
      memref.store %all, %buf[%i] : memref<15xindex>
      gpu.terminator
    }
    gpu.dealloc %buf : memref<15xindex>
    return
  }
}

// -----

// GPU ops other than launches and memory stay, and so does the container
// attribute.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @kernels
module attributes {gpu.container_module} {
  gpu.module @kernels {
  }
}

// -----

// A pure per-thread value used after a barrier (here an index that CSE
// shared) is computed again in the later thread loop; per-thread values
// that are not pure computations are errors (gpu-emulate-invalid.mlir).

// CHECK-LABEL: func.func @recompute(
// CHECK-SAME:      %[[A:.*]]: memref<16xf32>, %[[TMP:.*]]: memref<16xf32>)
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[BASE:.*]] = arith.muli
// CHECK:         scf.for %[[T1:.*]] = %{{.*}} to %[[C8]] step
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[BASE]], %[[T1]] : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[A]][%[[I]]]
// CHECK-NEXT:      memref.store %[[V]], %[[TMP]][%[[I]]]
// CHECK-NEXT:    }
// CHECK:         scf.for %[[T2:.*]] = %{{.*}} to %[[C8]] step
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[T2]], %{{.*}} : index
// CHECK-NEXT:      %[[J:.*]] = arith.remui %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[BASE]], %[[J]] : index
// CHECK-NEXT:      %[[W:.*]] = memref.load %[[TMP]][%[[K]]]
// CHECK-NEXT:      %[[I2:.*]] = arith.addi %[[BASE]], %[[T2]] : index
// CHECK-NEXT:      memref.store %[[W]], %[[A]][%[[I2]]]
// CHECK-NEXT:    }
module attributes {gpu.container_module} {
  func.func @recompute(%a: memref<16xf32>, %tmp: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %tmp[%i] : memref<16xf32>
      gpu.barrier
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %sx : index
      %k = arith.addi %base, %j : index
      %w = memref.load %tmp[%k] : memref<16xf32>
      memref.store %w, %a[%i] : memref<16xf32>
      gpu.terminator
    }
    return
  }
}
