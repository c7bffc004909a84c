//===- stencil-opt.cpp - the stencil compiler driver -----------------------===//
//
// mlir-opt with the stencil dialect and passes added: every upstream dialect
// and pass is registered too, so programs that mix the stencil dialect with
// other dialects (as Devito's do) parse and lower.
//
//===----------------------------------------------------------------------===//

#include "Stencil/InitStencil.h"
#include "Stencil/Poly/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerStencilDialect(registry);
  mlir::registerAllPasses();
  mlir::registerStencilPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Stencil compiler: polyhedral time tiling for GPUs\n",
      registry);

  // The pipeline as given, then: a time tiling for a target not yet known
  // that a GPU mapping follows leaves the tiling to it (it would be redone).
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::MlirOptMainConfig given = config;
  config.setPassPipelineSetupFn([given](mlir::PassManager &pm) {
    if (mlir::failed(given.setupPassPipeline(pm)))
      return mlir::failure();
    mlir::stencil::poly::leaveTilingToGpuMapping(pm);
    return mlir::success();
  });

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
