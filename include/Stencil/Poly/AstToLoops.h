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
///   isolation splits the band into several loops). Precisely: the loops of
///   the band member right below the mark (same schedule depth). Where isl
///   emits no loop for that member (single value, unrolled), nothing becomes
///   parallel; deeper loops always stay `scf.for`.
/// - `if` becomes `scf.if`; integer expressions become `arith` ops on index
///   values (isl's pdiv/fdiv/zdiv choices map to divsi/floordivsi/remsi).
/// - `params` gives the value of each isl parameter by name (index, or a
///   signless integer that is cast to index).
/// - AST build options stored in the tree (isolate, unroll, separate,
///   atomic) are honoured by isl. In the YAML form of a band:
///   `options: "{ isolate[[outer] -> [band]] : ...; unroll[k];
///   [isolate[] -> unroll[k]] }"`, where `unroll[k]` applies to the part
///   outside the isolated set and `[isolate[] -> unroll[k]]` to the part
///   inside it.
/// - Parameters are not constrained unless the tree has a context node; its
///   set is in the space of the outer band members, e.g. `[N] -> { [] : N >=
///   4 }` at the top (a parameter set `{ : ... }` is rejected by isl).
/// - A schedule that maps several instances to one point is fine: isl adds
///   (sequential) loops over them at the leaf.
/// - Every statement instance in the tree must have an entry in `statements`
///   and every access must be defined on that statement's space.
/// - The isl context's AST build options and on_error setting are changed
///   during the call and restored afterwards.
/// On failure `error` says why (an unsupported construct, an isl error, an
/// emitter failure) and the ops generated so far at the insertion point are
/// erased again; isl errors never abort.
LogicalResult generateLoops(OpBuilder &b, Location loc, isl::schedule schedule,
                            ArrayRef<StatementAccesses> statements,
                            const llvm::StringMap<Value> &params,
                            StatementEmitter emit, std::string &error);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_ASTTOLOOPS_H
