//===- Passes.h - passes on the stencil dialect -----------------*- C++ -*-===//

#ifndef STENCIL_TRANSFORMS_PASSES_H
#define STENCIL_TRANSFORMS_PASSES_H

#include "Stencil/IR/StencilOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::stencil {

#define GEN_PASS_DECL
#include "Stencil/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Stencil/Transforms/Passes.h.inc"

/// Shape inference on `block` and on every block nested in it (nested ones
/// first), as `--stencil-shape-inference` does. Emits located errors and
/// returns failure on programs whose bounds cannot be inferred; the types
/// of the failing block may then be partly updated.
LogicalResult inferShapes(Block &block);

/// Shape inference on every block nested in `root` (not in `root`'s own
/// block).
LogicalResult inferShapes(Operation *root);

/// Forget the bounds of every temp produced by a stencil op in `block` and
/// in the blocks nested in it (apply region arguments follow their operands).
void resetShapes(Block &block);

/// Rewrites xDSL's value form of dmp.swap (a loaded temp in, the exchanged
/// temp out) into the field form before the load, which the lowerings
/// take; fails, with an error, on a swap of a temp that is not loaded.
LogicalResult swapFieldsNotTemps(Operation *root);

/// Whether `apply` is unrolled and every unrolled point returns a shifted
/// copy of point 0's computation (`--stencil-reroll`).
bool isRerollable(ApplyOp apply);

/// Drops the unrolling of `apply` when isRerollable: returns point 0's
/// values without `unroll` and erases what only other points used. Returns
/// whether it did.
bool rerollApply(ApplyOp apply);

} // namespace mlir::stencil

#endif // STENCIL_TRANSFORMS_PASSES_H
