//===- StencilToPoly.cpp - stencil regions to the polyhedral form ---------===//
//
// A time loop (an scf.for whose iter_args are fields) or a run of stencil ops
// outside time loops becomes one poly.scop:
//
// - Arrays. The fields rotating through the loop form one array per cycle of
//   the scf.yield permutation: iter_arg j reads buffer (r_j + t) mod k of its
//   cycle at step t, so the access relations carry that buffer index and isl
//   sees the anti and output dependences through the rotation. A field
//   defined outside the loop is an array of one buffer; a temp that needs
//   storage is an array the code generator allocates.
// - Statements, in program order: one per needed apply result (its scalar
//   body, accesses turned into block arguments), one copy per load whose
//   field is overwritten while the load is still read (value semantics), and
//   one copy per store whose apply could not write the field directly.
// - The canonical schedule S_k[t, s...] -> [K*t + k, s...].
//
// The decisions mirror the reference lowering's: an apply writes its field
// directly only if nothing between the apply and its store touches that
// buffer, so the two lowerings compute the same values.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"

#include "Stencil/Dmp/Dmp.h"
#include "Stencil/IR/StencilOps.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"

#include <map>

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_STENCILTOPOLY
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil;
using namespace mlir::stencil::poly;

namespace {

/// One buffer of an array: buffer `rotation` of the array's cycle at t = 0.
struct BufferRef {
  unsigned array = 0;
  int64_t rotation = 0;
  bool operator==(const BufferRef &o) const {
    return array == o.array && rotation == o.rotation;
  }
};

struct ArrayPlan {
  std::string name;
  SmallVector<Value> buffers; // empty for a temp
  SmallVector<int64_t> lb, ub;
  Type elementType;
  bool hasBox = false;
};

struct StmtPlan {
  std::string name;
  ApplyOp apply;       // null for a copy
  unsigned result = 0; // of `apply`
  BufferRef copyFrom;  // for a copy
  BufferRef target;
  SmallVector<int64_t> lb, ub;
};

/// Builds the poly.scop of one region; on unsupported input reports why.
class ScopBuilder {
public:
  ScopBuilder(Block &body, Block::iterator begin, Block::iterator end,
              scf::ForOp loop)
      : body(body), begin(begin), end(end), loop(loop) {}

  /// Why the region cannot be represented (located at `failedAt`).
  std::string reason;
  Operation *failedAt = nullptr;

  LogicalResult analyze();
  ScopOp build();

private:
  LogicalResult fail(Operation *op, const Twine &why) {
    failedAt = op;
    reason = why.str();
    return failure();
  }
  LogicalResult mapLoopFields();
  FailureOr<BufferRef> outerField(Operation *user, Value field);
  LogicalResult setBox(Operation *user, unsigned array, FieldType type);
  LogicalResult checkScalar(Operation *user, Value v);
  LogicalResult checkApply(ApplyOp apply);
  bool touches(Operation *op, BufferRef buffer);
  BufferRef newTemp(TempType type);
  void decide();
  std::optional<BufferRef> sourceOf(Value temp);
  std::string accessText(StringRef stmt, BufferRef buffer,
                         ArrayRef<int64_t> offset, ArrayRef<int64_t> dims);
  std::string tuple(StringRef stmt);
  void buildStatement(OpBuilder &b, StmtPlan plan);

  Block &body;
  Block::iterator begin, end;
  scf::ForOp loop;
  unsigned rank = 0;
  bool rankKnown = false;

  SmallVector<ArrayPlan> arrays;
  DenseMap<Value, BufferRef> fieldBuffers; // field values of the region
  DenseMap<Value, unsigned> outerArrays;   // root field -> array
  DenseMap<Value, BufferRef> tempStorage;  // temps with a place in memory
  DenseMap<Operation *, unsigned> position;
  DenseSet<Operation *> unneeded;
  SmallVector<Operation *> regionOps; // stencil ops that go into the scop
  SmallVector<Operation *> hoisted;   // scalar ops defined in the loop body
  DenseMap<Value, StoreOp> directStores;
  DenseSet<Operation *> snapshots;
  SmallVector<StmtPlan> stmts;
  SmallVector<int64_t> resultOffsets;
  SmallVector<unsigned> resultArrays;
};

Value rootField(Value field) {
  while (auto cast = field.getDefiningOp<CastOp>())
    field = cast.getField();
  return field;
}

bool isInRegion(Operation *op, Block &body, Block::iterator begin,
                Block::iterator end) {
  Operation *ancestor = body.findAncestorOpInBlock(*op);
  if (!ancestor)
    return false;
  for (auto it = begin; it != end; ++it)
    if (&*it == ancestor)
      return true;
  return false;
}

LogicalResult ScopBuilder::setBox(Operation *user, unsigned array,
                                  FieldType type) {
  if (!type.hasBounds())
    return success(); // a cast gives the bounds
  ArrayPlan &a = arrays[array];
  if (!a.hasBox) {
    a.lb.assign(type.getLb().begin(), type.getLb().end());
    a.ub.assign(type.getUb().begin(), type.getUb().end());
    a.hasBox = true;
    return success();
  }
  if (ArrayRef(a.lb) != type.getLb() || ArrayRef(a.ub) != type.getUb())
    return fail(user, "the buffers of one field have different bounds");
  return success();
}

LogicalResult ScopBuilder::mapLoopFields() {
  if (!loop)
    return success();
  // (The number of steps divides by the step.)
  if (std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      step && *step <= 0)
    return fail(loop,
                "the time loop's step is " + Twine(*step) + ", not positive");
  Block *loopBody = loop.getBody();
  auto yield = cast<scf::YieldOp>(loopBody->getTerminator());
  unsigned n = loop.getNumRegionIterArgs();
  for (BlockArgument arg : loop.getRegionIterArgs())
    if (!isa<FieldType>(arg.getType()))
      return fail(loop, "the time loop carries a value that is not a field");
  // new x_j = old x_{perm[j]}: the yield must permute the arguments.
  SmallVector<int> perm(n, -1);
  SmallVector<bool> taken(n, false);
  for (auto [j, v] : llvm::enumerate(yield.getOperands())) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != loopBody || arg.getArgNumber() == 0)
      return fail(yield, "the time loop must yield a permutation of its "
                         "field arguments");
    unsigned i = arg.getArgNumber() - 1;
    if (taken[i])
      return fail(yield, "the time loop yields one field for two "
                         "arguments (they would alias)");
    taken[i] = true;
    perm[j] = i;
  }
  // Initial fields must be distinct buffers.
  DenseSet<Value> roots;
  for (Value init : loop.getInitArgs())
    if (!roots.insert(rootField(init)).second)
      return fail(loop, "the same field is passed for two time-loop "
                        "arguments (they would alias)");
  // One array per cycle; r_{perm[j]} = r_j + 1.
  SmallVector<bool> seen(n, false);
  resultArrays.assign(n, 0);
  resultOffsets.assign(n, 0);
  for (unsigned start = 0; start < n; ++start) {
    if (seen[start])
      continue;
    unsigned array = arrays.size();
    ArrayPlan a;
    a.name = "A" + std::to_string(array);
    a.elementType = cast<FieldType>(loop.getRegionIterArgs()[start].getType())
                        .getElementType();
    int64_t r = 0;
    for (unsigned j = start; !seen[j]; j = perm[j], ++r) {
      seen[j] = true;
      a.buffers.push_back(loop.getInitArgs()[j]);
      fieldBuffers[loop.getRegionIterArgs()[j]] = BufferRef{array, r};
      resultArrays[j] = array;
      resultOffsets[j] = r;
    }
    arrays.push_back(a);
    for (unsigned j = start, i = 0; i < arrays[array].buffers.size();
         j = perm[j], ++i)
      if (failed(setBox(loop, array, cast<FieldType>(
                                         loop.getRegionIterArgs()[j].getType()))))
        return failure();
  }
  return success();
}

/// A field defined outside the region: an array of one buffer.
FailureOr<BufferRef> ScopBuilder::outerField(Operation *user, Value field) {
  if (auto it = fieldBuffers.find(field); it != fieldBuffers.end())
    return it->second;
  if (auto cast = field.getDefiningOp<CastOp>();
      cast && isInRegion(cast, body, begin, end)) {
    FailureOr<BufferRef> src = outerField(user, cast.getField());
    if (failed(src) ||
        failed(setBox(cast, src->array, cast.getResult().getType())))
      return failure();
    fieldBuffers[field] = *src;
    return *src;
  }
  if (Operation *def = field.getDefiningOp();
      def && isInRegion(def, body, begin, end))
    return fail(user, "a field defined inside the region is not supported");
  Value root = rootField(field);
  if (loop)
    for (Value init : loop.getInitArgs())
      if (rootField(init) == root)
        return fail(user, "a field is used both directly and as a time-loop "
                          "argument (they would alias)");
  auto [it, inserted] = outerArrays.try_emplace(root, arrays.size());
  if (inserted) {
    ArrayPlan a;
    a.name = "A" + std::to_string(arrays.size());
    a.elementType = cast<FieldType>(field.getType()).getElementType();
    a.buffers.push_back(field);
    arrays.push_back(a);
  }
  BufferRef ref{it->second, 0};
  if (failed(setBox(user, ref.array, cast<FieldType>(field.getType()))))
    return failure();
  fieldBuffers[field] = ref;
  return ref;
}

/// Scalars used by statement bodies must be available before the scop:
/// defined outside the region, or pure ops of the region on such values
/// (they are hoisted).
LogicalResult ScopBuilder::checkScalar(Operation *user, Value v) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (loop && cast<BlockArgument>(v).getOwner() == loop.getBody())
      return fail(user, "the body uses the time-loop induction variable");
    return success();
  }
  if (!isInRegion(def, body, begin, end))
    return success();
  if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return fail(user, "a scalar operand is computed by an op with effects "
                      "inside the region");
  for (Value operand : def->getOperands())
    if (failed(checkScalar(user, operand)))
      return failure();
  if (!llvm::is_contained(hoisted, def))
    hoisted.push_back(def);
  return success();
}

LogicalResult ScopBuilder::checkApply(ApplyOp apply) {
  if (!apply.getDest().empty())
    return fail(apply, "an apply that writes fields directly (outs) is not "
                       "supported");
  if (!apply.getIterationBounds())
    return fail(apply, "the apply has unknown bounds");
  // The tilings unroll their tiles themselves (semantics unchanged).
  if (apply.getReturnOp().getUnrollAttr() && !rerollApply(apply))
    return fail(apply, "an unrolled apply whose points are not shifted "
                       "copies of one computation is not supported");
  unsigned r = apply.getRank();
  if (rankKnown && r != rank)
    return fail(apply, "applies of different ranks in one region");
  rank = r;
  rankKnown = true;
  WalkResult walk = apply.getBody()->walk([&](Operation *op) {
    if (isa<DynAccessOp>(op)) {
      (void)fail(op, "a dynamic access has no affine access relation");
      return WalkResult::interrupt();
    }
    if (auto result = dyn_cast<StoreResultOp>(op); result && !result.getArg()) {
      (void)fail(op, "an empty store_result (a point left unwritten) is not "
                     "supported");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [operand, arg] :
       llvm::zip(apply.getArgs(), apply.getBody()->getArguments())) {
    if (isa<FieldType>(operand.getType())) {
      if (failed(outerField(apply, operand)))
        return failure();
    } else if (isa<TempType>(operand.getType())) {
      Operation *def = operand.getDefiningOp();
      if (!def || !isa<LoadOp, ApplyOp>(def) ||
          !isInRegion(def, body, begin, end))
        return fail(apply, "a temp operand does not come from a load or "
                           "apply of the region");
    } else if (failed(checkScalar(apply, operand))) {
      return failure();
    }
  }
  return success();
}

bool ScopBuilder::touches(Operation *op, BufferRef buffer) {
  auto is = [&](Value field) {
    auto it = fieldBuffers.find(field);
    return it != fieldBuffers.end() && it->second == buffer;
  };
  if (auto load = dyn_cast<LoadOp>(op))
    return is(load.getField());
  if (auto store = dyn_cast<StoreOp>(op))
    return is(store.getField());
  if (auto apply = dyn_cast<ApplyOp>(op))
    return llvm::any_of(apply.getArgs(), [&](Value v) {
      if (isa<FieldType>(v.getType()))
        return is(v);
      auto load = v.getDefiningOp<LoadOp>();
      return load && is(load.getField());
    });
  return false;
}

BufferRef ScopBuilder::newTemp(TempType type) {
  ArrayPlan a;
  a.name = "T" + std::to_string(arrays.size());
  a.lb.assign(type.getLb().begin(), type.getLb().end());
  a.ub.assign(type.getUb().begin(), type.getUb().end());
  a.hasBox = true;
  a.elementType = type.getElementType();
  arrays.push_back(a);
  return BufferRef{unsigned(arrays.size() - 1), 0};
}

LogicalResult ScopBuilder::analyze() {
  if (failed(mapLoopFields()))
    return failure();
  unneeded = findUnneededTempOps(body);
  unsigned pos = 0;
  for (auto it = begin; it != end; ++it) {
    Operation *op = &*it;
    position[op] = pos++;
    if (unneeded.contains(op) || isa<scf::YieldOp>(op))
      continue;
    if (auto cast = dyn_cast<CastOp>(op)) {
      if (failed(outerField(op, cast.getResult())))
        return failure();
      continue;
    }
    if (auto load = dyn_cast<LoadOp>(op)) {
      auto type = cast<TempType>(load.getRes().getType());
      if (!type.hasBounds())
        return fail(op, "the load has unknown bounds");
      if (failed(outerField(op, load.getField())))
        return failure();
      regionOps.push_back(op);
      continue;
    }
    if (auto apply = dyn_cast<ApplyOp>(op)) {
      if (failed(checkApply(apply)))
        return failure();
      regionOps.push_back(op);
      continue;
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      Operation *def = store.getTemp().getDefiningOp();
      if (!def || !isa<LoadOp, ApplyOp>(def) ||
          !isInRegion(def, body, begin, end))
        return fail(op, "the stored temp does not come from a load or apply "
                        "of the region");
      if (failed(outerField(op, store.getField())))
        return failure();
      if (rankKnown && store.getBounds().getRank() != rank)
        return fail(op, "a store of a different rank than the applies");
      regionOps.push_back(op);
      continue;
    }
    if (isa<StencilDialect>(op->getDialect()))
      return fail(op, "'" + op->getName().getStringRef() +
                          "' is not supported in the polyhedral form");
    if (isa<dmp::SwapOp>(op))
      return fail(op, "a halo exchange every step (--stencil-distribute "
                      "with depth=h block-loops=true leaves h steps between "
                      "exchanges to tile)");
    if (!isMemoryEffectFree(op))
      return fail(op, "an op with side effects inside the region");
  }
  if (!rankKnown)
    return fail(loop ? loop.getOperation() : &*begin,
                "the region computes nothing");
  // Temps of the region must not be used after it.
  for (Operation *op : regionOps)
    for (Value res : op->getResults())
      for (Operation *user : res.getUsers())
        if (!isInRegion(user, body, begin, end))
          return fail(user, "a temp of the region is used outside it");
  for (Operation *op : regionOps)
    if (auto load = dyn_cast<LoadOp>(op)) {
      unsigned r = cast<TempType>(load.getRes().getType()).getRank();
      if (r != rank && llvm::any_of(load.getRes().getUsers(),
                                    llvm::IsaPred<StoreOp>))
        return fail(op, "a lower-rank load is stored");
    }
  decide();
  // Every array a statement touches needs its box (the memref origin).
  auto unbounded = [&](BufferRef ref) { return !arrays[ref.array].hasBox; };
  for (StmtPlan &plan : stmts) {
    bool bad = unbounded(plan.target) || (!plan.apply && unbounded(plan.copyFrom));
    if (plan.apply)
      for (Value operand : plan.apply.getArgs()) {
        if (isa<FieldType>(operand.getType()))
          bad |= unbounded(fieldBuffers.lookup(operand));
        else if (isa<TempType>(operand.getType()))
          bad |= unbounded(*sourceOf(operand));
      }
    if (bad)
      return fail(plan.apply ? plan.apply.getOperation() : &*begin,
                  "a field without bounds is accessed (stencil.cast it to "
                  "bounds first)");
  }
  for (Operation *op : regionOps)
    if (auto load = dyn_cast<LoadOp>(op); load && snapshots.contains(op) &&
        cast<TempType>(load.getRes().getType()).getRank() != rank)
      return fail(op, "a lower-rank load of a field written in the region");
  return success();
}

/// Which applies write their field directly and which loads must be
/// snapshots, then the statements in program order.
void ScopBuilder::decide() {
  for (Operation *op : regionOps) {
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      continue;
    auto apply = store.getTemp().getDefiningOp<ApplyOp>();
    if (!apply || !store.getTemp().hasOneUse())
      continue;
    BoundsAttr bounds = apply.getIterationBounds();
    if (bounds.getLb() != store.getBounds().getLb() ||
        bounds.getUb() != store.getBounds().getUb())
      continue;
    BufferRef target = fieldBuffers.lookup(store.getField());
    bool clear = !touches(apply, target);
    for (unsigned p = position[apply] + 1; clear && p < position[store]; ++p)
      for (Operation *other : regionOps)
        if (position[other] == p && touches(other, target))
          clear = false;
    if (clear)
      directStores[store.getTemp()] = store;
  }
  // A load is a snapshot if its buffer is written after it and before (or
  // by) its last reader.
  for (Operation *op : regionOps) {
    auto load = dyn_cast<LoadOp>(op);
    if (!load)
      continue;
    BufferRef buffer = fieldBuffers.lookup(load.getField());
    unsigned last = position[load];
    for (Operation *user : load.getRes().getUsers())
      last = std::max(last, position[body.findAncestorOpInBlock(*user)]);
    for (Operation *other : regionOps) {
      auto store = dyn_cast<StoreOp>(other);
      if (!store || !(fieldBuffers.lookup(store.getField()) == buffer))
        continue;
      unsigned writeAt = position[store];
      if (directStores.lookup(store.getTemp()) == store)
        writeAt = position[store.getTemp().getDefiningOp()];
      if (writeAt > position[load] && writeAt <= last)
        snapshots.insert(load);
    }
  }
  // Statements in program order.
  auto name = [&] { return "S" + std::to_string(stmts.size()); };
  for (Operation *op : regionOps) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (!snapshots.contains(op))
        continue;
      auto type = cast<TempType>(load.getRes().getType());
      BufferRef temp = newTemp(type);
      StmtPlan s{name(), nullptr, 0, fieldBuffers.lookup(load.getField()),
                 temp, SmallVector<int64_t>(type.getLb()),
                 SmallVector<int64_t>(type.getUb())};
      stmts.push_back(s);
      tempStorage[load.getRes()] = temp;
    } else if (auto apply = dyn_cast<ApplyOp>(op)) {
      BoundsAttr bounds = apply.getIterationBounds();
      for (auto [j, res] : llvm::enumerate(apply.getRes())) {
        if (res.use_empty() ||
            llvm::all_of(res.getUsers(), [&](Operation *u) {
              return unneeded.contains(body.findAncestorOpInBlock(*u));
            }))
          continue;
        BufferRef target;
        if (StoreOp store = directStores.lookup(res))
          target = fieldBuffers.lookup(store.getField());
        else
          target = newTemp(cast<TempType>(res.getType()));
        tempStorage[res] = target;
        stmts.push_back(StmtPlan{name(), apply, unsigned(j), {}, target,
                                 SmallVector<int64_t>(bounds.getLb()),
                                 SmallVector<int64_t>(bounds.getUb())});
      }
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (directStores.lookup(store.getTemp()) == store)
        continue;
      std::optional<BufferRef> from = sourceOf(store.getTemp());
      stmts.push_back(StmtPlan{
          name(), nullptr, 0, *from, fieldBuffers.lookup(store.getField()),
          SmallVector<int64_t>(store.getBounds().getLb()),
          SmallVector<int64_t>(store.getBounds().getUb())});
    }
  }
}

/// Where the values of a temp are read from.
std::optional<BufferRef> ScopBuilder::sourceOf(Value temp) {
  if (auto it = tempStorage.find(temp); it != tempStorage.end())
    return it->second;
  if (auto load = temp.getDefiningOp<LoadOp>())
    return fieldBuffers.lookup(load.getField());
  return std::nullopt;
}

std::string ScopBuilder::tuple(StringRef stmt) {
  std::string s = stmt.str() + "[t";
  for (unsigned d = 0; d < rank; ++d)
    s += ", i" + std::to_string(d);
  return s + "]";
}

/// `{ S[t, i...] -> A[(t + r) mod k, i_{dims[0]} + offset[0], ...] }`:
/// dims[d] is the statement dimension of array dimension d.
std::string ScopBuilder::accessText(StringRef stmt, BufferRef buffer,
                                    ArrayRef<int64_t> offset,
                                    ArrayRef<int64_t> dims) {
  const ArrayPlan &a = arrays[buffer.array];
  std::string s = "{ " + tuple(stmt) + " -> " + a.name + "[";
  bool first = true;
  if (a.buffers.size() > 1) {
    s += buffer.rotation ? "(t + " + std::to_string(buffer.rotation) + ")"
                         : std::string("t");
    s += " mod " + std::to_string(a.buffers.size());
    first = false;
  }
  for (auto [d, off] : llvm::enumerate(offset)) {
    s += first ? "" : ", ";
    first = false;
    s += "i" + std::to_string(dims[d]);
    if (off)
      s += (off > 0 ? " + " : " - ") + std::to_string(std::abs(off));
  }
  return s + "] }";
}

void ScopBuilder::buildStatement(OpBuilder &b, StmtPlan plan) {
  Location loc = plan.apply ? plan.apply.getLoc() : loop ? loop.getLoc()
                                                         : begin->getLoc();
  std::string domain = "{ " + tuple(plan.name) + " : ";
  if (!loop)
    domain += "t = 0";
  else if (auto steps = getConstantIntValue(loop.getUpperBound());
           steps && isConstantIntValue(loop.getLowerBound(), 0) &&
           isConstantIntValue(loop.getStep(), 1))
    domain += "0 <= t < " + std::to_string(*steps);
  else
    domain = "[N] -> " + domain + "0 <= t < N";
  for (unsigned d = 0; d < rank; ++d)
    domain += " and " + std::to_string(plan.lb[d]) + " <= i" +
              std::to_string(d) + " < " + std::to_string(plan.ub[d]);
  domain += " }";

  SmallVector<int64_t> identity = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> zero(rank, 0);
  std::string writes = accessText(plan.name, plan.target, zero, identity);
  SmallVector<Attribute> reads;
  SmallVector<Type> argTypes;
  Type elementType = arrays[plan.target.array].elementType;

  auto stmt = StmtOp::create(b, loc, plan.name, domain, writes,
                             b.getStrArrayAttr({}));
  Block *block = new Block();
  stmt.getBody().push_back(block);
  OpBuilder sb = OpBuilder::atBlockEnd(block);

  if (!plan.apply) {
    reads.push_back(
        b.getStringAttr(accessText(plan.name, plan.copyFrom, zero, identity)));
    Value v = block->addArgument(elementType, loc);
    for (unsigned d = 0; d < rank; ++d)
      block->addArgument(b.getIndexType(), loc);
    poly::YieldOp::create(sb, loc, v);
    stmt.setReadsAttr(b.getArrayAttr(reads));
    return;
  }

  ApplyOp apply = plan.apply;
  // One block argument per distinct (operand, offset) read.
  std::map<std::pair<unsigned, SmallVector<int64_t>>, unsigned> readIndex;
  SmallVector<AccessOp> accesses;
  apply.getBody()->walk([&](AccessOp access) {
    accesses.push_back(access);
    unsigned operand = cast<BlockArgument>(access.getTemp()).getArgNumber();
    auto key = std::make_pair(operand, access.getApplyOffset(rank));
    if (readIndex.count(key))
      return;
    readIndex[key] = reads.size();
    Value value = apply.getArgs()[operand];
    BufferRef source = isa<FieldType>(value.getType())
                           ? fieldBuffers.lookup(value)
                           : *sourceOf(value);
    SmallVector<int64_t> dims = access.getOperandDims(rank);
    // Array dimension -> statement dimension, and the offsets per array dim.
    unsigned arrayRank = arrays[source.array].lb.size();
    SmallVector<int64_t> arrayDims(arrayRank, 0), arrayOff(arrayRank, 0);
    SmallVector<int64_t> off = access.getApplyOffset(rank);
    for (unsigned d = 0; d < rank; ++d)
      if (dims[d] >= 0) {
        arrayDims[dims[d]] = d;
        arrayOff[dims[d]] = off[d];
      }
    reads.push_back(b.getStringAttr(
        accessText(plan.name, source, arrayOff, arrayDims)));
    argTypes.push_back(access.getRes().getType());
  });
  for (Type t : argTypes)
    block->addArgument(t, loc);
  SmallVector<Value> coords;
  for (unsigned d = 0; d < rank; ++d)
    coords.push_back(block->addArgument(b.getIndexType(), loc));

  IRMapping mapping;
  for (auto [operand, arg] :
       llvm::zip(apply.getArgs(), apply.getBody()->getArguments()))
    if (!isa<FieldType, TempType>(operand.getType()))
      mapping.map(arg, operand);
  // Accesses become the block arguments of their reads, indices the
  // coordinates (dynamic accesses and empty store_results were refused).
  FailureOr<SmallVector<Value>> returned = cloneApplyBody(
      sb, apply, mapping, [&](OpBuilder &ob, Operation *o) -> Value {
        if (auto access = dyn_cast<AccessOp>(o)) {
          unsigned operand =
              cast<BlockArgument>(access.getTemp()).getArgNumber();
          return block->getArgument(
              readIndex[{operand, access.getApplyOffset(rank)}]);
        }
        auto index = cast<IndexOp>(o);
        int64_t d = index.getDimValue();
        Value v = coords[d];
        if (int64_t off = index.getOffset()[d])
          v = arith::AddIOp::create(
              ob, o->getLoc(), v,
              arith::ConstantIndexOp::create(ob, o->getLoc(), off));
        return v;
      });
  Value ret = (*returned)[plan.result];
  poly::YieldOp::create(sb, loc, ret);
  stmt.setReadsAttr(b.getArrayAttr(reads));
}

ScopOp ScopBuilder::build() {
  Operation *anchor = loop ? loop.getOperation() : &*std::prev(end);
  OpBuilder b(anchor);
  if (!loop)
    b.setInsertionPointAfter(anchor);
  Location loc = anchor->getLoc();
  // Scalars computed in the loop body move before the scop.
  IRMapping hoist;
  llvm::sort(hoisted, [&](Operation *x, Operation *y) {
    return position[body.findAncestorOpInBlock(*x)] <
           position[body.findAncestorOpInBlock(*y)];
  });
  for (Operation *op : hoisted)
    b.clone(*op, hoist);

  // The number of steps: ceildiv(ub - lb, step), 0 when ub <= lb.
  Value steps;
  bool staticSteps = false;
  if (loop) {
    staticSteps = isConstantIntValue(loop.getLowerBound(), 0) &&
                  isConstantIntValue(loop.getStep(), 1) &&
                  getConstantIntValue(loop.getUpperBound());
    if (staticSteps && resultArrays.empty())
      steps = {};
    else {
      Value diff = arith::SubIOp::create(b, loc, loop.getUpperBound(),
                                         loop.getLowerBound());
      Value n = arith::CeilDivSIOp::create(b, loc, diff, loop.getStep());
      steps = arith::MaxSIOp::create(
          b, loc, n, arith::ConstantIndexOp::create(b, loc, 0));
    }
  }

  SmallVector<Attribute> resultRefs;
  for (unsigned a : resultArrays)
    resultRefs.push_back(FlatSymbolRefAttr::get(b.getContext(), arrays[a].name));
  TypeRange resultTypes =
      loop ? TypeRange(loop.getResultTypes()) : TypeRange();
  auto scop = ScopOp::create(b, loc, resultTypes, steps, "",
                             b.getArrayAttr(resultRefs),
                             b.getDenseI64ArrayAttr(resultOffsets),
                             /*gpu_threads=*/nullptr,
                             /*gpu_max_blocks=*/nullptr);
  Block *block = new Block();
  scop.getBody().push_back(block);
  OpBuilder sb = OpBuilder::atBlockEnd(block);
  for (const ArrayPlan &a : arrays)
    ArrayOp::create(sb, loc, a.name, a.buffers, a.lb, a.ub, a.elementType);
  for (const StmtPlan &s : stmts)
    buildStatement(sb, s);
  // Statement bodies use the hoisted scalars.
  for (auto [from, to] : hoist.getValueMap())
    from.replaceUsesWithIf(to, [&](OpOperand &use) {
      return scop->isProperAncestor(use.getOwner());
    });

  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (model) {
    try {
      setPrintedSchedule(
          scop, toString(canonicalSchedule(model->domain, model->canonical,
                                           model->numSpaceDims)));
    } catch (const isl::exception &e) {
      model.reset();
      error = e.what();
    }
  }
  if (!model) {
    // A bug in the extraction, not in the input: keep the region.
    mlir::emitError(scop.getLoc(), "internal error: no polyhedral form for "
                                   "this region: ")
        << error;
    scop.erase();
    return nullptr;
  }

  if (loop) {
    loop.replaceAllUsesWith(scop.getResults());
    loop.erase();
  } else {
    // The region's ops and the unneeded ones among them (which may use the
    // others), users first.
    SmallVector<Operation *> dead;
    for (auto it = begin; it != end; ++it)
      if (llvm::is_contained(regionOps, &*it) || unneeded.contains(&*it))
        dead.push_back(&*it);
    for (Operation *op : llvm::reverse(dead)) {
      op->dropAllUses();
      op->erase();
    }
  }
  return scop;
}

/// Time loops: scf.for ops whose iter_args are all fields and whose body has
/// stencil ops. Sweeps: the stencil ops of a block outside time loops.
void collectRegions(ModuleOp module, bool sweeps,
                    SmallVectorImpl<scf::ForOp> &loops,
                    SmallVectorImpl<Block *> &sweepBlocks) {
  // A loop that stores fields in its body and carries nothing but fields
  // (the ping-pong form, or none for in-place updates).
  module.walk([&](scf::ForOp loop) {
    bool stores = llvm::any_of(loop.getBody()->getOperations(),
                               llvm::IsaPred<StoreOp>);
    bool fieldsOnly = llvm::all_of(loop.getRegionIterArgs(), [](BlockArgument a) {
      return isa<FieldType>(a.getType());
    });
    bool someField = llvm::any_of(loop.getRegionIterArgs(), [](BlockArgument a) {
      return isa<FieldType>(a.getType());
    });
    if ((stores && fieldsOnly) || someField)
      loops.push_back(loop);
  });
  if (!sweeps)
    return;
  DenseSet<Block *> seen;
  module.walk([&](Operation *op) {
    if (!isa<LoadOp, ApplyOp, StoreOp>(op) || op->getParentOfType<ApplyOp>())
      return;
    Block *block = op->getBlock();
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (auto loop = dyn_cast<scf::ForOp>(p); loop && llvm::is_contained(loops, loop))
        return;
    if (seen.insert(block).second)
      sweepBlocks.push_back(block);
  });
}

} // namespace

SmallVector<ScopOp> mlir::stencil::poly::extractScops(ModuleOp module,
                                                     bool sweeps) {
  SmallVector<scf::ForOp> loops;
  SmallVector<Block *> sweepBlocks;
  collectRegions(module, sweeps, loops, sweepBlocks);
  SmallVector<ScopOp> scops;
  auto warn = [](ScopBuilder &builder) {
    InFlightDiagnostic diag = mlir::emitWarning(builder.failedAt->getLoc(), 
        "not converted to the polyhedral form: ");
    diag << builder.reason;
  };
  // Inner loops first would leave an outer loop with a scop inside: the
  // outermost time loops are regions, and the time loops directly inside
  // one that is not (the steps of a block between halo exchanges).
  // (The nesting is taken before any region becomes a scop, which erases
  // its loops.)
  DenseMap<Operation *, SmallVector<scf::ForOp>> nested;
  SmallVector<scf::ForOp> outermost;
  for (scf::ForOp loop : loops) {
    Operation *parent = loop->getParentOp();
    while (parent && !llvm::is_contained(loops, parent))
      parent = parent->getParentOp();
    if (parent)
      nested[parent].push_back(loop);
    else
      outermost.push_back(loop);
  }
  std::function<bool(scf::ForOp)> extract = [&](scf::ForOp loop) {
    Block &body = *loop.getBody();
    ScopBuilder builder(body, body.begin(), std::prev(body.end()), loop);
    if (succeeded(builder.analyze())) {
      if (ScopOp scop = builder.build())
        scops.push_back(scop);
      return true;
    }
    bool inner = false;
    for (scf::ForOp child : nested.lookup(loop))
      inner |= extract(child);
    if (!inner)
      warn(builder);
    return inner;
  };
  for (scf::ForOp loop : outermost)
    extract(loop);
  for (Block *block : sweepBlocks) {
    auto isRegionOp = [](Operation &op) {
      return isa<LoadOp, ApplyOp, StoreOp>(op);
    };
    auto first = llvm::find_if(*block, isRegionOp);
    auto last = llvm::find_if(llvm::reverse(*block), isRegionOp);
    if (first == block->end())
      continue;
    ScopBuilder builder(*block, first, std::next(Block::iterator(&*last)),
                        nullptr);
    if (failed(builder.analyze())) {
      warn(builder);
      continue;
    }
    if (ScopOp scop = builder.build())
      scops.push_back(scop);
  }
  return scops;
}

bool mlir::stencil::poly::hasUnboundedTemps(ModuleOp module) {
  WalkResult walk = module.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto temp = dyn_cast<TempType>(t); temp && !temp.hasBounds())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

void mlir::stencil::poly::addShapeInference(OpPassManager &pm) {
  pm.addPass(createStencilShapeInference());
}

namespace {

struct StencilToPolyPass
    : mlir::stencil::poly::impl::StencilToPolyBase<StencilToPolyPass> {
  void runOnOperation() override {
    if (hasUnboundedTemps(getOperation())) {
      OpPassManager pm(ModuleOp::getOperationName());
      addShapeInference(pm);
      if (failed(runPipeline(pm, getOperation())))
        return signalPassFailure();
    }
    extractScops(getOperation(), /*sweeps=*/true);
  }
};

} // namespace
