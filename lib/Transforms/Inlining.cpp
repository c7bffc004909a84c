#include "Stencil/Transforms/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILINLINING
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

namespace {
struct StencilInliningPass : mlir::stencil::impl::StencilInliningBase<StencilInliningPass> {
  void runOnOperation() override {}
};
} // namespace
