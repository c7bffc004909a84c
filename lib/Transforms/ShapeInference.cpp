#include "Stencil/Transforms/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILSHAPEINFERENCE
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

namespace {
struct StencilShapeInferencePass : mlir::stencil::impl::StencilShapeInferenceBase<StencilShapeInferencePass> {
  void runOnOperation() override {}
};
} // namespace
