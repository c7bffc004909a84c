//===- StencilToLoops.cpp - reference lowering of stencil programs ---------===//
//
// The ground-truth lowering every optimization is checked against.
//
// 1. Fields become memrefs of their full extent (`[lb,ub]` -> ub - lb
//    elements, `?` -> dynamic); element 0 is the field's lower bound. Function
//    signatures and time loops (`scf.for` over fields in `iter_args`) are
//    converted structurally by the dialect-conversion framework.
// 2. Every temp then lives in a memref together with its origin (the grid
//    point stored at element 0): loads are views of their field, apply results
//    are written straight into the field they are stored to when that is
//    safe, into a fresh buffer otherwise. Each apply becomes a loop nest over
//    its bounds whose body is the apply region with accesses turned into
//    memref loads.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "FieldAliases.h"
#include "HaloExchange.h"

#include "Stencil/IR/Box.h"
#include "Stencil/Poly/PolyOps.h"
#include "Stencil/Poly/ScopToLoops.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <memory>

namespace mlir::stencil {
#define GEN_PASS_DEF_CONVERTSTENCILTOLOOPS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

//===----------------------------------------------------------------------===//
// Phase 1: field types to memref types
//===----------------------------------------------------------------------===//

MemRefType convertFieldType(FieldType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

struct FieldTypeConverter : TypeConverter {
  FieldTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](FieldType t) -> Type { return convertFieldType(t); });
    // Stencil ops keep using fields until phase 2 replaces them.
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

LogicalResult convertFieldSignatures(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  FieldTypeConverter converter;
  ConversionTarget target(*ctx);
  RewritePatternSet patterns(ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
    return converter.isSignatureLegal(op.getFunctionType()) &&
           converter.isLegal(&op.getBody());
  });
  target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
      [&](Operation *op) { return converter.isLegal(op); });
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(module, target, std::move(patterns));
}

//===----------------------------------------------------------------------===//
// Phase 2: stencil ops to loops
//===----------------------------------------------------------------------===//

/// Where the values of a temp (or field) live: `memref[x - origin]` holds
/// grid point `x`.
struct Storage {
  Value memref;
  SmallVector<int64_t> origin;
};

/// A halo exchange in flight (Devito's "full" mode): the applies after the
/// swaps compute what does not read the halo being received, then the
/// exchange completes, then they compute the rest.
struct Overlap {
  PostedExchanges posted;
  Location loc;
  /// The exchange completes before this op (the first the overlap stops at).
  Operation *end = nullptr;
  /// The applies split, each with its box computed before the wait.
  DenseMap<Operation *, Box> interior;
  /// What runs after the wait, in order.
  SmallVector<std::function<LogicalResult(OpBuilder &)>> deferred;
};

class StencilLowering {
public:
  StencilLowering(bool parallel, bool parallelAllDims,
                  const FieldAliases &aliases)
      : parallel(parallel), parallelAllDims(parallelAllDims),
        aliases(aliases) {}

  LogicalResult lowerBlock(Block &block);

private:
  Value constant(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// `base + delta` without emitting an add for delta 0.
  Value addConst(OpBuilder &b, Location loc, Value base, int64_t delta) {
    if (delta == 0)
      return base;
    return arith::AddIOp::create(b, loc, base, constant(b, loc, delta));
  }

  /// Memref indices of grid point `point + offset` in `storage`.
  SmallVector<Value> indicesOf(OpBuilder &b, Location loc, ValueRange point,
                               ArrayRef<int64_t> offset,
                               const Storage &storage) {
    SmallVector<Value> idx;
    for (auto [d, p] : llvm::enumerate(point))
      idx.push_back(addConst(b, loc, p, offset[d] - storage.origin[d]));
    return idx;
  }

  /// A loop nest over the box [lb, ub) with the given steps.
  void buildLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> lb,
                  ArrayRef<int64_t> ub, ArrayRef<int64_t> steps,
                  function_ref<void(OpBuilder &, Location, ValueRange)> body);

  Value lookupMemref(Value field);
  FailureOr<Storage> fieldStorage(Operation *user, Value field);
  FailureOr<Storage> tempStorage(Operation *user, Value temp);
  Value allocate(Operation *user, TempType type);
  void analyzeBlock(Block &block);
  bool touchesField(Operation *op, Value root);
  LogicalResult lowerUnrealizedCast(UnrealizedConversionCastOp op);
  LogicalResult lowerSwaps(dmp::SwapOp first);
  DenseMap<Operation *, Box>
  planOverlap(ArrayRef<std::pair<dmp::SwapOp, Value>> group, Operation *&end);
  LogicalResult completeOverlap();
  void copyBox(OpBuilder &b, Location loc, ArrayRef<int64_t> lb,
               ArrayRef<int64_t> ub, const Storage &from, const Storage &to);

  /// The loops of one apply over a box of its points: all of them, or a
  /// part of an overlap with a halo exchange, which may be emitted later.
  struct ApplyLoops {
    StencilLowering &lowering;
    mutable ApplyOp op; // a handle: its accessors are not const
    unsigned rank;
    /// Storage of the body's temp and field arguments; the others mapped.
    DenseMap<Value, Storage> argStorage;
    IRMapping mapping;
    SmallVector<Storage> outputs;
    /// Results also stored into a field, on that store's box.
    SmallVector<std::pair<Storage, BoundsAttr>> alsoOutputs;
    SmallVector<int64_t> unroll, lb, ub;
    unsigned factor;

    LogicalResult emit(OpBuilder &b, ArrayRef<int64_t> boxLb,
                       ArrayRef<int64_t> boxUb) const;

  private:
    Value read(OpBuilder &b, Operation *access, ValueRange point) const;
    void write(OpBuilder &b, Location loc, unsigned result,
               ArrayRef<int64_t> offset, Value value, ValueRange point) const;
  };

  LogicalResult lowerCast(CastOp op);
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerApply(ApplyOp op);
  LogicalResult lowerStore(StoreOp op);
  LogicalResult lowerBuffer(BufferOp op);
  LogicalResult lowerCombine(CombineOp op);
  LogicalResult lowerScop(poly::ScopOp op);

  bool parallel;
  bool parallelAllDims;
  const FieldAliases &aliases;
  /// Swaps lowered with an earlier one of their group.
  DenseSet<Operation *> loweredSwaps;
  /// The exchange in flight in the block being lowered.
  std::optional<Overlap> overlap;
  /// Memref of each field value (cast results and converted arguments).
  DenseMap<Value, Value> fields;
  /// Storage of each temp value.
  DenseMap<Value, Storage> temps;

  // What analyzeBlock() decides for the block being lowered.
  /// Temps nothing needs: their ops are dropped.
  DenseSet<Operation *> unneeded;
  /// Loads that must copy their field (it is written while the temp lives).
  DenseSet<Operation *> snapshotLoads;
  /// Apply results written straight into the field of their store.
  DenseMap<Value, StoreOp> directStores;
  /// Apply results that later applies also read: computed into a buffer
  /// and, on the store's box, into the field of their store by the same
  /// loop (what a hand-written kernel does; no copy loop).
  DenseMap<Value, StoreOp> alsoStores;
  /// Buffers to free at the end of the block.
  SmallVector<Value> blockBuffers;
};

void StencilLowering::buildLoops(
    OpBuilder &b, Location loc, ArrayRef<int64_t> lb, ArrayRef<int64_t> ub,
    ArrayRef<int64_t> steps,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, st;
  for (unsigned d = 0; d < lb.size(); ++d) {
    lbs.push_back(constant(b, loc, lb[d]));
    ubs.push_back(constant(b, loc, ub[d]));
    st.push_back(constant(b, loc, steps[d]));
  }
  if (!parallel || lb.empty()) {
    scf::buildLoopNest(b, loc, lbs, ubs, st, body);
    return;
  }
  if (parallelAllDims) {
    scf::ParallelOp::create(b, loc, lbs, ubs, st,
                            [&](OpBuilder &pb, Location pl, ValueRange point) {
                              body(pb, pl, point);
                            });
    return;
  }
  // Only the outermost dimension runs in parallel: the inner loops stay
  // plain loops that the LLVM vectorizer sees whole (a collapsed parallel
  // nest costs a division per point and does not vectorize).
  scf::ParallelOp::create(
      b, loc, lbs.front(), ubs.front(), st.front(),
      [&](OpBuilder &pb, Location pl, ValueRange outer) {
        scf::buildLoopNest(
            pb, pl, ArrayRef(lbs).drop_front(), ArrayRef(ubs).drop_front(),
            ArrayRef(st).drop_front(),
            [&](OpBuilder &ib, Location il, ValueRange inner) {
              SmallVector<Value> point{outer.front()};
              llvm::append_range(point, inner);
              body(ib, il, point);
            });
      });
}

Value StencilLowering::lookupMemref(Value field) {
  if (Value memref = fields.lookup(field))
    return memref;
  if (auto cast = field.getDefiningOp<UnrealizedConversionCastOp>())
    if (cast.getInputs().size() == 1 &&
        isa<MemRefType>(cast.getInputs()[0].getType()))
      return cast.getInputs()[0];
  return {};
}

FailureOr<Storage> StencilLowering::fieldStorage(Operation *user,
                                                 Value field) {
  auto type = cast<FieldType>(field.getType());
  Value memref = lookupMemref(field);
  if (!memref)
    return user->emitOpError("cannot lower: the field operand is not a "
                             "function argument, time-loop argument or "
                             "stencil.cast result");
  if (!type.hasBounds())
    return user->emitOpError("cannot lower a field without known bounds");
  return Storage{memref, SmallVector<int64_t>(type.getLb())};
}

FailureOr<Storage> StencilLowering::tempStorage(Operation *user, Value temp) {
  auto it = temps.find(temp);
  if (it == temps.end())
    return user->emitOpError("cannot lower: operand temp was not lowered");
  return it->second;
}

/// Buffers have static shapes, so they are allocated once before the
/// outermost sequential loop around their block (a time loop) and freed
/// after it, instead of once per iteration. Not out of a parallel loop,
/// whose iterations each need their own.
Value StencilLowering::allocate(Operation *user, TempType type) {
  Operation *outermostLoop = nullptr;
  for (Operation *p = user->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp()) {
    if (isa<scf::ForOp, scf::WhileOp>(p))
      outermostLoop = p;
    else if (isa<LoopLikeOpInterface>(p))
      break;
  }
  OpBuilder b(outermostLoop ? outermostLoop : user);
  Location loc = user->getLoc();
  // 64-byte alignment: whole cache lines, aligned vector accesses.
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      b.getI64IntegerAttr(64));
  if (outermostLoop) {
    b.setInsertionPointAfter(outermostLoop);
    memref::DeallocOp::create(b, loc, buffer);
  } else {
    blockBuffers.push_back(buffer);
  }
  return buffer;
}

void StencilLowering::copyBox(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> lb, ArrayRef<int64_t> ub,
                              const Storage &from, const Storage &to) {
  for (unsigned d = 0; d < lb.size(); ++d)
    if (ub[d] <= lb[d])
      return;
  SmallVector<int64_t> zero(lb.size(), 0), ones(lb.size(), 1);
  buildLoops(b, loc, lb, ub, ones, [&](OpBuilder &nb, Location l, ValueRange x) {
    Value v = memref::LoadOp::create(nb, l, from.memref,
                                     indicesOf(nb, l, x, zero, from));
    memref::StoreOp::create(nb, l, v, to.memref, indicesOf(nb, l, x, zero, to));
  });
}

/// Requires a temp type with bounds; reports the missing shape inference.
static FailureOr<TempType> boundedTemp(Operation *op, Value temp) {
  auto type = cast<TempType>(temp.getType());
  if (!type.hasBounds())
    return op->emitOpError("has a temp with unknown bounds; run "
                           "--stencil-shape-inference first");
  return type;
}

LogicalResult StencilLowering::lowerCast(CastOp op) {
  Value memref = lookupMemref(op.getField());
  if (!memref)
    return op.emitOpError("cannot lower: the input is not a function "
                          "argument, time-loop argument or stencil.cast "
                          "result");
  OpBuilder b(op);
  MemRefType target = convertFieldType(op.getResult().getType());
  if (memref.getType() != target)
    memref = memref::CastOp::create(b, op.getLoc(), target, memref);
  fields[op.getResult()] = memref;
  return success();
}

LogicalResult StencilLowering::lowerLoad(LoadOp op) {
  FailureOr<Storage> field = fieldStorage(op, op.getField());
  FailureOr<TempType> type = boundedTemp(op, op.getRes());
  if (failed(field) || failed(type))
    return failure();
  // A load is a view of its field, unless the field is written while the
  // temp is still read: then the temp must keep the values of the time of
  // the load.
  if (!snapshotLoads.contains(op)) {
    temps[op.getRes()] = *field;
    return success();
  }
  OpBuilder b(op);
  Storage snapshot{allocate(op, *type), SmallVector<int64_t>(type->getLb())};
  copyBox(b, op.getLoc(), type->getLb(), type->getUb(), *field, snapshot);
  temps[op.getRes()] = snapshot;
  return success();
}

LogicalResult StencilLowering::lowerApply(ApplyOp op) {
  BoundsAttr bounds = op.getIterationBounds();
  if (!bounds)
    return op.emitOpError("has unknown bounds; run --stencil-shape-inference "
                          "first");
  unsigned rank = op.getRank();
  ArrayRef<int64_t> lb = bounds.getLb(), ub = bounds.getUb();
  OpBuilder b(op);

  // Operands: temps and fields are read through their storage, other values
  // (scalars) are used as they are.
  DenseMap<Value, Storage> argStorage;
  IRMapping mapping;
  for (auto [operand, arg] :
       llvm::zip(op.getArgs(), op.getBody()->getArguments())) {
    FailureOr<Storage> s = success(Storage());
    if (isa<TempType>(operand.getType()))
      s = tempStorage(op, operand);
    else if (isa<FieldType>(operand.getType()))
      s = fieldStorage(op, operand);
    else {
      mapping.map(arg, operand);
      continue;
    }
    if (failed(s))
      return failure();
    argStorage[arg] = *s;
  }

  // Results: straight into the field of their store when analyzeBlock()
  // found that safe, into a buffer otherwise.
  SmallVector<Storage> outputs;
  if (!op.getDest().empty()) {
    for (Value dest : op.getDest()) {
      FailureOr<Storage> s = fieldStorage(op, dest);
      if (failed(s))
        return failure();
      outputs.push_back(*s);
    }
  } else {
    for (Value res : op.getRes()) {
      auto type = cast<TempType>(res.getType());
      Storage storage;
      StoreOp store = directStores.lookup(res);
      // A result stored on part of its box and used by nothing else goes
      // to the field alone (below), with no buffer.
      if (StoreOp also = alsoStores.lookup(res); also && res.hasOneUse())
        store = also;
      if (store) {
        FailureOr<Storage> s = fieldStorage(store, store.getField());
        if (failed(s))
          return failure();
        storage = *s;
      } else {
        storage = Storage{allocate(op, type), SmallVector<int64_t>(lb)};
      }
      outputs.push_back(storage);
      temps[res] = storage;
    }
  }
  // Results also written into the field of their store, on its box.
  SmallVector<std::pair<Storage, BoundsAttr>> alsoOutputs(outputs.size());
  for (auto [r, res] : llvm::enumerate(op.getRes()))
    if (StoreOp store = alsoStores.lookup(res)) {
      FailureOr<Storage> s = fieldStorage(store, store.getField());
      if (failed(s))
        return failure();
      alsoOutputs[r] = {*s, store.getBounds()};
    }

  ReturnOp ret = op.getReturnOp();
  SmallVector<int64_t> unroll(rank, 1);
  if (IndexAttr u = ret.getUnrollAttr())
    unroll.assign(u.getIndices().begin(), u.getIndices().end());
  unsigned factor = ret.getUnrollFactor();

  auto loops = std::make_shared<ApplyLoops>(
      ApplyLoops{*this, op, rank, std::move(argStorage), mapping,
                 std::move(outputs), std::move(alsoOutputs), std::move(unroll),
                 SmallVector<int64_t>(lb), SmallVector<int64_t>(ub), factor});
  if (!overlap || !overlap->interior.contains(op))
    return loops->emit(b, lb, ub);
  // Overlapped with a halo exchange: the interior now, the rest after the
  // wait.
  const Box &interior = overlap->interior.find(op)->second;
  if (!interior.empty() && failed(loops->emit(b, interior.lb, interior.ub)))
    return failure();
  Box whole{SmallVector<int64_t>(lb), SmallVector<int64_t>(ub)};
  for (const Box &slab : boxMinus(whole, interior))
    overlap->deferred.push_back([loops, slab](OpBuilder &later) {
      return loops->emit(later, slab.lb, slab.ub);
    });
  return success();
}

LogicalResult StencilLowering::ApplyLoops::emit(OpBuilder &b,
                                                ArrayRef<int64_t> boxLb,
                                                ArrayRef<int64_t> boxUb) const {
  // When an extent is not a multiple of its unroll factor, the last block of
  // points sticks out: a point of the unroll box is computed only where it
  // is inside the bounds, and only the body operations its results need run
  // there (ApplyOp::getUnrollPointUses), so nothing past the operands'
  // points is read.
  SmallVector<int64_t> remainder(rank);
  for (unsigned d = 0; d < rank; ++d)
    remainder[d] =
        ub[d] > lb[d]
            ? ub[d] - lb[d] - (ub[d] - lb[d] - 1) / unroll[d] * unroll[d]
            : unroll[d];
  // Points inside the bounds at every base point.
  SmallVector<bool> always(factor);
  for (unsigned p = 0; p < factor; ++p) {
    SmallVector<int64_t> off = op.getUnrollPointOffset(p);
    always[p] = llvm::all_of(llvm::seq(0u, rank),
                             [&](unsigned d) { return off[d] < remainder[d]; });
  }
  bool sticksOut = !llvm::all_of(always, [](bool a) { return a; });
  DenseMap<Operation *, llvm::BitVector> uses;
  if (sticksOut)
    uses = op.getUnrollPointUses();
  // Operations of the points always inside, and those no result needs.
  auto unguarded = [&](Operation *o) {
    auto it = uses.find(o);
    return it == uses.end() ||
           llvm::any_of(it->second.set_bits(),
                        [&](unsigned p) { return always[p]; });
  };
  LogicalResult status = success();
  lowering.buildLoops(
      b, op.getLoc(), boxLb, boxUb, unroll,
      [&](OpBuilder &nb, Location l, ValueRange point) {
        // The body, with accesses turned into loads of the operands'
        // storage. Result r of unrolled point p is return operand r *
        // factor + p; the points of the unroll box are numbered in
        // row-major order.
        auto readAt = [&](OpBuilder &ob, Operation *o) {
          return read(ob, o, point);
        };
        auto writePoint = [&](OpBuilder &wb, ArrayRef<Value> returned,
                              unsigned p) {
          for (unsigned r = 0, e = returned.size() / factor; r < e; ++r)
            if (Value value = returned[r * factor + p])
              write(wb, l, r, op.getUnrollPointOffset(p), value, point);
        };
        IRMapping bodyMapping = mapping;
        FailureOr<SmallVector<Value>> returned = cloneApplyBody(
            nb, op, bodyMapping, readAt,
            sticksOut ? function_ref<bool(Operation *)>(unguarded) : nullptr);
        if (failed(returned)) {
          status = failure();
          return;
        }
        for (unsigned p = 0; p < factor; ++p)
          if (always[p])
            writePoint(nb, *returned, p);
        for (unsigned p = 0; p < factor; ++p) {
          if (always[p])
            continue;
          SmallVector<int64_t> off = op.getUnrollPointOffset(p);
          Value inside;
          for (unsigned d = 0; d < rank; ++d) {
            if (off[d] < remainder[d])
              continue;
            Value cmp = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::slt,
                lowering.addConst(nb, l, point[d], off[d]),
                lowering.constant(nb, l, ub[d]));
            inside = inside ? arith::AndIOp::create(nb, l, inside, cmp) : cmp;
          }
          OpBuilder ib = OpBuilder::atBlockBegin(
              &scf::IfOp::create(nb, l, inside).getThenRegion().front());
          IRMapping pointMapping = bodyMapping;
          FailureOr<SmallVector<Value>> guarded =
              cloneApplyBody(ib, op, pointMapping, readAt, [&](Operation *o) {
                auto it = uses.find(o);
                return !unguarded(o) && it->second.test(p);
              });
          if (failed(guarded)) {
            status = failure();
            return;
          }
          writePoint(ib, *guarded, p);
        }
      });
  return status;
}

Value StencilLowering::ApplyLoops::read(OpBuilder &b, Operation *o,
                                        ValueRange point) const {
  Location loc = o->getLoc();
  if (auto access = dyn_cast<AccessOp>(o)) {
    const Storage &s =
        argStorage.find(cast<BlockArgument>(access.getTemp()))->second;
    SmallVector<int64_t> off = access.getApplyOffset(rank);
    SmallVector<int64_t> dims = access.getOperandDims(rank);
    SmallVector<Value> idx(s.origin.size());
    for (unsigned d = 0; d < rank; ++d)
      if (dims[d] >= 0)
        idx[dims[d]] =
            lowering.addConst(b, loc, point[d], off[d] - s.origin[dims[d]]);
    return memref::LoadOp::create(b, loc, s.memref, idx);
  }
  if (auto dyn = dyn_cast<DynAccessOp>(o)) {
    const Storage &s =
        argStorage.find(cast<BlockArgument>(dyn.getTemp()))->second;
    SmallVector<Value> idx;
    for (auto [d, v] : llvm::enumerate(dyn.getOffset()))
      idx.push_back(lowering.addConst(b, loc, v, -s.origin[d]));
    return memref::LoadOp::create(b, loc, s.memref, idx);
  }
  auto index = cast<IndexOp>(o);
  int64_t d = index.getDimValue();
  return lowering.addConst(b, loc, point[d], index.getOffset()[d]);
}

void StencilLowering::ApplyLoops::write(OpBuilder &nb, Location l, unsigned r,
                                        ArrayRef<int64_t> off, Value value,
                                        ValueRange point) const {
  OpBuilder::InsertionGuard guard(nb);
  // Marked as an update of the computation (the emulation's profile counts
  // them).
  auto &[field, box] = alsoOutputs[r];
  bool onlyField = box && op.getResult(r).hasOneUse();
  if (!onlyField) {
    memref::StoreOp::create(nb, l, value, outputs[r].memref,
                            lowering.indicesOf(nb, l, point, off, outputs[r]))
        ->setAttr("stencil.update", nb.getUnitAttr());
    if (!box)
      return;
  }
  Value inBox;
  for (unsigned d = 0; d < rank; ++d) {
    auto bound = [&](arith::CmpIPredicate pred, int64_t value) {
      Value cmp = arith::CmpIOp::create(
          nb, l, pred, lowering.addConst(nb, l, point[d], off[d]),
          lowering.constant(nb, l, value));
      inBox = inBox ? arith::AndIOp::create(nb, l, inBox, cmp) : cmp;
    };
    if (box.getLb()[d] > lb[d])
      bound(arith::CmpIPredicate::sge, box.getLb()[d]);
    if (box.getUb()[d] < ub[d])
      bound(arith::CmpIPredicate::slt, box.getUb()[d]);
  }
  if (inBox)
    nb.setInsertionPointToStart(
        &scf::IfOp::create(nb, l, inBox).getThenRegion().front());
  Operation *store = memref::StoreOp::create(
      nb, l, value, field.memref, lowering.indicesOf(nb, l, point, off, field));
  if (onlyField)
    store->setAttr("stencil.update", nb.getUnitAttr());
}

LogicalResult StencilLowering::lowerStore(StoreOp op) {
  FailureOr<Storage> from = tempStorage(op, op.getTemp());
  FailureOr<Storage> to = fieldStorage(op, op.getField());
  if (failed(from) || failed(to))
    return failure();
  if ((from->memref == to->memref && from->origin == to->origin) ||
      alsoStores.lookup(op.getTemp()) == op)
    return success(); // written by the apply
  OpBuilder b(op);
  copyBox(b, op.getLoc(), op.getBounds().getLb(), op.getBounds().getUb(),
          *from, *to);
  return success();
}

LogicalResult StencilLowering::lowerBuffer(BufferOp op) {
  FailureOr<Storage> s = tempStorage(op, op.getTemp());
  if (failed(s))
    return failure();
  // The operand of a buffer is an apply or combine result, which already
  // lives in memory of its own.
  auto field = dyn_cast<FieldType>(op.getRes().getType());
  if (!field) {
    temps[op.getRes()] = *s;
    return success();
  }
  // xDSL's bufferized form: a field holding the temp's values (on the
  // temp's bounds, which the verifier requires), read by the applies after
  // it. That memory is the field's, unless the temp lives in a field of
  // other bounds (an apply writing straight into a stored field): then a
  // copy.
  auto type = cast<TempType>(op.getTemp().getType());
  if (s->memref.getType() != convertFieldType(field) ||
      !llvm::equal(s->origin, type.getLb())) {
    OpBuilder b(op);
    Storage copy{allocate(op, type), SmallVector<int64_t>(type.getLb())};
    copyBox(b, op.getLoc(), type.getLb(), type.getUb(), *s, copy);
    s = copy;
  }
  fields[op.getRes()] = s->memref;
  return success();
}

LogicalResult StencilLowering::lowerCombine(CombineOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t dim = op.getDimValue(), cut = op.getIndexValue();
  unsigned numPairs = op.getLower().size();
  auto lowerPart = [&](unsigned r) {
    return r < numPairs || r < numPairs + op.getLowerext().size();
  };
  auto upperPart = [&](unsigned r) {
    return r < numPairs || r >= numPairs + op.getLowerext().size();
  };
  auto sourceOf = [&](unsigned r, bool lower) -> Value {
    if (r < numPairs)
      return lower ? op.getLower()[r] : op.getUpper()[r];
    r -= numPairs;
    if (r < op.getLowerext().size())
      return op.getLowerext()[r];
    return op.getUpperext()[r - op.getLowerext().size()];
  };
  for (auto [r, res] : llvm::enumerate(op.getResults())) {
    FailureOr<TempType> type = boundedTemp(op, res);
    if (failed(type))
      return failure();
    Storage out{allocate(op, *type), SmallVector<int64_t>(type->getLb())};
    for (bool lower : {true, false}) {
      if (lower ? !lowerPart(r) : !upperPart(r))
        continue;
      FailureOr<Storage> in = tempStorage(op, sourceOf(r, lower));
      if (failed(in))
        return failure();
      SmallVector<int64_t> lb(type->getLb()), ub(type->getUb());
      if (lower)
        ub[dim] = std::min(ub[dim], cut);
      else
        lb[dim] = std::max(lb[dim], cut);
      copyBox(b, loc, lb, ub, *in, out);
    }
    temps[res] = out;
  }
  return success();
}

bool StencilLowering::touchesField(Operation *op, Value root) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<FieldType, MemRefType>(operand.getType()) &&
          aliases.mayAlias(rootOfField(operand), root))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Decides, for the ops of `block` in order, which apply results are
/// written straight into their field and which loads must copy their field.
/// Positions are those of the ops of `block`; an op nested in one of them
/// counts at its ancestor's position.
void StencilLowering::analyzeBlock(Block &block) {
  unneeded = findUnneededTempOps(block);
  snapshotLoads.clear();
  directStores.clear();
  alsoStores.clear();
  DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    if (!unneeded.contains(&op)) {
      position[&op] = ops.size();
      ops.push_back(&op);
    }
  auto positionOf = [&](Operation *user) -> std::optional<unsigned> {
    Operation *ancestor = block.findAncestorOpInBlock(*user);
    auto it = position.find(ancestor);
    if (it == position.end())
      return std::nullopt;
    return it->second;
  };

  // Direct writes: the apply writes its field on the store's box at the
  // apply, so nothing between the two may read or write that field (this
  // keeps stores in program order), and the apply must not read it itself.
  for (Operation *op : ops) {
    auto apply = dyn_cast<ApplyOp>(op);
    if (!apply || !apply.getDest().empty())
      continue;
    BoundsAttr bounds = apply.getIterationBounds();
    for (Value res : apply.getRes()) {
      // One store, in this block, of a box the apply computes; any other
      // use is an apply, which reads the buffer.
      SmallVector<StoreOp> stores;
      bool otherUse = false;
      for (Operation *user : res.getUsers()) {
        if (auto store = dyn_cast<StoreOp>(user))
          stores.push_back(store);
        else
          otherUse |= !isa<ApplyOp>(user);
      }
      if (!bounds || otherUse || stores.size() != 1 ||
          stores[0]->getBlock() != &block)
        continue;
      StoreOp store = stores[0];
      bool inside = true;
      for (auto [slb, sub, alb, aub] :
           llvm::zip(store.getBounds().getLb(), store.getBounds().getUb(),
                     bounds.getLb(), bounds.getUb()))
        inside &= alb <= slb && sub <= aub;
      if (!inside)
        continue;
      bool direct = res.hasOneUse() && store.getBounds() == bounds;
      Value root = rootOfField(store.getField());
      bool readsField = llvm::any_of(apply.getArgs(), [&](Value arg) {
        if (auto load = arg.getDefiningOp<LoadOp>())
          arg = load.getField();
        return isa<FieldType>(arg.getType()) &&
               aliases.mayAlias(rootOfField(arg), root);
      });
      if (readsField)
        continue;
      bool touchedBetween = false;
      for (unsigned i = position[apply] + 1; i < position[store]; ++i)
        touchedBetween |= touchesField(ops[i], root);
      if (touchedBetween)
        continue;
      if (direct)
        directStores[res] = store;
      else
        alsoStores[res] = store;
    }
  }

  // Fields written at each position (direct writes at their apply).
  SmallVector<SmallVector<Value>> writes(ops.size());
  for (auto [i, op] : llvm::enumerate(ops)) {
    op->walk([&](Operation *nested) {
      if (auto store = dyn_cast<StoreOp>(nested))
        writes[i].push_back(rootOfField(store.getField()));
      else if (auto apply = dyn_cast<ApplyOp>(nested))
        for (Value dest : apply.getDest())
          writes[i].push_back(rootOfField(dest));
      else if (auto swap = dyn_cast<dmp::SwapOp>(nested))
        writes[i].push_back(rootOfField(swap.getField()));
    });
  }
  for (auto *stores : {&directStores, &alsoStores})
    for (auto &[res, store] : *stores)
      writes[position[res.getDefiningOp()]].push_back(
          rootOfField(store.getField()));

  // A load must copy when its field may be written after it, up to and
  // including its last reader (an apply with `outs` may write the field it
  // reads).
  for (auto [p, op] : llvm::enumerate(ops)) {
    auto load = dyn_cast<LoadOp>(op);
    if (!load)
      continue;
    unsigned lastUse = p;
    for (Operation *user : load->getUsers())
      if (std::optional<unsigned> q = positionOf(user))
        lastUse = std::max(lastUse, *q);
    Value root = rootOfField(load.getField());
    for (unsigned w = p + 1; w <= lastUse && !snapshotLoads.contains(op); ++w)
      if (llvm::any_of(writes[w], [&](Value written) {
            return aliases.mayAlias(written, root);
          }))
        snapshotLoads.insert(op);
  }
}

/// The polyhedral form: loops generated from its schedule.
LogicalResult StencilLowering::lowerScop(poly::ScopOp op) {
  SmallVector<Value> results;
  if (failed(poly::lowerScop(
          op, [&](Value field) { return lookupMemref(field); }, results)))
    return failure();
  for (auto [res, memref] : llvm::zip(op.getResults(), results))
    fields[res] = memref;
  return success();
}

/// A field value converted to a memref by the structural conversion (the
/// `iter_args` of a time loop that are stencil.cast results): use the
/// memref the field stands for.
LogicalResult
StencilLowering::lowerUnrealizedCast(UnrealizedConversionCastOp op) {
  if (op.getInputs().size() != 1 || op->getNumResults() != 1 ||
      !isa<FieldType>(op.getInputs()[0].getType()) ||
      !isa<MemRefType>(op.getResult(0).getType()))
    return success();
  Value memref = lookupMemref(op.getInputs()[0]);
  if (!memref)
    return success(); // a function or loop argument: phase 1 keeps them
  if (memref.getType() != op.getResult(0).getType()) {
    OpBuilder b(op);
    memref = memref::CastOp::create(b, op.getLoc(), op.getResult(0).getType(),
                                    memref);
  }
  op.getResult(0).replaceAllUsesWith(memref);
  return success();
}

/// A run of consecutive swaps exchanges in one round: all messages posted,
/// one wait.
LogicalResult StencilLowering::lowerSwaps(dmp::SwapOp first) {
  if (loweredSwaps.contains(first))
    return success();
  SmallVector<std::pair<dmp::SwapOp, Value>> group;
  for (Operation *op = first; op; op = op->getNextNode()) {
    auto swap = dyn_cast<dmp::SwapOp>(op);
    if (!swap || swap.getTopology() != first.getTopology())
      break;
    Value memref = lookupMemref(swap.getField());
    if (!memref)
      return swap.emitOpError("exchanges the halo of a field the lowering "
                              "does not know");
    if (!cast<FieldType>(swap.getField().getType()).hasBounds())
      return swap.emitOpError("exchanges the halo of a field of unknown "
                              "bounds: its boxes are in the domain's "
                              "coordinates, which need the field's bounds");
    if (failed(checkExchangesPaired(swap)))
      return failure();
    group.push_back({swap, memref});
    loweredSwaps.insert(swap);
  }
  bool blocking = llvm::any_of(group, [](auto entry) {
    return entry.first->hasAttr(dmp::kBlockingAttr);
  });
  Operation *end = nullptr;
  DenseMap<Operation *, Box> interior;
  if (!blocking)
    interior = planOverlap(group, end);
  if (interior.empty()) {
    lowerHaloExchanges(group);
    return success();
  }
  overlap.emplace(
      Overlap{postHaloExchanges(group), first.getLoc(), end, interior, {}});
  return success();
}

/// The applies after a group of swaps that can start before its messages
/// arrive, each with the box of its points that reads no received value
/// (transitively, through the temps of earlier applies) and writes no point
/// a message will fill. The run of such ops ends (`end`) at the first op
/// that could observe the reordering: a load that copies or reads a field
/// written since the swaps, a write of a field loaded since them, a store
/// that copies, an apply with `outs` or dynamic accesses of what arrives,
/// or any other op with effects (another swap, a loop, the terminator).
/// Empty when no apply has points to compute early.
DenseMap<Operation *, Box>
StencilLowering::planOverlap(ArrayRef<std::pair<dmp::SwapOp, Value>> group,
                             Operation *&end) {
  // What the messages fill, in the domain's coordinates, widest first: a
  // face cut makes the edges and corners beyond it miss the box already.
  SmallVector<Box> received;
  SmallVector<Value> exchanged;
  for (auto [swap, memref] : group) {
    exchanged.push_back(rootOfField(swap.getField()));
    for (Attribute attr : swap.getSwaps()) {
      auto exchange = cast<dmp::ExchangeAttr>(attr);
      Box box{SmallVector<int64_t>(exchange.getOffset()),
              SmallVector<int64_t>(exchange.getOffset())};
      for (auto [u, size] : llvm::zip(box.ub, exchange.getSize()))
        u += size;
      received.push_back(box);
    }
  }
  llvm::stable_sort(received, [](const Box &a, const Box &b) {
    return a.volume() > b.volume();
  });
  auto mayAliasAny = [&](ArrayRef<Value> roots, Value root) {
    return llvm::any_of(
        roots, [&](Value other) { return aliases.mayAlias(other, root); });
  };

  // Per temp defined since the swaps, the box of its values ready before
  // the wait; a temp not in the map is ready everywhere.
  DenseMap<Value, Box> ready;
  SmallVector<Value> loaded, written;
  DenseMap<Operation *, Box> interior;
  bool any = false;
  Operation *op = group.back().first->getNextNode();
  for (; op; op = op->getNextNode()) {
    if (unneeded.contains(op))
      continue;
    if (auto load = dyn_cast<LoadOp>(op)) {
      Value root = rootOfField(load.getField());
      auto type = cast<TempType>(load.getRes().getType());
      if (snapshotLoads.contains(op) || mayAliasAny(written, root) ||
          !type.hasBounds())
        break;
      loaded.push_back(root);
      if (mayAliasAny(exchanged, root)) {
        Box box{SmallVector<int64_t>(type.getLb()),
                SmallVector<int64_t>(type.getUb())};
        for (const Box &r : received)
          box.cut(r);
        ready[load.getRes()] = box;
      }
      continue;
    }
    if (auto apply = dyn_cast<ApplyOp>(op)) {
      BoundsAttr bounds = apply.getIterationBounds();
      if (!bounds || !apply.getDest().empty())
        break;
      SmallVector<Value> writes;
      for (Value res : apply.getRes())
        for (auto *stores : {&directStores, &alsoStores})
          if (StoreOp store = stores->lookup(res))
            writes.push_back(rootOfField(store.getField()));
      if (llvm::any_of(writes,
                       [&](Value root) { return mayAliasAny(loaded, root); }))
        break;
      unsigned rank = apply.getRank();
      Box box{SmallVector<int64_t>(bounds.getLb()),
              SmallVector<int64_t>(bounds.getUb())};
      // Unrolled points come in blocks the split would have to keep whole.
      if (apply.getReturnOp().getUnrollFactor() != 1)
        box.ub = box.lb;
      bool fieldOperand = false;
      apply.getBody()->walk([&](Operation *nested) {
        Value temp;
        if (auto access = dyn_cast<AccessOp>(nested))
          temp = access.getTemp();
        else if (auto dyn = dyn_cast<DynAccessOp>(nested))
          temp = dyn.getTemp();
        else
          return;
        Value operand =
            apply.getArgs()[cast<BlockArgument>(temp).getArgNumber()];
        fieldOperand |= isa<FieldType>(operand.getType());
        auto it = ready.find(operand);
        if (it == ready.end())
          return;
        auto access = dyn_cast<AccessOp>(nested);
        SmallVector<int64_t> dims =
            access ? access.getOperandDims(rank) : SmallVector<int64_t>();
        bool sameDims = access && it->second.lb.size() == rank;
        for (unsigned d = 0; sameDims && d < rank; ++d)
          sameDims = dims[d] == int64_t(d);
        if (!sameDims) {
          box.ub = box.lb; // nothing early
          return;
        }
        SmallVector<int64_t> off = access.getApplyOffset(rank);
        for (unsigned d = 0; d < rank; ++d) {
          box.lb[d] = std::max(box.lb[d], it->second.lb[d] - off[d]);
          box.ub[d] = std::min(box.ub[d], it->second.ub[d] - off[d]);
        }
      });
      // Fields read by an apply directly are not followed.
      if (fieldOperand)
        break;
      for (const Box &r : received)
        box.cut(r);
      if (box.empty())
        box.ub = box.lb;
      for (Value res : apply.getRes())
        ready[res] = box;
      interior[apply] = box;
      any |= !box.empty();
      llvm::append_range(written, writes);
      continue;
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      // Written by its apply (already split), else a copy: the end.
      if (directStores.lookup(store.getTemp()) == store ||
          alsoStores.lookup(store.getTemp()) == store)
        continue;
      break;
    }
    if (isPure(op) && op->getNumRegions() == 0 &&
        !op->hasTrait<OpTrait::IsTerminator>())
      continue;
    break;
  }
  end = op;
  if (!any || !end)
    return DenseMap<Operation *, Box>();
  return interior;
}

/// Waits for the exchange in flight, then runs what was deferred.
LogicalResult StencilLowering::completeOverlap() {
  OpBuilder b(overlap->end);
  completeHaloExchanges(b, overlap->loc, overlap->posted);
  for (auto &emit : overlap->deferred)
    if (failed(emit(b)))
      return failure();
  overlap.reset();
  return success();
}

LogicalResult StencilLowering::lowerBlock(Block &block) {
  blockBuffers.clear();
  analyzeBlock(block);
  overlap.reset();
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (overlap && &op == overlap->end && failed(completeOverlap()))
      return failure();
    if (unneeded.contains(&op))
      continue;
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](CastOp o) { return lowerCast(o); })
            .Case([&](LoadOp o) { return lowerLoad(o); })
            .Case([&](ApplyOp o) { return lowerApply(o); })
            .Case([&](StoreOp o) { return lowerStore(o); })
            .Case([&](BufferOp o) { return lowerBuffer(o); })
            .Case([&](CombineOp o) { return lowerCombine(o); })
            .Case([&](poly::ScopOp o) { return lowerScop(o); })
            .Case([&](dmp::SwapOp o) { return lowerSwaps(o); })
            .Case([&](UnrealizedConversionCastOp o) {
              return lowerUnrealizedCast(o);
            })
            .Default([](Operation *other) {
              if (isa_and_nonnull<StencilDialect>(other->getDialect()))
                return LogicalResult(other->emitOpError(
                    "is not supported by --convert-stencil-to-loops"));
              // Temps disappear in the lowering: an op of another dialect
              // that uses one would be left with a dangling operand.
              if (llvm::any_of(other->getOperandTypes(),
                               llvm::IsaPred<TempType>))
                return LogicalResult(other->emitOpError(
                    "uses a stencil temp, which --convert-stencil-to-loops "
                    "cannot lower"));
              return success();
            });
    if (failed(result))
      return failure();
  }
  if (!blockBuffers.empty()) {
    OpBuilder b(block.getTerminator());
    for (Value buffer : blockBuffers)
      memref::DeallocOp::create(b, buffer.getLoc(), buffer);
  }
  return success();
}

/// Stencil ops outside apply bodies and the polyhedral form: what the
/// lowering replaces.
bool isLowered(Operation *op) {
  if (op->getParentOfType<ApplyOp>() || op->getParentOfType<poly::ScopOp>())
    return false;
  return isa<poly::ScopOp, dmp::SwapOp>(op) ||
         isa_and_nonnull<StencilDialect>(op->getDialect());
}

struct ConvertStencilToLoopsPass
    : stencil::impl::ConvertStencilToLoopsBase<ConvertStencilToLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Functions whose signature mentions fields get a C entry point.
    SmallVector<func::FuncOp> fieldFuncs;
    module.walk([&](func::FuncOp f) {
      if (llvm::any_of(f.getArgumentTypes(), llvm::IsaPred<FieldType>))
        fieldFuncs.push_back(f);
    });
    // xDSL's distributed programs exchange temps; the field form is what
    // the halo exchanges below lower.
    if (failed(swapFieldsNotTemps(module)) ||
        failed(convertFieldSignatures(module)))
      return signalPassFailure();
    if (emitCInterface)
      for (func::FuncOp f : fieldFuncs)
        if (!f.isExternal())
          f->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));

    // Lower block by block, outer blocks first so that fields defined by
    // casts outside a time loop are known inside it.
    SetVector<Block *> blocks;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isLowered(op))
        blocks.insert(op->getBlock());
    });
    FieldAliases aliases(module);
    StencilLowering lowering(parallel, parallelAllDims, aliases);
    for (Block *block : blocks)
      if (failed(lowering.lowerBlock(*block)))
        return signalPassFailure();

    // Erase the stencil ops, users first, then the casts to field types.
    SmallVector<Operation *> dead;
    module.walk([&](Operation *op) {
      if (isLowered(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead)) {
      op->dropAllUses();
      op->erase();
    }
    // A frontend's own cast of a field to a memref (Devito casts fields to
    // write sources into them) now casts a memref to a field and back.
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (cast.getInputs().size() != 1 || cast->getNumResults() != 1)
        return;
      auto inner =
          cast.getInputs()[0].getDefiningOp<UnrealizedConversionCastOp>();
      if (inner && inner.getInputs().size() == 1 &&
          inner.getInputs()[0].getType() == cast.getResult(0).getType())
        cast.getResult(0).replaceAllUsesWith(inner.getInputs()[0]);
    });
    // Users first, so that a cast whose only user goes goes too.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
    for (UnrealizedConversionCastOp cast : llvm::reverse(casts))
      if (cast->use_empty())
        cast.erase();
  }
};

} // namespace
