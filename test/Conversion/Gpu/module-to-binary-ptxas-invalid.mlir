// REQUIRES: ptxas
// RUN: stencil-opt %s --stencil-gpu-module-to-binary="format=isa opts=--no-such-ptxas-option" -verify-diagnostics

// The spill check runs ptxas with the target's options: ptxas's refusal is
// the module's error (upstream's pass refuses the same options when it
// makes a cubin).
module attributes {gpu.container_module} {
  // expected-error @below {{ptxas failed: ptxas fatal   : Unknown option}}
  // expected-error @below {{serializing the module for #nvvm.target}}
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    llvm.func @kernel() attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>, nvvm.minctasm = 2 : i32} {
      llvm.return
    }
  }
}
