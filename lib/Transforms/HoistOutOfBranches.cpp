//===- HoistOutOfBranches.cpp - speculate pure ops out of scf.if ---------===//
//
// `--stencil-hoist-out-of-branches` (Passes.td). Post-order, so that what an
// inner branch hoists can leave the outer one too.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILHOISTOUTOFBRANCHES
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// Moves the hoistable ops of `branch`'s regions before it, in order.
void hoist(scf::IfOp branch) {
  auto definedOutside = [&](Value value) {
    return !branch->isAncestor(value.getParentRegion()->getParentOp());
  };
  for (Region &region : branch->getRegions()) {
    if (region.empty())
      continue;
    for (Operation &op : llvm::make_early_inc_range(region.front())) {
      if (op.getNumRegions() != 0 || op.hasTrait<OpTrait::IsTerminator>() ||
          !isPure(&op) || !llvm::all_of(op.getOperands(), definedOutside))
        continue;
      op.moveBefore(branch);
    }
  }
}

struct HoistOutOfBranches final
    : stencil::impl::StencilHoistOutOfBranchesBase<HoistOutOfBranches> {
  void runOnOperation() override {
    getOperation()->walk<WalkOrder::PostOrder>(
        [](scf::IfOp branch) { hoist(branch); });
  }
};

} // namespace
