// stencil-gpu-async-loops: a host loop whose body is one chain of GPU ops
// (as gpu-async-region leaves it) carries the chain's token, and the host
// waits once after the loop; stencil-gpu-carried-streams then waits for the
// carried token as the stream it is lowered to.
// RUN: split-file %s %t
// RUN: stencil-opt %t/host.mlir --pass-pipeline="builtin.module(func.func(stencil-gpu-async-loops))" | FileCheck %s
// RUN: stencil-opt %t/lowered.mlir --stencil-gpu-carried-streams | FileCheck %s --check-prefix=STREAMS

// In the pipeline: the untiled and the hex-tiled jacobi2d wait for the
// device once, after the time loop, on the stream created before it; with
// async-loops=0 inside the loop, after every step.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --convert-to-gpu=format=isa | FileCheck %s --check-prefix=PIPE
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --convert-to-gpu=format=isa | FileCheck %s --check-prefix=PIPE
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile --convert-to-gpu=format=isa | FileCheck %s --check-prefix=PIPE
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --convert-to-gpu="format=isa async-loops=0" | FileCheck %s --check-prefix=SYNC
// PIPE: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// PIPE-NEXT: llvm.br ^bb1({{.*}}%[[STREAM]] : {{.*}})
// PIPE-NOT: mgpuStream
// PIPE: gpu.launch_func <%[[CARRIED:.*]] : !llvm.ptr>
// PIPE-NOT: mgpuStream
// PIPE: llvm.call @mgpuStreamSynchronize(%[[CARRIED]])
// PIPE-NEXT: llvm.call @mgpuStreamDestroy(%[[CARRIED]])
// PIPE-NOT: mgpuEvent
// SYNC: ^bb2:
// SYNC: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// SYNC: gpu.launch_func <%[[STREAM]] : !llvm.ptr>
// SYNC-NEXT: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// SYNC-NEXT: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// SYNC: llvm.br ^bb1

//--- host.mlir
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }

  // A time loop of two launches, then a partial tile's launch in a branch.
  // CHECK-LABEL: func.func @steps
  // CHECK: %[[FIRST:.*]] = gpu.wait async
  // CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[TOKEN:.*]] = %[[FIRST]]) -> (memref<8xf32>, !gpu.async.token)
  // CHECK-NEXT: %[[L1:.*]] = gpu.launch_func async [%[[TOKEN]]] @k::@step
  // CHECK-NEXT: %[[L2:.*]] = gpu.launch_func async [%[[L1]]] @k::@step
  // CHECK-NEXT: %[[C:.*]] = arith.cmpi
  // CHECK-NEXT: %[[IF:.*]] = scf.if %[[C]] -> (!gpu.async.token) {
  // CHECK-NEXT: %[[L3:.*]] = gpu.launch_func async [%[[L2]]] @k::@step
  // CHECK-NEXT: scf.yield %[[L3]] : !gpu.async.token
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %[[L2]] : !gpu.async.token
  // CHECK: scf.yield %[[A]], %[[IF]] : memref<8xf32>, !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[LOOP]]#1]
  // CHECK-NEXT: return
  func.func @steps(%a: memref<8xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a) -> (memref<8xf32>) {
      %w = gpu.wait async
      %l1 = gpu.launch_func async [%w] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
      %l2 = gpu.launch_func async [%l1] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
      gpu.wait [%l2]
      %last = arith.cmpi eq, %t, %c0 : index
      scf.if %last {
        %w2 = gpu.wait async
        %l3 = gpu.launch_func async [%w2] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
        gpu.wait [%l3]
      }
      scf.yield %x : memref<8xf32>
    }
    return
  }

  // Nested loops wait once, after the outer one.
  // CHECK-LABEL: func.func @nest
  // CHECK: %[[FIRST:.*]] = gpu.wait async
  // CHECK-NEXT: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[T:.*]] = %[[FIRST]]) -> (!gpu.async.token)
  // CHECK-NEXT: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[U:.*]] = %[[T]]) -> (!gpu.async.token)
  // CHECK-NEXT: %[[L:.*]] = gpu.launch_func async [%[[U]]]
  // CHECK-NEXT: scf.yield %[[L]]
  // CHECK: scf.yield %[[INNER]]
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[OUTER]]]
  // CHECK-NOT: gpu.wait
  // CHECK: return
  func.func @nest(%a: memref<8xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %w = gpu.wait async
        %l = gpu.launch_func async [%w] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
        gpu.wait [%l]
      }
    }
    return
  }

  // The host touches memory between the steps, or the chain joins two
  // tokens: every step still waits.
  // CHECK-LABEL: func.func @host_access
  // CHECK: scf.for
  // CHECK-NEXT: gpu.wait async
  // CHECK-NEXT: gpu.launch_func
  // CHECK-NEXT: gpu.wait [
  // CHECK-NEXT: memref.store
  // CHECK-LABEL: func.func @join
  // CHECK: scf.for
  // CHECK: gpu.wait async [
  // CHECK: gpu.wait [
  // CHECK-NEXT: }
  func.func @host_access(%a: memref<8xf32>, %h: memref<8xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    scf.for %t = %c0 to %n step %c1 {
      %w = gpu.wait async
      %l = gpu.launch_func async [%w] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
      gpu.wait [%l]
      memref.store %f, %h[%c0] : memref<8xf32>
    }
    return
  }
  func.func @join(%a: memref<8xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %t = %c0 to %n step %c1 {
      %w = gpu.wait async
      %l1 = gpu.launch_func async [%w] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
      %l2 = gpu.launch_func async [%w] @k::@step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
      %j = gpu.wait async [%l1, %l2]
      gpu.wait [%j]
    }
    return
  }
}

//--- lowered.mlir
// A block argument that only ever holds the stream is waited for as a
// stream; one that may hold an event stays an event.
// STREAMS-LABEL: llvm.func @carried
// STREAMS: ^bb2:
// STREAMS-NEXT: llvm.call @mgpuStreamSynchronize(%{{.*}})
// STREAMS-NEXT: llvm.call @mgpuStreamDestroy(%{{.*}})
// STREAMS-LABEL: llvm.func @event
// STREAMS: llvm.call @mgpuEventSynchronize(%{{.*}})
// STREAMS-NEXT: llvm.call @mgpuEventDestroy(%{{.*}})
module {
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @carried(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    llvm.br ^bb1(%s : !llvm.ptr)
  ^bb1(%t: !llvm.ptr):
    llvm.cond_br %c, ^bb1(%t : !llvm.ptr), ^bb2
  ^bb2:
    llvm.call @mgpuEventSynchronize(%t) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%t) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @event(%c: i1) {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    llvm.cond_br %c, ^bb1(%s : !llvm.ptr), ^bb1(%e : !llvm.ptr)
  ^bb1(%t: !llvm.ptr):
    llvm.call @mgpuEventSynchronize(%t) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%t) : (!llvm.ptr) -> ()
    llvm.return
  }
}
