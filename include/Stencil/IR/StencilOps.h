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
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#define GET_OP_CLASSES
#include "Stencil/IR/StencilOps.h.inc"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::stencil {

/// The ops of `block` whose temps nothing needs: loads, applies without
/// `outs`, buffers and combines whose results are unused, or used only by
/// other such ops. Frontends leave them behind (Devito loads every field
/// right after storing it); passes ignore them and the lowering drops them.
llvm::DenseSet<Operation *> findUnneededTempOps(Block &block);

/// Clones the body of `apply` without its terminator at the insertion point
/// of `b` (block arguments mapped through `mapping`), then replaces every
/// cloned stencil.access, stencil.dyn_access and stencil.index, wherever it
/// is nested, by the value `rewrite` builds (with a builder placed before
/// it), and every stencil.store_result by its value. Returns the values of
/// the return operands: null for an empty store_result (the point is left
/// unwritten), which is an error when it is nested in a region.
///
/// With `include`, only the top-level ops of the body it accepts are cloned;
/// the values they use from the others must be in `mapping` from an earlier
/// call (`mapping` maps the results of replaced ops to their replacements),
/// and the return operands they do not define come back as that call
/// computed them (null if none did).
FailureOr<SmallVector<Value>>
cloneApplyBody(OpBuilder &b, ApplyOp apply, IRMapping &mapping,
               function_ref<Value(OpBuilder &, Operation *)> rewrite,
               function_ref<bool(Operation *)> include = nullptr);

} // namespace mlir::stencil

#endif // STENCIL_IR_STENCILOPS_H
