//===- AstToLoops.h - isl AST to scf/arith loops ---------------*- C++ -*-===//
//
// Code generation from an isl schedule tree (thesis ch. 10): isl's AST
// generator builds the loops, this translates them into scf/arith. Statement
// instances are emitted by a callback that receives the instance's domain
// coordinates and the subscripts of its accesses, both built by isl in the
// context of the surrounding loops (so they come out simplified).
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_ASTTOLOOPS_H
#define STENCIL_POLY_ASTTOLOOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <isl/cpp.h>

#include <string>

namespace mlir::stencil::poly {

/// What the code generator needs to know about one statement.
struct StatementAccesses {
  /// The statement's tuple name in the schedule domain (for example "S0").
  std::string name;
  /// Access functions from the statement's domain space to an array index
  /// space; subscripts are handed to the emitter in this order.
  SmallVector<isl::pw_multi_aff> accesses;
};

/// Emits one statement instance at the builder's insertion point.
/// `iterators` are the instance's domain coordinates (index values) and
/// `subscripts[a]` the index values of access `a` of the statement.
using StatementEmitter = function_ref<LogicalResult(
    OpBuilder &b, Location loc, StringRef statement, ValueRange iterators,
    ArrayRef<SmallVector<Value>> subscripts)>;

/// Generates loops for `schedule` at the insertion point of `b`.
///
/// - Every `for` becomes an `scf.for`, except the outermost loops below a
///   mark named "parallel", which become `scf.parallel` (one per loop when
///   isolation splits the band into several loops).
/// - `if` becomes `scf.if`; integer expressions become `arith` ops on index
///   values (isl's pdiv/fdiv/zdiv choices map to divsi/floordivsi/remsi).
/// - `params` gives the value of each isl parameter by name.
/// - AST build options stored in the tree (isolate, unroll, separate) are
///   honoured by isl.
/// On failure `error` says why (an unsupported construct, an emitter failure).
LogicalResult generateLoops(OpBuilder &b, Location loc, isl::schedule schedule,
                            ArrayRef<StatementAccesses> statements,
                            const llvm::StringMap<Value> &params,
                            StatementEmitter emit, std::string &error);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_ASTTOLOOPS_H
