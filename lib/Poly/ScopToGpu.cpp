//===- ScopToGpu.cpp ---------------------------------------------------===//
// Placeholder until the implementation lands in this session.
#include "Stencil/Poly/Passes.h"

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_POLYTOGPU
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
namespace {
struct Pass final : stencil::poly::impl::PolyToGpuBase<Pass> {
  using PolyToGpuBase::PolyToGpuBase;
  void runOnOperation() override {}
};
} // namespace
