//===- FieldAliases.h - which field memrefs may be the same buffer -*- C++ -*-===//
//
// After field types become memrefs, a field is known by its root memref:
// a function argument, a time-loop argument or result, or any other memref
// value. Two distinct roots are distinct buffers (the lowered ABI, like C's
// `restrict`, requires distinct field arguments), except for time loops:
// the same field may be passed for two `iter_args`, or the `scf.yield` may
// hand one buffer to two of them. This analysis simulates the rotation of
// every time loop to find which of its arguments may hold the same buffer
// in some iteration, and which outside buffers each of them may hold.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_LIB_CONVERSION_FIELDALIASES_H
#define STENCIL_LIB_CONVERSION_FIELDALIASES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::stencil {

/// The buffer a field or memref value stands for: looks through
/// stencil.cast, memref.cast and the unrealized casts between the two types.
Value rootOfField(Value field);

/// The memref a memref value is a view of, through view-like ops
/// (subviews, casts, reinterpret casts).
Value viewedBuffer(Value memref);

class FieldAliases {
public:
  /// Analyses every `scf.for` nested in `root` (after field types have
  /// become memrefs).
  explicit FieldAliases(Operation *root);

  /// True when roots `a` and `b` may be the same buffer.
  bool mayAlias(Value a, Value b) const;

private:
  void analyzeLoop(Operation *loop);
  bool mayAlias(Value a, Value b,
                llvm::DenseSet<std::pair<Value, Value>> &visited) const;

  /// Loop arguments that hold the same buffer in some iteration.
  llvm::DenseSet<std::pair<Value, Value>> sameBuffer;
  /// For a loop argument or result: the buffers from outside the loop it
  /// may hold.
  llvm::DenseMap<Value, llvm::SmallVector<Value>> outsideValues;
  /// The loop of each argument and result in `outsideValues`.
  llvm::DenseMap<Value, Operation *> loopOf;
};

} // namespace mlir::stencil

#endif // STENCIL_LIB_CONVERSION_FIELDALIASES_H
