// RUN: stencil-opt %s --stencil-kernel-launch-bounds=blocks-per-sm=0 -verify-diagnostics

// No kernel is ever compiled for zero resident blocks.
// expected-error @+1 {{stencil-kernel-launch-bounds: blocks-per-sm must be at least 1}}
module {
  func.func @f() {
    func.return
  }
}
