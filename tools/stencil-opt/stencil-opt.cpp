//===- stencil-opt.cpp - the stencil compiler driver -----------------------===//
//
// mlir-opt with the stencil dialect and passes added: every upstream dialect
// and pass is registered too, so programs that mix the stencil dialect with
// other dialects (as Devito's do) parse and lower.
//
//===----------------------------------------------------------------------===//

#include "Stencil/InitStencil.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerStencilDialect(registry);
  mlir::registerAllPasses();
  mlir::registerStencilPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Stencil compiler: polyhedral time tiling for GPUs\n",
      registry));
}
