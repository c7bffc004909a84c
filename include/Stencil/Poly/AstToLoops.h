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

/// The statement name that generateLoops turns into a `gpu.barrier` (inside
/// a kernel); it needs no entry in the statement list.
constexpr const char *kBarrierStatement = "barrier";

/// Whether statement `name` is a barrier: `kBarrierStatement` or a name
/// starting with it and "_" (barriers of different depths need different
/// names: an instance is one point of one space).
inline bool isBarrierStatement(llvm::StringRef name) {
  return name == kBarrierStatement ||
         (name.starts_with(kBarrierStatement) &&
          name.drop_front(llvm::StringRef(kBarrierStatement).size())
              .starts_with("_"));
}

/// The isl parameters that stand for the thread ids x, y, z in kernel code.
constexpr const char *kThreadIdParams[] = {"tid_x", "tid_y", "tid_z"};

/// Prefix of the name of a mark inside a kernel ("grid_y_N") whose band's
/// first member runs over the grid's y blocks, N of them (see generateLoops).
constexpr const char *kGridYMarkPrefix = "grid_y_";

/// How "kernel" and "threads" marks become GPU code (see generateLoops).
struct GpuLaunchConfig {
  /// Threads per block along x, y, z; the isl parameters `tid_x`, `tid_y`,
  /// `tid_z` of the kernel code are the thread ids.
  SmallVector<int64_t, 3> threads;
  /// The largest grid; the blocks loop over the remaining iterations.
  int64_t maxBlocks = 65535;
};

/// Generates loops for `schedule` at the insertion point of `b`.
///
/// - Every `for` becomes an `scf.for`, except the outermost loops below a
///   mark named "parallel", which become `scf.parallel` (one per loop when
///   isolation splits the band into several loops). Precisely: the loops of
///   the band member right below the mark (same schedule depth). Where isl
///   emits no loop for that member (single value, unrolled), nothing becomes
///   parallel; deeper loops always stay `scf.for`.
/// - With `gpu`, a mark named "kernel" starts GPU code: each loop of the
///   band member right below it (found by depth, as for "parallel") becomes
///   one `gpu.launch` whose blocks take its iterations (a grid of at most
///   `maxBlocks` blocks, each looping with the grid's stride); code below
///   the mark that has no such loop runs as a launch of one block. The
///   launch's thread ids are the parameters `tid_x/y/z`. A mark named
///   "threads" documents where the work is distributed over the threads (by
///   constraints on `tid_*` in the tree); it must be inside a kernel.
///   A mark named `kGridYMarkPrefix` + N inside a kernel gives the launch N
///   blocks along y (at most 65535) and makes each loop of the band member
///   right below it a loop over them with the grid's stride; its work that
///   no such loop encloses runs on the blocks of y = 0 only.
///   Instances of the statement `kBarrierStatement` become `gpu.barrier`.
///   Both marks and barriers are errors without `gpu` or outside a kernel.
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
                            StatementEmitter emit, std::string &error,
                            const GpuLaunchConfig *gpu = nullptr);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_ASTTOLOOPS_H
