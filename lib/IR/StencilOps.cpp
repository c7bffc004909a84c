//===- StencilOps.cpp - stencil operations ---------------------------------===//

#include "Stencil/IR/StencilOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::stencil;

static ParseResult parseStoreBounds(OpAsmParser &parser, BoundsAttr &bounds);
static void printStoreBounds(OpAsmPrinter &p, Operation *, BoundsAttr bounds);

#define GET_OP_CLASSES
#include "Stencil/IR/StencilOps.cpp.inc"

FailureOr<SmallVector<Value>> mlir::stencil::cloneApplyBody(
    OpBuilder &b, ApplyOp apply, IRMapping &mapping,
    function_ref<Value(OpBuilder &, Operation *)> rewrite,
    function_ref<bool(Operation *)> include) {
  Block *block = b.getInsertionBlock();
  Block::iterator first = b.getInsertionPoint();
  bool atStart = first == block->begin();
  Operation *before = atStart ? nullptr : &*std::prev(first);
  Block *body = apply.getBody();
  auto included = [&](Operation *op) { return !include || include(op); };
  for (Operation &inner : body->without_terminator())
    if (included(&inner))
      b.clone(inner, mapping);
  // The cloned ops, wherever nested (accesses may sit inside scf.if).
  SmallVector<Operation *> stencilOps;
  for (auto it = atStart ? block->begin() : std::next(before->getIterator());
       it != b.getInsertionPoint(); ++it)
    it->walk([&](Operation *o) {
      if (isa<AccessOp, DynAccessOp, IndexOp, StoreResultOp>(o))
        stencilOps.push_back(o);
    });
  // What each replaced op stands for, for the return operands.
  DenseMap<Value, Value> resolved;
  LogicalResult status = success();
  for (Operation *o : stencilOps) {
    auto result = dyn_cast<StoreResultOp>(o);
    if (!result) {
      OpBuilder ob(o);
      Value to = rewrite(ob, o);
      o->getResult(0).replaceAllUsesWith(to);
      resolved[o->getResult(0)] = to;
    } else if (result.getArg()) {
      // Results that flow through nested regions (scf.if) take the
      // element type.
      for (OpOperand &use : result.getRes().getUses())
        if (auto yield = dyn_cast<scf::YieldOp>(use.getOwner()))
          yield->getParentOp()
              ->getResult(use.getOperandNumber())
              .setType(result.getArg().getType());
      result.getRes().replaceAllUsesWith(result.getArg());
      resolved[result.getRes()] = result.getArg();
    } else if (result->getBlock() != block) {
      status = result.emitOpError("without a value is only supported "
                                  "directly in the apply body");
    } else {
      resolved[result.getRes()] = Value();
    }
  }
  SmallVector<Value> returned;
  for (Value v : apply.getReturnOp().getArg()) {
    Operation *def = v.getDefiningOp();
    if (def && (def = body->findAncestorOpInBlock(*def)) && !included(def)) {
      // Computed by an earlier call, if any.
      returned.push_back(mapping.lookupOrNull(v));
      continue;
    }
    Value value = mapping.lookupOrDefault(v);
    if (auto it = resolved.find(value); it != resolved.end())
      value = it->second;
    returned.push_back(value);
  }
  // For later calls: the body's replaced ops stand for their replacements.
  for (Operation &inner : body->without_terminator())
    if (included(&inner))
      inner.walk([&](Operation *o) {
        if (!isa<AccessOp, DynAccessOp, IndexOp, StoreResultOp>(o))
          return;
        Value original = o->getResult(0);
        auto it = resolved.find(mapping.lookupOrNull(original));
        if (it == resolved.end())
          return;
        if (it->second)
          mapping.map(original, it->second);
        else
          mapping.erase(original);
      });
  for (Operation *o : llvm::reverse(stencilOps)) {
    o->dropAllUses();
    o->erase();
  }
  if (failed(status))
    return failure();
  return returned;
}

llvm::DenseSet<Operation *> mlir::stencil::findUnneededTempOps(Block &block) {
  llvm::DenseSet<Operation *> unneeded;
  // Users come after their producers, so one backward sweep sees every
  // user's verdict before its producer's.
  for (Operation &op : llvm::reverse(block)) {
    bool definesTemps = isa<LoadOp, BufferOp, CombineOp>(op) ||
                        (isa<ApplyOp>(op) && cast<ApplyOp>(op).getDest().empty());
    if (!definesTemps)
      continue;
    if (llvm::all_of(op.getUsers(), [&](Operation *user) {
          return unneeded.contains(user);
        }))
      unneeded.insert(&op);
  }
  return unneeded;
}

/// `[a, b, c]` for diagnostics.
static std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

/// True when box [lb, ub) lies inside box [outerLb, outerUb).
static bool boxContains(ArrayRef<int64_t> outerLb, ArrayRef<int64_t> outerUb,
                        ArrayRef<int64_t> lb, ArrayRef<int64_t> ub) {
  // An empty box holds no point, so no point outside.
  for (unsigned d = 0; d < lb.size(); ++d)
    if (lb[d] >= ub[d])
      return true;
  for (unsigned d = 0; d < lb.size(); ++d)
    if (lb[d] < outerLb[d] || ub[d] > outerUb[d])
      return false;
  return true;
}

/// Shared checks of an op reading or writing a field through a temp.
static LogicalResult verifyFieldTempPair(Operation *op, Type fieldType,
                                         Type tempType) {
  if (getElementTypeOf(fieldType) != getElementTypeOf(tempType))
    return op->emitOpError("element type ")
           << getElementTypeOf(tempType) << " of the temp differs from "
           << getElementTypeOf(fieldType) << " of the field";
  if (getRankOf(fieldType) != getRankOf(tempType))
    return op->emitOpError("rank ")
           << getRankOf(tempType) << " of the temp differs from rank "
           << getRankOf(fieldType) << " of the field";
  if (!getBoundsOf(fieldType))
    return op->emitOpError("field must have known bounds (use stencil.cast "
                           "to give them)");
  return success();
}

/// `<[lb...], [ub...]>`, or the older `[lb...] : [ub...]`.
static ParseResult parseStoreBounds(OpAsmParser &parser, BoundsAttr &bounds) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> lb, ub;
  auto parseList = [&](SmallVectorImpl<int64_t> &values) {
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
          int64_t v;
          if (parser.parseInteger(v))
            return failure();
          values.push_back(v);
          return success();
        });
  };
  if (succeeded(parser.parseOptionalLess())) {
    if (parseList(lb) || parser.parseComma() || parseList(ub) ||
        parser.parseGreater())
      return failure();
  } else if (parseList(lb) || parser.parseColon() || parseList(ub)) {
    return failure();
  }
  if (failed(BoundsAttr::verify([&] { return parser.emitError(loc); }, lb,
                                ub)))
    return failure();
  bounds = BoundsAttr::get(parser.getContext(), lb, ub);
  return success();
}

static void printStoreBounds(OpAsmPrinter &p, Operation *, BoundsAttr bounds) {
  bounds.print(p);
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  FieldType in = getField().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type ")
           << out.getElementType() << " of the result differs from "
           << in.getElementType() << " of the input";
  if (in.getRank() != out.getRank())
    return emitOpError("result rank ")
           << out.getRank() << " differs from input rank " << in.getRank();
  if (!out.hasBounds())
    return emitOpError("result must have known bounds");
  if (in.hasBounds() && in != out)
    return emitOpError("input bounds are known and differ from the result's: ")
           << in << " vs " << out;
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getField().getType() == getResult().getType())
    return getField();
  return {};
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (failed(verifyFieldTempPair(*this, getField().getType(), getRes().getType())))
    return failure();
  FieldType field = getField().getType();
  TempType temp = getRes().getType();
  if (temp.hasBounds() && !boxContains(field.getLb(), field.getUb(),
                                       temp.getLb(), temp.getUb()))
    return emitOpError("reads ")
           << formatList(temp.getLb()) << " to " << formatList(temp.getUb())
           << ", outside the field bounds " << formatList(field.getLb())
           << " to " << formatList(field.getUb());
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getFieldMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

LogicalResult StoreOp::verify() {
  if (failed(verifyFieldTempPair(*this, getField().getType(),
                                 getTemp().getType())))
    return failure();
  FieldType field = getField().getType();
  TempType temp = getTemp().getType();
  BoundsAttr bounds = getBounds();
  if (bounds.getRank() != field.getRank())
    return emitOpError("bounds have rank ")
           << bounds.getRank() << " but the field has rank "
           << field.getRank();
  if (!boxContains(field.getLb(), field.getUb(), bounds.getLb(),
                   bounds.getUb()))
    return emitOpError("bounds ")
           << formatList(bounds.getLb()) << " to "
           << formatList(bounds.getUb()) << " lie outside the field bounds "
           << formatList(field.getLb()) << " to " << formatList(field.getUb());
  if (temp.hasBounds() && !boxContains(temp.getLb(), temp.getUb(),
                                       bounds.getLb(), bounds.getUb()))
    return emitOpError("bounds ")
           << formatList(bounds.getLb()) << " to "
           << formatList(bounds.getUb()) << " lie outside the temp bounds "
           << formatList(temp.getLb()) << " to " << formatList(temp.getUb());
  for (Operation *user : getTemp().getUsers())
    if (user != getOperation() && isa<StoreOp>(user)) {
      InFlightDiagnostic diag =
          emitOpError("stores a temp that is stored more than once (a temp "
                      "is stored to at most one field)");
      diag.attachNote(user->getLoc()) << "other store of the temp";
      return diag;
    }
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getFieldMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  if (auto field = dyn_cast<FieldType>(getRes().getType())) {
    // A copy into new memory: same element type, rank and bounds.
    TempType temp = getTemp().getType();
    if (field.getElementType() != temp.getElementType() ||
        field.getRank() != temp.getRank() ||
        (temp.hasBounds() && field != FieldType::get(temp.getContext(),
                                                     temp.getLb(), temp.getUb(),
                                                     temp.getElementType())))
      return emitOpError("result field ")
             << field << " must have the element type, rank and bounds of "
             << "the operand " << temp;
    if (!field.hasBounds())
      return emitOpError("result field must have known bounds");
    return success();
  }
  if (getTemp().getType() != getRes().getType())
    return emitOpError("result type ")
           << getRes().getType() << " differs from operand type "
           << getTemp().getType();
  Operation *def = getTemp().getDefiningOp();
  if (!def || !isa<ApplyOp, CombineOp>(def))
    return emitOpError("operand must be a result of stencil.apply or "
                       "stencil.combine, got ")
           << (def ? "a result of " + def->getName().getStringRef().str()
                   : std::string("a block argument"));
  for (Operation *user : getTemp().getUsers())
    if (!isa<BufferOp>(user)) {
      InFlightDiagnostic diag =
          emitOpError("buffered temp has other users; use the buffer's "
                      "result instead");
      diag.attachNote(user->getLoc())
          << "other user of the buffered temp: " << user->getName();
      return diag;
    }
  return success();
}

//===----------------------------------------------------------------------===//
// CombineOp
//===----------------------------------------------------------------------===//

LogicalResult CombineOp::verify() {
  if (getLower().size() != getUpper().size())
    return emitOpError("has ") << getLower().size() << " lower but "
                               << getUpper().size() << " upper operands";
  size_t expected =
      getLower().size() + getLowerext().size() + getUpperext().size();
  if (getResults().size() != expected)
    return emitOpError("expected ")
           << expected << " results, got " << getResults().size();
  if (getLower().empty())
    return emitOpError("needs at least one lower/upper pair");
  unsigned rank = getRankOf(getLower().front().getType());
  if (getDimValue() < 0 || getDimValue() >= rank)
    return emitOpError("dimension ")
           << getDimValue() << " is out of range for rank " << rank;
  auto check = [&](Value operand, Value result) -> LogicalResult {
    unsigned resultNo = cast<OpResult>(result).getResultNumber();
    if (getRankOf(operand.getType()) != rank ||
        getRankOf(result.getType()) != rank)
      return emitOpError("operands and results must all have rank ")
             << rank << " (the rank of the first lower operand), but result #"
             << resultNo << " is " << result.getType() << " with operand "
             << operand.getType();
    if (getElementTypeOf(operand.getType()) !=
        getElementTypeOf(result.getType()))
      return emitOpError("element type ")
             << getElementTypeOf(result.getType()) << " of result #"
             << resultNo << " differs from "
             << getElementTypeOf(operand.getType()) << " of its operand";
    return success();
  };
  unsigned r = 0;
  for (auto [lo, up] : llvm::zip(getLower(), getUpper())) {
    if (failed(check(lo, getResult(r))) || failed(check(up, getResult(r))))
      return failure();
    ++r;
  }
  for (Value v : getLowerext())
    if (failed(check(v, getResult(r++))))
      return failure();
  for (Value v : getUpperext())
    if (failed(check(v, getResult(r++))))
      return failure();
  for (Value res : getResults()) {
    BoundsAttr b = getBoundsOf(res.getType());
    if (b && (getIndexValue() < b.getLb()[getDimValue()] ||
              getIndexValue() > b.getUb()[getDimValue()]))
      return emitOpError("index ")
             << getIndexValue() << " lies outside the result bounds "
             << b.getLb()[getDimValue()] << " to "
             << b.getUb()[getDimValue()] << " of dimension " << getDimValue();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ApplyOp
//===----------------------------------------------------------------------===//

void ApplyOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes, ValueRange args) {
  state.addOperands(args);
  state.addTypes(resultTypes);
  state.getOrAddProperties<Properties>().operandSegmentSizes = {
      static_cast<int32_t>(args.size()), 0};
  Region *region = state.addRegion();
  Block *body = new Block();
  for (Value arg : args)
    body->addArgument(arg.getType(), arg.getLoc());
  region->push_back(body);
}

unsigned ApplyOp::getRank() {
  if (!getRes().empty())
    return getRankOf(getRes().front().getType());
  if (!getDest().empty())
    return getRankOf(getDest().front().getType());
  return 0;
}

BoundsAttr ApplyOp::getIterationBounds() {
  if (!getRes().empty())
    return getBoundsOf(getRes().front().getType());
  return getBoundsAttr();
}

ReturnOp ApplyOp::getReturnOp() {
  Block *body = getBody();
  if (body->empty())
    return {};
  return dyn_cast<ReturnOp>(body->back());
}

SmallVector<int64_t> ApplyOp::getUnrollFactors() {
  SmallVector<int64_t> factors(getRank(), 1);
  if (ReturnOp ret = getReturnOp())
    if (IndexAttr unroll = ret.getUnrollAttr();
        unroll && unroll.size() == factors.size())
      llvm::copy(unroll.getIndices(), factors.begin());
  return factors;
}

SmallVector<int64_t> ApplyOp::getUnrollPointOffset(unsigned p) {
  SmallVector<int64_t> factors = getUnrollFactors();
  SmallVector<int64_t> offset(factors.size());
  for (int d = int(factors.size()) - 1; d >= 0; --d) {
    offset[d] = p % factors[d];
    p /= factors[d];
  }
  return offset;
}

DenseMap<Operation *, llvm::BitVector> ApplyOp::getUnrollPointUses() {
  DenseMap<Operation *, llvm::BitVector> uses;
  ReturnOp ret = getReturnOp();
  if (!ret)
    return uses;
  Block *body = getBody();
  unsigned factor = ret.getUnrollFactor();
  SmallVector<std::pair<Operation *, unsigned>> worklist;
  auto need = [&](Value value, unsigned p) {
    Operation *def = value.getDefiningOp();
    if (!def || !(def = body->findAncestorOpInBlock(*def)))
      return;
    llvm::BitVector &points = uses[def];
    if (points.empty())
      points.resize(factor);
    if (points.test(p))
      return;
    points.set(p);
    worklist.push_back({def, p});
  };
  for (auto [i, value] : llvm::enumerate(ret.getArg()))
    need(value, i % factor);
  while (!worklist.empty()) {
    auto [op, p] = worklist.pop_back_val();
    // Operands of the op and of what is nested in it, defined outside it.
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && !op->isAncestor(def))
          need(operand, p);
    });
  }
  return uses;
}

std::optional<SmallVector<int64_t>> ApplyOp::getBaseUpperBounds(
    Operation *op, const DenseMap<Operation *, llvm::BitVector> &uses) {
  BoundsAttr iter = getIterationBounds();
  SmallVector<int64_t> factors = getUnrollFactors();
  SmallVector<unsigned> points;
  if (auto it = uses.find(op); it != uses.end())
    llvm::append_range(points, it->second.set_bits());
  else
    points.push_back(0);
  std::optional<SmallVector<int64_t>> bound;
  for (unsigned p : points) {
    SmallVector<int64_t> offset = getUnrollPointOffset(p);
    SmallVector<int64_t> last(factors.size());
    bool runs = true;
    for (unsigned d = 0; d < factors.size() && runs; ++d) {
      int64_t lb = iter.getLb()[d], highest = iter.getUb()[d] - 1 - offset[d];
      runs = highest >= lb;
      last[d] = lb + (highest - lb) / factors[d] * factors[d];
    }
    if (!runs)
      continue;
    if (!bound)
      bound = SmallVector<int64_t>(factors.size(), INT64_MIN);
    for (unsigned d = 0; d < factors.size(); ++d)
      (*bound)[d] = std::max((*bound)[d], last[d] + 1);
  }
  return bound;
}

ParseResult ApplyOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> regionArgs;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes;
  // (%arg = %operand : type, ...)
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument arg;
            OpAsmParser::UnresolvedOperand operand;
            Type type;
            if (parser.parseArgument(arg) || parser.parseEqual() ||
                parser.parseOperand(operand) || parser.parseColonType(type))
              return failure();
            arg.type = type;
            regionArgs.push_back(arg);
            operands.push_back(operand);
            operandTypes.push_back(type);
            return success();
          }))
    return failure();
  if (parser.resolveOperands(operands, operandTypes, parser.getNameLoc(),
                             result.operands))
    return failure();

  int32_t numDest = 0;
  if (succeeded(parser.parseOptionalArrow())) {
    SmallVector<Type> resultTypes;
    if (parser.parseLParen() ||
        (failed(parser.parseOptionalRParen()) &&
         (parser.parseTypeList(resultTypes) || parser.parseRParen())))
      return failure();
    result.addTypes(resultTypes);
  } else {
    if (parser.parseKeyword("outs") ||
        parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
              OpAsmParser::UnresolvedOperand operand;
              Type type;
              if (parser.parseOperand(operand) || parser.parseColonType(type) ||
                  parser.resolveOperand(operand, type, result.operands))
                return failure();
              ++numDest;
              return success();
            }))
      return failure();
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, regionArgs))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("to"))) {
    Attribute bounds = BoundsAttr::parse(parser, Type());
    if (!bounds)
      return failure();
    result.getOrAddProperties<Properties>().bounds = cast<BoundsAttr>(bounds);
  }
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      static_cast<int32_t>(operands.size()), numDest};
  return success();
}

void ApplyOp::print(OpAsmPrinter &p) {
  p << '(';
  llvm::interleaveComma(llvm::zip(getBody()->getArguments(), getArgs()), p,
                        [&](auto pair) {
                          auto [arg, operand] = pair;
                          p << arg << " = " << operand << " : "
                            << operand.getType();
                        });
  p << ')';
  if (!getDest().empty()) {
    p << " outs (";
    llvm::interleaveComma(getDest(), p, [&](Value dest) {
      p << dest << " : " << dest.getType();
    });
    p << ')';
  } else {
    p << " -> (" << getRes().getTypes() << ')';
  }
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {"bounds", "operandSegmentSizes"});
  p << ' ';
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
  if (BoundsAttr bounds = getBoundsAttr()) {
    p << " to ";
    bounds.print(p);
  }
}

LogicalResult ApplyOp::verify() {
  Block *body = getBody();
  // The body computes one point from its arguments: field and temp ops
  // (loads, stores, casts, nested applies, ...) have no meaning there. This
  // runs before the nested ops are verified, so they need not cope with it.
  WalkResult nested = body->walk([&](Operation *op) -> WalkResult {
    if (!isa_and_nonnull<StencilDialect>(op->getDialect()) ||
        isa<AccessOp, DynAccessOp, IndexOp, StoreResultOp, ReturnOp>(op))
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError("is not allowed in the body of a stencil.apply; the "
                        "body may only use stencil.access, stencil.dyn_access, "
                        "stencil.index, stencil.store_result and "
                        "stencil.return");
    diag.attachNote(getLoc()) << "in this stencil.apply";
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return failure();
  if (body->getNumArguments() != getArgs().size())
    return emitOpError("has ") << getArgs().size() << " operands but "
                               << body->getNumArguments()
                               << " region arguments";
  for (auto [i, operand, arg] :
       llvm::enumerate(getArgs(), body->getArguments()))
    if (operand.getType() != arg.getType())
      return emitOpError("type ")
             << arg.getType() << " of region argument #" << i
             << " differs from operand type " << operand.getType();
  if (!getRes().empty() && !getDest().empty())
    return emitOpError("has both results and `outs` destinations");
  if (getRes().empty() && getDest().empty())
    return emitOpError("needs at least one result");
  if (!getDest().empty() && !getBoundsAttr())
    return emitOpError("with `outs` destinations needs `to` bounds");

  Type first = getRes().empty() ? getDest().front().getType()
                                : getRes().front().getType();
  unsigned rank = getRankOf(first);
  SmallVector<Type> outTypes;
  if (getRes().empty())
    llvm::append_range(outTypes, getDest().getTypes());
  else
    llvm::append_range(outTypes, getRes().getTypes());
  for (auto [i, t] : llvm::enumerate(outTypes)) {
    if (getRankOf(t) != rank)
      return emitOpError("result #") << i << " has rank " << getRankOf(t)
                                     << ", expected " << rank;
    if (!getRes().empty() && getBoundsOf(t) != getBoundsOf(first))
      return emitOpError("result #")
             << i << " has bounds " << t << " that differ from result #0 "
             << first;
  }
  if (BoundsAttr b = getBoundsAttr(); b && b.getRank() != rank)
    return emitOpError("`to` bounds have rank ")
           << b.getRank() << ", expected " << rank;
  for (auto [i, operand] : llvm::enumerate(getArgs()))
    if (unsigned r = getRankOf(operand.getType()); r > rank)
      return emitOpError("operand #")
             << i << " has rank " << r << ", above the apply rank " << rank;
  if (BoundsAttr b = getBoundsAttr()) {
    // With results, `to` (when given) must agree with their bounds.
    if (!getRes().empty()) {
      BoundsAttr resBounds = getBoundsOf(first);
      if (resBounds && resBounds != b)
        return emitOpError("`to` bounds ")
               << formatList(b.getLb()) << " to " << formatList(b.getUb())
               << " differ from the result bounds "
               << formatList(resBounds.getLb()) << " to "
               << formatList(resBounds.getUb());
    }
    // The `outs` fields are written on the `to` box.
    for (auto [i, dest] : llvm::enumerate(getDest())) {
      BoundsAttr fb = getBoundsOf(dest.getType());
      if (!fb)
        return emitOpError("`outs` field #")
               << i << " must have known bounds (use stencil.cast to give "
                       "them)";
      if (!boxContains(fb.getLb(), fb.getUb(), b.getLb(), b.getUb()))
        return emitOpError("`to` bounds ")
               << formatList(b.getLb()) << " to " << formatList(b.getUb())
               << " lie outside the bounds " << formatList(fb.getLb())
               << " to " << formatList(fb.getUb()) << " of `outs` field #"
               << i;
    }
  }
  if (!getReturnOp())
    return emitOpError("body must end with stencil.return");
  return success();
}

/// An apply reads its operands before it writes (no point sees what another
/// point computes), but with `outs` it writes in place: a field it also
/// reads may be read only where the reading point itself writes (offset 0;
/// with `unroll`, the offset of the point). Casts alias their field.
static LogicalResult verifyNoReadOfWrittenNeighbours(ApplyOp apply) {
  if (apply.getDest().empty())
    return success();
  auto stripCasts = [](Value field) {
    while (auto cast = field.getDefiningOp<CastOp>())
      field = cast.getField();
    return field;
  };
  SmallVector<Value> written = llvm::map_to_vector(apply.getDest(), stripCasts);
  Block *body = apply.getBody();
  unsigned rank = apply.getRank();
  DenseMap<Operation *, llvm::BitVector> uses;
  bool usesKnown = false;
  for (auto [i, operand] : llvm::enumerate(apply.getArgs())) {
    auto found = llvm::find(written, stripCasts(operand));
    if (found == written.end())
      continue;
    unsigned dest = found - written.begin();
    for (Operation *user : apply.getBodyArg(i).getUsers()) {
      auto refuse = [&](const Twine &where) {
        InFlightDiagnostic diag =
            user->emitOpError("reads `outs` field #")
            << dest << " " << where
            << ": the apply writes that field in place, so it may read it "
               "only at the point it writes (load it into a temp to read "
               "its neighbours)";
        diag.attachNote(apply.getLoc()) << "in this stencil.apply";
        return failure();
      };
      if (isa<DynAccessOp>(user))
        return refuse("at dynamic indices");
      auto access = dyn_cast<AccessOp>(user);
      if (!access)
        continue;
      if (!usesKnown) {
        uses = apply.getUnrollPointUses();
        usesKnown = true;
      }
      SmallVector<unsigned> points = {0};
      if (auto it = uses.find(body->findAncestorOpInBlock(*access));
          it != uses.end())
        points.assign(it->second.set_bits_begin(), it->second.set_bits_end());
      SmallVector<int64_t> off = access.getApplyOffset(rank);
      for (unsigned p : points)
        if (off != apply.getUnrollPointOffset(p))
          return refuse("at offset " + formatList(off));
    }
  }
  return success();
}

LogicalResult ApplyOp::verifyRegions() {
  if (failed(verifyNoReadOfWrittenNeighbours(*this)))
    return failure();
  // With known bounds, every access must stay inside its operand.
  Block *body = getBody();
  unsigned rank = getRank();
  BoundsAttr iter = getIterationBounds();
  if (!iter)
    return success();
  // An empty iteration box reads nothing (a grid with a dimension of size
  // zero).
  for (auto [l, u] : llvm::zip(iter.getLb(), iter.getUb()))
    if (l >= u)
      return success();
  DenseMap<Operation *, llvm::BitVector> uses = getUnrollPointUses();
  WalkResult walk = body->walk([&](AccessOp access) -> WalkResult {
    auto arg = dyn_cast<BlockArgument>(access.getTemp());
    if (!arg || arg.getOwner() != body)
      return WalkResult::advance();
    BoundsAttr argBounds = getBoundsOf(arg.getType());
    if (!argBounds)
      return WalkResult::advance();
    std::optional<SmallVector<int64_t>> bases =
        getBaseUpperBounds(body->findAncestorOpInBlock(*access), uses);
    if (!bases)
      return WalkResult::advance();
    SmallVector<int64_t> off = access.getApplyOffset(rank);
    SmallVector<int64_t> dims = access.getOperandDims(rank);
    for (unsigned d = 0; d < rank; ++d) {
      if (dims[d] < 0)
        continue;
      int64_t lo, hi;
      if (llvm::AddOverflow(iter.getLb()[d], off[d], lo) ||
          llvm::AddOverflow((*bases)[d], off[d], hi)) {
        InFlightDiagnostic diag =
            access.emitOpError("offset ")
            << off[d] << " in dimension " << d << " on the apply bounds "
            << formatList(iter.getLb()) << " to " << formatList(iter.getUb())
            << " reads outside the 64-bit index range";
        diag.attachNote(getLoc()) << "in this stencil.apply";
        return WalkResult::interrupt();
      }
      if (lo < argBounds.getLb()[dims[d]] || hi > argBounds.getUb()[dims[d]]) {
        InFlightDiagnostic diag = access.emitOpError("reads ")
            << lo << " to " << hi << " in dimension " << d
            << " (offset " << off[d] << " on the apply bounds "
            << formatList(iter.getLb()) << " to " << formatList(iter.getUb())
            << "), outside the bounds " << argBounds.getLb()[dims[d]]
            << " to " << argBounds.getUb()[dims[d]] << " of apply operand #"
            << arg.getArgNumber();
        diag.attachNote(getLoc()) << "in this stencil.apply";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void ApplyOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &dest : getDestMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &dest,
                         SideEffects::DefaultResource::get());
  for (OpOperand &arg : getArgsMutable())
    if (isa<FieldType>(arg.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &arg,
                           SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// ApplyOp canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// Drop operands whose region argument is unused, and merge operands that
/// appear more than once.
struct SimplifyApplyOperands : OpRewritePattern<ApplyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ApplyOp op,
                                PatternRewriter &rewriter) const override {
    Block *body = op.getBody();
    llvm::BitVector erase(op.getArgs().size());
    for (auto [i, operand] : llvm::enumerate(op.getArgs())) {
      BlockArgument arg = body->getArgument(i);
      for (unsigned j = 0; j < i; ++j)
        if (!erase[j] && op.getArgs()[j] == operand) {
          rewriter.replaceAllUsesWith(arg, body->getArgument(j));
          break;
        }
      if (arg.use_empty())
        erase.set(i);
    }
    if (erase.none())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      for (int i = erase.size() - 1; i >= 0; --i)
        if (erase[i])
          op.getArgsMutable().erase(i);
      body->eraseArguments(erase);
    });
    return success();
  }
};

/// Drop results without uses (all values of their unroll group).
struct RemoveUnusedApplyResults : OpRewritePattern<ApplyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ApplyOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getDest().empty())
      return failure();
    SmallVector<unsigned> kept;
    for (OpResult r : op.getRes())
      if (!r.use_empty())
        kept.push_back(r.getResultNumber());
    if (kept.size() == op.getRes().size())
      return failure();
    if (kept.empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    ReturnOp ret = op.getReturnOp();
    unsigned unroll = ret.getUnrollFactor();
    SmallVector<Type> types;
    SmallVector<Value> retValues;
    for (unsigned r : kept) {
      types.push_back(op.getResult(r).getType());
      for (unsigned u = 0; u < unroll; ++u)
        retValues.push_back(ret.getArg()[r * unroll + u]);
    }
    auto newOp = ApplyOp::create(rewriter, op.getLoc(), types, op.getArgs());
    newOp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    newOp.setBoundsAttr(op.getBoundsAttr());
    rewriter.eraseBlock(newOp.getBody());
    rewriter.inlineRegionBefore(op.getRegion(), newOp.getRegion(),
                                newOp.getRegion().end());
    rewriter.modifyOpInPlace(ret,
                             [&] { ret.getArgMutable().assign(retValues); });
    for (auto [i, r] : llvm::enumerate(kept))
      rewriter.replaceAllUsesWith(op.getResult(r), newOp.getResult(i));
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void ApplyOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<SimplifyApplyOperands, RemoveUnusedApplyResults>(context);
}

//===----------------------------------------------------------------------===//
// AccessOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> AccessOp::getOperandDims(unsigned applyRank) {
  SmallVector<int64_t> dims(applyRank, -1);
  if (IndexAttr mapping = getOffsetMappingAttr()) {
    for (auto [i, d] : llvm::enumerate(mapping.getIndices()))
      if (d >= 0 && d < (int64_t)applyRank)
        dims[d] = i;
  } else {
    for (unsigned d = 0; d < applyRank && d < getOffset().size(); ++d)
      dims[d] = d;
  }
  return dims;
}

SmallVector<int64_t> AccessOp::getApplyOffset(unsigned applyRank) {
  SmallVector<int64_t> dims = getOperandDims(applyRank), off(applyRank, 0);
  for (unsigned d = 0; d < applyRank; ++d)
    if (dims[d] >= 0)
      off[d] = getOffset()[dims[d]];
  return off;
}

ParseResult AccessOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand temp;
  SmallVector<int64_t> offset, mapping;
  bool hasPlaceholder = false;
  int64_t dim = 0;
  Type type;
  // xDSL prints an attribute dictionary before the offsets and parses it
  // after them; accept both places.
  if (parser.parseOperand(temp) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t v;
            OptionalParseResult intResult = parser.parseOptionalInteger(v);
            if (intResult.has_value()) {
              if (failed(*intResult))
                return failure();
              offset.push_back(v);
              mapping.push_back(dim);
            } else {
              if (parser.parseKeyword("_"))
                return failure();
              hasPlaceholder = true;
            }
            ++dim;
            return success();
          }) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(temp, type, result.operands))
    return failure();
  MLIRContext *ctx = parser.getContext();
  auto &props = result.getOrAddProperties<Properties>();
  if (offset.empty())
    return parser.emitError(parser.getNameLoc(), "expected at least one offset");
  props.offset = IndexAttr::get(ctx, offset);
  if (hasPlaceholder)
    props.offset_mapping = IndexAttr::get(ctx, mapping);
  Type elementType = getElementTypeOf(type);
  if (!elementType)
    return parser.emitError(parser.getNameLoc(),
                            "expected a stencil field or temp type");
  result.addTypes(elementType);
  return success();
}

void AccessOp::print(OpAsmPrinter &p) {
  p << ' ' << getTemp() << '[';
  auto apply = (*this)->getParentOfType<ApplyOp>();
  unsigned rank = apply ? apply.getRank() : getOffset().size();
  SmallVector<int64_t> dims = getOperandDims(rank);
  for (unsigned d = 0; d < rank; ++d) {
    if (d)
      p << ", ";
    if (dims[d] < 0 || dims[d] >= (int64_t)getOffset().size())
      p << '_';
    else
      p << getOffset()[dims[d]];
  }
  p << ']';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {"offset", "offset_mapping"});
  p << " : " << getTemp().getType();
}

LogicalResult AccessOp::verify() {
  auto apply = (*this)->getParentOfType<ApplyOp>();
  unsigned applyRank = apply.getRank();
  unsigned rank = getRankOf(getTemp().getType());
  if (getRes().getType() != getElementTypeOf(getTemp().getType()))
    return emitOpError("result type ")
           << getRes().getType() << " differs from the element type "
           << getElementTypeOf(getTemp().getType()) << " of the operand";
  if (getOffset().size() != rank)
    return emitOpError("has ")
           << getOffset().size() << " offsets for an operand of rank "
           << rank;
  if (IndexAttr mapping = getOffsetMappingAttr()) {
    if (mapping.size() != getOffset().size())
      return emitOpError("offset mapping has ")
             << mapping.size() << " entries for " << getOffset().size()
             << " offsets";
    for (unsigned i = 0; i < mapping.size(); ++i) {
      if (mapping[i] < 0 || mapping[i] >= (int64_t)applyRank)
        return emitOpError("offset mapping entry ")
               << mapping[i] << " is outside the apply rank " << applyRank;
      if (i > 0 && mapping[i] <= mapping[i - 1])
        return emitOpError("offset mapping must be strictly increasing");
    }
  } else if (rank != applyRank) {
    return emitOpError("operand of rank ")
           << rank << " in an apply of rank " << applyRank
           << " needs `_` placeholders for the missing dimensions";
  }
  auto arg = dyn_cast<BlockArgument>(getTemp());
  if (!arg || arg.getOwner()->getParentOp() != apply)
    return emitOpError("operand must be an argument of the enclosing "
                       "stencil.apply (pass the value in as an apply operand)");
  return success();
}

//===----------------------------------------------------------------------===//
// DynAccessOp, IndexOp
//===----------------------------------------------------------------------===//

LogicalResult DynAccessOp::verify() {
  unsigned rank = getRankOf(getTemp().getType());
  if (getOffset().size() != rank)
    return emitOpError("has ") << getOffset().size()
                               << " indices for an operand of rank " << rank;
  unsigned applyRank = (*this)->getParentOfType<ApplyOp>().getRank();
  if (getLb().size() != applyRank || getUb().size() != applyRank)
    return emitOpError("access range <")
           << formatList(getLb().getIndices()) << "> : <"
           << formatList(getUb().getIndices())
           << "> must have the apply rank " << applyRank;
  for (unsigned d = 0; d < applyRank; ++d)
    if (getLb()[d] > getUb()[d])
      return emitOpError("access range lower bound ")
             << getLb()[d] << " exceeds upper bound " << getUb()[d]
             << " in dimension " << d;
  auto arg = dyn_cast<BlockArgument>(getTemp());
  if (!arg ||
      arg.getOwner()->getParentOp() != (*this)->getParentOfType<ApplyOp>())
    return emitOpError("operand must be an argument of the enclosing "
                       "stencil.apply (pass the value in as an apply operand)");
  return success();
}

LogicalResult IndexOp::verify() {
  unsigned applyRank = (*this)->getParentOfType<ApplyOp>().getRank();
  if (getDimValue() < 0 || getDimValue() >= applyRank)
    return emitOpError("dimension ")
           << getDimValue() << " is out of range for an apply of rank "
           << applyRank;
  if (getOffset().size() != applyRank)
    return emitOpError("offset has ")
           << getOffset().size() << " entries, expected " << applyRank;
  return success();
}

//===----------------------------------------------------------------------===//
// StoreResultOp, ReturnOp
//===----------------------------------------------------------------------===//

ParseResult StoreResultOp::parse(OpAsmParser &parser,
                                 OperationState &result) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
  Type type;
  if ((hasOperand.has_value() && failed(*hasOperand)) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  auto resultType = dyn_cast<ResultType>(type);
  if (!resultType)
    return parser.emitError(parser.getNameLoc(),
                            "expected !stencil.result type");
  if (hasOperand.has_value() &&
      parser.resolveOperand(operand, resultType.getElementType(),
                            result.operands))
    return failure();
  result.addTypes(resultType);
  return success();
}

void StoreResultOp::print(OpAsmPrinter &p) {
  if (getArg())
    p << ' ' << getArg();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << " : " << getRes().getType();
}

LogicalResult StoreResultOp::verify() {
  if (getArg() && getArg().getType() != getRes().getType().getElementType())
    return emitOpError("operand type ")
           << getArg().getType() << " differs from the result element type "
           << getRes().getType().getElementType();
  return success();
}

unsigned ReturnOp::getUnrollFactor() {
  unsigned factor = 1;
  if (IndexAttr unroll = getUnrollAttr())
    for (int64_t u : unroll.getIndices())
      factor *= u;
  return factor;
}

LogicalResult ReturnOp::verify() {
  auto apply = cast<ApplyOp>((*this)->getParentOp());
  if (IndexAttr unroll = getUnrollAttr()) {
    if (unroll.size() != apply.getRank())
      return emitOpError("unroll has ")
             << unroll.size() << " factors, expected " << apply.getRank();
    for (int64_t u : unroll.getIndices())
      if (u < 1)
        return emitOpError("unroll factors must be positive");
  }
  SmallVector<Type> resultElems;
  if (!apply.getRes().empty())
    for (Type t : apply.getRes().getTypes())
      resultElems.push_back(getElementTypeOf(t));
  else
    for (Type t : apply.getDest().getTypes())
      resultElems.push_back(getElementTypeOf(t));
  unsigned factor = getUnrollFactor();
  if (getArg().size() != resultElems.size() * factor)
    return emitOpError("expected ")
           << resultElems.size() * factor
           << " operands to match the apply results (unroll factor "
           << factor << "), got " << getArg().size();
  for (auto [i, v] : llvm::enumerate(getArg())) {
    Type t = v.getType();
    if (auto r = dyn_cast<ResultType>(t))
      t = r.getElementType();
    Type expected = resultElems[i / factor];
    if (t != expected)
      return emitOpError("operand #")
             << i << " has element type " << t << ", but apply result #"
             << i / factor << " has element type " << expected;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AllocOp, ExternalLoadOp, ExternalStoreOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  if (!getField().getType().hasBounds())
    return emitOpError("needs a field type with known bounds, got ")
           << getField().getType();
  return success();
}

void AllocOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Allocate::get(),
                       cast<OpResult>(getField()),
                       SideEffects::DefaultResource::get());
}

/// A field and the external memory it aliases: when that memory is a memref,
/// element type and rank must agree, and static sizes must match the field's
/// extent.
static LogicalResult verifyExternalPair(Operation *op, FieldType field,
                                        Type external) {
  auto memref = dyn_cast<MemRefType>(external);
  if (!memref)
    return success();
  if (memref.getElementType() != field.getElementType())
    return op->emitOpError("element type ")
           << memref.getElementType() << " of the memref differs from "
           << field.getElementType() << " of the field";
  if (memref.getRank() != field.getRank())
    return op->emitOpError("memref rank ")
           << memref.getRank() << " differs from field rank "
           << field.getRank();
  if (!field.hasBounds())
    return success();
  SmallVector<int64_t> extent = field.getShape();
  for (unsigned d = 0; d < field.getRank(); ++d)
    if (!ShapedType::isDynamic(memref.getDimSize(d)) &&
        memref.getDimSize(d) != extent[d])
      return op->emitOpError("memref size ")
             << memref.getDimSize(d) << " differs from the field extent "
             << extent[d] << " in dimension " << d;
  return success();
}

LogicalResult ExternalLoadOp::verify() {
  if (auto field = dyn_cast<FieldType>(getResult().getType()))
    return verifyExternalPair(*this, field, getField().getType());
  return success();
}

LogicalResult ExternalStoreOp::verify() {
  return verifyExternalPair(*this, getTemp().getType(), getField().getType());
}

void ExternalStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTempMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getFieldMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult ReduceOp::verify() {
  Block &body = getBody().front();
  Type type = getAcc().getType();
  if (body.getNumArguments() != 2 ||
      llvm::any_of(body.getArgumentTypes(),
                   [&](Type arg) { return arg != type; }))
    return emitOpError("body must take two values of the accumulator's type ")
           << type;
  auto yield = dyn_cast_or_null<YieldOp>(body.empty() ? nullptr : &body.back());
  if (!yield)
    return emitOpError("body must end with stencil.yield");
  if (yield.getOperand().getType() != type)
    return emitOpError("yields ") << yield.getOperand().getType()
                                  << ", but the accumulator's type is " << type;
  return success();
}
