// RUN: stencil-opt %s --stencil-gpu-module-to-binary=format=isa -split-input-file -verify-diagnostics

// A module to serialize needs a target (--convert-to-gpu attaches NVVM's).
module attributes {gpu.container_module} {
  // expected-error @below {{the module has no target attributes}}
  gpu.module @kernels {
  }
}
