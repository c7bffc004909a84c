// An MLIR tool of another project that reuses the stencil dialect, its passes
// and its pipelines through the installed CMake package.
#include "Stencil/InitStencil.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerStencilDialect(registry);
  mlir::registerStencilPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "stencil consumer\n", registry));
}
