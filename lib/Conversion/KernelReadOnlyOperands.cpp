//===- KernelReadOnlyOperands.cpp - ld.global.nc for read-only operands ---===//
//
// nvcc compiles a `const float *__restrict__` kernel argument into loads
// through the read-only data cache (ld.global.nc); NVPTX does the same for a
// kernel pointer parameter that is `noalias` and `readonly`. Upstream's
// lowering cannot put `noalias` on a memref operand (its descriptor has two
// pointers to the same buffer), so our kernels load everything with plain
// ld.global (measured on an H100: untiled kernels at 0.76-0.91x nvcc's naive
// ones, docs/performance.md). This pass states the fact on the aligned
// pointer, after the device modules are lowered, where the host proves it
// (the conditions are in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "FieldAliases.h"
#include "Stencil/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILKERNELREADONLYOPERANDS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// Whether every use of `pointer` (a kernel parameter), through address
/// computations, is the address of a load.
bool onlyLoadedFrom(Value pointer) {
  for (OpOperand &use : pointer.getUses()) {
    Operation *user = use.getOwner();
    if (auto load = dyn_cast<LLVM::LoadOp>(user);
        load && load.getAddr() == pointer)
      continue;
    if (auto gep = dyn_cast<LLVM::GEPOp>(user);
        gep && gep.getBase() == pointer && onlyLoadedFrom(gep))
      continue;
    if (isa<LLVM::AddrSpaceCastOp>(user) && onlyLoadedFrom(user->getResult(0)))
      continue;
    return false;
  }
  return true;
}

/// When `arg` is a memref iteration argument of an scf.for whose yields
/// permute its memref iteration arguments: the loop, else null. The memref
/// iteration arguments of such a loop hold, at every iteration, a
/// permutation of its initial values.
scf::ForOp rotatingLoop(BlockArgument arg) {
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() < loop.getNumInductionVars())
    return nullptr;
  llvm::SmallPtrSet<Value, 4> yielded;
  for (auto [iterArg, next] :
       llvm::zip(loop.getRegionIterArgs(), loop.getYieldedValues())) {
    if (!isa<BaseMemRefType>(iterArg.getType()))
      continue;
    auto nextArg = dyn_cast<BlockArgument>(next);
    if (!nextArg || nextArg.getOwner() != arg.getOwner() ||
        !yielded.insert(next).second)
      return nullptr;
  }
  return loop;
}

bool isAllocation(Value v) {
  return v.getDefiningOp<memref::AllocOp>() ||
         v.getDefiningOp<memref::AllocaOp>() || v.getDefiningOp<gpu::AllocOp>();
}

/// An argument of the entry function: a field of the stencil program.
bool isEntryArgument(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner()->isEntryBlock() &&
         isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// Appends the buffers (entry arguments and allocations) `memref` may be
/// to `buffers`; false when it may be something else.
bool collectBuffers(Value memref, SmallVectorImpl<Value> &buffers) {
  memref = stencil::viewedBuffer(memref);
  if (isAllocation(memref) || isEntryArgument(memref)) {
    buffers.push_back(memref);
    return true;
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  scf::ForOp loop = arg ? rotatingLoop(arg) : nullptr;
  if (!loop)
    return false;
  for (auto [iterArg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    if (isa<BaseMemRefType>(iterArg.getType()) && !collectBuffers(init, buffers))
      return false;
  return true;
}

/// Whether `a` and `b` are provably different buffers (see Passes.td).
bool differentBuffers(Value a, Value b) {
  a = stencil::viewedBuffer(a);
  b = stencil::viewedBuffer(b);
  if (a == b)
    return false;
  // Two iteration arguments of one rotating loop: different when every
  // pair of initial values is, as the rotation may bring any two of them
  // into `a` and `b`.
  auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
  if (argA && argB && argA.getOwner() == argB.getOwner())
    if (scf::ForOp loop = rotatingLoop(argA)) {
      SmallVector<Value> inits;
      for (auto [iterArg, init] :
           llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
        if (isa<BaseMemRefType>(iterArg.getType()))
          inits.push_back(init);
      for (size_t i = 0; i < inits.size(); ++i)
        for (size_t j = i + 1; j < inits.size(); ++j)
          if (!differentBuffers(inits[i], inits[j]))
            return false;
      return true;
    }
  SmallVector<Value> buffersA, buffersB;
  if (!collectBuffers(a, buffersA) || !collectBuffers(b, buffersB))
    return false;
  return llvm::none_of(buffersA,
                       [&](Value v) { return llvm::is_contained(buffersB, v); });
}

struct KernelReadOnlyOperands final
    : stencil::impl::StencilKernelReadOnlyOperandsBase<
          KernelReadOnlyOperands> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTableCollection symbols;
    DenseMap<Operation *, SmallVector<gpu::LaunchFuncOp>> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (auto kernel = symbols.lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
              launch, launch.getKernel()))
        launches[kernel].push_back(launch);
    });
    // The parameters of a memref operand as the host passes them: allocated
    // pointer, aligned pointer, offset, sizes, strides.
    LLVMTypeConverter converter(ctx);
    for (auto &[op, sites] : launches) {
      auto kernel = cast<LLVM::LLVMFuncOp>(op);
      if (kernel.isExternal())
        continue;
      ValueRange operands = sites.front().getKernelOperands();
      TypeConverter::SignatureConversion signature(operands.size());
      if (!converter.convertFunctionSignature(
              FunctionType::get(ctx, operands.getTypes(), {}),
              /*isVariadic=*/false, /*useBarePtrCallConv=*/false, signature) ||
          signature.getConvertedTypes().size() != kernel.getNumArguments())
        continue;
      auto param = [&](unsigned operand, unsigned part) {
        return kernel.getArgument(signature.getInputMapping(operand)->inputNo +
                                  part);
      };
      auto isMemref = [&](unsigned i) {
        return isa<MemRefType>(operands[i].getType());
      };
      SmallVector<bool> readOnly(operands.size(), false);
      for (unsigned i = 0; i < operands.size(); ++i)
        readOnly[i] = isMemref(i) && param(i, 0).use_empty() &&
                      onlyLoadedFrom(param(i, 1));
      for (unsigned i = 0; i < operands.size(); ++i) {
        if (!readOnly[i])
          continue;
        bool unaliased = llvm::all_of(sites, [&](gpu::LaunchFuncOp launch) {
          ValueRange passed = launch.getKernelOperands();
          for (unsigned j = 0; j < passed.size(); ++j)
            if (j != i && isMemref(j) && !readOnly[j] &&
                !differentBuffers(passed[i], passed[j]))
              return false;
          return true;
        });
        if (!unaliased)
          continue;
        unsigned aligned = signature.getInputMapping(i)->inputNo + 1;
        kernel.setArgAttr(aligned, LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(ctx));
        kernel.setArgAttr(aligned, LLVM::LLVMDialect::getReadonlyAttrName(),
                          UnitAttr::get(ctx));
      }
    }
  }
};
} // namespace
