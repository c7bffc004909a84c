//===- KernelIndexWidth.cpp - 32-bit index arithmetic in the kernels ------===//
//
// Upstream's NVVM pipeline has one index width for host and kernels (its
// `index-bitwidth` option; 32 there breaks the host code and the kernels'
// argument layout). Here the kernels alone get 32-bit index arithmetic: the
// device modules are lowered first, with 32-bit indices, by a pipeline of
// their own; the kernels' parameters that come from `index` (memref
// descriptor offsets, sizes and strides, index arguments) are then widened
// back to i64 and truncated on entry, so that the host, lowered with 64-bit
// indices, passes what the kernels expect. With 64-bit indices the device
// modules are lowered here too, so that the upstream pipeline that follows
// always finds them in the LLVM dialect and the passes between
// (stencil-kernel-read-only-operands) see the kernels' final parameters.
//
// 32 bits are safe when every index value of a kernel fits in int32: every
// memref a kernel sees has a static layout whose largest element offset is
// below 2^31, every grid size (blocks x threads in one dimension) is below
// 2^31, and every index argument of a launch is known (integer range
// analysis on the host: constants, loop bounds) to lie in int32. Index
// expressions inside a kernel combine these values (tile and thread
// coordinates, loop bounds of the domain) and are assumed to stay in the
// same range.
//
// With launch bounds (stencil-kernel-launch-bounds) the 32-bit form costs
// no registers at the papers' sizes (docs/performance.md, "32-bit kernel
// index arithmetic").
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <limits>
#include <map>
#include <optional>

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILKERNELINDEXWIDTH
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

constexpr int64_t kMaxIndex32 = std::numeric_limits<int32_t>::max();

/// Why a module cannot use 32-bit indices: `proven` when a static size does
/// not fit (an error with index-bitwidth=32), else the sizes are unknown.
struct IndexWidthObstacle {
  Operation *where = nullptr;
  std::string why;
  bool proven = false;
};

/// The largest element offset a memref of this type addresses; nullopt when
/// its shape or layout is dynamic (or it is unranked).
std::optional<int64_t> maxElementOffset(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t max = offset, term;
  for (auto [size, stride] : llvm::zip(memref.getShape(), strides)) {
    if (size == 0)
      return 0;
    if (llvm::MulOverflow(size - 1, stride < 0 ? -stride : stride, term) ||
        llvm::AddOverflow(max, term, max))
      return std::numeric_limits<int64_t>::max();
  }
  return max;
}

/// Checks the kernels of `module` (see above). Returns the first obstacle to
/// 32-bit indices, a proven one first.
std::optional<IndexWidthObstacle> findIndexWidthObstacle(ModuleOp module) {
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  bool rangesKnown = succeeded(solver.initializeAndRun(module));
  auto rangeOf = [&](Value v) -> std::optional<ConstantIntRanges> {
    if (!rangesKnown)
      return std::nullopt;
    auto *state = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    if (!state || state->getValue().isUninitialized())
      return std::nullopt;
    return state->getValue().getValue();
  };

  std::optional<IndexWidthObstacle> unknown, proven;
  auto note = [&](Operation *where, bool isProven, const Twine &why) {
    std::optional<IndexWidthObstacle> &slot = isProven ? proven : unknown;
    if (!slot)
      slot = IndexWidthObstacle{where, why.str(), isProven};
  };
  auto checkMemref = [&](Operation *where, Type type, StringRef what) {
    std::optional<int64_t> max = maxElementOffset(type);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    if (!max)
      note(where, false, what + " of dynamic shape or layout " + text);
    else if (*max > kMaxIndex32)
      note(where, true,
           what + " " + text + " addresses element " + Twine(*max) +
               ", beyond 32-bit indices");
  };

  module.walk([&](gpu::LaunchFuncOp launch) {
    gpu::KernelDim3 blocks = launch.getGridSizeOperandValues();
    gpu::KernelDim3 threads = launch.getBlockSizeOperandValues();
    for (auto [b, t] :
         {std::pair{blocks.x, threads.x}, std::pair{blocks.y, threads.y},
          std::pair{blocks.z, threads.z}}) {
      std::optional<ConstantIntRanges> rb = rangeOf(b), rt = rangeOf(t);
      if (!rb || !rt || rb->umax().getActiveBits() > 32 ||
          rt->umax().getActiveBits() > 32) {
        note(launch, false, "the grid size is not known on the host");
        continue;
      }
      uint64_t total = rb->umax().getZExtValue() * rt->umax().getZExtValue();
      if (total > static_cast<uint64_t>(kMaxIndex32)) {
        bool exact = rb->umin() == rb->umax() && rt->umin() == rt->umax();
        note(launch, exact,
             "the grid has " + Twine(total) +
                 " threads in one dimension, beyond 32-bit indices");
      }
    }
    for (Value operand : launch.getKernelOperands()) {
      Type type = operand.getType();
      if (isa<BaseMemRefType>(type)) {
        checkMemref(launch, type, "kernel operand");
      } else if (type.isIndex()) {
        std::optional<ConstantIntRanges> r = rangeOf(operand);
        if (!r) {
          note(launch, false, "an index operand is not known on the host");
          continue;
        }
        int64_t lo = r->smin().getSExtValue(), hi = r->smax().getSExtValue();
        if (lo >= std::numeric_limits<int32_t>::min() && hi <= kMaxIndex32)
          continue;
        bool exact = r->smin() == r->smax();
        note(launch, exact,
             "an index operand ranges over [" + Twine(lo) + ", " + Twine(hi) +
                 "], beyond 32-bit indices");
      }
    }
  });
  // Memrefs inside the kernels (views, workgroup and private buffers).
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          checkMemref(op, result.getType(), "a memref in a kernel");
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isa<BaseMemRefType>(arg.getType()))
              checkMemref(op, arg.getType(), "a memref in a kernel");
    });
  });
  return proven ? proven : unknown;
}

/// The lowering of a device module with `bitwidth`-bit indices (the device
/// half of upstream's gpu-lower-to-nvvm-pipeline). With 64 bits in
/// upstream's order (arith and index lowered before the GPU ops), which
/// gives the same kernels as that pipeline; with 32 bits the GPU-op
/// lowering converts arith too (the order docs/performance.md measured;
/// the other order changes the registers of some hex-tiled kernels).
void buildDevicePipeline(OpPassManager &pm, unsigned bitwidth) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  if (bitwidth == 64) {
    ArithToLLVMConversionPassOptions arith;
    arith.indexBitwidth = bitwidth;
    pm.addPass(createArithToLLVMConversionPass(arith));
    ConvertIndexToLLVMPassOptions index;
    index.indexBitwidth = bitwidth;
    pm.addPass(createConvertIndexToLLVMPass(index));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = bitwidth;
  pm.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Chooses the kernels' index width and, for 32 bits, lowers the device
/// modules (see above).

struct KernelIndexWidth final
    : stencil::impl::StencilKernelIndexWidthBase<KernelIndexWidth> {
  using StencilKernelIndexWidthBase::StencilKernelIndexWidthBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    StencilKernelIndexWidthBase::getDependentDialects(registry);
    for (unsigned bitwidth : {32u, 64u}) {
      OpPassManager device(gpu::GPUModuleOp::getOperationName());
      buildDevicePipeline(device, bitwidth);
      device.getDependentDialects(registry);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (indexBitwidth != 0 && indexBitwidth != 32 && indexBitwidth != 64) {
      mlir::emitError(module.getLoc(),
                      "index-bitwidth must be 32, 64 or 0 (automatic), not ")
          << unsigned(indexBitwidth);
      return signalPassFailure();
    }
    std::optional<IndexWidthObstacle> obstacle;
    if (indexBitwidth != 64)
      obstacle = findIndexWidthObstacle(module);
    if (obstacle && indexBitwidth == 32 && obstacle->proven) {
      obstacle->where->emitError("index-bitwidth=32: ") << obstacle->why;
      return signalPassFailure();
    }
    // Automatic: 64 bits unless every size is known to fit. Explicit 32 with
    // sizes unknown on the host: the caller vouches for them.
    auto lowerDeviceModules = [&](unsigned bitwidth) {
      OpPassManager device(gpu::GPUModuleOp::getOperationName());
      buildDevicePipeline(device, bitwidth);
      for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
        if (failed(runPipeline(device, gpuModule)))
          return failure();
      return success();
    };
    if (indexBitwidth == 64 || (obstacle && indexBitwidth == 0)) {
      if (failed(lowerDeviceModules(64)))
        signalPassFailure();
      return;
    }

    // The kernels' parameters as the host passes them (64-bit indices).
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options64(ctx);
    options64.overrideIndexBitwidth(64);
    LLVMTypeConverter converter64(ctx, options64);
    std::map<std::pair<std::string, std::string>, SmallVector<Type>> abi;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel())
          continue;
        TypeConverter::SignatureConversion signature(func.getNumArguments());
        if (!converter64.convertFunctionSignature(
                func.getFunctionType(), /*isVariadic=*/false,
                /*useBarePtrCallConv=*/false, signature)) {
          func.emitError("cannot convert the kernel signature");
          return signalPassFailure();
        }
        abi[{gpuModule.getName().str(), func.getName().str()}] =
            llvm::to_vector(signature.getConvertedTypes());
      }

    if (failed(lowerDeviceModules(32)))
      return signalPassFailure();

    // Parameters that are i64 for the host and became i32: i64 again,
    // truncated on entry.
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
        auto it = abi.find({gpuModule.getName().str(), func.getName().str()});
        if (it == abi.end() || func.isExternal())
          continue;
        const SmallVector<Type> &hostTypes = it->second;
        LLVM::LLVMFunctionType type = func.getFunctionType();
        SmallVector<Type> params(type.getParams());
        if (params.size() != hostTypes.size()) {
          func.emitError("kernel parameters do not match the host's: ")
              << params.size() << " vs " << hostTypes.size();
          return signalPassFailure();
        }
        Block &entry = func.getBody().front();
        OpBuilder builder = OpBuilder::atBlockBegin(&entry);
        for (unsigned i = 0; i < params.size(); ++i) {
          if (params[i] != i32 || hostTypes[i] != i64)
            continue;
          params[i] = i64;
          BlockArgument arg = entry.getArgument(i);
          arg.setType(i64);
          Value narrow = LLVM::TruncOp::create(builder, arg.getLoc(), i32, arg);
          arg.replaceAllUsesExcept(narrow, narrow.getDefiningOp());
        }
        func.setFunctionType(LLVM::LLVMFunctionType::get(
            type.getReturnType(), params, type.isVarArg()));
      }
  }
};
} // namespace
