//===- ScopToLoops.h - code generation for poly.scop -----------*- C++ -*-===//

#ifndef STENCIL_POLY_SCOPTOLOOPS_H
#define STENCIL_POLY_SCOPTOLOOPS_H

#include "Stencil/Poly/PolyOps.h"

namespace mlir::stencil::poly {

/// Generates the loops of `scop`'s schedule in front of it. `memrefOf` gives
/// the memref of a field value (element 0 at the field's lower bound);
/// temps get buffers freed after the scop. On success `results` holds the
/// memref of each scop result. The scop itself is left for the caller.
LogicalResult lowerScop(ScopOp scop, function_ref<Value(Value)> memrefOf,
                        SmallVectorImpl<Value> &results);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_SCOPTOLOOPS_H
