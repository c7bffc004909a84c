//===- StencilDialect.cpp - stencil dialect registration -------------------===//

#include "Stencil/IR/StencilDialect.h"
#include "Stencil/IR/StencilOps.h"

using namespace mlir;
using namespace mlir::stencil;

#include "Stencil/IR/StencilDialect.cpp.inc"

void StencilDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Stencil/IR/StencilOps.cpp.inc"
      >();
}
