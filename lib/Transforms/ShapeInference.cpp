//===- ShapeInference.cpp - infer the bounds of stencil temps -------------===//
//
// Every temp gets the bounding box of the points its users need, working
// backwards through each block: stores fix the boxes of the temps they write,
// an apply needs each operand on its own iteration box shifted by the offsets
// it reads them at, and so on up to the loads, which must fit into their
// fields. See the pass description in Passes.td for the exact rules.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Dmp/Dmp.h"
#include "Stencil/IR/Box.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <optional>

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILSHAPEINFERENCE
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

Box boundsBox(BoundsAttr b) { return Box(b.getLb(), b.getUb()); }

Type withBox(Type type, const Box &box) {
  return cast<TempType>(type).withBounds(box.lb, box.ub);
}

/// What one user needs of a temp, and the op that needs it (for notes).
struct Need {
  Box box;
  Operation *why;
};

std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

/// Give temp `value` type `type`, and keep the types tied to it in step: the
/// region arguments of applies that take it, and the result of a buffer of
/// it (buffer operand and result types are equal).
void setTempType(Value value, Type type) {
  value.setType(type);
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto apply = dyn_cast<ApplyOp>(user)) {
      if (use.getOperandNumber() < apply.getArgs().size())
        apply.getBodyArg(use.getOperandNumber()).setType(type);
    } else if (auto buffer = dyn_cast<BufferOp>(user)) {
      // (A buffer into a field keeps its field type.)
      if (isa<TempType>(buffer.getRes().getType()) &&
          buffer.getRes().getType() != type)
        setTempType(buffer.getRes(), type);
    }
  }
}

/// Users get their bounds before the producers of their operands (they come
/// later in the block, or are nested deeper), so this only fires on IR that
/// breaks that order.
/// An offset so large that the box it reaches does not fit in 64 bits.
LogicalResult offsetOverflow(Operation *access, int64_t offset) {
  return access->emitOpError("offset ")
         << offset
         << " moves the apply's iteration box out of the 64-bit index range";
}

LogicalResult unknownUserBounds(Operation *user) {
  return user->emitOpError("has unknown bounds, so shape inference cannot "
                           "tell which points of its operands it reads");
}

/// The points of operand `operandIndex` of `apply` that the apply reads.
LogicalResult collectApplyNeeds(ApplyOp apply, unsigned operandIndex,
                                unsigned tempRank,
                                SmallVectorImpl<Need> &needs) {
  BoundsAttr iter = apply.getIterationBounds();
  if (!iter)
    return unknownUserBounds(apply);
  unsigned rank = apply.getRank();
  // Accesses are relative to the point the body is evaluated at. With
  // `unroll <[u0, ...]>` the body computes a block of points per evaluation,
  // at base points lb + k * u: the last base point at which the access's
  // operation runs (some point of the block that needs it is inside the
  // bounds) is what bounds the reads, not ub - 1.
  // (An empty box keeps its bounds: its operands get empty boxes.)
  SmallVector<int64_t> lb(iter.getLb());
  bool empty =
      llvm::any_of(llvm::zip(iter.getLb(), iter.getUb()), [](auto bounds) {
        return std::get<0>(bounds) >= std::get<1>(bounds);
      });
  DenseMap<Operation *, llvm::BitVector> pointUses = apply.getUnrollPointUses();
  BlockArgument arg = apply.getBodyArg(operandIndex);
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    std::optional<SmallVector<int64_t>> bases =
        empty ? SmallVector<int64_t>(iter.getUb())
              : apply.getBaseUpperBounds(
                    apply.getBody()->findAncestorOpInBlock(*user), pointUses);
    if (!bases)
      continue; // its operation never runs
    SmallVector<int64_t> ub = std::move(*bases);
    if (auto access = dyn_cast<AccessOp>(user)) {
      SmallVector<int64_t> off = access.getApplyOffset(rank);
      SmallVector<int64_t> dims = access.getOperandDims(rank);
      Box box(SmallVector<int64_t>(tempRank, 0),
              SmallVector<int64_t>(tempRank, 0));
      for (unsigned d = 0; d < rank; ++d) {
        if (dims[d] < 0 || dims[d] >= (int64_t)tempRank)
          continue;
        std::optional<int64_t> low = llvm::checkedAdd(lb[d], off[d]);
        std::optional<int64_t> high = llvm::checkedAdd(ub[d], off[d]);
        if (!low || !high)
          return offsetOverflow(access, off[d]);
        box.lb[dims[d]] = *low;
        box.ub[dims[d]] = *high;
      }
      needs.push_back({std::move(box), access});
      continue;
    }
    if (auto dyn = dyn_cast<DynAccessOp>(user)) {
      if (tempRank != rank)
        return dyn.emitOpError("on an operand of rank ")
               << tempRank << " in an apply of rank " << rank
               << " is not supported by shape inference";
      Box box(lb, ub);
      for (unsigned d = 0; d < rank; ++d) {
        std::optional<int64_t> low = llvm::checkedAdd(lb[d], dyn.getLb()[d]);
        std::optional<int64_t> high = llvm::checkedAdd(ub[d], dyn.getUb()[d]);
        if (!low || !high)
          return offsetOverflow(dyn, low ? dyn.getUb()[d] : dyn.getLb()[d]);
        box.lb[d] = *low;
        box.ub[d] = *high;
      }
      needs.push_back({std::move(box), dyn});
      continue;
    }
    return user->emitOpError("uses a temp argument of stencil.apply; shape "
                             "inference only supports stencil.access and "
                             "stencil.dyn_access to temp arguments");
  }
  return success();
}

/// Collect what every user of temp `temp` needs. Users have their final
/// types already (they come later in the block or are nested deeper).
LogicalResult collectNeeds(Value temp, SmallVectorImpl<Need> &needs,
                           const llvm::DenseSet<Operation *> &unneeded) {
  unsigned rank = getRankOf(temp.getType());
  Block *home = temp.getParentBlock();
  for (OpOperand &use : temp.getUses()) {
    Operation *user = use.getOwner();
    if (unneeded.contains(user))
      continue;
    // Blocks are inferred one at a time, nested blocks first: a user in a
    // sibling block (of a CFG region) has no bounds yet.
    if (!home->findAncestorOpInBlock(*user)) {
      InFlightDiagnostic diag =
          temp.getDefiningOp()->emitOpError(
              "defines a temp that is used in another block; shape "
              "inference supports temps used in their own block and in "
              "blocks nested in it");
      diag.attachNote(user->getLoc()) << "used here";
      return diag;
    }
    if (auto store = dyn_cast<StoreOp>(user)) {
      needs.push_back({boundsBox(store.getBounds()), store});
      continue;
    }
    if (auto apply = dyn_cast<ApplyOp>(user)) {
      // `outs` destinations are fields, so a temp is always an argument.
      if (failed(collectApplyNeeds(apply, use.getOperandNumber(), rank,
                                   needs)))
        return failure();
      continue;
    }
    if (auto buffer = dyn_cast<BufferOp>(user)) {
      BoundsAttr b = getBoundsOf(buffer.getRes().getType());
      if (!b)
        return unknownUserBounds(buffer);
      needs.push_back({boundsBox(b), buffer});
      continue;
    }
    if (auto combine = dyn_cast<CombineOp>(user)) {
      // Operand segments: lower, upper, lowerext, upperext. lower[i] and
      // upper[i] make result i, the ext operands the results after them.
      unsigned idx = use.getOperandNumber(), resultIndex = 0, base = 0;
      bool lowerSide = true;
      for (unsigned segment = 0; segment < 4; ++segment) {
        auto [start, length] = combine.getODSOperandIndexAndLength(segment);
        if (idx >= start && idx < start + length) {
          resultIndex = base + (idx - start);
          lowerSide = segment == 0 || segment == 2;
          break;
        }
        // lower and upper share results 0..n-1.
        if (segment != 0)
          base += length;
      }
      BoundsAttr b = getBoundsOf(combine.getResult(resultIndex).getType());
      if (!b)
        return unknownUserBounds(combine);
      int64_t dim = combine.getDimValue(), x = combine.getIndexValue();
      Box box = boundsBox(b);
      if (lowerSide)
        box.ub[dim] = std::min(box.ub[dim], x);
      else
        box.lb[dim] = std::max(box.lb[dim], x);
      // A side that the cut leaves without points needs nothing.
      if (!box.empty())
        needs.push_back({std::move(box), combine});
      continue;
    }
    return user->emitOpError("uses a stencil temp; shape inference supports "
                             "temps used by stencil.store, stencil.apply, "
                             "stencil.buffer and stencil.combine only");
  }
  return success();
}

/// The box that `op`'s temp results `results` are needed on: the bounding
/// box of what their users read, or an empty box when the users read no
/// point of them (an apply operand the body never accesses).
FailureOr<Box> inferResultBox(Operation *op, ValueRange results,
                              SmallVectorImpl<Need> &needs,
                              const llvm::DenseSet<Operation *> &unneeded) {
  for (Value v : results)
    if (failed(collectNeeds(v, needs, unneeded)))
      return failure();
  std::optional<Box> box;
  for (const Need &need : needs) {
    if (need.box.empty())
      continue;
    if (!box)
      box = need.box;
    else
      box->unite(need.box);
  }
  if (!box) {
    unsigned rank = getRankOf(results.front().getType());
    return Box(SmallVector<int64_t>(rank, 0), SmallVector<int64_t>(rank, 0));
  }
  return *box;
}

LogicalResult inferLoad(LoadOp load, const llvm::DenseSet<Operation *> &unneeded) {
  SmallVector<Need> needs;
  FailureOr<Box> box = inferResultBox(load, load->getResults(), needs, unneeded);
  if (failed(box))
    return failure();
  // The LoadOp verifier guarantees that the field has bounds.
  BoundsAttr fieldBounds = getBoundsOf(load.getField().getType());
  assert(fieldBounds && "load from a field without bounds");
  Box field = boundsBox(fieldBounds);
  // Nothing read: an empty box at the field's corner keeps the verifier's
  // containment check meaningful.
  if (box->empty())
    box = Box(field.lb, field.lb);
  if (!field.contains(*box)) {
    InFlightDiagnostic diag =
        load.emitOpError("needs points ")
        << formatList(box->lb) << " to " << formatList(box->ub)
        << " (upper bounds exclusive), outside the field bounds "
        << formatList(field.lb) << " to " << formatList(field.ub);
    for (const Need &need : needs)
      if (!need.box.empty() && !field.contains(need.box))
        diag.attachNote(need.why->getLoc())
            << "points " << formatList(need.box.lb) << " to "
            << formatList(need.box.ub) << " are read here";
    return failure();
  }
  setTempType(load.getRes(), withBox(load.getRes().getType(), *box));
  return success();
}

LogicalResult inferApply(ApplyOp apply, const llvm::DenseSet<Operation *> &unneeded) {
  // With `outs` the iteration box is the `to` bounds.
  if (apply.getRes().empty())
    return success();
  SmallVector<Need> needs;
  FailureOr<Box> box = inferResultBox(apply, apply.getRes(), needs, unneeded);
  if (failed(box))
    return failure();
  for (Value res : apply.getRes())
    setTempType(res, withBox(res.getType(), *box));
  return success();
}

LogicalResult inferBuffer(BufferOp buffer, const llvm::DenseSet<Operation *> &unneeded) {
  SmallVector<Need> needs;
  FailureOr<Box> box = inferResultBox(buffer, buffer->getResults(), needs, unneeded);
  if (failed(box))
    return failure();
  // The producer of the operand widens this further if its other results
  // need more (setTempType keeps the two types equal).
  setTempType(buffer.getRes(), withBox(buffer.getRes().getType(), *box));
  return success();
}

LogicalResult inferCombine(CombineOp combine,
                           const llvm::DenseSet<Operation *> &unneeded) {
  SmallVector<Need> needs;
  FailureOr<Box> box = inferResultBox(combine, combine.getResults(), needs, unneeded);
  if (failed(box))
    return failure();
  // Each result gets its own needs; one without uses gets the union of all
  // (so that its operands are still defined somewhere sensible). The cut
  // must lie inside every result (closed interval), as the verifier checks.
  int64_t dim = combine.getDimValue(), x = combine.getIndexValue();
  for (Value res : combine.getResults()) {
    SmallVector<Need> own;
    if (failed(collectNeeds(res, own, unneeded)))
      return failure();
    Box resBox = *box;
    bool first = true;
    for (const Need &need : own) {
      if (need.box.empty())
        continue;
      if (first)
        resBox = need.box;
      else
        resBox.unite(need.box);
      first = false;
    }
    resBox.lb[dim] = std::min(resBox.lb[dim], x);
    resBox.ub[dim] = std::max(resBox.ub[dim], x);
    setTempType(res, withBox(res.getType(), resBox));
  }
  return success();
}

/// Infer the temps defined in `block`, last op first. Blocks nested in it
/// must be done already.
LogicalResult inferBlock(Block &block) {
  // Temps that nothing needs keep unknown bounds.
  llvm::DenseSet<Operation *> unneeded = findUnneededTempOps(block);
  for (Operation &op : llvm::reverse(block.getOperations())) {
    if (unneeded.contains(&op))
      continue;
    LogicalResult result = success();
    if (auto load = dyn_cast<LoadOp>(op))
      result = inferLoad(load, unneeded);
    else if (auto apply = dyn_cast<ApplyOp>(op))
      result = inferApply(apply, unneeded);
    else if (auto buffer = dyn_cast<BufferOp>(op);
             buffer && isa<TempType>(buffer.getRes().getType()))
      // (A buffer into a field copies its operand's bounds, which the
      // verifier requires to be known.)
      result = inferBuffer(buffer, unneeded);
    else if (auto combine = dyn_cast<CombineOp>(op))
      result = inferCombine(combine, unneeded);
    // Stop at the first error of a block: the temps it would have given
    // bounds to have none, so later errors would only follow from it.
    if (failed(result))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult mlir::stencil::inferShapes(Block &block) {
  bool ok = true;
  for (Operation &op : block) {
    // Apply bodies define no temps.
    if (isa<ApplyOp>(op))
      continue;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        ok &= succeeded(inferShapes(nested));
  }
  // Users nested in a failed block may lack bounds: do not add errors that
  // only follow from it.
  if (!ok)
    return failure();
  return inferBlock(block);
}

LogicalResult mlir::stencil::inferShapes(Operation *root) {
  bool ok = true;
  for (Region &region : root->getRegions())
    for (Block &block : region)
      ok &= succeeded(inferShapes(block));
  return success(ok);
}

void mlir::stencil::resetShapes(Block &block) {
  block.walk([](Operation *op) {
    if (!isa<LoadOp, ApplyOp, BufferOp, CombineOp>(op))
      return;
    for (Value res : op->getResults())
      if (auto temp = dyn_cast<TempType>(res.getType()))
        res.setType(TempType::get(temp.getRank(), temp.getElementType()));
  });
  block.walk([](ApplyOp apply) {
    for (auto [operand, arg] :
         llvm::zip(apply.getArgs(), apply.getBody()->getArguments()))
      arg.setType(operand.getType());
  });
}

/// xDSL's value form of dmp.swap (a temp in, the exchanged temp out) on a
/// loaded temp becomes the field form before the load: the load then reads
/// the exchanged halo, which is what the value form gives its users.
static FailureOr<SmallVector<std::pair<dmp::SwapOp, LoadOp>>>
rewriteTempSwaps(Operation *root) {
  SmallVector<std::pair<dmp::SwapOp, LoadOp>> rewritten;
  WalkResult walk = root->walk([&](dmp::SwapOp swap) -> WalkResult {
    if (!swap.getSwapped())
      return WalkResult::advance();
    auto load = swap.getField().getDefiningOp<LoadOp>();
    if (!load)
      return swap.emitOpError("exchanges a temp that is not loaded from a "
                              "field, which the lowering does not support");
    OpBuilder b(load);
    auto fieldSwap =
        dmp::SwapOp::create(b, swap.getLoc(), Type(), load.getField(),
                            swap.getStrategy(), swap.getSwaps());
    swap.getSwapped().replaceAllUsesWith(load.getResult());
    swap.erase();
    rewritten.push_back({fieldSwap, load});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return rewritten;
}

LogicalResult mlir::stencil::swapFieldsNotTemps(Operation *root) {
  return failure(failed(rewriteTempSwaps(root)));
}

/// The box every store of the function holding `op` writes (the rank's core
/// in a program distributed by xDSL), if they all write one.
static std::optional<Box> storedBox(Operation *op) {
  std::optional<Box> core;
  bool agree = true;
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return std::nullopt;
  func->walk([&](StoreOp store) {
    Box box = boundsBox(store.getBounds());
    if (core && (core->lb != box.lb || core->ub != box.ub))
      agree = false;
    core = box;
  });
  return agree ? core : std::nullopt;
}

/// A value-form swap as xDSL's distribute-stencil writes it exchanges faces
/// only, sized by the accesses of the loaded operand: where the stencils
/// read corners, or a temp computed beyond the core, part of what they read
/// beyond the rank's core towards a neighbour is never received and holds
/// stale values. Warn, naming the first such box and the access.
static void warnUnreceivedHalo(dmp::SwapOp swap, LoadOp load) {
  std::optional<Box> core = storedBox(swap);
  SmallVector<Need> needs;
  if (!core || core->rank() != getRankOf(load.getRes().getType()) ||
      failed(collectNeeds(load.getRes(), needs, {})))
    return;
  ArrayRef<int64_t> topology = swap.getTopology().getShape();
  unsigned rank = core->rank();
  auto isCut = [&](unsigned d) {
    return d < topology.size() && topology[d] > 1;
  };
  SmallVector<Box> received;
  for (Attribute attr : swap.getSwaps()) {
    auto exchange = cast<dmp::ExchangeAttr>(attr);
    SmallVector<int64_t> ub(exchange.getOffset());
    for (auto [u, s] : llvm::zip(ub, exchange.getSize()))
      u += s;
    received.emplace_back(exchange.getOffset(), ub);
  }
  // Every direction towards a neighbour: -1, 0 or 1 in each dimension the
  // process grid cuts (more than one rank), 0 in the others.
  int64_t directions = 1;
  for (unsigned d = 0; d < rank; ++d)
    directions *= 3;
  for (const Need &need : needs) {
    for (int64_t code = 0; code < directions; ++code) {
      SmallVector<int64_t> dir;
      for (int64_t rest = code; dir.size() < rank; rest /= 3)
        dir.push_back(rest % 3 - 1);
      if (llvm::all_of(dir, [](int64_t v) { return v == 0; }) ||
          llvm::any_of(llvm::seq(rank),
                       [&](unsigned d) { return dir[d] && !isCut(d); }))
        continue;
      // The part of what this access reads in that direction (beyond the
      // core in a dimension the grid does not cut lies the global field's
      // halo, which no rank writes).
      Box region = need.box;
      for (unsigned d = 0; d < rank; ++d) {
        if (dir[d] <= 0)
          region.ub[d] =
              std::min(region.ub[d], dir[d] ? core->lb[d] : core->ub[d]);
        if (dir[d] >= 0)
          region.lb[d] =
              std::max(region.lb[d], dir[d] ? core->ub[d] : core->lb[d]);
      }
      SmallVector<Box> missing;
      if (!region.empty())
        missing.push_back(region);
      for (const Box &r : received) {
        SmallVector<Box> rest;
        for (const Box &m : missing)
          llvm::append_range(rest, boxMinus(m, r));
        missing = std::move(rest);
      }
      if (missing.empty())
        continue;
      InFlightDiagnostic diag =
          swap.emitWarning()
          << "the stencils read " << formatList(missing.front().lb) << " to "
          << formatList(missing.front().ub)
          << " of this field, beyond the rank's core towards the neighbour "
             "at "
          << formatList(dir)
          << ", but no exchange of this swap receives it: on ranks with that "
             "neighbour they read values it never sent (xDSL's "
             "distribute-stencil exchanges faces only, sized by the accesses "
             "of the loaded temp); --stencil-distribute on the original "
             "program exchanges what the stencils read";
      diag.attachNote(need.why->getLoc()) << "read here";
      return;
    }
  }
}

namespace {
struct StencilShapeInferencePass
    : mlir::stencil::impl::StencilShapeInferenceBase<
          StencilShapeInferencePass> {
  void runOnOperation() override {
    auto rewritten = rewriteTempSwaps(getOperation());
    if (failed(rewritten) || failed(inferShapes(getOperation())))
      return signalPassFailure();
    for (auto [swap, load] : *rewritten)
      warnUnreceivedHalo(swap, load);
  }
};
} // namespace
