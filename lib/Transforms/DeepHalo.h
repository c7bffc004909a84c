//===- DeepHalo.h - halos exchanged every h steps ---------------*- C++ -*-===//

#ifndef STENCIL_TRANSFORMS_DEEPHALO_H
#define STENCIL_TRANSFORMS_DEEPHALO_H

#include "Stencil/IR/StencilOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::stencil {

/// The field a field value stands for: the source of its casts.
Value fieldRoot(Value field);

/// Splits every time loop of `func` that stores fields into a loop over
/// blocks of `depth` steps (the body unrolled `depth` times) and a loop over
/// the remaining steps. Returns the block loops. Fails (located error) on a
/// time loop without constant bounds, with stores nested deeper than its
/// body, or rotating buffers that may alias (the same field twice among its
/// initial values).
FailureOr<SmallVector<scf::ForOp>> blockTimeLoops(func::FuncOp func,
                                                  int64_t depth);

/// Gives every store in the body of the block loop `loop` the box the
/// rest of the block reads of its field (at least the core
/// `[coreLb, coreUb)`, at most `[allowedLb, allowedUb)`), so that after the
/// block the core is exact when the block started with exact values on what
/// its first loads read: overlapped (redundant) computation shrinking
/// towards the core, step by step. A fixpoint of shape inference and store
/// bounds. A side where the allowed box ends at the core has no neighbour:
/// what later loads read beyond it is the global field's halo, never
/// written. Fails (located error) when a store would need more than the
/// allowed box on a side that has a neighbour.
LogicalResult widenBlockStores(scf::ForOp loop, ArrayRef<int64_t> coreLb,
                               ArrayRef<int64_t> coreUb,
                               ArrayRef<int64_t> allowedLb,
                               ArrayRef<int64_t> allowedUb);

/// A field the body of a block loop reads before it stores it: its root
/// (function argument or loop buffer), the first load of it and the box all
/// such loads read (after shape inference).
struct BlockInput {
  Value root;
  LoadOp firstLoad;
  SmallVector<int64_t> lb, ub;
};
SmallVector<BlockInput> blockInputs(scf::ForOp loop);

} // namespace mlir::stencil

#endif // STENCIL_TRANSFORMS_DEEPHALO_H
