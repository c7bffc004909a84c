// RUN: stencil-opt %s --stencil-gpu-emulate --cse -split-input-file | FileCheck %s
// RUN: stencil-opt %s --stencil-gpu-emulate=parallel-blocks --cse -split-input-file | FileCheck %s --check-prefix=PAR

// Workgroup memory: each block copies its row of %a into shared memory,
// waits, then thread t stores its neighbour's element (t + 1) % 32 to %b.
// The attribution becomes a buffer in the default memory space. Blocks run
// one after the other: one buffer at the start of the function (an alloca
// in the block loop would grow the stack at each block).

// CHECK-LABEL: func.func @neighbour(
// CHECK-SAME:      %[[A:.*]]: memref<4x32xf32>, %[[B:.*]]: memref<4x32xf32>)
// CHECK-NEXT:    %[[ROW:.*]] = memref.alloca() {alignment = 128 : i64} : memref<32xf32>
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        scf.for %[[BX:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              scf.for %[[T1:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:                %[[V:.*]] = memref.load %[[A]][%[[BX]], %[[T1]]] : memref<4x32xf32>
// CHECK-NEXT:                memref.store %[[V]], %[[ROW]][%[[T1]]] : memref<32xf32>
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.for
// CHECK-NEXT:              scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:                %[[NEXT:.*]] = arith.addi %[[T2]], %{{.*}} : index
// CHECK-NEXT:                %[[J:.*]] = arith.remui %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:                %[[W:.*]] = memref.load %[[ROW]][%[[J]]] : memref<32xf32>
// CHECK-NEXT:                memref.store %[[W]], %[[B]][%[[BX]], %[[T2]]] : memref<4x32xf32>
// CHECK-NOT:     gpu.

// With parallel blocks, each block allocates its own buffer (on the heap:
// the body becomes an OpenMP region).
// PAR-LABEL: func.func @neighbour(
// PAR:         scf.parallel
// PAR-NEXT:      %[[ROW:.*]] = memref.alloc() {alignment = 128 : i64} : memref<32xf32>
// PAR-NEXT:      scf.for
// PAR-NEXT:        scf.for
// PAR-NEXT:          scf.for
// PAR-NEXT:            memref.load
// PAR-NEXT:            memref.store %{{.*}}, %[[ROW]]
// PAR:           memref.load %[[ROW]]
// PAR:           memref.dealloc %[[ROW]] : memref<32xf32>
// PAR-NEXT:      scf.reduce
module attributes {gpu.container_module} {
  func.func @neighbour(%a: memref<4x32xf32>, %b: memref<4x32xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%row : memref<32xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %a[%bx, %tx] : memref<4x32xf32>
      memref.store %v, %row[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %c32 : index
      %w = memref.load %row[%j] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %w, %b[%bx, %tx] : memref<4x32xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// Several attributions of any rank and element type, inside a time loop of
// the host: the buffers go to the start of the function, outside the loop.

// CHECK-LABEL: func.func @several(
// CHECK-NEXT:    memref.alloca() {alignment = 128 : i64} : memref<20x72xf32>
// CHECK-NEXT:    memref.alloca() {alignment = 128 : i64} : memref<2x3x4x8xf64>
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}} : memref<20x72xf32>
// CHECK:           memref.store %{{.*}} : memref<2x3x4x8xf64>
// CHECK-NOT:     address_space
// PAR-LABEL: func.func @several(
// PAR:         scf.parallel
// PAR-NEXT:      %[[S2:.*]] = memref.alloc() {alignment = 128 : i64} : memref<20x72xf32>
// PAR-NEXT:      %[[S4:.*]] = memref.alloc() {alignment = 128 : i64} : memref<2x3x4x8xf64>
// PAR:           memref.dealloc %[[S4]]
// PAR-NEXT:      memref.dealloc %[[S2]]
// PAR-NEXT:      scf.reduce
module attributes {gpu.container_module} {
  func.func @several(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    %d = arith.constant 2.0 : f64
    scf.for %s = %c0 to %n step %c1 {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
                 workgroup(%s2 : memref<20x72xf32, #gpu.address_space<workgroup>>,
                           %s4 : memref<2x3x4x8xf64, #gpu.address_space<workgroup>>) {
        memref.store %f, %s2[%tx, %tx] : memref<20x72xf32, #gpu.address_space<workgroup>>
        memref.store %d, %s4[%tx, %tx, %tx, %tx] : memref<2x3x4x8xf64, #gpu.address_space<workgroup>>
        gpu.terminator
      }
    }
    return
  }
}
