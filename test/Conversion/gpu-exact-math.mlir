// Kernel arithmetic stays bit-exact with the CPU reference: square roots are
// the correctly rounded intrinsic (libdevice's default would be approximate)
// and nothing is contracted into FMA unless fma=true asks for it.
// RUN: stencil-opt %s --pass-pipeline="builtin.module(gpu.module(stencil-gpu-exact-math))" | FileCheck %s
// RUN: stencil-opt %s --pass-pipeline="builtin.module(gpu.module(stencil-gpu-exact-math{fma=true}))" | FileCheck %s --check-prefix=FMA
// RUN: stencil-opt %s --pass-pipeline="builtin.module(gpu.module(stencil-gpu-exact-math),gpu.module(convert-gpu-to-nvvm))" | FileCheck %s --check-prefix=NVVM

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @k(
    // FMA-LABEL: gpu.func @k(
    gpu.func @k(%a: f32, %b: f32, %c: f64) kernel {
      // CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
      // CHECK: arith.addf %[[M]], %{{.*}} : f32
      // CHECK: arith.subf %{{.*}}, %{{.*}} : f32
      // CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%{{.*}}) : (f32) -> f32
      // CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.d"(%{{.*}}) : (f64) -> f64
      // CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
      // CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[W]]) : (f32) -> f32
      // CHECK: arith.truncf %[[R]] : f32 to f16
      // CHECK-NOT: math.sqrt
      // CHECK-NOT: contract
      // FMA: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
      // FMA: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
      // FMA: arith.subf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
      // NVVM-NOT: __nv_sqrt
      // NVVM-NOT: llvm.intr.sqrt
      // NVVM: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.d"
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %m, %a : f32
      %d = arith.subf %s, %b fastmath<nnan> : f32
      %r = math.sqrt %d : f32
      %r64 = math.sqrt %c : f64
      %h = arith.truncf %a : f32 to f16
      %r16 = math.sqrt %h : f16
      gpu.return
    }
  }
}
