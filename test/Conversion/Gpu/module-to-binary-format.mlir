// RUN: stencil-opt %s --stencil-gpu-module-to-binary=format=cubin -verify-diagnostics

// The formats are upstream gpu-module-to-binary's.
// expected-error @below {{invalid format 'cubin': expected offloading, assembly, binary or fatbinary}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
  }
}
