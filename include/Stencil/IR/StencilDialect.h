//===- StencilDialect.h - stencil dialect -----------------------*- C++ -*-===//

#ifndef STENCIL_IR_STENCILDIALECT_H
#define STENCIL_IR_STENCILDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Stencil/IR/StencilDialect.h.inc"

#endif // STENCIL_IR_STENCILDIALECT_H
