#include "Stencil/Conversion/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_CONVERTSTENCILTOLOOPS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

namespace {
struct ConvertStencilToLoopsPass
    : mlir::stencil::impl::ConvertStencilToLoopsBase<ConvertStencilToLoopsPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
