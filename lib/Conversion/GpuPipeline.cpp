//===- GpuPipeline.cpp - stencil program to a cubin and host code
//----------===//
//
// `convert-to-gpu`: the mapped form (hex-tiled scops through poly-to-gpu,
// everything else through the reference lowering and
// stencil-parallel-to-gpu), then upstream's NVVM lowering, which outlines
// the kernels, serializes them with ptxas and lowers the host code to the
// LLVM dialect with calls into the GPU runtime (lib/Runtime).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"
#include "Stencil/Poly/GpuDevice.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <limits>
#include <map>
#include <optional>

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUEXACTMATH
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {
struct StencilGpuExactMath final
    : stencil::impl::StencilGpuExactMathBase<StencilGpuExactMath> {
  using StencilGpuExactMathBase::StencilGpuExactMathBase;

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (auto sqrt = dyn_cast<math::SqrtOp>(op)) {
        OpBuilder b(sqrt);
        Value exact = LLVM::SqrtOp::create(b, sqrt.getLoc(), sqrt.getOperand());
        sqrt.replaceAllUsesWith(exact);
        sqrt.erase();
        return;
      }
      if (!contract || !isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
        return;
      auto fmf = cast<arith::ArithFastMathInterface>(op);
      auto flags = fmf.getFastMathFlagsAttr().getValue() |
                   arith::FastMathFlags::contract;
      op->setAttr(fmf.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(op->getContext(), flags));
    });
  }
};

/// Whether ptxas can be found the way the NVVM target looks for it: in the
/// CUDA toolkit (CUDA_ROOT, CUDA_HOME, CUDA_PATH, /usr/local/cuda), else on
/// PATH.
bool havePtxas() {
  for (const char *env : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *dir = std::getenv(env)) {
      SmallString<128> path(dir);
      llvm::sys::path::append(path, "bin", "ptxas");
      if (llvm::sys::fs::can_execute(path))
        return true;
    }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return true;
  return static_cast<bool>(llvm::sys::findProgramByName("ptxas"));
}

//===----------------------------------------------------------------------===//
// Index width of the kernels
//===----------------------------------------------------------------------===//
//
// Upstream's NVVM pipeline has one index width for host and kernels (its
// `index-bitwidth` option; 32 there breaks the host code and the kernels'
// argument layout). Here the kernels alone get 32-bit index arithmetic: the
// device modules are lowered first, with 32-bit indices, by a pipeline of
// their own; the kernels' parameters that come from `index` (memref
// descriptor offsets, sizes and strides, index arguments) are then widened
// back to i64 and truncated on entry, so that the host, lowered with 64-bit
// indices, passes what the kernels expect. The upstream pipeline that
// follows finds the device modules already in the LLVM dialect.
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
// 64 stays the default: with 32-bit indices every access widens its own
// 32-bit offset (LLVM cannot fold the constant offsets of neighbouring
// accesses into one 64-bit base across the extension), which saves
// registers in small kernels but costs many in unrolled hex-tiled ones
// (docs/performance.md, "32-bit kernel index arithmetic").

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

/// The lowering of a device module with 32-bit indices (the device half of
/// upstream's gpu-lower-to-nvvm-pipeline).
void buildDevice32Pipeline(OpPassManager &pm) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 32;
  pm.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Chooses the kernels' index width and, for 32 bits, lowers the device
/// modules (see above).
struct KernelIndexWidth
    : public PassWrapper<KernelIndexWidth, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KernelIndexWidth)

  explicit KernelIndexWidth(unsigned requested) : requested(requested) {}
  KernelIndexWidth(const KernelIndexWidth &other)
      : PassWrapper(other), requested(other.requested) {}

  StringRef getArgument() const override {
    return "stencil-kernel-index-width";
  }
  StringRef getDescription() const override {
    return "Lower the GPU kernels with 32-bit index arithmetic when their "
           "sizes allow it";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager device(gpu::GPUModuleOp::getOperationName());
    buildDevice32Pipeline(device);
    device.getDependentDialects(registry);
    registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (requested != 0 && requested != 32 && requested != 64) {
      module.emitError("index-bitwidth must be 32, 64 or 0 (automatic), not ")
          << requested;
      return signalPassFailure();
    }
    if (requested == 64)
      return;
    std::optional<IndexWidthObstacle> obstacle = findIndexWidthObstacle(module);
    if (obstacle && requested == 32 && obstacle->proven) {
      obstacle->where->emitError("index-bitwidth=32: ") << obstacle->why;
      return signalPassFailure();
    }
    // Automatic: 64 bits unless every size is known to fit. Explicit 32 with
    // sizes unknown on the host: the caller vouches for them.
    if (obstacle && requested == 0)
      return;

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

    OpPassManager device(gpu::GPUModuleOp::getOperationName());
    buildDevice32Pipeline(device);
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      if (failed(runPipeline(device, gpuModule)))
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

  unsigned requested;
};

//===----------------------------------------------------------------------===//
// Launch bounds
//===----------------------------------------------------------------------===//
//
// ptxas sizes a kernel's registers from its launch bounds. With only
// `.maxntid` (from the known block size) it guesses an occupancy and may
// spill to reach it (e.g. 64 registers and 8 bytes spilled where 99 fit);
// `.minnctapersm` states the occupancy the kernel is meant for, so the
// register limit is the one that occupancy allows and no lower. The target
// is two resident blocks per SM (one block's barriers then overlap with the
// other's work), fewer when shared memory or threads do not allow two or
// when the grid has too few blocks to give every SM a second one.

/// The resident blocks per SM a kernel is compiled for: `threads` threads
/// and `sharedBytes` of shared memory per block, `gridBlocks` blocks (0:
/// unknown).
int64_t targetBlocksPerSM(const GpuDevice &device, int64_t threads,
                          int64_t sharedBytes, int64_t gridBlocks) {
  constexpr int64_t kWanted = 2;
  int64_t blocks = std::min<int64_t>(
      kWanted, residentBlocksPerSM(device, threads, 0, sharedBytes));
  if (gridBlocks > 0)
    blocks = std::min<int64_t>(blocks, llvm::divideCeil(gridBlocks, device.sms));
  return std::max<int64_t>(blocks, 1);
}

/// Bytes of the static workgroup (shared) memory of `func`.
int64_t workgroupBytes(gpu::GPUFuncOp func) {
  int64_t bytes = 0;
  for (BlockArgument buffer : func.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape())
      continue;
    bytes += type.getNumElements() *
             llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

struct KernelLaunchBounds
    : public PassWrapper<KernelLaunchBounds, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KernelLaunchBounds)

  explicit KernelLaunchBounds(std::string chip) : chip(std::move(chip)) {}
  KernelLaunchBounds(const KernelLaunchBounds &other)
      : PassWrapper(other), chip(other.chip) {}

  StringRef getArgument() const override {
    return "stencil-kernel-launch-bounds";
  }
  StringRef getDescription() const override {
    return "Give each kernel the resident blocks per SM it is compiled for "
           "(nvvm.minctasm), from the device table";
  }

  void runOnOperation() override {
    const GpuDevice *device = lookupGpuDevice(chip);
    if (!device)
      return; // Not in the table: ptxas chooses.
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
      if (!func.isKernel() || !block || func->hasAttr("nvvm.minctasm"))
        return;
      int64_t threads = 1, gridBlocks = 1;
      for (int32_t size : *block)
        threads *= size;
      if (std::optional<ArrayRef<int32_t>> grid = func.getKnownGridSize())
        for (int32_t size : *grid)
          gridBlocks *= size;
      else
        gridBlocks = 0;
      int64_t blocks = targetBlocksPerSM(*device, threads,
                                         workgroupBytes(func), gridBlocks);
      func->setAttr("nvvm.minctasm",
                    IntegerAttr::get(IntegerType::get(ctx, 32), blocks));
    });
  }

  std::string chip;
};
} // namespace

void stencil::addKernelCleanupPasses(OpPassManager &pm) {
  pm.addPass(stencil::createStencilHoistOutOfBranches());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
}

void stencil::buildStencilGpuPipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &options) {
  pm.addPass(stencil::createStencilShapeInference());
  poly::PolyToGpuOptions mapping;
  mapping.threads.assign(options.threads.begin(), options.threads.end());
  mapping.promote = options.promote;
  mapping.sharedBudget = options.sharedBudget;
  mapping.chip = options.chip;
  mapping.unroll = options.unroll;
  pm.addPass(poly::createPolyToGpu(mapping));
  ConvertStencilToLoopsOptions loops;
  loops.parallelAllDims = true;
  pm.addPass(stencil::createConvertStencilToLoops(loops));
  // Before the canonicalizer, which would fold a loop of one iteration into
  // host code.
  StencilParallelToGpuOptions launches;
  launches.blockSizes.assign(options.blockSizes.begin(),
                             options.blockSizes.end());
  pm.addPass(stencil::createStencilParallelToGpu(launches));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  stencil::addKernelCleanupPasses(pm);
  // Constants and index computations move into the kernels instead of
  // becoming kernel arguments: ptxas then sees constant bounds and strides.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(std::make_unique<KernelLaunchBounds>(options.chip));
  pm.addNestedPass<gpu::GPUModuleOp>(
      stencil::createStencilGpuExactMath({options.contract}));
  // fpowi/ipowi (as Devito emits them) have no NVVM lowering: software
  // versions inside the kernel module.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertMathToFuncs());
  if (!options.hostToLLVM) {
    pm.addPass(createCanonicalizerPass());
    return;
  }
  // gpu-to-llvm lowers the asynchronous forms of gpu.alloc/gpu.dealloc only:
  // the host's GPU ops become a chain of async tokens on one stream.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(std::make_unique<KernelIndexWidth>(options.indexBitwidth));
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  std::string format = options.format;
  if (format == "auto")
    format = havePtxas() ? "bin" : "isa";
  nvvm.cubinFormat = format;
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

void stencil::registerStencilGpuPipeline() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "convert-to-gpu",
      "Lower a stencil program (untiled, or tiled by --hex-tile) to GPU "
      "kernels in a cubin (PTX without ptxas) and host code in the LLVM "
      "dialect that launches them through the stencil CUDA runtime",
      buildStencilGpuPipeline);
}
