// RUN: stencil-opt %s --stencil-gpu-emulate=race-check --cse -split-input-file | FileCheck %s
// RUN: stencil-opt %s --stencil-gpu-emulate="profile parallel-blocks" --cse -split-input-file | FileCheck %s --check-prefix=PROFILE
// RUN: stencil-opt %s --stencil-gpu-emulate=reverse-threads --cse -split-input-file | FileCheck %s --check-prefix=REVERSE
// RUN: stencil-opt %s --stencil-shape-inference --convert-stencil-to-loops=parallel-all-dims=true --stencil-parallel-to-gpu -split-input-file | FileCheck %s --check-prefix=UPDATE

// race-check: a call into libStencilEmulation before each global and shared
// load and store (op id, address, linear thread id, indices), at each
// barrier, at the start and end of each block and launch; the launch's
// table is a string constant. A buffer the kernel allocates itself is the
// thread's own: not instrumented.

// CHECK-DAG:   func.func private @stencilEmuAccess(index, index, index, index, index, index, index)
// CHECK-DAG:   func.func private @stencilEmuBarrier()
// CHECK-DAG:   func.func private @stencilEmuLaunchBegin(index, index, index, index, index, index, index, index)
// CHECK-DAG:   func.func private @stencilEmuLaunchEnd()
// CHECK-DAG:   func.func private @stencilEmuBlockBegin(index, index, index)
// CHECK-DAG:   func.func private @stencilEmuBlockEnd()
// CHECK-DAG:   memref.global "private" constant @[[SITE:__stencil_emu_site.*]] : memref<{{[0-9]+}}xi8> = dense<
// CHECK-LABEL: func.func @neighbour(
// CHECK-SAME:      %[[A:.*]]: memref<4x32xf32>, %[[B:.*]]: memref<4x32xf32>)
// CHECK:         %[[ROW:.*]] = memref.alloca() {alignment = 128 : i64} : memref<32xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[TABLE:.*]] = memref.get_global @[[SITE]]
// CHECK-DAG:     %[[TABLEPTR:.*]] = memref.extract_aligned_pointer_as_index %[[TABLE]]
// CHECK:         call @stencilEmuLaunchBegin(%[[TABLEPTR]], %[[C2]], %[[C4]], %[[C1]], %[[C1]], %[[C32]], %[[C1]], %[[C1]])
// CHECK:         scf.for %[[BZ:.*]] = %[[C0]] to %[[C1]]
// CHECK-NEXT:      scf.for %[[BY:.*]] = %[[C0]] to %[[C1]]
// CHECK-NEXT:        scf.for %[[BX:.*]] = %[[C0]] to %[[C4]]
// CHECK-NEXT:          func.call @stencilEmuBlockBegin(%[[BX]], %[[BY]], %[[BZ]])
// CHECK:               scf.for %[[TX:.*]] = %[[C0]] to %[[C32]]
// CHECK:                 %[[THREAD:.*]] = arith.addi %[[TX]], %{{.*}} : index
// CHECK-NEXT:            func.call @stencilEmuAccess(%[[C0]], %{{.*}}, %[[THREAD]], %[[BX]], %[[TX]], %[[C0]], %[[C0]])
// CHECK-NEXT:            %[[V:.*]] = memref.load %[[A]][%[[BX]], %[[TX]]]
// CHECK-NOT:             stencilEmuAccess
// CHECK:                 memref.store %{{.*}}, %[[OWN:.*]][%{{.*}}] : memref<2xf32>
// CHECK:                 func.call @stencilEmuAccess(%[[C1]], %{{.*}}, %{{.*}}, %[[TX]], %[[C0]], %[[C0]], %[[C0]])
// CHECK-NEXT:            memref.store %[[V]], %[[ROW]][%[[TX]]]
// CHECK:               func.call @stencilEmuBarrier()
// CHECK:               scf.for
// CHECK:                 func.call @stencilEmuAccess(%[[C2]],
// CHECK-NEXT:            memref.load %[[ROW]]
// CHECK:                 func.call @stencilEmuAccess(%{{.*}},
// CHECK-NEXT:            memref.store %{{.*}}, %[[B]]
// CHECK:               func.call @stencilEmuBlockEnd()
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    call @stencilEmuLaunchEnd()
// CHECK-NEXT:    return

// The profile's mode is 1; its blocks run one after the other, even with
// parallel-blocks.
// PROFILE-LABEL: func.func @neighbour(
// PROFILE:         %[[C1:.*]] = arith.constant 1 : index
// PROFILE:         call @stencilEmuLaunchBegin(%{{.*}}, %[[C1]],
// PROFILE-NOT:     scf.parallel
// PROFILE:         call @stencilEmuLaunchEnd()

// reverse-threads: the thread ids count down from the block size - 1; no
// calls.
// REVERSE-NOT:   stencilEmu
// REVERSE-LABEL: func.func @neighbour(
// REVERSE-DAG:     %[[C1:.*]] = arith.constant 1 : index
// REVERSE-DAG:     %[[C32:.*]] = arith.constant 32 : index
// REVERSE:         scf.for %[[I:.*]] = %{{.*}} to %[[C32]]
// REVERSE-NEXT:      %[[LAST:.*]] = arith.subi %[[C32]], %[[C1]] : index
// REVERSE-NEXT:      %[[TX:.*]] = arith.subi %[[LAST]], %[[I]] : index
// REVERSE:           memref.load %{{.*}}[%{{.*}}, %[[TX]]]
// REVERSE-NOT:     stencilEmu
module attributes {gpu.container_module} {
  func.func @neighbour(%a: memref<4x32xf32>, %b: memref<4x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%row : memref<32xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %a[%bx, %tx] : memref<4x32xf32>
      %own = memref.alloca() : memref<2xf32>
      memref.store %v, %own[%c0] : memref<2xf32>
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

// The store of an apply's result is marked `stencil.update` by the
// reference lowering (the profile counts these), and keeps the mark in the
// kernel.
// UPDATE-LABEL: func.func @update
// UPDATE:         gpu.launch
// UPDATE:           memref.load
// UPDATE:           memref.store %{{.*}} {stencil.update} : memref<10xf64>
// UPDATE:           gpu.terminator
func.func @update(%in : !stencil.field<[-1,9]xf64>, %out : !stencil.field<[-1,9]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%u = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %w = stencil.access %u[-1] : !stencil.temp<?xf64>
    %e = stencil.access %u[1] : !stencil.temp<?xf64>
    %s = arith.addf %w, %e : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
  return
}
