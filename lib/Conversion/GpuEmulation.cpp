//===- GpuEmulation.cpp ---------------------------------------------------------===//
// Placeholder until the implementation lands in this session.
#include "Stencil/Conversion/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUEMULATE
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
namespace {
struct Pass final : stencil::impl::StencilGpuEmulateBase<Pass> {
  using StencilGpuEmulateBase::StencilGpuEmulateBase;
  void runOnOperation() override {
    getOperation().emitError("StencilGpuEmulate: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
