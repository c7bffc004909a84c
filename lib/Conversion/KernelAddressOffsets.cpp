//===- KernelAddressOffsets.cpp - one base address, constant offsets ------===//
//
// A stencil kernel loads u[i+a][j+b][k+c] for many constant (a, b, c).
// Upstream's memref lowering linearizes each access on its own,
// ((i+a)*S0 + (j+b)*S1 + (k+c)), and after LLVM's CSE shares the partial
// sums between accesses the constants sit at different depths of shared
// add trees: NVPTX then computes a 64-bit base address per distinct
// subtree (heat3d f32: 55 integer instructions for 27 loads, nvcc's 8).
// nvcc's form is one base address and an immediate offset per load,
// `ld [%rd+imm]`. This pass gives every kernel address that form: the index
// of a `getelementptr` is split into its linear part over the values it
// combines (one canonical expression, the same for every access of a
// point) and its constant, and the constant becomes a second
// `getelementptr`, which NVPTX folds into the load's immediate. Kernels
// that use shared memory are left as they are (see usesSharedMemory).
//
// The split is exact: the index is an i32 or i64 that a `nuw` GEP of an
// element of at least two bytes sign-extends to a non-negative value x; its
// linear part, computed with wrapping arithmetic, is x - C, which for a
// constant C >= 0 still fits the index type, so extending it and adding C
// gives x again. Negative constants are left alone.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILKERNELADDRESSOFFSETS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// An index as sum(coefficient * term) + constant, modulo 2^width.
struct LinearIndex {
  llvm::MapVector<Value, APInt> terms;
  APInt constant;
};

/// Adds `scale * value` to `form`, looking through additions, subtractions
/// and multiplications or shifts by constants. False when the expression has
/// more than `budget` nodes (left as it is).
bool accumulate(Value value, const APInt &scale, LinearIndex &form,
                unsigned &budget) {
  if (budget-- == 0)
    return false;
  APInt c;
  if (matchPattern(value, m_ConstantInt(&c))) {
    form.constant += scale * c.sextOrTrunc(scale.getBitWidth());
    return true;
  }
  Operation *op = value.getDefiningOp();
  auto constantOperand = [&](unsigned i, APInt &out) {
    if (!matchPattern(op->getOperand(i), m_ConstantInt(&out)))
      return false;
    out = out.sextOrTrunc(scale.getBitWidth());
    return true;
  };
  if (isa_and_nonnull<LLVM::AddOp>(op))
    return accumulate(op->getOperand(0), scale, form, budget) &&
           accumulate(op->getOperand(1), scale, form, budget);
  if (isa_and_nonnull<LLVM::SubOp>(op))
    return accumulate(op->getOperand(0), scale, form, budget) &&
           accumulate(op->getOperand(1), -scale, form, budget);
  if (isa_and_nonnull<LLVM::MulOp>(op)) {
    if (constantOperand(1, c))
      return accumulate(op->getOperand(0), scale * c, form, budget);
    if (constantOperand(0, c))
      return accumulate(op->getOperand(1), scale * c, form, budget);
  }
  if (isa_and_nonnull<LLVM::ShlOp>(op) && constantOperand(1, c) &&
      c.ult(scale.getBitWidth()))
    return accumulate(op->getOperand(0), scale.shl(c), form, budget);
  auto [it, inserted] = form.terms.try_emplace(value, scale);
  if (!inserted)
    it->second += scale;
  return true;
}

/// Splits the constant out of the index of `gep`; true when it did.
bool splitConstantOffset(LLVM::GEPOp gep,
                         const DenseMap<Value, unsigned> &order) {
  if (!bitEnumContainsAll(gep.getNoWrapFlags(), LLVM::GEPNoWrapFlags::nuw) ||
      gep.getDynamicIndices().size() != 1 || gep.getRawConstantIndices().size() != 1)
    return false;
  Type element = gep.getElemType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 16)
    return false;
  Value index = gep.getDynamicIndices()[0];
  auto type = dyn_cast<IntegerType>(index.getType());
  if (!type)
    return false;
  unsigned width = type.getWidth();
  LinearIndex form{{}, APInt(width, 0)};
  unsigned budget = 64;
  // A GEP's constant index is an int32.
  if (!accumulate(index, APInt(width, 1), form, budget) ||
      form.constant.isZero() || form.constant.isNegative() ||
      !form.constant.isSignedIntN(32))
    return false;

  SmallVector<std::pair<Value, APInt>> terms;
  for (auto &[term, coefficient] : form.terms)
    if (!coefficient.isZero())
      terms.emplace_back(term, coefficient);
  // One order for every access, so that equal linear parts are equal
  // expressions (CSE then leaves one base address).
  llvm::sort(terms, [&](const auto &a, const auto &b) {
    return order.lookup(a.first) < order.lookup(b.first);
  });
  OpBuilder builder(gep);
  Location loc = gep.getLoc();
  Value linear;
  for (auto &[term, coefficient] : terms) {
    Value scaled = term;
    if (!coefficient.isOne())
      scaled = LLVM::MulOp::create(
          builder, loc, term,
          LLVM::ConstantOp::create(builder, loc, type,
                                   builder.getIntegerAttr(type, coefficient)));
    linear = linear ? LLVM::AddOp::create(builder, loc, linear, scaled)
                    : scaled;
  }
  if (!linear)
    return false;
  // The base may lie before the buffer: no inbounds, no nuw.
  auto base = LLVM::GEPOp::create(builder, loc, gep.getType(), element,
                                  gep.getBase(), ValueRange{linear});
  auto offset = LLVM::GEPOp::create(
      builder, loc, gep.getType(), element, base,
      ArrayRef<LLVM::GEPArg>{
          static_cast<int32_t>(form.constant.getSExtValue())});
  gep.replaceAllUsesWith(offset.getResult());
  gep.erase();
  return true;
}

/// Whether `func` addresses shared memory (NVVM address space 3). Such
/// kernels (hex tiles with promoted arrays) keep upstream's form: on an H100
/// the rewrite made them 6% slower to 8% faster (docs/performance.md),
/// where it made every kernel without shared memory as fast or faster.
bool usesSharedMemory(LLVM::LLVMFuncOp func) {
  return func
      .walk([](Operation *op) {
        for (Type type : op->getResultTypes())
          if (auto pointer = dyn_cast<LLVM::LLVMPointerType>(type);
              pointer && pointer.getAddressSpace() == 3)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

struct StencilKernelAddressOffsets
    : stencil::impl::StencilKernelAddressOffsetsBase<
          StencilKernelAddressOffsets> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUModuleOp module) {
      module.walk([](LLVM::LLVMFuncOp func) {
        if (usesSharedMemory(func))
          return;
        DenseMap<Value, unsigned> order;
        func.walk<WalkOrder::PreOrder>([&](Block *block) {
          for (BlockArgument arg : block->getArguments())
            order.try_emplace(arg, order.size());
          for (Operation &op : *block)
            for (Value result : op.getResults())
              order.try_emplace(result, order.size());
        });
        SmallVector<LLVM::GEPOp> geps;
        func.walk([&](LLVM::GEPOp gep) { geps.push_back(gep); });
        for (LLVM::GEPOp gep : geps)
          splitConstantOffset(gep, order);
      });
    });
  }
};

} // namespace
