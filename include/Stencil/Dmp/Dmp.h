//===- Dmp.h - distributed-memory parallelism dialect -----------*- C++ -*-===//

#ifndef STENCIL_DMP_DMP_H
#define STENCIL_DMP_DMP_H

#include "Stencil/IR/StencilTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Stencil/Dmp/DmpDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Stencil/Dmp/DmpAttrs.h.inc"

#define GET_OP_CLASSES
#include "Stencil/Dmp/DmpOps.h.inc"

namespace mlir::dmp {

/// A unit attribute on `dmp.swap`: its exchange completes before the ops
/// after it run. Without it the lowering overlaps the exchange with the
/// points of the following applies that do not need the received halo.
inline constexpr llvm::StringLiteral kBlockingAttr = "dmp.blocking";

/// The process grid of a `#dmp.grid_slice_Nd` strategy, null for any other
/// attribute.
TopoAttr getStrategyTopology(Attribute strategy);

/// The grid-slice strategy over `topology` (1-3 dimensions).
Attribute getGridSliceStrategy(TopoAttr topology, bool diagonals);

} // namespace mlir::dmp

#endif // STENCIL_DMP_DMP_H
