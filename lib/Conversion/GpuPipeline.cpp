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
#include "Stencil/Conversion/Ptxas.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUEXACTMATH
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {
/// NVVM's correctly rounded square root (sqrt.rn) of a scalar: the NVVM
/// intrinsic for f32 and f64 (upstream's GPU-to-NVVM conversion refuses
/// llvm.intr.sqrt, and its libdevice call is not exact), through f32 for
/// narrower floats (exact: f32 has more than twice their precision plus
/// two bits). Null for other types, which keep math.sqrt.
Value correctlyRoundedSqrt(math::SqrtOp sqrt) {
  OpBuilder b(sqrt);
  Location loc = sqrt.getLoc();
  Value x = sqrt.getOperand();
  auto type = dyn_cast<FloatType>(x.getType());
  if (!type || type.getWidth() > 64)
    return {};
  auto intrinsic = [&](Value v, StringRef name) -> Value {
    return LLVM::CallIntrinsicOp::create(b, loc, v.getType(),
                                         b.getStringAttr(name), ValueRange{v})
        .getResult(0);
  };
  if (type.isF64())
    return intrinsic(x, "llvm.nvvm.sqrt.rn.d");
  if (type.isF32())
    return intrinsic(x, "llvm.nvvm.sqrt.rn.f");
  if (type.getWidth() > 32)
    return {};
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type,
                                 intrinsic(wide, "llvm.nvvm.sqrt.rn.f"));
}

struct StencilGpuExactMath final
    : stencil::impl::StencilGpuExactMathBase<StencilGpuExactMath> {
  using StencilGpuExactMathBase::StencilGpuExactMathBase;

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (auto sqrt = dyn_cast<math::SqrtOp>(op)) {
        if (Value exact = correctlyRoundedSqrt(sqrt)) {
          sqrt.replaceAllUsesWith(exact);
          sqrt.erase();
        }
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

} // namespace

/// NVPTX's short pointers are a flag of the backend, not of the NVVM target
/// attribute: 32-bit addresses for the shared, constant and local address
/// spaces (the data layout's p3:32), so a shared access costs 32-bit adds
/// instead of a widening multiply and 64-bit adds.
static void setNvptxShortPointers(bool enable) {
  auto &registered = llvm::cl::getRegisteredOptions();
  auto it = registered.find("nvptx-short-ptr");
  if (it != registered.end())
    static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(enable);
}

/// Upstream's NVVM lowering pipeline with its gpu-module-to-binary replaced
/// by stencil-gpu-module-to-binary: the same options and result, the
/// kernels' modules serialized in parallel. The pipeline is edited in its
/// textual form, which round-trips every pass with its options.
static void addLowerToNvvmPasses(OpPassManager &pm,
                                 const gpu::GPUToNVVMPipelineOptions &nvvm,
                                 bool relieveSpills,
                                 bool loopStrengthReduction) {
  OpPassManager upstream(pm.getOpAnchorName());
  gpu::buildLowerToNVVMPassPipeline(upstream, nvvm);
  std::string text;
  llvm::raw_string_ostream os(text);
  upstream.printAsTextualPipeline(os);
  // Only the list of passes, without the anchor around it.
  StringRef list(text);
  if (list.consume_front((pm.getOpAnchorName() + "(").str()))
    list.consume_back(")");
  constexpr StringLiteral kUpstream = "gpu-module-to-binary{";
  size_t at = list.find(kUpstream);
  std::string edited = list.str();
  if (at != StringRef::npos) {
    if (!relieveSpills)
      edited.insert(at + kUpstream.size(), "relieve-spills=false ");
    if (loopStrengthReduction)
      edited.insert(at + kUpstream.size(), "loop-strength-reduction=true ");
    edited.insert(at, "stencil-");
  }
  OpPassManager trial(pm.getOpAnchorName());
  if (at != StringRef::npos &&
      succeeded(parsePassPipeline(edited, trial, llvm::nulls())))
    (void)parsePassPipeline(edited, pm);
  else // upstream's pipeline as it is: serial, but complete
    gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

/// The canonicalizer, visiting operations bottom-up. Top-down, the loops are
/// visited before their bodies, and every constant folded in a body queues
/// the enclosing loops again, whose dead-code check rescans the body: the
/// kernels of elastic 3D at order 8 (30k ops) took 1.4 s, bottom-up 0.2 s.
static std::unique_ptr<Pass> createBottomUpCanonicalizer() {
  return createCanonicalizerPass(
      GreedyRewriteConfig().setUseTopDownTraversal(false));
}

void stencil::addKernelCleanupPasses(OpPassManager &pm) {
  pm.addPass(createBottomUpCanonicalizer());
  pm.addPass(createCSEPass());
  pm.addPass(stencil::createStencilHoistOutOfBranches());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(stencil::createStencilSharedLoadReuse());
}

void stencil::buildStencilGpuPipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &options) {
  pm.addPass(stencil::createStencilShapeInference());
  poly::PolyToGpuOptions mapping;
  mapping.threads.assign(options.threads.begin(), options.threads.end());
  mapping.promote = options.promote;
  mapping.sharedBudget = options.sharedBudget;
  mapping.chip = options.chip;
  mapping.threadPoints = options.threadPoints;
  mapping.interTileReuse = options.interTileReuse;
  mapping.tileGrid = options.tileGrid;
  mapping.alignLoads = options.alignLoads;
  mapping.unroll = options.unroll;
  mapping.unrollBudget = options.unrollBudget;
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
  stencil::addKernelCleanupPasses(pm);
  // fpowi/ipowi (as Devito emits them): the software versions the CPU
  // pipeline uses (the same bits; NVVM has no ipowi), made while the
  // kernels are still gpu.launch bodies: outlining copies the functions
  // they call into each kernel's module (math-to-funcs runs on a
  // builtin.module only).
  pm.addPass(createConvertMathToFuncs());
  // Constants and index computations move into the kernels instead of
  // becoming kernel arguments: ptxas then sees constant bounds and strides.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(stencil::createStencilKernelLaunchBounds(
      {options.chip, options.blocksPerSM}));
  pm.addPass(stencil::createStencilKernelDynamicShared({options.chip}));
  pm.addNestedPass<gpu::GPUModuleOp>(
      stencil::createStencilGpuExactMath({options.contract}));
  if (!options.hostToLLVM) {
    pm.addPass(createBottomUpCanonicalizer());
    return;
  }
  // gpu-to-llvm lowers the asynchronous forms of gpu.alloc/gpu.dealloc only:
  // the host's GPU ops become a chain of async tokens on one stream.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(stencil::createStencilKernelIndexWidth({options.indexBitwidth}));
  if (options.readOnlyLoads)
    pm.addPass(stencil::createStencilKernelReadOnlyOperands());
  if (options.addressOffsets) {
    pm.addPass(stencil::createStencilKernelAddressOffsets());
    pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  }
  // After the read-only analysis, which follows memrefs through the host's
  // loops.
  if (options.asyncLoops) {
    pm.addNestedPass<func::FuncOp>(stencil::createStencilGpuAsyncLoops());
    // A token carried by scf.for is illegal to upstream's
    // convert-nvgpu-to-nvvm (its structural type conversion cannot convert
    // it); as a block argument gpu-to-llvm converts it with the rest.
    pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  }
  setNvptxShortPointers(options.shortSharedPointers);
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  std::string format = options.format;
  if (format == "auto")
    format = findPtxas() ? "bin" : "isa";
  nvvm.cubinFormat = format;
  nvvm.optLevel = options.optLevel;
  addLowerToNvvmPasses(pm, nvvm, options.relieveSpills,
                       options.loopStrengthReduction);
  if (options.asyncLoops)
    pm.addPass(stencil::createStencilGpuCarriedStreams());
}

std::optional<std::pair<unsigned, StringRef>>
stencil::parseSmChip(StringRef chip) {
  unsigned sm;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, sm))
    return std::nullopt;
  return std::make_pair(sm, chip);
}

bool stencil::isNvptxProcessor(StringRef chip) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  return info && info->isCPUStringValid(chip);
}

/// The oldest PTX ISA version (e.g. 78 for 7.8) whose targets include
/// `chip` ("Supported Targets" of the PTX ISA's release history; LLVM's
/// NVPTX back end aborts below it). None for a chip not listed here.
static std::optional<unsigned> minimumPtxVersion(StringRef chip) {
  std::optional<std::pair<unsigned, StringRef>> parsed = parseSmChip(chip);
  if (!parsed)
    return std::nullopt;
  auto [sm, suffix] = *parsed;
  // Family-specific targets ("f") came with PTX 8.8 (sm_110f with 9.0);
  // architecture-specific ones ("a") with their chip, sm_90a with 8.0.
  if (suffix == "f")
    return sm == 110 ? 90 : 88;
  if (suffix == "a" && sm == 90)
    return 80;
  if (!suffix.empty() && suffix != "a")
    return std::nullopt;
  switch (sm) {
  case 20:
  case 21:
  case 30:
  case 35:
    return 32;
  case 32:
  case 50:
    return 40;
  case 37:
  case 52:
    return 41;
  case 53:
    return 42;
  case 60:
  case 61:
  case 62:
    return 50;
  case 70:
    return 60;
  case 72:
    return 61;
  case 75:
    return 63;
  case 80:
    return 70;
  case 86:
    return 71;
  case 87:
    return 74;
  case 89:
  case 90:
    return 78;
  case 100:
  case 101:
    return 86;
  case 120:
    return 87;
  case 103:
  case 121:
    return 88;
  case 88:
  case 110:
    return 90;
  default:
    return std::nullopt;
  }
}

/// Checks `chip` and `features` before anything is built (LLVM's NVPTX back
/// end aborts the process on a PTX version too old for the chip), and
/// raises the default PTX version where the chip needs a newer one.
static LogicalResult
resolveTarget(GpuPipelineOptions &options,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string chip = options.chip;
  if (!isNvptxProcessor(chip))
    return errorHandler("convert-to-gpu: chip '" + chip +
                        "' is not a GPU architecture LLVM's NVPTX back end "
                        "knows (e.g. sm_80, sm_90)");
  std::optional<unsigned> needed = minimumPtxVersion(chip);
  if (!needed)
    return errorHandler("convert-to-gpu: the PTX version chip " + chip +
                        " needs is not known here: give it as features "
                        "(e.g. features=+ptx88)");
  unsigned given = 0;
  for (StringRef feature : llvm::split(StringRef(options.features), ',')) {
    StringRef version = feature.trim();
    unsigned v;
    if (version.consume_front("+ptx") && !version.getAsInteger(10, v))
      given = std::max(given, v);
  }
  auto ptx = [](unsigned v) { return "+ptx" + std::to_string(v); };
  if (given >= *needed)
    return success();
  if (!options.features.hasValue()) {
    options.features = ptx(*needed);
    return success();
  }
  return errorHandler("convert-to-gpu: features '" + options.features +
                      "' do not give the PTX version " + chip + " needs: add " +
                      ptx(*needed) + " or newer");
}

/// Checks the option values no pass of the pipeline would see (`threads`
/// of an untiled program, `format` before it is resolved) or that are out
/// of range on every chip, before anything is built.
static LogicalResult
checkOptionValues(const GpuPipelineOptions &options,
                  function_ref<LogicalResult(const Twine &)> errorHandler) {
  static constexpr StringLiteral formats[] = {
      "auto",   "bin",       "binary", "isa",       "assembly",
      "fatbin", "fatbinary", "llvm",   "offloading"};
  if (!llvm::is_contained(formats, StringRef(options.format)))
    return errorHandler("convert-to-gpu: format '" + options.format +
                        "' is not one of auto, bin (binary), isa "
                        "(assembly), fatbin (fatbinary) and llvm "
                        "(offloading)");
  for (int64_t t : options.threads)
    if (t < 1 || t > 1024)
      return errorHandler("convert-to-gpu: threads must be 1 to 1024 per "
                          "dimension, got " +
                          Twine(t));
  // (No NVIDIA GPU keeps more than 32 blocks on an SM.)
  if (options.blocksPerSM < 1 || options.blocksPerSM > 32)
    return errorHandler("convert-to-gpu: blocks-per-sm must be 1 to 32, got " +
                        Twine(options.blocksPerSM.getValue()));
  return success();
}

void stencil::registerStencilGpuPipeline() {
  registerPassPipeline(
      "convert-to-gpu",
      "Lower a stencil program (untiled, or tiled by --hex-tile) to GPU "
      "kernels in a cubin (PTX without ptxas) and host code in the LLVM "
      "dialect that launches them through the stencil CUDA runtime",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GpuPipelineOptions options;
        if (failed(options.parseFromString(text)) ||
            failed(checkOptionValues(options, errorHandler)) ||
            failed(resolveTarget(options, errorHandler)))
          return failure();
        buildStencilGpuPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(GpuPipelineOptions());
      });
}
