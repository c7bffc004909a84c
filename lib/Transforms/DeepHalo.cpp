//===- DeepHalo.cpp - halos exchanged every h steps ------------------------===//
//
// The rank-level counterpart of overlapped tiling (OverTile, Holewinski et
// al., ICS 2012): a rank receives a halo deep enough for `h` steps, then
// computes `h` steps without communication, each step on its block widened
// by what the remaining steps of the block still read (redundantly with the
// neighbour, which computes those points as its own). The widening comes
// from the program itself: the last store of each field in the block covers
// the core, every earlier store the box that later loads of its field read
// (shape inference gives those from the stores after them), to a fixpoint.
//
//===----------------------------------------------------------------------===//

#include "DeepHalo.h"

#include "Stencil/Dmp/Dmp.h"
#include "Stencil/IR/Box.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::stencil;

Value mlir::stencil::fieldRoot(Value field) {
  while (auto cast = field.getDefiningOp<CastOp>())
    field = cast.getField();
  return field;
}

namespace {

/// The value of an index computed from constants (Devito writes the
/// loop's end as `time_M + 1`).
std::optional<int64_t> constantOf(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = constantOf(op->getOperand(0));
  std::optional<int64_t> b = constantOf(op->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return *a + *b;
  if (isa<arith::SubIOp>(op))
    return *a - *b;
  if (isa<arith::MulIOp>(op))
    return *a * *b;
  return std::nullopt;
}

} // namespace

FailureOr<SmallVector<BlockedLoop>>
mlir::stencil::blockTimeLoops(func::FuncOp func, int64_t depth) {
  SmallVector<scf::ForOp> loops;
  for (auto loop : func.getBody().getOps<scf::ForOp>()) {
    bool stores = false;
    loop.walk([&](StoreOp) { stores = true; });
    if (stores)
      loops.push_back(loop);
  }
  SmallVector<BlockedLoop> blocks;
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> lb = constantOf(loop.getLowerBound());
    std::optional<int64_t> ub = constantOf(loop.getUpperBound());
    std::optional<int64_t> step = constantOf(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return loop.emitOpError("needs constant bounds and step for halos "
                              "exchanged every ")
             << depth << " steps";
    bool nested = false;
    loop.getBody()->walk([&](StoreOp store) {
      nested |= store->getParentOp() != loop;
    });
    if (nested)
      return loop.emitOpError("stores inside nested regions, which halos "
                              "exchanged every ")
             << depth << " steps do not support";
    DenseSet<Value> roots;
    for (auto [init, arg] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
      if (isa<FieldType>(arg.getType()) && !roots.insert(fieldRoot(init)).second)
        return loop.emitOpError("rotates a field that may alias another, "
                                "which halos exchanged every ")
               << depth << " steps do not support";

    int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    int64_t blocked = trips / depth * depth, rest = trips - blocked;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // A loop over blocks of `steps` steps from `from` to `to`, the step
    // unrolled `steps` times in its body.
    auto makeBlocks = [&](Value from, Value to, int64_t steps,
                          ValueRange init) {
      auto block =
          scf::ForOp::create(b, loc, from, to, index(steps * *step), init);
      BlockedLoop result{block, steps, *step, nullptr, {}};
      OpBuilder bb = OpBuilder::atBlockBegin(block.getBody());
      SmallVector<Value> carried(block.getRegionIterArgs());
      for (int64_t j = 0; j < steps; ++j) {
        IRMapping mapping;
        Value iv = block.getInductionVar();
        if (j)
          iv = arith::AddIOp::create(
              bb, loc, iv, arith::ConstantIndexOp::create(bb, loc, j * *step));
        mapping.map(loop.getInductionVar(), iv);
        mapping.map(loop.getRegionIterArgs(), carried);
        for (Operation &op : loop.getBody()->without_terminator())
          bb.clone(op, mapping);
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        carried = llvm::map_to_vector(yield.getOperands(), [&](Value v) {
          return mapping.lookupOrDefault(v);
        });
        if (j == 0) {
          result.firstStepEnd = &block.getBody()->back();
          result.afterFirstStep = carried;
        }
      }
      scf::YieldOp::create(bb, loc, carried);
      blocks.push_back(std::move(result));
      return block;
    };
    Value split = index(*lb + blocked * *step);
    ValueRange fields = loop.getInitArgs();
    if (blocked)
      fields =
          makeBlocks(loop.getLowerBound(), split, depth, fields).getResults();
    // The remaining steps (fewer than `depth`): one shorter block, which the
    // halo, deep enough for `depth` steps, also serves. A single step stays
    // in the original loop, exchanging before it like any step.
    if (rest > 1)
      fields =
          makeBlocks(split, loop.getUpperBound(), rest, fields).getResults();
    if (rest == 1) {
      loop.getLowerBoundMutable().assign(split);
      loop.getInitArgsMutable().assign(fields);
    } else if (blocked || rest) {
      loop.replaceAllUsesWith(fields);
      loop.erase();
    }
  }
  return blocks;
}

LogicalResult mlir::stencil::rollBlockSteps(const BlockedLoop &blocked) {
  scf::ForOp outer = blocked.loop;
  Block *body = outer.getBody();
  // The swaps open the block (they were placed before the first loads of
  // their fields; the steps' other fields cannot alias theirs). A field
  // cast inside the step is cast again before them.
  SmallVector<dmp::SwapOp> swaps(body->getOps<dmp::SwapOp>());
  Operation *firstOfStep = &body->front();
  while (isa<dmp::SwapOp>(firstOfStep))
    firstOfStep = firstOfStep->getNextNode();
  OpBuilder opening(firstOfStep);
  for (dmp::SwapOp swap : swaps) {
    SmallVector<CastOp> casts;
    Value field = swap.getField();
    while (auto cast = field.getDefiningOp<CastOp>()) {
      if (cast->getBlock() != body)
        break;
      casts.push_back(cast);
      field = cast.getField();
    }
    if (Operation *def = field.getDefiningOp(); def && def->getBlock() == body)
      return swap.emitOpError("exchanges a field made inside its block of "
                              "steps, which cannot be rolled into a loop");
    for (CastOp cast : llvm::reverse(casts))
      field = CastOp::create(opening, cast.getLoc(), cast.getType(), field);
    swap.getFieldMutable().assign(field);
    swap->moveBefore(firstOfStep);
  }
  SmallVector<StoreOp> stores(body->getOps<StoreOp>());
  size_t perStep = stores.size() / blocked.depth;

  OpBuilder b(firstOfStep);
  Location loc = outer.getLoc();
  auto index = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  auto steps = scf::ForOp::create(b, loc, index(b, 0), index(b, blocked.depth),
                                  index(b, 1), outer.getRegionIterArgs());
  OpBuilder sb = OpBuilder::atBlockBegin(steps.getBody());
  IRMapping mapping;
  mapping.map(outer.getRegionIterArgs(), steps.getRegionIterArgs());
  auto inFirstStep = [&](Operation *user) {
    for (Operation *op = firstOfStep;; op = op->getNextNode()) {
      if (op->isAncestor(user))
        return true;
      if (op == blocked.firstStepEnd)
        return false;
    }
  };
  if (llvm::any_of(outer.getInductionVar().getUsers(), inFirstStep)) {
    Value offset = arith::MulIOp::create(sb, loc, steps.getInductionVar(),
                                         index(sb, blocked.step));
    mapping.map(
        outer.getInductionVar(),
        arith::AddIOp::create(sb, loc, outer.getInductionVar(), offset));
  }
  size_t storeIndex = 0;
  for (Operation *op = firstOfStep;; op = op->getNextNode()) {
    Operation *clone = sb.clone(*op, mapping);
    if (auto store = dyn_cast<StoreOp>(clone)) {
      Box box(store.getBounds().getLb(), store.getBounds().getUb());
      for (size_t j = 1; j < (size_t)blocked.depth; ++j) {
        BoundsAttr later = stores[j * perStep + storeIndex].getBounds();
        box.unite(Box(later.getLb(), later.getUb()));
      }
      store.setBoundsAttr(BoundsAttr::get(store.getContext(), box.lb, box.ub));
      ++storeIndex;
    }
    if (op == blocked.firstStepEnd)
      break;
  }
  scf::YieldOp::create(
      sb, loc, llvm::map_to_vector(blocked.afterFirstStep, [&](Value v) {
        return mapping.lookupOrDefault(v);
      }));

  // The unrolled steps go; the block passes on what the loop of steps
  // yields.
  Operation *yield = body->getTerminator();
  yield->setOperands(steps.getResults());
  for (Operation *op = yield->getPrevNode(); op != steps;) {
    Operation *prev = op->getPrevNode();
    op->erase();
    op = prev;
  }
  return success();
}

LogicalResult mlir::stencil::widenBlockStores(scf::ForOp loop,
                                              ArrayRef<int64_t> coreLb,
                                              ArrayRef<int64_t> coreUb,
                                              ArrayRef<int64_t> allowedLb,
                                              ArrayRef<int64_t> allowedUb) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      loop.getBody()->without_terminator(), [](Operation &op) { return &op; });
  SmallVector<StoreOp> stores;
  for (Operation *op : ops)
    if (auto store = dyn_cast<StoreOp>(op))
      stores.push_back(store);
  MLIRContext *ctx = loop.getContext();
  // Every store's box grows in each round: at most one round per store.
  for (size_t round = 0; round <= stores.size() + 1; ++round) {
    if (failed(inferShapes(loop->getParentOp())))
      return failure();
    bool changed = false;
    for (auto [p, op] : llvm::enumerate(ops)) {
      auto store = dyn_cast<StoreOp>(op);
      if (!store)
        continue;
      Value root = fieldRoot(store.getField());
      Box box(coreLb, coreUb);
      for (Operation *later : ArrayRef(ops).drop_front(p + 1)) {
        if (auto next = dyn_cast<StoreOp>(later);
            next && fieldRoot(next.getField()) == root)
          break;
        auto load = dyn_cast<LoadOp>(later);
        if (!load || fieldRoot(load.getField()) != root)
          continue;
        auto temp = cast<TempType>(load.getRes().getType());
        if (temp.hasBounds())
          box.unite(Box(temp.getLb(), temp.getUb()));
      }
      // Where the rank has no neighbour the allowed box ends at the core:
      // later loads read the global field's halo there, which no step
      // writes.
      for (unsigned d = 0; d < box.lb.size(); ++d) {
        if (allowedLb[d] == coreLb[d])
          box.lb[d] = std::max(box.lb[d], coreLb[d]);
        if (allowedUb[d] == coreUb[d])
          box.ub[d] = std::min(box.ub[d], coreUb[d]);
      }
      for (unsigned d = 0; d < box.lb.size(); ++d)
        if (box.lb[d] < allowedLb[d] || box.ub[d] > allowedUb[d])
          return store.emitOpError("would have to compute [")
                 << box.lb[d] << ", " << box.ub[d] << ") in dimension " << d
                 << " for the rest of its block of "
                 << "steps, beyond the [" << allowedLb[d] << ", "
                 << allowedUb[d] << ") the rank may compute";
      auto bounds = BoundsAttr::get(ctx, box.lb, box.ub);
      if (bounds != store.getBounds()) {
        store.setBoundsAttr(bounds);
        changed = true;
      }
    }
    if (!changed)
      return success();
  }
  return loop.emitOpError("store bounds of the block did not settle");
}

SmallVector<BlockInput> mlir::stencil::blockInputs(scf::ForOp loop) {
  SmallVector<BlockInput> inputs;
  DenseMap<Value, unsigned> index;
  DenseSet<Value> stored;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto store = dyn_cast<StoreOp>(op)) {
      stored.insert(fieldRoot(store.getField()));
      continue;
    }
    auto load = dyn_cast<LoadOp>(op);
    if (!load)
      continue;
    Value root = fieldRoot(load.getField());
    auto temp = cast<TempType>(load.getRes().getType());
    if (stored.contains(root) || !temp.hasBounds())
      continue;
    auto [it, fresh] = index.try_emplace(root, inputs.size());
    if (fresh)
      inputs.push_back({root, load, SmallVector<int64_t>(temp.getLb()),
                        SmallVector<int64_t>(temp.getUb())});
    else
      for (unsigned d = 0; d < temp.getRank(); ++d) {
        BlockInput &in = inputs[it->second];
        in.lb[d] = std::min(in.lb[d], temp.getLb()[d]);
        in.ub[d] = std::max(in.ub[d], temp.getUb()[d]);
      }
  }
  return inputs;
}
