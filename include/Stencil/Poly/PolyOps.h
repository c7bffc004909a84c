//===- PolyOps.h - polyhedral form of stencil programs ----------*- C++ -*-===//

#ifndef STENCIL_POLY_POLYOPS_H
#define STENCIL_POLY_POLYOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Stencil/Poly/PolyDialect.h.inc"

#define GET_OP_CLASSES
#include "Stencil/Poly/PolyOps.h.inc"

namespace mlir::stencil::poly {
/// Sets the schedule of `scop` to `text` as isl printed it: text that parses,
/// which the verifier then does not parse again.
void setPrintedSchedule(ScopOp scop, llvm::StringRef text);
} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_POLYOPS_H
