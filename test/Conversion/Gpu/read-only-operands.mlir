// stencil-kernel-read-only-operands: the aligned pointer of a memref operand
// that the kernel only loads from, and that every launch proves to be a
// different buffer from every operand the kernel stores to, gets noalias and
// readonly (NVPTX then loads it with ld.global.nc); anything unproven is
// left alone.
// RUN: stencil-opt %s --stencil-kernel-read-only-operands | FileCheck %s

// In the pipeline: every load of the untiled jacobi2d and fdtd2d kernels
// (ping-pong fields, fdtd2d's intermediate buffers) is ld.global.nc, and
// none with read-only-loads=0. The hex-tiled kernels read and write their
// fields in one kernel: plain loads.
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --convert-to-gpu=format=isa | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=PTX
// RUN: stencil-opt %stencil_src/examples/fdtd2d.mlir --convert-to-gpu=format=isa | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=PTX
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --convert-to-gpu="format=isa read-only-loads=0" | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=OFF
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile --convert-to-gpu=format=isa | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=OFF
// PTX: .entry
// PTX-NOT: ld.global.b
// PTX: ld.global.nc.b64
// PTX-NOT: ld.global.b
// OFF: .entry
// OFF-NOT: ld.global.nc
// OFF: ld.global.b
// OFF-NOT: ld.global.nc

// Every kernel takes (in: memref<8xf32>, out: memref<8xf32>), five
// parameters each: allocated, aligned, offset, size, stride.
// CHECK-LABEL: gpu.module @k
// CHECK: llvm.func @copy(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// Stores through its first operand and only loads from the second.
// CHECK: llvm.func @inplace(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64
// Uses the allocated pointer of its first operand.
// CHECK: llvm.func @allocated(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// Launched once with operands that may be one buffer.
// CHECK: llvm.func @maybe_same(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// Rotations of three buffers and different allocations prove it.
// CHECK: llvm.func @rotate(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64
// A rotating argument is none of the allocations outside its loop.
// CHECK: llvm.func @loop_alloc(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64
// CHECK: llvm.func @allocs(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: i64

module attributes {gpu.container_module} {
  // Ping-pong: the loop swaps two different entry arguments.
  func.func @pingpong(%a: memref<8xf32>, %b: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%x = %a, %y = %b) -> (memref<8xf32>, memref<8xf32>) {
      gpu.launch_func @k::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
      gpu.launch_func @k::@inplace blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
      gpu.launch_func @k::@allocated blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
      scf.yield %y, %x : memref<8xf32>, memref<8xf32>
    }
    return
  }

  // The same argument twice (a cast is no proof), and a loop whose yields
  // do not permute its arguments.
  func.func @unproven(%a: memref<8xf32>, %b: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cast = memref.cast %a : memref<8xf32> to memref<8xf32>
    gpu.launch_func @k::@maybe_same blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>, %cast : memref<8xf32>)
    %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%x = %a, %y = %b) -> (memref<8xf32>, memref<8xf32>) {
      gpu.launch_func @k::@maybe_same blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
      scf.yield %x, %x : memref<8xf32>, memref<8xf32>
    }
    return
  }

  // Three buffers in rotation (Devito's time buffers), and allocations.
  func.func @three(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tmp = gpu.alloc () : memref<8xf32>
    %r:3 = scf.for %t = %c0 to %c4 step %c1 iter_args(%x = %a, %y = %b, %z = %c) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>) {
      gpu.launch_func @k::@rotate blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %z : memref<8xf32>)
      gpu.launch_func @k::@loop_alloc blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %tmp : memref<8xf32>)
      scf.yield %y, %z, %x : memref<8xf32>, memref<8xf32>, memref<8xf32>
    }
    %m = memref.alloc() : memref<8xf32>
    %g = gpu.alloc () : memref<8xf32>
    gpu.launch_func @k::@allocs blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>, %g : memref<8xf32>)
    return
  }

  gpu.module @k {
    llvm.func @copy(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1 : i32) : i32
      %g = llvm.getelementptr %p1[%c] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %g : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @inplace(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1 : i32) : i32
      %g = llvm.getelementptr %p1[%c] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %g : !llvm.ptr -> f32
      %w = llvm.load %q1 : !llvm.ptr -> f32
      %s = llvm.fadd %v, %w : f32
      llvm.store %s, %p1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @allocated(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p0 : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @maybe_same(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p1 : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @rotate(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p1 : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @loop_alloc(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p1 : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @allocs(%p0: !llvm.ptr, %p1: !llvm.ptr, %p2: i64, %p3: i64, %p4: i64, %q0: !llvm.ptr, %q1: !llvm.ptr, %q2: i64, %q3: i64, %q4: i64) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p1 : !llvm.ptr -> f32
      llvm.store %v, %q1 : f32, !llvm.ptr
      llvm.return
    }
  }
}
