//===- StencilOps.h - stencil operations ------------------------*- C++ -*-===//

#ifndef STENCIL_IR_STENCILOPS_H
#define STENCIL_IR_STENCILOPS_H

#include "Stencil/IR/StencilDialect.h"
#include "Stencil/IR/StencilTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Stencil/IR/StencilOps.h.inc"

#endif // STENCIL_IR_STENCILOPS_H
