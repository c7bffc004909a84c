//===- stencil-consumer-opt.cpp - an out-of-tree user of the package -------===//
//
// A minimal MLIR tool of "another project": it is built against the installed
// Stencil CMake package (find_package(Stencil)) and registers only the few
// upstream dialects a stencil program uses, the stencil dialect and the
// stencil passes/pipelines. Used by test/Integration/out-of-tree-consumer.test.
//
//===----------------------------------------------------------------------===//

#include "Stencil/InitStencil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  mlir::registerStencilDialect(registry);
  mlir::registerStencilPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Out-of-tree consumer of the stencil dialect\n", registry));
}
