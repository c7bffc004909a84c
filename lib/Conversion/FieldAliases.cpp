//===- FieldAliases.cpp - which field memrefs may be the same buffer ------===//

#include "FieldAliases.h"

#include "Stencil/IR/StencilOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <set>

using namespace mlir;
using namespace mlir::stencil;

Value mlir::stencil::viewedBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

Value mlir::stencil::rootOfField(Value field) {
  while (true) {
    Operation *def = field.getDefiningOp();
    if (auto cast = dyn_cast_or_null<CastOp>(def)) {
      field = cast.getField();
    } else if (auto cast = dyn_cast_or_null<memref::CastOp>(def)) {
      field = cast.getSource();
    } else if (auto cast = dyn_cast_or_null<UnrealizedConversionCastOp>(def);
               cast && cast.getInputs().size() == 1 &&
               isa<MemRefType, FieldType>(cast.getInputs()[0].getType())) {
      field = cast.getInputs()[0];
    } else {
      return field;
    }
  }
}

FieldAliases::FieldAliases(Operation *root) {
  // Outer loops first: an inner loop's outside values may be outer loop
  // arguments, which mayAlias() then follows.
  root->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) { analyzeLoop(loop); });
}

void FieldAliases::analyzeLoop(Operation *op) {
  auto loop = cast<scf::ForOp>(op);
  SmallVector<unsigned> buffers;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (isa<MemRefType>(arg.getType()))
      buffers.push_back(i);
  if (buffers.empty())
    return;

  // The buffer each argument holds, as an outside value; the next
  // iteration's state follows from the yield: an argument, or an outside
  // value (or one defined in the body: a buffer of its own).
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> state;
  for (unsigned i : buffers)
    state.push_back(rootOfField(loop.getInitArgs()[i]));
  auto next = [&](ArrayRef<Value> cur) {
    SmallVector<Value> out;
    for (unsigned i : buffers) {
      Value v = rootOfField(yield.getOperand(i));
      auto arg = dyn_cast<BlockArgument>(v);
      if (arg && arg.getOwner() == loop.getBody() && arg.getArgNumber() > 0) {
        unsigned k = arg.getArgNumber() - 1;
        auto pos = llvm::find(buffers, k);
        out.push_back(pos == buffers.end() ? v : cur[pos - buffers.begin()]);
      } else {
        out.push_back(v);
      }
    }
    return out;
  };

  // The sequence of states is eventually periodic; visit each once (a bound
  // keeps pathological rotations cheap, then every pair is assumed aliased).
  std::set<SmallVector<void *>> seen;
  auto key = [](ArrayRef<Value> s) {
    SmallVector<void *> k;
    for (Value v : s)
      k.push_back(v.getAsOpaquePointer());
    return k;
  };
  auto args = loop.getRegionIterArgs();
  auto results = loop.getResults();
  bool exhausted = true;
  for (unsigned step = 0; step < 4096; ++step) {
    if (!seen.insert(key(state)).second) {
      exhausted = false;
      break;
    }
    for (auto [a, i] : llvm::enumerate(buffers)) {
      loopOf[args[i]] = loop;
      loopOf[results[i]] = loop;
      auto &outside = outsideValues[args[i]];
      if (!llvm::is_contained(outside, state[a]))
        outside.push_back(state[a]);
      // A state reached at the start of an iteration is also one the loop
      // may end with (zero or more iterations).
      auto &finals = outsideValues[results[i]];
      if (!llvm::is_contained(finals, state[a]))
        finals.push_back(state[a]);
      for (auto [b, j] : llvm::enumerate(buffers))
        if (a != b && state[a] == state[b])
          sameBuffer.insert({args[i], args[j]});
    }
    state = next(state);
  }
  if (exhausted)
    for (unsigned i : buffers)
      for (unsigned j : buffers)
        if (i != j)
          sameBuffer.insert({args[i], args[j]});
}

bool FieldAliases::mayAlias(Value a, Value b) const {
  llvm::DenseSet<std::pair<Value, Value>> visited;
  return mayAlias(a, b, visited);
}

/// A loop argument stands for its outside values when compared with a value
/// from outside the loop; a loop result always does (it is only visible
/// after the loop). Two arguments of one loop alias only as `sameBuffer`
/// says. `visited` stops the walk on loops that yield inner loop results.
bool FieldAliases::mayAlias(
    Value a, Value b,
    llvm::DenseSet<std::pair<Value, Value>> &visited) const {
  if (a == b || sameBuffer.contains({a, b}))
    return true;
  if (!visited.insert({a, b}).second)
    return false;
  auto expands = [&](Value x, Value other) {
    auto it = loopOf.find(x);
    if (it == loopOf.end())
      return false;
    if (isa<OpResult>(x))
      return true;
    return !it->second->getRegion(0).isAncestor(other.getParentRegion());
  };
  if (expands(a, b))
    for (Value o : outsideValues.lookup(a))
      if (mayAlias(o, b, visited))
        return true;
  if (expands(b, a))
    for (Value o : outsideValues.lookup(b))
      if (mayAlias(a, o, visited))
        return true;
  return false;
}
