//===- DeepHalo.h - halos exchanged every h steps ---------------*- C++ -*-===//

#ifndef STENCIL_TRANSFORMS_DEEPHALO_H
#define STENCIL_TRANSFORMS_DEEPHALO_H

#include "Stencil/IR/StencilOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::stencil {

/// The field a field value stands for: the source of its casts.
Value fieldRoot(Value field);

/// A time loop run in blocks of `depth` steps: the loop over blocks (body:
/// `depth` copies of the step), the last op of the first copy and the
/// fields the first copy passes on to the second.
struct BlockedLoop {
  scf::ForOp loop;
  int64_t depth, step;
  Operation *firstStepEnd;
  SmallVector<Value> afterFirstStep;
};

/// Splits every time loop of `func` that stores fields into a loop over
/// blocks of `depth` steps (the body unrolled `depth` times) and one block
/// of the remaining steps when there are several (one remaining step stays
/// in the original loop). Returns the block loops. Fails (located error) on a
/// time loop without constant bounds, with stores nested deeper than its
/// body, or rotating buffers that may alias (the same field twice among its
/// initial values).
FailureOr<SmallVector<BlockedLoop>> blockTimeLoops(func::FuncOp func,
                                                   int64_t depth);

/// Rolls the unrolled steps of a block (after widenBlockStores and the
/// block's swaps) back into a loop of `depth` steps after the swaps, each
/// step storing every field on the widest box any step of the block stores
/// it on: a time loop with one domain, which time tiling takes. What a step
/// computes beyond what its block later reads is never read (the next
/// block's swap overwrites it), so the block's core stays exact. Fails
/// (located error) when a swap's field is made inside the block.
LogicalResult rollBlockSteps(const BlockedLoop &blocked);

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
