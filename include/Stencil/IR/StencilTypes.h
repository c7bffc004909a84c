//===- StencilTypes.h - stencil types and attributes ------------*- C++ -*-===//

#ifndef STENCIL_IR_STENCILTYPES_H
#define STENCIL_IR_STENCILTYPES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_ATTRDEF_CLASSES
#include "Stencil/IR/StencilAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Stencil/IR/StencilTypes.h.inc"

namespace mlir::stencil {

/// Element type of a field, temp or result type; null for other types.
Type getElementTypeOf(Type type);

/// Rank of a field or temp type; 0 for other types.
unsigned getRankOf(Type type);

/// Bounds of a field or temp type, or null when unknown.
BoundsAttr getBoundsOf(Type type);

/// The field or temp type `type` with bounds `bounds` (null: dynamic).
Type withBounds(Type type, BoundsAttr bounds);

} // namespace mlir::stencil

#endif // STENCIL_IR_STENCILTYPES_H
