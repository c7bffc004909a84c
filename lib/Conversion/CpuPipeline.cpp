//===- CpuPipeline.cpp - stencil program to the LLVM dialect for the CPU ---===//

#include "Stencil/Conversion/Passes.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void stencil::buildStencilCpuPipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &options) {
  pm.addPass(stencil::createStencilShapeInference());
  if (options.emulateGpu) {
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
  }
  ConvertStencilToLoopsOptions loops;
  // The GPU mapping takes every dimension of the points.
  loops.parallelAllDims = options.emulateGpu;
  pm.addPass(stencil::createConvertStencilToLoops(loops));
  if (options.emulateGpu) {
    // Before the canonicalizer, which would fold a loop of one iteration
    // into host code.
    StencilParallelToGpuOptions launches;
    launches.blockSizes.assign(options.blockSizes.begin(), options.blockSizes.end());
    pm.addPass(stencil::createStencilParallelToGpu(launches));
    // The kernels as --convert-to-gpu outlines them.
    stencil::addKernelCleanupPasses(pm);
    StencilGpuEmulateOptions emulation;
    emulation.parallelBlocks = options.openmp;
    emulation.raceCheck = options.raceCheck;
    emulation.reverseThreads = options.reverseThreads;
    emulation.profile = options.profile;
    pm.addPass(stencil::createStencilGpuEmulate(emulation));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
    // The conversion wraps each parallel body in a memref.alloca_scope,
    // whose region must stay one block: the canonicalizer inlines the
    // scopes (the bodies allocate nothing) before the inner loops become
    // control flow. It must see no calls there, which might allocate: so
    // the math calls below come after it.
    pm.addPass(createCanonicalizerPass());
  }
  // Software implementations of math ops LLVM has no intrinsic for (fpowi,
  // ipowi, as Devito emits them).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  if (options.openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void stencil::registerStencilCpuPipeline() {
  registerPassPipeline(
      "stencil-cpu-pipeline",
      "Lower a stencil program to the LLVM dialect for the CPU "
      "(shape inference, reference lowering to loops, optional OpenMP)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        // The emulation takes the chips --convert-to-gpu takes.
        if (options.emulateGpu && !isNvptxProcessor(options.chip))
          return errorHandler("stencil-cpu-pipeline: chip '" + options.chip +
                              "' is not a GPU architecture LLVM's NVPTX back "
                              "end knows (e.g. sm_80, sm_90)");
        buildStencilCpuPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(CpuPipelineOptions());
      });
}
