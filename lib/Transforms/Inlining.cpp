//===- Inlining.cpp - fuse stencil applies by recomputation ---------------===//
//
// A producer apply whose results only feed other applies is folded into each
// consumer: every access of the consumer to a producer result becomes a copy
// of the producer's body evaluated at the accessed offset. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILINLINING
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

/// True when the access reads every apply dimension in order (no `_`); the
/// generic form that xDSL prints spells out the identity offset_mapping.
static bool hasIdentityMapping(mlir::stencil::AccessOp access, unsigned rank) {
  mlir::stencil::IndexAttr mapping = access.getOffsetMappingAttr();
  if (!mapping)
    return true;
  if (mapping.size() != rank)
    return false;
  for (unsigned d = 0; d < rank; ++d)
    if (mapping[d] != d)
      return false;
  return true;
}

namespace {

/// The value of result `r` of `producer` at a point: the operand of the
/// store_result it returns, or the plain value it returns.
Value getResultValue(ApplyOp producer, unsigned r) {
  Value v = producer.getReturnOp().getArg()[r];
  if (auto result = v.getDefiningOp<StoreResultOp>())
    return result.getArg();
  return v;
}

/// True when `op` or an op nested in it may write memory.
bool mayWriteMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    if (auto iface = dyn_cast<MemoryEffectOpInterface>(nested))
      writes |= iface.hasEffect<MemoryEffects::Write>();
    else if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      writes = true;
  });
  return writes;
}

/// The consumers of `producer` when it can be inlined into all of them,
/// failure otherwise.
FailureOr<SmallVector<ApplyOp>> getInlinableConsumers(ApplyOp producer) {
  if (producer.getRes().empty() || !producer.getDest().empty())
    return failure();
  Block *body = producer.getBody();
  ReturnOp ret = producer.getReturnOp();
  if (!ret || (ret.getUnrollAttr() && !isRerollable(producer)))
    return failure();
  for (Value v : ret.getArg()) {
    if (!isa<ResultType>(v.getType()))
      continue; // a plain value
    auto result = v.getDefiningOp<StoreResultOp>();
    if (!result || result->getBlock() != body || !result.getArg())
      return failure();
  }
  // Recomputation duplicates the body: it must be free of side effects, and
  // must not leave points unwritten.
  for (Operation &op : body->without_terminator())
    if (!isMemoryEffectFree(&op))
      return failure();
  bool emptyResult = false;
  body->walk([&](StoreResultOp r) { emptyResult |= !r.getArg(); });
  if (emptyResult)
    return failure();

  unsigned rank = producer.getRank();
  llvm::SetVector<Operation *> consumers;
  for (Value res : producer.getRes()) {
    if (res.use_empty())
      continue;
    for (OpOperand &use : res.getUses()) {
      auto consumer = dyn_cast<ApplyOp>(use.getOwner());
      if (!consumer || use.getOperandNumber() >= consumer.getArgs().size() ||
          consumer.getRank() != rank)
        return failure();
      BlockArgument arg = consumer.getBodyArg(use.getOperandNumber());
      for (Operation *user : arg.getUsers()) {
        auto access = dyn_cast<AccessOp>(user);
        if (!access || !hasIdentityMapping(access, rank))
          return failure();
      }
      consumers.insert(consumer);
    }
  }
  if (consumers.empty())
    return failure();

  // Fields are memory: a producer reading a field computes from what the
  // field holds at the producer, so its recomputation in a consumer must not
  // see writes that happen in between (or by the consumer itself).
  bool readsFields = llvm::any_of(producer.getArgs(), [](Value v) {
    return isa<FieldType>(v.getType());
  });
  if (readsFields) {
    for (Operation *op : consumers) {
      auto consumer = cast<ApplyOp>(op);
      if (!consumer.getDest().empty() ||
          consumer->getBlock() != producer->getBlock())
        return failure();
      for (Operation *between = producer->getNextNode(); between != consumer;
           between = between->getNextNode())
        if (mayWriteMemory(between))
          return failure();
    }
  }

  SmallVector<ApplyOp> result;
  for (Operation *op : consumers)
    result.push_back(cast<ApplyOp>(op));
  return result;
}

/// Shift the stencil ops of a copy of a producer body (nested ones too) to
/// compute the point at `offset` from the consumer's current point.
void shiftStencilOps(Operation *root, ArrayRef<int64_t> offset) {
  MLIRContext *ctx = root->getContext();
  unsigned rank = offset.size();
  root->walk([&](Operation *op) {
    if (auto access = dyn_cast<AccessOp>(op)) {
      SmallVector<int64_t> dims = access.getOperandDims(rank);
      SmallVector<int64_t> off(access.getOffset().getIndices());
      for (unsigned d = 0; d < rank; ++d)
        if (dims[d] >= 0 && dims[d] < (int64_t)off.size())
          off[dims[d]] += offset[d];
      access.setOffsetAttr(IndexAttr::get(ctx, off));
    } else if (auto index = dyn_cast<IndexOp>(op)) {
      SmallVector<int64_t> off(index.getOffset().getIndices());
      for (unsigned d = 0; d < rank && d < off.size(); ++d)
        off[d] += offset[d];
      index.setOffsetAttr(IndexAttr::get(ctx, off));
    } else if (auto dyn = dyn_cast<DynAccessOp>(op)) {
      SmallVector<int64_t> lb(dyn.getLb().getIndices()),
          ub(dyn.getUb().getIndices());
      for (unsigned d = 0; d < rank && d < lb.size(); ++d) {
        lb[d] += offset[d];
        ub[d] += offset[d];
      }
      dyn.setLbAttr(IndexAttr::get(ctx, lb));
      dyn.setUbAttr(IndexAttr::get(ctx, ub));
    }
  });
}

/// Replace every access of `consumer` to a result of `producer` by a copy of
/// the producer's body.
void inlineInto(ApplyOp producer, ApplyOp consumer) {
  Block *pBody = producer.getBody();
  Block *cBody = consumer.getBody();
  unsigned rank = producer.getRank();

  // Producer operands become consumer operands (reusing existing ones).
  IRMapping argMap;
  for (auto [operand, pArg] :
       llvm::zip(producer.getArgs(), pBody->getArguments())) {
    std::optional<unsigned> existing;
    for (auto [i, cOperand] : llvm::enumerate(consumer.getArgs()))
      if (cOperand == operand) {
        existing = i;
        break;
      }
    if (existing) {
      argMap.map(pArg, cBody->getArgument(*existing));
      continue;
    }
    consumer.getArgsMutable().append(operand);
    argMap.map(pArg, cBody->addArgument(operand.getType(), pArg.getLoc()));
  }

  // Region arguments of the consumer bound to producer results.
  DenseMap<Value, unsigned> resultOfArg;
  for (auto [i, operand] : llvm::enumerate(consumer.getArgs()))
    if (operand.getDefiningOp() == producer.getOperation())
      resultOfArg[cBody->getArgument(i)] =
          cast<OpResult>(operand).getResultNumber();

  SmallVector<AccessOp> accesses;
  cBody->walk([&](AccessOp access) {
    if (resultOfArg.count(access.getTemp()))
      accesses.push_back(access);
  });

  for (AccessOp access : accesses) {
    unsigned r = resultOfArg.lookup(access.getTemp());
    SmallVector<int64_t> offset = access.getApplyOffset(rank);
    OpBuilder builder(access);
    IRMapping map = argMap;
    SmallVector<Operation *> copies;
    for (Operation &op : pBody->without_terminator())
      copies.push_back(builder.clone(op, map));
    for (Operation *copy : copies)
      shiftStencilOps(copy, offset);
    Value value = map.lookup(getResultValue(producer, r));
    access.getRes().replaceAllUsesWith(value);
    access.erase();
    // Drop what the accessed result does not need: the copied store_result
    // ops (they fed the producer's return only) and the computations of the
    // other results, so that they do not widen the operand boxes.
    for (Operation *copy : llvm::reverse(copies))
      if (isOpTriviallyDead(copy))
        copy->erase();
  }

  // Drop the consumer operands that were producer results.
  llvm::BitVector erase(consumer.getArgs().size());
  for (auto [i, operand] : llvm::enumerate(consumer.getArgs()))
    if (operand.getDefiningOp() == producer.getOperation())
      erase.set(i);
  for (int i = erase.size() - 1; i >= 0; --i)
    if (erase[i])
      consumer.getArgsMutable().erase(i);
  cBody->eraseArguments(erase);
}

/// True when `op` defines a temp with bounds.
bool definesBoundedTemp(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<TempType>(t) && getBoundsOf(t);
  });
}

struct StencilInliningPass
    : mlir::stencil::impl::StencilInliningBase<StencilInliningPass> {
  void runOnOperation() override {
    Operation *root = getOperation();

    // Blocks that directly hold temps with bounds, before any change.
    llvm::DenseSet<Block *> boundedBlocks;
    root->walk([&](Operation *op) {
      if (op != root && definesBoundedTemp(op))
        boundedBlocks.insert(op->getBlock());
    });

    // Blocks that held an inlined producer.
    llvm::SetVector<Block *> affected;
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<ApplyOp> applies;
      root->walk([&](ApplyOp apply) { applies.push_back(apply); });
      for (ApplyOp producer : applies) {
        FailureOr<SmallVector<ApplyOp>> consumers =
            getInlinableConsumers(producer);
        if (failed(consumers))
          continue;
        // Each access of a consumer recomputes one point.
        rerollApply(producer);
        for (ApplyOp consumer : *consumers)
          inlineInto(producer, consumer);
        affected.insert(producer->getBlock());
        producer.erase();
        changed = true;
      }
    }

    // Re-infer the bounds where there were some: the consumers now read the
    // producer operands on other boxes than the producer did.
    auto isNestedIn = [](Block *inner, Block *outer) {
      for (Operation *op = inner->getParentOp(); op; op = op->getParentOp())
        if (op->getBlock() == outer)
          return true;
      return false;
    };
    for (Block *block : affected) {
      if (llvm::any_of(affected, [&](Block *other) {
            return other != block && isNestedIn(block, other);
          }))
        continue;
      bool hadBounds = boundedBlocks.contains(block);
      block->walk([&](Block *nested) {
        hadBounds |= boundedBlocks.contains(nested);
      });
      if (!hadBounds)
        continue;
      resetShapes(*block);
      if (failed(inferShapes(*block)))
        signalPassFailure();
    }
  }
};

} // namespace
