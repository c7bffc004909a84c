// stencil-kernel-dynamic-shared: kernels whose workgroup buffers exceed the
// 48 KiB of static shared memory get them as views into dynamic shared
// memory, and their launches that many bytes; up to the chip's opt-in
// maximum, past it a located error.
// RUN: split-file %s %t
// RUN: stencil-opt %t/kernels.mlir --stencil-kernel-dynamic-shared | FileCheck %s
// RUN: stencil-opt %t/too-big.mlir --stencil-kernel-dynamic-shared -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/too-big.mlir --stencil-kernel-dynamic-shared=chip=sm_75 | FileCheck %s --check-prefix=OTHER
// RUN: not stencil-opt %t/big-for-sm80.mlir --stencil-kernel-dynamic-shared=chip=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// In the pipeline: jacobi2d 64x1024 with tiles 1536 wide (h=3, widths=1,768)
// promotes a 2x10x773 f32 box (61840 bytes) under shared-budget=100000; the
// kernels read it from dynamic shared memory, which PTX declares as
// upstream's base symbol; the emulation of the same mapping is bit-exact and
// race-free.
// RUN: %python -c "from stencil import benchmarks as b; print(b.BENCHMARKS['jacobi2d'].mlir((64, 1024), 4, 'f32'))" > %t/wide.mlir
// RUN: stencil-opt %t/wide.mlir --hex-tile="h=3 widths=1,768" --convert-to-gpu="host-to-llvm=false shared-budget=100000" | FileCheck %s --check-prefix=PIPE
// RUN: stencil-opt %t/wide.mlir --hex-tile="h=3 widths=1,768" --convert-to-gpu="format=isa shared-budget=100000" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX
// RUN: %python -m stencil check %t/wide.mlir --hex-tile="h=3 widths=1,768" --gpu-options=shared-budget=100000 --race-check | FileCheck %s --check-prefix=EMU
// PIPE-COUNT-2: dynamic_shared_memory_size %c61840_i32
// PIPE: gpu.func @jacobi2d_kernel(
// PIPE-NOT: workgroup(
// PIPE-SAME: kernel
// PIPE: gpu.dynamic_shared_memory
// PIPE: memref.view {{.*}} to memref<2x10x773xf32, #gpu.address_space<workgroup>>
// PTX: .entry jacobi2d_kernel(
// PTX: .shared .align 16 .b8 __dynamic_shmem__0;
// PTX: ld.shared.b32
// EMU: with its GPU code emulated on the CPU
// EMU: PASS: bit-identical to the numpy reference

// The small kernel keeps its static buffer; the big one's two buffers (12
// and 49200 bytes) are at offsets 0 and 16, and both of its launches get
// 49216 bytes.
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @kernels::@small blocks in ({{.*}}) threads in ({{.*}}) args(
// CHECK: %[[SIZE:.*]] = arith.constant 49216 : i32
// CHECK: gpu.launch_func @kernels::@big blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %[[SIZE]] args(
// CHECK: %[[SIZE2:.*]] = arith.constant 49216 : i32
// CHECK: gpu.launch_func @kernels::@big blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %[[SIZE2]] args(
// CHECK: gpu.func @small(%{{.*}}: memref<4xf32>) workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: gpu.func @big(%[[ARG:.*]]: memref<4xf32>) kernel
// CHECK-NEXT: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[AT0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:.*]] = memref.view %[[DYN]][%[[AT0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[AT16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[V1:.*]] = memref.view %[[DYN]][%[[AT16]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<12300xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[V0]]
// CHECK: memref.store %{{.*}}, %[[V1]]

// OTHER: gpu.func @huge(%{{.*}}: memref<4xf32>) kernel
// OTHER: gpu.dynamic_shared_memory
// SM80: error: kernel needs 200000 bytes of shared memory, more than the 166912 a block of sm_80 can have

//--- kernels.mlir
module attributes {gpu.container_module} {
  func.func @host(%m : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@small blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @kernels::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @kernels::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @small(%m : memref<4xf32>) workgroup(%w : memref<128xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %w[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @big(%m : memref<4xf32>) workgroup(%a : memref<3xf32, #gpu.address_space<workgroup>>, %b : memref<12300xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<3xf32, #gpu.address_space<workgroup>>
      memref.store %v, %b[%c0] : memref<12300xf32, #gpu.address_space<workgroup>>
      %w = memref.load %b[%c0] : memref<12300xf32, #gpu.address_space<workgroup>>
      memref.store %w, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

//--- too-big.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{kernel needs 240000 bytes of shared memory, more than the 232448 a block of sm_90 can have}}
    gpu.func @huge(%m : memref<4xf32>) workgroup(%a : memref<60000xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<60000xf32, #gpu.address_space<workgroup>>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

//--- big-for-sm80.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%m : memref<4xf32>) workgroup(%a : memref<50000xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<50000xf32, #gpu.address_space<workgroup>>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
