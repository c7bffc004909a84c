//===- ParallelToGpu.cpp ---------------------------------------------------------===//
// Placeholder until the implementation lands in this session.
#include "Stencil/Conversion/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILPARALLELTOGPU
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
namespace {
struct Pass final : stencil::impl::StencilParallelToGpuBase<Pass> {
  using StencilParallelToGpuBase::StencilParallelToGpuBase;
  void runOnOperation() override {
    getOperation().emitError("StencilParallelToGpu: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
