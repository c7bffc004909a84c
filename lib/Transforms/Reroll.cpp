//===- Reroll.cpp - undo the unrolling of a stencil.apply -----------------===//
//
// `--stencil-reroll` (Passes.td). xDSL's `stencil-unroll` writes the body of
// an apply once per point of the unroll box, each copy with its accesses
// and indices shifted by the point's offset. When every point's result is
// such a shifted copy of point 0's, the apply computes point 0's expression
// at every point of its bounds, with or without the remainder blocks: the
// unrolling can be dropped, which the time tilings need (they unroll in
// their own way).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Transforms/Passes.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILREROLL
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

/// Decides whether the values of one unroll point are those of point 0
/// with every access and index shifted by the point's offset.
class ShiftedCopyMatcher {
public:
  ShiftedCopyMatcher(ApplyOp apply, ArrayRef<int64_t> shift)
      : apply(apply), shift(shift) {}

  /// `shifted` (of the point) computes what `base` (of point 0) does, at
  /// the point's offset.
  bool match(Value shifted, Value base) {
    if (auto it = matched.find(shifted); it != matched.end())
      return it->second == base;
    Operation *op = shifted.getDefiningOp();
    Operation *baseOp = base.getDefiningOp();
    bool same;
    if (!op || !apply->isProperAncestor(op))
      // A region argument or a value from outside: the same at every point.
      same = shifted == base;
    else
      same = baseOp &&
             cast<OpResult>(shifted).getResultNumber() ==
                 cast<OpResult>(base).getResultNumber() &&
             matchOps(op, baseOp);
    matched[shifted] = base;
    return same;
  }

private:
  bool matchOps(Operation *op, Operation *base) {
    if (op->getName() != base->getName() ||
        op->getResultTypes() != base->getResultTypes() ||
        op->getNumOperands() != base->getNumOperands() ||
        op->getNumRegions() != base->getNumRegions() ||
        op->getRawDictionaryAttrs() != base->getRawDictionaryAttrs() ||
        !matchAttributes(op, base))
      return false;
    for (auto [a, b] : llvm::zip(op->getOperands(), base->getOperands()))
      if (!match(a, b))
        return false;
    for (auto [r, s] : llvm::zip(op->getRegions(), base->getRegions()))
      if (!matchRegions(r, s))
        return false;
    return true;
  }

  /// The op's own attributes; an offset relative to the current point
  /// must be the base op's plus the shift.
  bool matchAttributes(Operation *op, Operation *base) {
    unsigned rank = shift.size();
    if (auto access = dyn_cast<AccessOp>(op)) {
      auto baseAccess = cast<AccessOp>(base);
      if (access.getOffsetMappingAttr() != baseAccess.getOffsetMappingAttr() ||
          access.getOffset().size() != baseAccess.getOffset().size())
        return false;
      SmallVector<int64_t> dims = access.getOperandDims(rank);
      SmallVector<int64_t> off = access.getApplyOffset(rank);
      SmallVector<int64_t> baseOff = baseAccess.getApplyOffset(rank);
      for (unsigned d = 0; d < rank; ++d)
        if (dims[d] >= 0 && off[d] != baseOff[d] + shift[d])
          return false;
      return true;
    }
    if (auto index = dyn_cast<IndexOp>(op)) {
      auto baseIndex = cast<IndexOp>(base);
      int64_t d = index.getDimValue();
      return d == baseIndex.getDimValue() && d >= 0 && d < (int64_t)rank &&
             index.getOffset().size() == rank &&
             baseIndex.getOffset().size() == rank &&
             index.getOffset()[d] == baseIndex.getOffset()[d] + shift[d];
    }
    if (auto access = dyn_cast<DynAccessOp>(op)) {
      auto baseAccess = cast<DynAccessOp>(base);
      return isShifted(access.getLb(), baseAccess.getLb()) &&
             isShifted(access.getUb(), baseAccess.getUb());
    }
    return op->getPropertiesAsAttribute() == base->getPropertiesAsAttribute();
  }

  bool isShifted(IndexAttr index, IndexAttr base) {
    if (index.size() != shift.size() || base.size() != shift.size())
      return false;
    for (unsigned d = 0; d < shift.size(); ++d)
      if (index.getIndices()[d] != base.getIndices()[d] + shift[d])
        return false;
    return true;
  }

  /// Nested regions match block by block and op by op, in order (their
  /// terminators and side effects included).
  bool matchRegions(Region &region, Region &base) {
    if (region.getBlocks().size() != base.getBlocks().size())
      return false;
    for (auto [block, baseBlock] : llvm::zip(region, base)) {
      if (block.getArgumentTypes() != baseBlock.getArgumentTypes() ||
          block.getOperations().size() != baseBlock.getOperations().size())
        return false;
      for (auto [arg, baseArg] :
           llvm::zip(block.getArguments(), baseBlock.getArguments()))
        matched[arg] = baseArg;
      for (auto [op, baseOp] : llvm::zip(block, baseBlock)) {
        if (!matchOps(&op, &baseOp))
          return false;
        for (auto [r, s] : llvm::zip(op.getResults(), baseOp.getResults()))
          matched[r] = s;
      }
    }
    return true;
  }

  ApplyOp apply;
  ArrayRef<int64_t> shift;
  /// A value of the point and the value of point 0 it was compared with.
  DenseMap<Value, Value> matched;
};

} // namespace

/// Whether every point's values are shifted copies of point 0's, with the
/// return operands of result r at point p at r * U + p (the unroll
/// semantics, as xDSL's lowering reads them) or, `pointMajor`, at
/// p * results + r.
static bool returnsShiftedCopies(ApplyOp apply, bool pointMajor) {
  ReturnOp ret = apply.getReturnOp();
  if (!ret || !ret.getUnrollAttr())
    return false;
  unsigned factor = ret.getUnrollFactor();
  if (factor == 0 || ret.getArg().size() % factor != 0)
    return false;
  unsigned results = ret.getArg().size() / factor;
  auto operand = [&](unsigned r, unsigned p) {
    return ret.getArg()[pointMajor ? p * results + r : r * factor + p];
  };
  for (unsigned p = 1; p < factor; ++p) {
    SmallVector<int64_t> shift = apply.getUnrollPointOffset(p);
    ShiftedCopyMatcher matcher(apply, shift);
    for (unsigned r = 0; r < results; ++r)
      if (!matcher.match(operand(r, p), operand(r, 0)))
        return false;
  }
  return true;
}

bool mlir::stencil::isRerollable(ApplyOp apply) {
  return returnsShiftedCopies(apply, /*pointMajor=*/false);
}

bool mlir::stencil::rerollApply(ApplyOp apply) {
  if (!isRerollable(apply))
    return false;
  ReturnOp ret = apply.getReturnOp();
  unsigned factor = ret.getUnrollFactor();
  SmallVector<Value> basePoint;
  for (unsigned i = 0; i < ret.getArg().size(); i += factor)
    basePoint.push_back(ret.getArg()[i]);
  // What only the other points need goes (what nothing needed stays).
  DenseMap<Operation *, llvm::BitVector> uses = apply.getUnrollPointUses();
  OpBuilder builder(ret);
  ReturnOp::create(builder, ret.getLoc(), basePoint, /*unroll=*/nullptr);
  ret->erase();
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*apply.getBody())))
    if (auto it = uses.find(&op); it != uses.end() && !it->second.test(0))
      op.erase();
  return true;
}

namespace {

struct Reroll final : stencil::impl::StencilRerollBase<Reroll> {
  void runOnOperation() override {
    getOperation()->walk([](ApplyOp apply) {
      if (!apply.getReturnOp() || !apply.getReturnOp().getUnrollAttr() ||
          rerollApply(apply))
        return;
      InFlightDiagnostic remark = mlir::emitRemark(
          apply.getLoc(), "the unrolled points are not shifted copies of "
                          "one computation; the apply stays unrolled");
      // xDSL's stencil-unroll appends each point's copy of the return, so
      // with several results it orders them point by point, while the
      // unroll semantics (and xDSL's own lowering) read them result by
      // result: such an apply computes other values than before unrolling.
      if (apply.getNumResults() > 1 &&
          returnsShiftedCopies(apply, /*pointMajor=*/true))
        remark << " (its return operands are ordered point by point, as "
                  "xDSL's stencil-unroll writes them for several results; "
                  "`unroll` reads operand r * U + p as result r at point p)";
    });
  }
};

} // namespace
