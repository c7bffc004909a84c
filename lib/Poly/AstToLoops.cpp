//===- AstToLoops.cpp - isl AST to scf/arith loops ------------------------===//
//
// isl's AST generator turns the schedule tree into loops; this file walks the
// resulting AST and builds scf/arith ops. Statement instances are annotated
// while the AST is built (at_each_domain) with the instance coordinates and
// the access subscripts, expressed by isl in terms of the loop iterators and
// simplified in the context of the enclosing loops.
//
// Everything goes through the isl C API so that every result can be checked
// for null: isl errors become an `error` message, never an abort.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/AstToLoops.h"
#include "Stencil/Poly/IslContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/options.h>
#include <isl/schedule.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

//===----------------------------------------------------------------------===//
// isl helpers
//===----------------------------------------------------------------------===//

/// Owns one isl object through its free function (C API objects that the
/// C++ bindings would otherwise wrap with throwing methods).
template <typename T, T *(*Free)(T *)> class IslPtr {
public:
  IslPtr() = default;
  explicit IslPtr(T *p) : p(p) {}
  IslPtr(const IslPtr &) = delete;
  IslPtr &operator=(const IslPtr &) = delete;
  IslPtr(IslPtr &&o) : p(o.release()) {}
  IslPtr &operator=(IslPtr &&o) {
    reset(o.release());
    return *this;
  }
  ~IslPtr() { reset(); }
  T *get() const { return p; }
  T *release() {
    T *r = p;
    p = nullptr;
    return r;
  }
  void reset(T *n = nullptr) {
    if (p)
      Free(p);
    p = n;
  }
  explicit operator bool() const { return p != nullptr; }

private:
  T *p = nullptr;
};

using AstExpr = IslPtr<isl_ast_expr, isl_ast_expr_free>;
using AstNode = IslPtr<isl_ast_node, isl_ast_node_free>;
using AstNodeList = IslPtr<isl_ast_node_list, isl_ast_node_list_free>;
using AstBuild = IslPtr<isl_ast_build, isl_ast_build_free>;
using Id = IslPtr<isl_id, isl_id_free>;
using Val = IslPtr<isl_val, isl_val_free>;
using Map = IslPtr<isl_map, isl_map_free>;
using PwMultiAff = IslPtr<isl_pw_multi_aff, isl_pw_multi_aff_free>;
using MultiAff = IslPtr<isl_multi_aff, isl_multi_aff_free>;
using Space = IslPtr<isl_space, isl_space_free>;
using Schedule = IslPtr<isl_schedule, isl_schedule_free>;
using IdList = IslPtr<isl_id_list, isl_id_list_free>;

/// isl's description of the last error on `ctx`, for error messages.
std::string islError(isl_ctx *ctx) {
  const char *msg = isl_ctx_last_error_msg(ctx);
  if (!msg)
    return "isl error";
  std::string result = std::string("isl: ") + msg;
  if (const char *file = isl_ctx_last_error_file(ctx))
    result += " (" + std::string(file) + ":" +
              std::to_string(isl_ctx_last_error_line(ctx)) + ")";
  return result;
}

std::string exprToString(isl_ast_expr *expr) {
  char *s = isl_ast_expr_to_C_str(expr);
  if (!s)
    return "<unprintable>";
  std::string result(s);
  free(s);
  return result;
}

/// Sets the AST generation options this translation relies on (upper bounds
/// as a single `iter <= e` / `iter < e`, min/max instead of selects) and makes
/// isl report errors instead of aborting; restores the caller's settings.
class ScopedIslOptions {
public:
  explicit ScopedIslOptions(isl_ctx *ctx)
      : ctx(ctx), onError(isl_options_get_on_error(ctx)),
        atomicUpperBound(isl_options_get_ast_build_atomic_upper_bound(ctx)),
        detectMinMax(isl_options_get_ast_build_detect_min_max(ctx)),
        preferPdiv(isl_options_get_ast_build_prefer_pdiv(ctx)),
        exploitNestedBounds(
            isl_options_get_ast_build_exploit_nested_bounds(ctx)) {
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    isl_options_set_ast_build_atomic_upper_bound(ctx, 1);
    isl_options_set_ast_build_detect_min_max(ctx, 1);
    isl_options_set_ast_build_prefer_pdiv(ctx, 1);
    isl_options_set_ast_build_exploit_nested_bounds(ctx, 1);
    isl_ctx_reset_error(ctx);
  }
  ~ScopedIslOptions() {
    isl_options_set_ast_build_exploit_nested_bounds(ctx, exploitNestedBounds);
    isl_options_set_ast_build_prefer_pdiv(ctx, preferPdiv);
    isl_options_set_ast_build_detect_min_max(ctx, detectMinMax);
    isl_options_set_ast_build_atomic_upper_bound(ctx, atomicUpperBound);
    isl_options_set_on_error(ctx, onError);
  }

private:
  isl_ctx *ctx;
  int onError, atomicUpperBound, detectMinMax, preferPdiv, exploitNestedBounds;
};

//===----------------------------------------------------------------------===//
// Annotation of user nodes
//===----------------------------------------------------------------------===//
//
// isl builds an expression at a user node in the context of the node's
// domain (a gist, and a non-negativity test per integer division), which
// takes milliseconds on hexagonal tiles with thread mappings; most of the
// code generation time went there. So the work per node is kept small:
// - the instance coordinates are the arguments of the node's call
//   expression, which isl has built already;
// - a subscript that has the same function on every piece is built from
//   that function alone (the pieces' domains, e.g. the tiles of one kernel,
//   only slow isl down); otherwise the piece that holds the node's
//   instances is picked once for all subscripts with the same pieces;
// - equal subscripts of different accesses (a write-through's shared and
//   global buffer index, a read's and a write's shared offsets) are built
//   once per node.
// The subscripts are still built by isl from the node's context: they come
// out as simplified as before, and so does the code LLVM and ptxas make of
// them (composing them from the instance coordinates instead gave a 3D
// kernel 15% more instructions).

/// The distinct subscript functions of one statement's accesses.
struct StatementPlan {
  const StatementAccesses *statement = nullptr;
  /// Per access, per output dimension: the index of its function.
  SmallVector<SmallVector<unsigned>> subscripts;
  /// The functions (on the instance space) and the access each comes from.
  SmallVector<isl_pw_aff *> functions;
  SmallVector<unsigned> accessOf;
  /// Per function: its pieces (domain, function) when it has several
  /// different ones, else none.
  SmallVector<SmallVector<std::pair<isl_set *, isl_aff *>>> pieces;
  /// Per function with pieces: the first function with the same piece
  /// domains (a node picks its piece once for all of them).
  SmallVector<unsigned> pieceLeader;

  StatementPlan() = default;
  StatementPlan(const StatementPlan &) = delete;
  StatementPlan &operator=(const StatementPlan &) = delete;
  ~StatementPlan() {
    for (isl_pw_aff *pa : functions)
      isl_pw_aff_free(pa);
    for (auto &list : pieces)
      for (auto [set, aff] : list) {
        isl_set_free(set);
        isl_aff_free(aff);
      }
  }
};

/// Attached to each user node (as the user pointer of an isl_id annotation):
/// the statement's plan, and its instance coordinates and subscript
/// functions as AST expressions over the loop iterators.
struct UserAnnotation {
  const StatementPlan *plan = nullptr;
  SmallVector<AstExpr> iterators;
  SmallVector<AstExpr> functions;
  /// The tile of the band member mapped to the blocks along y ("grid_y_N"
  /// mark), when the instance is below it: which block runs it where isl
  /// left no loop over that member.
  AstExpr gridYTile;
};

constexpr const char *kAnnotationName = "stencil_poly_stmt";

void freeAnnotation(void *user) { delete static_cast<UserAnnotation *>(user); }

struct DomainCallbackData {
  llvm::StringMap<std::unique_ptr<StatementPlan>> plans;
  /// The schedule depth of the band member below the "grid_y_N" marks.
  std::optional<unsigned> gridYDepth;
  std::string error;
};

/// The value of schedule dimension `depth` at the instances `build` is at,
/// as an expression of the outer loops; null if `build` is not that deep.
AstExpr scheduleValueAt(isl_ast_build *build, unsigned depth) {
  isl_space *space = isl_ast_build_get_schedule_space(build);
  isl_size dims = space ? isl_space_dim(space, isl_dim_set) : -1;
  if (dims < 0 || unsigned(dims) <= depth) {
    isl_space_free(space);
    return AstExpr(nullptr);
  }
  isl_aff *value = isl_aff_var_on_domain(isl_local_space_from_space(space),
                                         isl_dim_set, depth);
  return AstExpr(
      isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_from_aff(value)));
}

/// The pieces of `pa`, each as (domain, function).
SmallVector<std::pair<isl_set *, isl_aff *>> piecesOf(isl_pw_aff *pa) {
  SmallVector<std::pair<isl_set *, isl_aff *>> pieces;
  isl_pw_aff_foreach_piece(
      pa,
      [](isl_set *set, isl_aff *aff, void *user) -> isl_stat {
        static_cast<SmallVector<std::pair<isl_set *, isl_aff *>> *>(user)
            ->push_back({set, aff});
        return isl_stat_ok;
      },
      &pieces);
  return pieces;
}

/// The function of every piece of `pa` if it is the same on all of them,
/// else null.
isl_aff *uniformAff(isl_pw_aff *pa) {
  isl_aff *result = nullptr;
  bool uniform = true;
  for (auto [set, aff] : piecesOf(pa)) {
    isl_set_free(set);
    if (!result) {
      result = aff;
      continue;
    }
    uniform = uniform && isl_aff_plain_is_equal(result, aff) == isl_bool_true;
    isl_aff_free(aff);
  }
  return uniform ? result : isl_aff_free(result);
}

/// Computes the plan of `statement`; on failure sets `error`.
std::unique_ptr<StatementPlan> planStatement(const StatementAccesses &statement,
                                             std::string &error) {
  auto plan = std::make_unique<StatementPlan>();
  plan->statement = &statement;
  for (auto [index, access] : llvm::enumerate(statement.accesses)) {
    if (access.is_null()) {
      error = "access " + std::to_string(index) + " of statement '" +
              statement.name + "' is null";
      return nullptr;
    }
    isl_ctx *ctx = isl_pw_multi_aff_get_ctx(access.get());
    isl_size n = isl_pw_multi_aff_dim(access.get(), isl_dim_out);
    if (n < 0) {
      error = islError(ctx);
      return nullptr;
    }
    SmallVector<unsigned> &dims = plan->subscripts.emplace_back();
    for (isl_size d = 0; d < n; ++d) {
      isl_pw_aff *pa = isl_pw_multi_aff_get_pw_aff(access.get(), d);
      if (isl_aff *aff = pa ? uniformAff(pa) : nullptr) {
        isl_pw_aff_free(pa);
        pa = isl_pw_aff_from_aff(aff);
      }
      if (!pa) {
        error = islError(ctx);
        return nullptr;
      }
      auto same = llvm::find_if(plan->functions, [&](isl_pw_aff *other) {
        return isl_pw_aff_plain_is_equal(pa, other) == isl_bool_true;
      });
      if (same != plan->functions.end()) {
        dims.push_back(same - plan->functions.begin());
        isl_pw_aff_free(pa);
        continue;
      }
      unsigned f = plan->functions.size();
      dims.push_back(f);
      auto &pieces = plan->pieces.emplace_back();
      unsigned leader = f;
      if (isl_pw_aff_n_piece(pa) > 1) {
        pieces = piecesOf(pa);
        for (unsigned g = 0; g < f; ++g) {
          auto &other = plan->pieces[g];
          if (other.size() == pieces.size() &&
              llvm::all_of(llvm::zip(other, pieces), [](auto pair) {
                return isl_set_plain_is_equal(std::get<0>(pair).first,
                                              std::get<1>(pair).first) ==
                       isl_bool_true;
              })) {
            leader = g;
            break;
          }
        }
      }
      plan->pieceLeader.push_back(leader);
      plan->functions.push_back(pa);
      plan->accessOf.push_back(index);
    }
  }
  return plan;
}

/// Computes the annotation of one user node; on failure sets `data.error`.
UserAnnotation *annotate(isl_ast_node *node, isl_ast_build *build,
                         DomainCallbackData &data) {
  isl_ctx *ctx = isl_ast_build_get_ctx(build);
  // The call expression S(coordinates...) that isl built for the node.
  AstExpr call(isl_ast_node_user_get_expr(node));
  if (!call || isl_ast_expr_get_type(call.get()) != isl_ast_expr_op ||
      isl_ast_expr_op_get_type(call.get()) != isl_ast_expr_op_call) {
    data.error = call ? "user node without a call expression" : islError(ctx);
    return nullptr;
  }
  isl_size nargs = isl_ast_expr_op_get_n_arg(call.get());
  AstExpr callee(nargs > 0 ? isl_ast_expr_op_get_arg(call.get(), 0)
                           : nullptr);
  Id calleeId(callee ? isl_ast_expr_id_get_id(callee.get()) : nullptr);
  const char *name = calleeId ? isl_id_get_name(calleeId.get()) : nullptr;
  if (!name) {
    data.error = "statement instance without a tuple name";
    return nullptr;
  }
  if (isBarrierStatement(name)) {
    auto *annotation = new UserAnnotation(); // No statement: a barrier.
    if (data.gridYDepth)
      annotation->gridYTile = scheduleValueAt(build, *data.gridYDepth);
    return annotation;
  }
  auto it = data.plans.find(name);
  if (it == data.plans.end()) {
    data.error = "statement '" + std::string(name) +
                 "' has no entry in the statement list";
    return nullptr;
  }
  const StatementPlan &plan = *it->second;

  auto annotation = std::make_unique<UserAnnotation>();
  annotation->plan = &plan;
  if (data.gridYDepth)
    annotation->gridYTile = scheduleValueAt(build, *data.gridYDepth);
  for (isl_size i = 1; i < nargs; ++i) {
    AstExpr arg(isl_ast_expr_op_get_arg(call.get(), i));
    if (!arg) {
      data.error = islError(ctx);
      return nullptr;
    }
    annotation->iterators.push_back(std::move(arg));
  }
  if (plan.functions.empty())
    return annotation.release();

  // Loop iterators -> instance, for this one statement. isl's call
  // expression already relies on one instance per iteration (isl adds loops
  // over instances that share a leaf of the schedule tree).
  isl_union_map *umap = isl_ast_build_get_schedule(build);
  if (!umap) {
    data.error = islError(ctx);
    return nullptr;
  }
  if (isl_union_map_n_map(umap) != 1) {
    isl_union_map_free(umap);
    data.error = "user node does not cover exactly one statement";
    return nullptr;
  }
  PwMultiAff iterToInstance(isl_pw_multi_aff_from_map(
      isl_map_reverse(isl_map_from_union_map(umap))));
  if (!iterToInstance) {
    data.error = islError(ctx);
    return nullptr;
  }
  Space instanceSpace(isl_pw_multi_aff_get_space(iterToInstance.get()));
  // With a single piece, its domain (the node's, which isl simplifies
  // against anyway) is left out of the pullbacks: intersecting with it is
  // slow.
  MultiAff iterToSingle;
  if (isl_pw_multi_aff_n_piece(iterToInstance.get()) == 1)
    iterToSingle.reset(isl_pw_multi_aff_as_multi_aff(
        isl_pw_multi_aff_copy(iterToInstance.get())));

  // The piece of a function that holds the node's instances: the only one
  // they meet (-1 when they meet several, or on an error: then isl gets all
  // pieces).
  isl_set *instances = nullptr;
  llvm::scope_exit freeInstances([&] { isl_set_free(instances); });
  llvm::SmallDenseMap<unsigned, int> chosenPiece;
  auto choosePiece = [&](unsigned leader) -> int {
    auto [it, inserted] = chosenPiece.try_emplace(leader, -1);
    if (!inserted)
      return it->second;
    if (!instances)
      instances = isl_map_range(isl_map_from_pw_multi_aff(
          isl_pw_multi_aff_copy(iterToInstance.get())));
    int found = -1;
    for (auto [i, piece] : llvm::enumerate(plan.pieces[leader])) {
      isl_set *domain = isl_set_align_params(isl_set_copy(piece.first),
                                             isl_set_get_space(instances));
      isl_bool disjoint = isl_set_is_disjoint(instances, domain);
      isl_set_free(domain);
      if (disjoint == isl_bool_true)
        continue;
      if (disjoint < 0 || found >= 0) {
        found = -1;
        break;
      }
      found = i;
    }
    return it->second = found;
  };

  for (auto [f, pa] : llvm::enumerate(plan.functions)) {
    int piece =
        plan.pieces[f].empty() ? -1 : choosePiece(plan.pieceLeader[f]);
    isl_pw_aff *aligned = isl_pw_aff_align_params(
        piece < 0 ? isl_pw_aff_copy(pa)
                  : isl_pw_aff_from_aff(
                        isl_aff_copy(plan.pieces[f][piece].second)),
        isl_space_copy(instanceSpace.get()));
    Space accessSpace(aligned ? isl_pw_aff_get_domain_space(aligned)
                              : nullptr);
    isl_bool matches =
        aligned ? isl_space_tuple_is_equal(accessSpace.get(), isl_dim_set,
                                           instanceSpace.get(), isl_dim_out)
                : isl_bool_error;
    if (matches != isl_bool_true) {
      isl_pw_aff_free(aligned);
      data.error = matches < 0 ? islError(ctx)
                               : "access " + std::to_string(plan.accessOf[f]) +
                                     " of statement '" + plan.statement->name +
                                     "' is not defined on the statement's "
                                     "domain space";
      return nullptr;
    }
    // The subscript as a function of the loop iterators.
    isl_pw_aff *pulled =
        iterToSingle
            ? isl_pw_aff_pullback_multi_aff(
                  aligned, isl_multi_aff_copy(iterToSingle.get()))
            : isl_pw_aff_pullback_pw_multi_aff(
                  aligned, isl_pw_multi_aff_copy(iterToInstance.get()));
    AstExpr expr(isl_ast_build_expr_from_pw_aff(build, pulled));
    if (!expr) {
      data.error = islError(ctx);
      return nullptr;
    }
    annotation->functions.push_back(std::move(expr));
  }
  return annotation.release();
}

/// at_each_domain callback: attaches a UserAnnotation to the user node.
isl_ast_node *annotateUserNode(isl_ast_node *node, isl_ast_build *build,
                               void *user) {
  auto &data = *static_cast<DomainCallbackData *>(user);
  if (!node)
    return nullptr;
  UserAnnotation *annotation = annotate(node, build, data);
  if (!annotation) {
    if (data.error.empty())
      data.error = "failed to annotate a statement instance";
    return isl_ast_node_free(node);
  }
  isl_id *id =
      isl_id_alloc(isl_ast_node_get_ctx(node), kAnnotationName, annotation);
  if (!id) {
    delete annotation;
    data.error = islError(isl_ast_node_get_ctx(node));
    return isl_ast_node_free(node);
  }
  id = isl_id_set_free_user(id, freeAnnotation);
  return isl_ast_node_set_annotation(node, id);
}

//===----------------------------------------------------------------------===//
// Loop depths
//===----------------------------------------------------------------------===//
//
// A "parallel" mark applies to the loop of the band member right below it,
// i.e. to the loops at the mark's schedule depth. isl drops loops whose
// iterator has a single value and may split one band member into several
// loops (isolation), so the depth cannot be recovered by counting loops in
// the AST. Instead every loop iterator id and every parallel mark id carries
// its schedule depth (the position in the flat list of band members from the
// root, which is how isl numbers the loops).

constexpr const char *kParallelMark = "parallel";
constexpr const char *kKernelMark = "kernel";
constexpr const char *kThreadsMark = "threads";
/// The host's statement that runs phase k's kernel AST: "host_kernel_k".
constexpr const char *kHostKernelPrefix = "host_kernel_";

struct DepthInfo {
  /// Storage the user pointers of iterator and mark ids point into.
  std::deque<unsigned> depths;
  /// Deepest schedule depth in the tree (loops are numbered below it).
  unsigned maxDepth = 0;
  /// The depth of the "grid_y_N" marks (the same in every kernel).
  std::optional<unsigned> gridYDepth;
  std::string error;
};

const unsigned *storeDepth(DepthInfo &info, unsigned depth) {
  info.depths.push_back(depth);
  return &info.depths.back();
}

/// Replaces every "parallel", "kernel" and "grid_y_N" mark by one whose id
/// records its depth, and computes the maximal schedule depth.
isl_schedule_node *tagNode(isl_schedule_node *node, void *user) {
  auto &info = *static_cast<DepthInfo *>(user);
  if (!node)
    return nullptr;
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  isl_size depth = isl_schedule_node_get_schedule_depth(node);
  if (depth < 0) {
    info.error = islError(ctx);
    return isl_schedule_node_free(node);
  }
  unsigned below = depth;
  if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
    isl_size n = isl_schedule_node_band_n_member(node);
    if (n < 0) {
      info.error = islError(ctx);
      return isl_schedule_node_free(node);
    }
    below += n;
  }
  info.maxDepth = std::max(info.maxDepth, below);
  if (isl_schedule_node_get_type(node) != isl_schedule_node_mark)
    return node;
  Id id(isl_schedule_node_mark_get_id(node));
  if (!id) {
    info.error = islError(ctx);
    return isl_schedule_node_free(node);
  }
  const char *name = isl_id_get_name(id.get());
  if (!name || (StringRef(name) != kParallelMark &&
                StringRef(name) != kKernelMark &&
                !StringRef(name).starts_with(kGridYMarkPrefix)))
    return node;
  if (StringRef(name).starts_with(kGridYMarkPrefix)) {
    if (info.gridYDepth && *info.gridYDepth != unsigned(depth)) {
      info.error = "grid_y marks at different schedule depths";
      return isl_schedule_node_free(node);
    }
    info.gridYDepth = depth;
  }
  isl_id *tagged = isl_id_alloc(
      ctx, name, const_cast<unsigned *>(storeDepth(info, depth)));
  node = isl_schedule_node_delete(node);
  node = isl_schedule_node_insert_mark(node, tagged);
  if (!node)
    info.error = islError(ctx);
  return node;
}

/// The largest N of the "grid_y_N" marks in the AST below `node` (1 if
/// none): the blocks along y of the launch that `node` belongs to.
int64_t gridYBelow(isl_ast_node *node) {
  int64_t count = 1;
  auto visit = [](isl_ast_node *node, void *user) -> isl_bool {
    if (isl_ast_node_get_type(node) != isl_ast_node_mark)
      return isl_bool_true;
    Id id(isl_ast_node_mark_get_id(node));
    const char *name = id ? isl_id_get_name(id.get()) : nullptr;
    StringRef count = name ? StringRef(name) : StringRef();
    int64_t n;
    if (count.consume_front(kGridYMarkPrefix) && !count.getAsInteger(10, n)) {
      int64_t &largest = *static_cast<int64_t *>(user);
      largest = std::max(largest, n);
    }
    return isl_bool_true;
  };
  isl_ast_node_foreach_descendant_top_down(node, visit, &count);
  return count;
}

//===----------------------------------------------------------------------===//
// AST to scf/arith
//===----------------------------------------------------------------------===//

class AstTranslator {
public:
  AstTranslator(OpBuilder &b, Location loc,
                const llvm::StringMap<Value> &params,
                const llvm::DenseMap<isl_id *, unsigned> &iteratorDepths,
                StatementEmitter emit, std::string &error,
                const GpuLaunchConfig *gpu,
                ArrayRef<isl_ast_node *> kernelRoots = {})
      : b(b), loc(loc), params(params), iteratorDepths(iteratorDepths),
        emit(emit), error(error), gpu(gpu), kernelRoots(kernelRoots) {}

  /// Translates `node` at the builder's insertion point.
  LogicalResult translate(isl_ast_node *node);

private:
  /// Whether `node` is, or holds, the loop over the blocks of the pending
  /// kernel.
  bool isBlockLoop(isl_ast_node *node) const;
  bool holdsBlockLoop(isl_ast_node *node) const;
  LogicalResult translateFor(isl_ast_node *node);
  LogicalResult translateIf(isl_ast_node *node);
  LogicalResult translateBlock(isl_ast_node *node);
  LogicalResult translateMark(isl_ast_node *node);
  LogicalResult translateUser(isl_ast_node *node);
  /// A kernel AST's loop over the time tiles, run for the host's tile
  /// alone (one of its iterations: the host runs the kernel for the tiles
  /// where the phase has instances).
  LogicalResult translateAtHostTime(isl_ast_node *node, isl_id *iterator);

  /// Emits a gpu.launch whose blocks run `count` iterations (with the grid's
  /// stride); `body` gets the iteration index.
  LogicalResult launchKernel(Value count,
                             function_ref<LogicalResult(Value)> body);
  /// Emits the iterations lb + k * step (k < count) of a loop over the band
  /// member mapped to the blocks along y; `body` gets the iterator value.
  /// Tile y runs on block floormod(y, grid size): the same block wherever
  /// isl splits the member's loop or leaves it out (gridYBlockOwns), so the
  /// instances of one tile, ordered by the block's barriers, share a block.
  LogicalResult gridYLoop(Value lb, Value count, int64_t step,
                          function_ref<LogicalResult(Value)> body);
  /// Whether this block runs the instances of tile `tile` of the member
  /// mapped to the blocks along y.
  Value gridYBlockOwns(Value tile);
  /// The y tile of the instances below `node`, outside any loop over that
  /// member (isl fixed it there): from the annotation of its first
  /// statement or barrier, if that expression uses no iterator of a loop
  /// below `node`; else null.
  isl_ast_expr *gridYTileAt(isl_ast_node *node);
  /// Whether `expr` uses only iterators bound here.
  bool onlyBoundIterators(isl_ast_expr *expr);
  /// l mod r rounded towards minus infinity (r > 0).
  Value floorMod(Value l, Value r);

  /// Translates an integer (index) or boolean (i1) expression.
  FailureOr<Value> translateExpr(isl_ast_expr *expr);
  FailureOr<Value> translateOp(isl_ast_expr *expr);
  FailureOr<Value> translateIndexExpr(isl_ast_expr *expr);
  FailureOr<Value> translateBoolExpr(isl_ast_expr *expr);
  FailureOr<int64_t> getInt(isl_ast_expr *expr);

  /// Runs `body` with iterator `id` bound to `value`.
  LogicalResult withIterator(isl_id *id, Value value,
                             function_ref<LogicalResult()> body);

  LogicalResult fail(const Twine &message) {
    error = message.str();
    return failure();
  }
  LogicalResult failIsl(isl_ctx *ctx) {
    error = islError(ctx);
    return failure();
  }

  OpBuilder &b;
  Location loc;
  /// The caller's parameters, plus the thread ids inside a kernel.
  llvm::StringMap<Value> params;
  /// Schedule depth of each loop iterator id handed to isl.
  const llvm::DenseMap<isl_id *, unsigned> &iteratorDepths;
  StatementEmitter emit;
  std::string &error;
  /// Values of the iterators of the enclosing loops.
  llvm::DenseMap<isl_id *, Value> iterators;
  /// Depths whose loops are parallel (from the enclosing "parallel" marks).
  SmallVector<unsigned> parallelDepths;
  const GpuLaunchConfig *gpu;
  /// The depth of the enclosing "kernel" mark whose launch is still to be
  /// created (outside any launch).
  std::optional<unsigned> pendingKernelDepth;
  bool inKernel = false;
  /// Blocks along y of the launch still to be created (the largest
  /// "grid_y_N" mark below the kernel mark).
  int64_t pendingGridY = 1;
  /// Inside a kernel, below a "grid_y_N" mark: the depth whose loops run
  /// over the y blocks, until such a loop is entered.
  std::optional<unsigned> gridYDepth;
  /// Below a "grid_y_N" mark, outside the loops over its member, where the
  /// member's tile is not known at the top: each statement and barrier runs
  /// on the block of its own tile (from its annotation).
  bool gridYPerInstance = false;
  /// The launch's block id and grid size along y.
  Value blockIdY, gridSizeY;
  /// The kernels' own ASTs, run by the host's "host_kernel_k" statements.
  ArrayRef<isl_ast_node *> kernelRoots;
  /// Inside such a statement: the host's time tile, which the kernel's loop
  /// over the time tiles (depth 0) is to run alone.
  std::optional<Value> hostTime;
  /// Conditions on thread ids that isl hoisted above the kernel launch
  /// (they hold for the thread ids of some threads only): tested inside
  /// the kernel instead.
  SmallVector<isl_ast_expr *> threadGuards;
};

/// Whether `expr` uses an id for which `matches` holds.
bool usesId(isl_ast_expr *expr, function_ref<bool(isl_id *)> matches) {
  switch (isl_ast_expr_get_type(expr)) {
  case isl_ast_expr_id: {
    Id id(isl_ast_expr_id_get_id(expr));
    return id && matches(id.get());
  }
  case isl_ast_expr_op:
    for (isl_size i = 0, e = isl_ast_expr_op_get_n_arg(expr); i < e; ++i) {
      AstExpr arg(isl_ast_expr_op_get_arg(expr, i));
      if (arg && usesId(arg.get(), matches))
        return true;
    }
    return false;
  default:
    return false;
  }
}

/// Whether `expr` uses one of the thread-id parameters.
bool usesThreadIds(isl_ast_expr *expr) {
  return usesId(expr, [](isl_id *id) {
    const char *name = isl_id_get_name(id);
    return name && llvm::is_contained(kThreadIdParams, StringRef(name));
  });
}

/// The annotation of the user node `node` (annotateUserNode), or null.
UserAnnotation *annotationOf(isl_ast_node *node) {
  Id id(isl_ast_node_get_annotation(node));
  if (!id || !isl_id_get_name(id.get()) ||
      StringRef(isl_id_get_name(id.get())) != kAnnotationName)
    return nullptr;
  return static_cast<UserAnnotation *>(isl_id_get_user(id.get()));
}

/// The statement a user node calls ("" for other nodes).
StringRef calledStatement(isl_ast_node *node) {
  if (isl_ast_node_get_type(node) != isl_ast_node_user)
    return {};
  AstExpr call(isl_ast_node_user_get_expr(node));
  AstExpr callee(call ? isl_ast_expr_op_get_arg(call.get(), 0) : nullptr);
  Id id(callee ? isl_ast_expr_id_get_id(callee.get()) : nullptr);
  const char *name = id ? isl_id_get_name(id.get()) : nullptr;
  // The name lives as long as the id, which the node's expression holds.
  return name ? StringRef(name) : StringRef();
}

/// The schedule depth of a loop's iterator (generateLoops' iterator ids
/// carry it); none for other nodes and for iterators isl names itself.
std::optional<unsigned> loopDepth(isl_ast_node *node) {
  if (isl_ast_node_get_type(node) != isl_ast_node_for)
    return std::nullopt;
  AstExpr iter(isl_ast_node_for_get_iterator(node));
  Id id(iter ? isl_ast_expr_id_get_id(iter.get()) : nullptr);
  auto *depth =
      id ? static_cast<const unsigned *>(isl_id_get_user(id.get())) : nullptr;
  return depth ? std::optional<unsigned>(*depth) : std::nullopt;
}

/// Whether `node` runs a barrier whenever it runs (a barrier, or a block or
/// mark that holds one outside any condition or loop).
bool runsBarrier(isl_ast_node *node) {
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_user:
    return isBarrierStatement(calledStatement(node));
  case isl_ast_node_block: {
    AstNodeList children(isl_ast_node_block_get_children(node));
    for (isl_size i = 0, e = isl_ast_node_list_n_ast_node(children.get());
         i < e; ++i) {
      AstNode child(isl_ast_node_list_get_at(children.get(), i));
      if (child && runsBarrier(child.get()))
        return true;
    }
    return false;
  }
  case isl_ast_node_mark: {
    AstNode child(isl_ast_node_mark_get_node(node));
    return child && runsBarrier(child.get());
  }
  default:
    return false;
  }
}

/// Whether a barrier below `node` is under a loop or condition that tests
/// thread ids (`guarded`: already is).
bool barrierUnderThreadIds(isl_ast_node *node, bool guarded) {
  auto below = [&](isl_ast_node *child, bool childGuarded) {
    AstNode owned(child);
    return owned && barrierUnderThreadIds(owned.get(), childGuarded);
  };
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for: {
    AstExpr init(isl_ast_node_for_get_init(node));
    AstExpr cond(isl_ast_node_for_get_cond(node));
    AstExpr inc(isl_ast_node_for_get_inc(node));
    bool varies = guarded || (init && usesThreadIds(init.get())) ||
                  (cond && usesThreadIds(cond.get())) ||
                  (inc && usesThreadIds(inc.get()));
    return below(isl_ast_node_for_get_body(node), varies);
  }
  case isl_ast_node_if: {
    AstExpr cond(isl_ast_node_if_get_cond(node));
    bool varies = guarded || (cond && usesThreadIds(cond.get()));
    if (below(isl_ast_node_if_get_then_node(node), varies))
      return true;
    return isl_ast_node_if_has_else_node(node) == isl_bool_true &&
           below(isl_ast_node_if_get_else_node(node), varies);
  }
  case isl_ast_node_block: {
    AstNodeList children(isl_ast_node_block_get_children(node));
    for (isl_size i = 0, e = isl_ast_node_list_n_ast_node(children.get());
         i < e; ++i)
      if (below(isl_ast_node_list_get_at(children.get(), i), guarded))
        return true;
    return false;
  }
  case isl_ast_node_mark:
    return below(isl_ast_node_mark_get_node(node), guarded);
  case isl_ast_node_user:
    return guarded && isBarrierStatement(calledStatement(node));
  default:
    return false;
  }
}

bool AstTranslator::isBlockLoop(isl_ast_node *node) const {
  return loopDepth(node) == pendingKernelDepth;
}

bool AstTranslator::holdsBlockLoop(isl_ast_node *node) const {
  std::pair<const AstTranslator *, bool> search{this, false};
  auto visit = [](isl_ast_node *n, void *user) -> isl_bool {
    auto *search = static_cast<std::pair<const AstTranslator *, bool> *>(user);
    search->second = search->second || search->first->isBlockLoop(n);
    return search->second ? isl_bool_false : isl_bool_true;
  };
  isl_ast_node_foreach_descendant_top_down(node, visit, &search);
  return search.second;
}

LogicalResult AstTranslator::translate(isl_ast_node *node) {
  isl_ast_node_type type = isl_ast_node_get_type(node);
  // Below a kernel mark, `if` and block nodes before the block loop are host
  // code (they only test outer iterators); anything else that is reached
  // before such a loop is kernel code of a single block. So is a block node
  // that holds no block loop: isl drops the loop over a single block, and
  // the pieces of that block's walk (the regions of isolated full tiles)
  // then follow each other in a block node. They must share one launch,
  // where inter-tile reuse finds the previous tile's shared buffers.
  if (pendingKernelDepth && type != isl_ast_node_if &&
      !(type == isl_ast_node_block ? holdsBlockLoop(node) : isBlockLoop(node)))
    return launchKernel(arith::ConstantIndexOp::create(b, loc, 1),
                        [&](Value) { return translate(node); });
  // Below a "grid_y" mark, work that no loop over the y blocks encloses
  // (isl emitted none for the band member) runs on the blocks of y = 0.
  if (gridYDepth && inKernel && type != isl_ast_node_if &&
      type != isl_ast_node_block && type != isl_ast_node_mark) {
    if (loopDepth(node) != gridYDepth) {
      OpBuilder::InsertionGuard guard(b);
      std::optional<unsigned> depth = gridYDepth;
      gridYDepth.reset();
      LogicalResult result = success();
      if (isl_ast_expr *tile = gridYTileAt(node)) {
        FailureOr<Value> value = translateIndexExpr(tile);
        if (failed(value))
          return failure();
        auto ifOp = scf::IfOp::create(b, loc, gridYBlockOwns(*value),
                                      /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
        result = translate(node);
      } else {
        gridYPerInstance = true;
        result = translate(node);
        gridYPerInstance = false;
      }
      gridYDepth = depth;
      return result;
    }
  }
  switch (type) {
  case isl_ast_node_for:
    return translateFor(node);
  case isl_ast_node_if:
    return translateIf(node);
  case isl_ast_node_block:
    return translateBlock(node);
  case isl_ast_node_mark:
    return translateMark(node);
  case isl_ast_node_user:
    return translateUser(node);
  case isl_ast_node_error:
    return failIsl(isl_ast_node_get_ctx(node));
  }
  return fail("unsupported isl AST node type");
}

LogicalResult AstTranslator::withIterator(isl_id *id, Value value,
                                          function_ref<LogicalResult()> body) {
  std::optional<Value> shadowed;
  if (auto it = iterators.find(id); it != iterators.end())
    shadowed = it->second;
  iterators[id] = value;
  LogicalResult result = body();
  if (shadowed)
    iterators[id] = *shadowed;
  else
    iterators.erase(id);
  return result;
}

LogicalResult AstTranslator::translateFor(isl_ast_node *node) {
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  AstExpr iterExpr(isl_ast_node_for_get_iterator(node));
  if (!iterExpr)
    return failIsl(ctx);
  if (isl_ast_expr_get_type(iterExpr.get()) != isl_ast_expr_id)
    return fail("loop iterator is not an identifier");
  Id iterId(isl_ast_expr_id_get_id(iterExpr.get()));
  if (!iterId)
    return failIsl(ctx);
  const char *rawName = isl_id_get_name(iterId.get());
  std::string iterName = rawName ? rawName : "";
  // Iterators isl names itself scan instances that share a leaf of the
  // schedule tree (a non-injective schedule); they are never parallel.
  auto depthIt = iteratorDepths.find(iterId.get());
  bool parallel = depthIt != iteratorDepths.end() &&
                  llvm::is_contained(parallelDepths, depthIt->second);

  AstNode body(isl_ast_node_for_get_body(node));
  AstExpr init(isl_ast_node_for_get_init(node));
  if (!body || !init)
    return failIsl(ctx);
  FailureOr<Value> lb = translateIndexExpr(init.get());
  if (failed(lb))
    return failure();

  isl_bool degenerate = isl_ast_node_for_is_degenerate(node);
  if (degenerate < 0)
    return failIsl(ctx);
  if (hostTime && depthIt != iteratorDepths.end() && depthIt->second == 0)
    return translateAtHostTime(node, iterId.get());
  bool blockLoop = pendingKernelDepth && depthIt != iteratorDepths.end() &&
                   depthIt->second == *pendingKernelDepth;
  bool yLoop = inKernel && gridYDepth && depthIt != iteratorDepths.end() &&
               depthIt->second == *gridYDepth;
  // A single iteration: just bind the iterator.
  if (degenerate && yLoop)
    return gridYLoop(
        *lb, arith::ConstantIndexOp::create(b, loc, 1), 1, [&](Value iv) {
          return withIterator(iterId.get(), iv,
                              [&] { return translate(body.get()); });
        });
  if (degenerate && !blockLoop)
    return withIterator(iterId.get(), *lb,
                        [&] { return translate(body.get()); });
  if (degenerate)
    return launchKernel(arith::ConstantIndexOp::create(b, loc, 1), [&](Value) {
      return withIterator(iterId.get(), *lb,
                          [&] { return translate(body.get()); });
    });

  // With atomic_upper_bound the condition is `iter <= e` or `iter < e`.
  AstExpr cond(isl_ast_node_for_get_cond(node));
  if (!cond)
    return failIsl(ctx);
  auto unsupportedCond = [&] {
    return fail("unsupported loop condition '" + exprToString(cond.get()) +
                "' (expected an upper bound on " + iterName + ")");
  };
  if (isl_ast_expr_get_type(cond.get()) != isl_ast_expr_op)
    return unsupportedCond();
  isl_ast_expr_op_type condType = isl_ast_expr_op_get_type(cond.get());
  if ((condType != isl_ast_expr_op_le && condType != isl_ast_expr_op_lt) ||
      isl_ast_expr_op_get_n_arg(cond.get()) != 2)
    return unsupportedCond();
  AstExpr condLhs(isl_ast_expr_op_get_arg(cond.get(), 0));
  AstExpr condRhs(isl_ast_expr_op_get_arg(cond.get(), 1));
  if (!condLhs || !condRhs)
    return failIsl(ctx);
  isl_bool lhsIsIter = isl_ast_expr_is_equal(condLhs.get(), iterExpr.get());
  if (lhsIsIter < 0)
    return failIsl(ctx);
  if (!lhsIsIter)
    return unsupportedCond();
  // The iterator is not bound yet, so a bound that uses it is rejected.
  FailureOr<Value> bound = translateIndexExpr(condRhs.get());
  if (failed(bound))
    return failure();
  Value ub = *bound;
  if (condType == isl_ast_expr_op_le)
    ub = b.createOrFold<arith::AddIOp>(
        loc, ub, arith::ConstantIndexOp::create(b, loc, 1));

  AstExpr inc(isl_ast_node_for_get_inc(node));
  if (!inc)
    return failIsl(ctx);
  FailureOr<int64_t> stepValue = getInt(inc.get());
  if (failed(stepValue))
    return failure();
  if (*stepValue <= 0)
    return fail("loop step " + Twine(*stepValue) + " is not positive");
  Value step = arith::ConstantIndexOp::create(b, loc, *stepValue);

  if (blockLoop || yLoop) {
    // Iteration k of the loop is lb + k * step, k < ceil((ub - lb) / step).
    Value extent = arith::SubIOp::create(b, loc, ub, *lb);
    Value count = arith::CeilDivSIOp::create(b, loc, extent, step);
    auto iteration = [&](Value k) {
      Value iv = arith::AddIOp::create(
          b, loc, *lb, arith::MulIOp::create(b, loc, k, step));
      return withIterator(iterId.get(), iv,
                          [&] { return translate(body.get()); });
    };
    if (blockLoop)
      return launchKernel(count, iteration);
    return gridYLoop(*lb, count, *stepValue, [&](Value iv) {
      return withIterator(iterId.get(), iv,
                          [&] { return translate(body.get()); });
    });
  }

  OpBuilder::InsertionGuard guard(b);
  Value iv;
  if (parallel) {
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{*lb}, ValueRange{ub},
                                        ValueRange{step});
    iv = loop.getInductionVars().front();
    b.setInsertionPointToStart(loop.getBody());
  } else {
    auto loop = scf::ForOp::create(b, loc, *lb, ub, step);
    iv = loop.getInductionVar();
    b.setInsertionPointToStart(loop.getBody());
  }
  return withIterator(iterId.get(), iv, [&] { return translate(body.get()); });
}

LogicalResult AstTranslator::translateAtHostTime(isl_ast_node *node,
                                                 isl_id *iterator) {
  Value time = *hostTime;
  llvm::scope_exit restore([&] { hostTime = time; });
  hostTime.reset();
  AstNode body(isl_ast_node_for_get_body(node));
  if (!body)
    return failIsl(isl_ast_node_get_ctx(node));
  return withIterator(iterator, time, [&] { return translate(body.get()); });
}

LogicalResult AstTranslator::translateIf(isl_ast_node *node) {
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  AstExpr condExpr(isl_ast_node_if_get_cond(node));
  AstNode thenNode(isl_ast_node_if_get_then_node(node));
  if (!condExpr || !thenNode)
    return failIsl(ctx);
  isl_bool hasElse = isl_ast_node_if_has_else_node(node);
  if (hasElse < 0)
    return failIsl(ctx);
  AstNode elseNode;
  if (hasElse) {
    elseNode.reset(isl_ast_node_if_get_else_node(node));
    if (!elseNode)
      return failIsl(ctx);
  }
  if (gpu && !inKernel && usesThreadIds(condExpr.get())) {
    if (elseNode)
      return fail("a condition on thread ids with an else branch outside a "
                  "kernel");
    threadGuards.push_back(condExpr.get());
    LogicalResult result = translate(thenNode.get());
    threadGuards.pop_back();
    return result;
  }
  // Every thread runs every barrier instance (their domain has no thread
  // ids). So a condition on thread ids that guards a barrier run whenever
  // the condition holds is true for all threads or none: it is evaluated
  // for thread 0, which the code after this (the GPU emulation) can see is
  // uniform. isl leaves such guards where it hoists a statement's thread
  // filter over the barrier of its step.
  llvm::StringMap<Value> threadParams;
  if (inKernel && !elseNode && usesThreadIds(condExpr.get()) &&
      runsBarrier(thenNode.get()))
    for (const char *name : kThreadIdParams) {
      auto it = params.find(name);
      if (it == params.end())
        continue;
      threadParams[name] = it->second;
      it->second = arith::ConstantIndexOp::create(b, loc, 0);
    }
  FailureOr<Value> cond = translateBoolExpr(condExpr.get());
  for (auto &[name, value] : threadParams)
    params[name] = value;
  if (failed(cond))
    return failure();

  OpBuilder::InsertionGuard guard(b);
  auto ifOp =
      scf::IfOp::create(b, loc, *cond, /*withElseRegion=*/bool(hasElse));
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (failed(translate(thenNode.get())))
    return failure();
  if (elseNode) {
    b.setInsertionPointToStart(ifOp.elseBlock());
    if (failed(translate(elseNode.get())))
      return failure();
  }
  return success();
}

LogicalResult AstTranslator::translateBlock(isl_ast_node *node) {
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  AstNodeList children(isl_ast_node_block_get_children(node));
  if (!children)
    return failIsl(ctx);
  isl_size n = isl_ast_node_list_n_ast_node(children.get());
  if (n < 0)
    return failIsl(ctx);
  for (isl_size i = 0; i < n; ++i) {
    AstNode child(isl_ast_node_list_get_at(children.get(), i));
    if (!child)
      return failIsl(ctx);
    if (failed(translate(child.get())))
      return failure();
  }
  return success();
}

LogicalResult AstTranslator::translateMark(isl_ast_node *node) {
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  Id id(isl_ast_node_mark_get_id(node));
  AstNode child(isl_ast_node_mark_get_node(node));
  if (!id || !child)
    return failIsl(ctx);
  StringRef name = isl_id_get_name(id.get()) ? isl_id_get_name(id.get()) : "";
  if (name == kThreadsMark) {
    if (!gpu)
      return fail("'threads' mark without a GPU launch configuration");
    if (!inKernel)
      return fail("'threads' mark outside a kernel");
    return translate(child.get());
  }
  if (name.starts_with(kGridYMarkPrefix)) {
    if (!inKernel)
      return fail("'" + name + "' mark outside a kernel");
    auto *depth = static_cast<const unsigned *>(isl_id_get_user(id.get()));
    if (!depth)
      return fail(name + " mark without depth");
    std::optional<unsigned> outer = gridYDepth;
    gridYDepth = *depth;
    LogicalResult result = translate(child.get());
    gridYDepth = outer;
    return result;
  }
  if (name != kParallelMark && name != kKernelMark)
    return translate(child.get());
  auto *depth = static_cast<const unsigned *>(isl_id_get_user(id.get()));
  if (!depth)
    return fail(name + " mark without depth");
  if (name == kKernelMark) {
    if (!gpu)
      return fail("'kernel' mark without a GPU launch configuration");
    if (inKernel || pendingKernelDepth)
      return fail("nested 'kernel' marks");
    pendingKernelDepth = *depth;
    pendingGridY = gridYBelow(child.get());
    LogicalResult result = translate(child.get());
    pendingKernelDepth.reset();
    pendingGridY = 1;
    return result;
  }
  parallelDepths.push_back(*depth);
  LogicalResult result = translate(child.get());
  parallelDepths.pop_back();
  return result;
}

LogicalResult
AstTranslator::launchKernel(Value count,
                            function_ref<LogicalResult(Value)> body) {
  OpBuilder::InsertionGuard guard(b);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // No launch (an empty grid is an error in CUDA) when there is no
  // iteration.
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count,
                                    zero);
  auto ifOp = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value grid = arith::MinSIOp::create(
      b, loc, count, arith::ConstantIndexOp::create(b, loc, gpu->maxBlocks));
  SmallVector<Value, 3> threads;
  for (unsigned d = 0; d < 3; ++d)
    threads.push_back(arith::ConstantIndexOp::create(
        b, loc, d < gpu->threads.size() ? gpu->threads[d] : 1));
  Value gridY = arith::ConstantIndexOp::create(b, loc, pendingGridY);
  auto launch = gpu::LaunchOp::create(b, loc, grid, gridY, one, threads[0],
                                      threads[1], threads[2]);
  Block &kernel = launch.getBody().front();
  b.setInsertionPointToStart(&kernel);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&kernel);
  // Blocks loop over the iterations with the grid's stride.
  auto loop = scf::ForOp::create(b, loc, launch.getBlockIds().x, count,
                                 launch.getGridSize().x);
  b.setInsertionPointToStart(loop.getBody());
  blockIdY = launch.getBlockIds().y;
  gridSizeY = launch.getGridSize().y;
  gpu::KernelDim3 tids = launch.getThreadIds();
  Value ids[] = {tids.x, tids.y, tids.z};
  for (auto [name, id] : llvm::zip(kThreadIdParams, ids))
    params[name] = id;
  std::optional<unsigned> depth = pendingKernelDepth;
  pendingKernelDepth.reset();
  inKernel = true;
  LogicalResult result = success();
  for (isl_ast_expr *guardExpr : threadGuards) {
    FailureOr<Value> cond = translateBoolExpr(guardExpr);
    if (failed(cond)) {
      result = failure();
      break;
    }
    auto guardIf = scf::IfOp::create(b, loc, *cond, /*withElseRegion=*/false);
    b.setInsertionPointToStart(guardIf.thenBlock());
  }
  if (succeeded(result))
    result = body(loop.getInductionVar());
  inKernel = false;
  pendingKernelDepth = depth;
  for (StringRef name : kThreadIdParams)
    params.erase(name);
  return result;
}

Value AstTranslator::floorMod(Value l, Value r) {
  Value rem = b.createOrFold<arith::RemSIOp>(loc, l, r);
  Value negative =
      b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rem,
                                    arith::ConstantIndexOp::create(b, loc, 0));
  return b.createOrFold<arith::SelectOp>(
      loc, negative, b.createOrFold<arith::AddIOp>(loc, rem, r), rem);
}

Value AstTranslator::gridYBlockOwns(Value tile) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, blockIdY,
                               floorMod(tile, gridSizeY));
}

bool AstTranslator::onlyBoundIterators(isl_ast_expr *expr) {
  return !usesId(expr, [&](isl_id *id) {
    return iteratorDepths.contains(id) && !iterators.contains(id);
  });
}

isl_ast_expr *AstTranslator::gridYTileAt(isl_ast_node *node) {
  isl_ast_node *found = nullptr;
  auto visit = [](isl_ast_node *n, void *user) -> isl_bool {
    auto *first = static_cast<isl_ast_node **>(user);
    if (*first)
      return isl_bool_false;
    if (isl_ast_node_get_type(n) == isl_ast_node_user)
      *first = n;
    return isl_bool_true;
  };
  isl_ast_node_foreach_descendant_top_down(node, visit, &found);
  UserAnnotation *annotation = found ? annotationOf(found) : nullptr;
  if (!annotation || !annotation->gridYTile ||
      !onlyBoundIterators(annotation->gridYTile.get()))
    return nullptr;
  return annotation->gridYTile.get();
}

LogicalResult
AstTranslator::gridYLoop(Value lb, Value count, int64_t step,
                         function_ref<LogicalResult(Value)> body) {
  OpBuilder::InsertionGuard guard(b);
  std::optional<unsigned> depth = gridYDepth;
  gridYDepth.reset();
  LogicalResult result = success();
  if (step == 1) {
    // Tiles lb + k with floormod(lb + k, grid) == this block: k from
    // floormod(block - lb, grid) on, by the grid's size.
    Value first =
        floorMod(arith::SubIOp::create(b, loc, blockIdY, lb), gridSizeY);
    auto loop = scf::ForOp::create(b, loc, first, count, gridSizeY);
    b.setInsertionPointToStart(loop.getBody());
    result = body(arith::AddIOp::create(b, loc, lb, loop.getInductionVar()));
  } else {
    // (isl strides a tile loop only when the tiles in between have no
    // instances; then every block walks the loop and takes its own.)
    auto loop =
        scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                           count, arith::ConstantIndexOp::create(b, loc, 1));
    b.setInsertionPointToStart(loop.getBody());
    Value tile = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, loop.getInductionVar(),
                              arith::ConstantIndexOp::create(b, loc, step)));
    auto owned = scf::IfOp::create(b, loc, gridYBlockOwns(tile),
                                   /*withElseRegion=*/false);
    b.setInsertionPointToStart(owned.thenBlock());
    result = body(tile);
  }
  gridYDepth = depth;
  return result;
}

LogicalResult AstTranslator::translateUser(isl_ast_node *node) {
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  if (!kernelRoots.empty()) {
    StringRef name = calledStatement(node);
    unsigned k;
    if (name.consume_front(kHostKernelPrefix) && !name.getAsInteger(10, k) &&
        k < kernelRoots.size()) {
      AstExpr call(isl_ast_node_user_get_expr(node));
      AstExpr time(call ? isl_ast_expr_op_get_arg(call.get(), 1) : nullptr);
      if (!time)
        return failIsl(ctx);
      FailureOr<Value> value = translateIndexExpr(time.get());
      if (failed(value))
        return failure();
      hostTime = *value;
      LogicalResult result = translate(kernelRoots[k]);
      hostTime.reset();
      return result;
    }
  }
  UserAnnotation *annotation = annotationOf(node);
  if (!annotation)
    return fail("statement instance without annotation");
  OpBuilder::InsertionGuard guard(b);
  if (gridYPerInstance) {
    // (Without the member's value: as isl left it, on the blocks of y = 0.)
    Value owns =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, blockIdY,
                              arith::ConstantIndexOp::create(b, loc, 0));
    if (annotation->gridYTile) {
      FailureOr<Value> tile = translateIndexExpr(annotation->gridYTile.get());
      if (failed(tile))
        return failure();
      owns = gridYBlockOwns(*tile);
    }
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, owns, /*withElseRegion=*/false).thenBlock());
  }
  const StatementPlan *plan = annotation->plan;
  if (!plan) {
    if (!inKernel)
      return fail("barrier outside a kernel");
    gpu::BarrierOp::create(b, loc);
    return success();
  }

  SmallVector<Value> iteratorValues;
  for (const AstExpr &expr : annotation->iterators) {
    FailureOr<Value> value = translateIndexExpr(expr.get());
    if (failed(value))
      return failure();
    iteratorValues.push_back(*value);
  }
  // Each function is translated where first used, which keeps the ops in the
  // order of the accesses.
  SmallVector<Value> functionValues(annotation->functions.size());
  SmallVector<SmallVector<Value>> subscripts;
  for (const SmallVector<unsigned> &access : plan->subscripts) {
    SmallVector<Value> &values = subscripts.emplace_back();
    for (unsigned f : access) {
      Value &value = functionValues[f];
      if (!value) {
        FailureOr<Value> translated =
            translateIndexExpr(annotation->functions[f].get());
        if (failed(translated))
          return failure();
        value = *translated;
      }
      values.push_back(value);
    }
  }
  StringRef name = plan->statement->name;
  // The statement's name on its accesses and body: the profiler labels the
  // code it counts with the statements there (copy-in, compute, ...).
  Location statementLoc = NameLoc::get(b.getStringAttr(name), loc);
  if (failed(emit(b, statementLoc, name, iteratorValues, subscripts)))
    return fail("statement emitter failed for '" + name + "'");
  return success();
}

FailureOr<int64_t> AstTranslator::getInt(isl_ast_expr *expr) {
  isl_ctx *ctx = isl_ast_expr_get_ctx(expr);
  if (isl_ast_expr_get_type(expr) != isl_ast_expr_int) {
    (void)fail("expected an integer constant, got '" + exprToString(expr) +
               "'");
    return failure();
  }
  Val val(isl_ast_expr_int_get_val(expr));
  if (!val) {
    (void)failIsl(ctx);
    return failure();
  }
  Val minVal(isl_val_int_from_si(ctx, std::numeric_limits<int64_t>::min()));
  Val maxVal(isl_val_int_from_si(ctx, std::numeric_limits<int64_t>::max()));
  if (!minVal || !maxVal) {
    (void)failIsl(ctx);
    return failure();
  }
  if (isl_val_is_int(val.get()) != isl_bool_true ||
      isl_val_lt(val.get(), minVal.get()) != isl_bool_false ||
      isl_val_gt(val.get(), maxVal.get()) != isl_bool_false) {
    (void)fail("integer '" + exprToString(expr) + "' does not fit in int64");
    return failure();
  }
  return static_cast<int64_t>(isl_val_get_num_si(val.get()));
}

FailureOr<Value> AstTranslator::translateIndexExpr(isl_ast_expr *expr) {
  FailureOr<Value> value = translateExpr(expr);
  if (failed(value))
    return failure();
  if (!value->getType().isIndex()) {
    (void)fail("expected an integer expression, got '" + exprToString(expr) +
               "'");
    return failure();
  }
  return value;
}

FailureOr<Value> AstTranslator::translateBoolExpr(isl_ast_expr *expr) {
  FailureOr<Value> value = translateExpr(expr);
  if (failed(value))
    return failure();
  // isl writes a condition that always holds as the integer 1 (and one
  // that never does as 0): any integer is a condition, non-zero is true.
  if (value->getType().isIndex()) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                 *value, zero)
        .getResult();
  }
  if (!value->getType().isInteger(1)) {
    (void)fail("expected a condition, got '" + exprToString(expr) + "'");
    return failure();
  }
  return value;
}

FailureOr<Value> AstTranslator::translateExpr(isl_ast_expr *expr) {
  isl_ctx *ctx = isl_ast_expr_get_ctx(expr);
  switch (isl_ast_expr_get_type(expr)) {
  case isl_ast_expr_int: {
    FailureOr<int64_t> value = getInt(expr);
    if (failed(value))
      return failure();
    return Value(arith::ConstantIndexOp::create(b, loc, *value));
  }
  case isl_ast_expr_id: {
    Id id(isl_ast_expr_id_get_id(expr));
    if (!id) {
      (void)failIsl(ctx);
      return failure();
    }
    const char *name = isl_id_get_name(id.get());
    StringRef nameRef = name ? name : "";
    if (auto it = iterators.find(id.get()); it != iterators.end())
      return it->second;
    if (iteratorDepths.contains(id.get())) {
      (void)fail("loop iterator '" + nameRef + "' used outside its loop");
      return failure();
    }
    if (auto it = params.find(nameRef); it != params.end()) {
      Value param = it->second;
      if (param && param.getType().isIndex())
        return param;
      if (param && param.getType().isSignlessInteger())
        return Value(
            arith::IndexCastOp::create(b, loc, b.getIndexType(), param));
      (void)fail("parameter '" + nameRef + "' is not an integer value");
      return failure();
    }
    (void)fail("unknown identifier '" + nameRef +
               "' (neither a loop iterator nor a parameter)");
    return failure();
  }
  case isl_ast_expr_op:
    return translateOp(expr);
  case isl_ast_expr_error:
    (void)failIsl(ctx);
    return failure();
  }
  (void)fail("unsupported expression '" + exprToString(expr) + "'");
  return failure();
}

FailureOr<Value> AstTranslator::translateOp(isl_ast_expr *expr) {
  isl_ctx *ctx = isl_ast_expr_get_ctx(expr);
  isl_ast_expr_op_type type = isl_ast_expr_op_get_type(expr);
  isl_size n = isl_ast_expr_op_get_n_arg(expr);
  if (n < 0) {
    (void)failIsl(ctx);
    return failure();
  }

  auto unsupported = [&]() -> FailureOr<Value> {
    (void)fail("unsupported isl AST expression '" + exprToString(expr) + "'");
    return failure();
  };
  auto arg = [&](int i, bool isBool) -> FailureOr<Value> {
    AstExpr sub(isl_ast_expr_op_get_arg(expr, i));
    if (!sub) {
      (void)failIsl(ctx);
      return failure();
    }
    return isBool ? translateBoolExpr(sub.get())
                  : translateIndexExpr(sub.get());
  };
  // Left fold of an n-ary (n >= 2) operation.
  auto fold =
      [&](bool isBool,
          function_ref<Value(Value, Value)> combine) -> FailureOr<Value> {
    if (n < 2)
      return unsupported();
    FailureOr<Value> acc = arg(0, isBool);
    if (failed(acc))
      return failure();
    Value result = *acc;
    for (isl_size i = 1; i < n; ++i) {
      FailureOr<Value> next = arg(i, isBool);
      if (failed(next))
        return failure();
      result = combine(result, *next);
    }
    return result;
  };
  auto binary =
      [&](function_ref<Value(Value, Value)> combine) -> FailureOr<Value> {
    if (n != 2)
      return unsupported();
    return fold(false, combine);
  };
  auto compare = [&](arith::CmpIPredicate pred) {
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::CmpIOp>(loc, pred, l, r);
    });
  };

  switch (type) {
  case isl_ast_expr_op_add:
    return fold(false, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::AddIOp>(loc, l, r);
    });
  case isl_ast_expr_op_mul:
    return fold(false, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::MulIOp>(loc, l, r);
    });
  case isl_ast_expr_op_sub:
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::SubIOp>(loc, l, r);
    });
  case isl_ast_expr_op_minus: {
    if (n != 1)
      return unsupported();
    FailureOr<Value> operand = arg(0, false);
    if (failed(operand))
      return failure();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    return Value(b.createOrFold<arith::SubIOp>(loc, zero, *operand));
  }
  // Exact division: the signed quotient.
  case isl_ast_expr_op_div:
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::DivSIOp>(loc, l, r);
    });
  // isl knows the dividend to be non-negative where the value matters, but
  // not everywhere the code evaluates it: the bounds of a loop that is empty
  // for some outer iterations are evaluated there too, and an unsigned
  // division of a negative dividend made one such bound 2^64 / 9 (a hang).
  // So they are floor division and modulo, equal to the unsigned forms for
  // non-negative dividends (divisors are positive constants).
  case isl_ast_expr_op_pdiv_q:
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::FloorDivSIOp>(loc, l, r);
    });
  case isl_ast_expr_op_pdiv_r:
    return binary([&](Value l, Value r) { return floorMod(l, r); });
  case isl_ast_expr_op_fdiv_q:
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::FloorDivSIOp>(loc, l, r);
    });
  // zdiv_r is only compared with zero, for which the sign matters.
  case isl_ast_expr_op_zdiv_r:
    return binary([&](Value l, Value r) -> Value {
      return b.createOrFold<arith::RemSIOp>(loc, l, r);
    });
  case isl_ast_expr_op_min:
    return fold(false, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::MinSIOp>(loc, l, r);
    });
  case isl_ast_expr_op_max:
    return fold(false, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::MaxSIOp>(loc, l, r);
    });
  case isl_ast_expr_op_eq:
    return compare(arith::CmpIPredicate::eq);
  case isl_ast_expr_op_le:
    return compare(arith::CmpIPredicate::sle);
  case isl_ast_expr_op_lt:
    return compare(arith::CmpIPredicate::slt);
  case isl_ast_expr_op_ge:
    return compare(arith::CmpIPredicate::sge);
  case isl_ast_expr_op_gt:
    return compare(arith::CmpIPredicate::sgt);
  // Operands are side-effect free, so short-circuit forms may evaluate both.
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    return fold(true, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::AndIOp>(loc, l, r);
    });
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    return fold(true, [&](Value l, Value r) -> Value {
      return b.createOrFold<arith::OrIOp>(loc, l, r);
    });
  case isl_ast_expr_op_select:
  case isl_ast_expr_op_cond: {
    if (n != 3)
      return unsupported();
    FailureOr<Value> cond = arg(0, true);
    if (failed(cond))
      return failure();
    AstExpr thenExpr(isl_ast_expr_op_get_arg(expr, 1));
    AstExpr elseExpr(isl_ast_expr_op_get_arg(expr, 2));
    if (!thenExpr || !elseExpr) {
      (void)failIsl(ctx);
      return failure();
    }
    FailureOr<Value> thenValue = translateExpr(thenExpr.get());
    if (failed(thenValue))
      return failure();
    FailureOr<Value> elseValue = translateExpr(elseExpr.get());
    if (failed(elseValue))
      return failure();
    if (thenValue->getType() != elseValue->getType())
      return unsupported();
    return b.createOrFold<arith::SelectOp>(loc, *cond, *thenValue, *elseValue);
  }
  default:
    return unsupported();
  }
}

/// The instances of the schedule's domain that pass the filters above
/// `node` (isl_schedule_node_get_domain refuses nodes below an extension).
isl_union_set *filteredDomain(isl_schedule_node *node) {
  isl_schedule *schedule = isl_schedule_node_get_schedule(node);
  isl_union_set *domain = isl_schedule_get_domain(schedule);
  isl_schedule_free(schedule);
  for (isl_size g = 1, e = isl_schedule_node_get_tree_depth(node); g <= e;
       ++g) {
    isl_schedule_node *ancestor =
        isl_schedule_node_ancestor(isl_schedule_node_copy(node), g);
    if (isl_schedule_node_get_type(ancestor) == isl_schedule_node_filter)
      domain = isl_union_set_intersect(
          domain, isl_schedule_node_filter_get_filter(ancestor));
    isl_schedule_node_free(ancestor);
  }
  return domain;
}

/// Simplifies the filter below a "threads" mark in the instances that
/// reach it (a callback of isl_schedule_map_schedule_node_bottom_up).
isl_schedule_node *simplifyThreadFilter(isl_schedule_node *node, void *) {
  if (isl_schedule_node_get_type(node) != isl_schedule_node_mark)
    return node;
  Id mark(isl_schedule_node_mark_get_id(node));
  const char *name = mark ? isl_id_get_name(mark.get()) : nullptr;
  if (!name || StringRef(name) != kThreadsMark)
    return node;
  node = isl_schedule_node_child(node, 0);
  if (isl_schedule_node_get_type(node) == isl_schedule_node_filter) {
    // (Statements an extension node introduced, e.g. the copies of shared
    // promotion, are not in that domain: their filters stay as they are.)
    isl_union_set *filter = isl_schedule_node_filter_get_filter(node);
    isl_union_set *reaching = filteredDomain(node);
    reaching = isl_union_set_union(
        isl_union_set_subtract(
            isl_union_set_universe(isl_union_set_copy(filter)),
            isl_union_set_universe(isl_union_set_copy(reaching))),
        isl_union_set_coalesce(reaching));
    filter = isl_union_set_coalesce(isl_union_set_gist(filter, reaching));
    node =
        isl_schedule_node_insert_filter(isl_schedule_node_delete(node), filter);
  }
  return isl_schedule_node_parent(node);
}

/// Sets the options of loop generation on `ctx` for good (a context of
/// generateLoops' own; ScopedIslOptions restores the caller's).
void setAstOptions(isl_ctx *ctx) {
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  isl_options_set_ast_build_atomic_upper_bound(ctx, 1);
  isl_options_set_ast_build_detect_min_max(ctx, 1);
  isl_options_set_ast_build_prefer_pdiv(ctx, 1);
  isl_options_set_ast_build_exploit_nested_bounds(ctx, 1);
}

/// An AST and what its marks, iterators and user nodes point into (the
/// members are freed in reverse order, the AST first).
struct GeneratedAst {
  DepthInfo depths;
  DomainCallbackData data;
  IdList iteratorsAlive;
  AstNode root;
  /// The schedule depth of each iterator id.
  SmallVector<std::pair<isl_id *, unsigned>> iteratorDepths;
};

/// A kernel's AST, generated in an isl context of its own (members are
/// freed in reverse order, the context last).
struct KernelAst {
  IslContext context;
  /// The statements' accesses, in `context`.
  SmallVector<StatementAccesses> statements;
  GeneratedAst ast;
  std::string error;
  /// Whether every launch of the AST is inside its one loop over the time
  /// tiles, or the phase has one time tile.
  bool timeLoopsCover = false;
};

/// The loops at schedule depth 0 (the time tiles) in the AST `node`.
unsigned countTimeLoops(isl_ast_node *node) {
  unsigned count = 0;
  auto visit = [](isl_ast_node *n, void *user) -> isl_bool {
    if (loopDepth(n) == 0u)
      ++*static_cast<unsigned *>(user);
    return isl_bool_true;
  };
  isl_ast_node_foreach_descendant_top_down(node, visit, &count);
  return count;
}

/// Whether every "kernel" mark below `node` is inside a loop at schedule
/// depth 0 (the time tiles).
bool kernelsInTimeLoops(isl_ast_node *node) {
  auto below = [](isl_ast_node *child) {
    AstNode owned(child);
    return owned && kernelsInTimeLoops(owned.get());
  };
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    return loopDepth(node) == 0u || below(isl_ast_node_for_get_body(node));
  case isl_ast_node_if:
    return below(isl_ast_node_if_get_then_node(node)) &&
           (isl_ast_node_if_has_else_node(node) != isl_bool_true ||
            below(isl_ast_node_if_get_else_node(node)));
  case isl_ast_node_block: {
    AstNodeList children(isl_ast_node_block_get_children(node));
    for (isl_size i = 0, e = isl_ast_node_list_n_ast_node(children.get());
         i < e; ++i)
      if (!below(isl_ast_node_list_get_at(children.get(), i)))
        return false;
    return true;
  }
  case isl_ast_node_mark: {
    Id id(isl_ast_node_mark_get_id(node));
    const char *name = id ? isl_id_get_name(id.get()) : nullptr;
    return !(name && StringRef(name) == kKernelMark) &&
           below(isl_ast_node_mark_get_node(node));
  }
  default:
    return true;
  }
}

/// Generates the AST of `schedule` (taken) into `ast`; its user nodes are
/// annotated with the plans of `statements` unless `host` (the host's
/// statements of the parallel kernels, see generateLoops).
LogicalResult buildAst(isl_schedule *schedule,
                       ArrayRef<StatementAccesses> statements, bool gpu,
                       GeneratedAst &ast, std::string &error,
                       bool host = false) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  // Record depths in the parallel marks (see "Loop depths").
  Schedule taggedSchedule(
      isl_schedule_map_schedule_node_bottom_up(schedule, tagNode, &ast.depths));
  if (!taggedSchedule) {
    error = ast.depths.error.empty() ? islError(ctx) : ast.depths.error;
    return failure();
  }

  // One iterator id per depth; the user pointer makes them distinct from any
  // parameter of the same name.
  isl_id_list *iteratorList = isl_id_list_alloc(ctx, ast.depths.maxDepth);
  for (unsigned d = 0; d < ast.depths.maxDepth; ++d) {
    std::string name = "c" + std::to_string(d);
    isl_id *id = isl_id_alloc(
        ctx, name.c_str(), const_cast<unsigned *>(storeDepth(ast.depths, d)));
    ast.iteratorDepths.push_back({id, d});
    iteratorList = isl_id_list_add(iteratorList, id);
  }
  if (!iteratorList) {
    error = islError(ctx);
    return failure();
  }

  // Parameters are unconstrained here; constraints on them belong in a
  // context node of the schedule tree.
  isl_union_set *domain = isl_schedule_get_domain(taggedSchedule.get());
  if (!domain) {
    isl_id_list_free(iteratorList);
    error = islError(ctx);
    return failure();
  }
  isl_set *context =
      isl_set_universe(isl_space_params(isl_union_set_get_space(domain)));
  isl_union_set_free(domain);
  AstBuild build(isl_ast_build_from_context(context));
  // Keeps the iterator ids (the keys of iteratorDepths) alive.
  ast.iteratorsAlive.reset(isl_id_list_copy(iteratorList));
  build.reset(isl_ast_build_set_iterators(build.release(), iteratorList));
  ast.data.gridYDepth = ast.depths.gridYDepth;
  for (const StatementAccesses &statement : statements) {
    std::unique_ptr<StatementPlan> plan = planStatement(statement, error);
    if (!plan)
      return failure();
    ast.data.plans[statement.name] = std::move(plan);
  }
  if (!host)
    build.reset(isl_ast_build_set_at_each_domain(build.release(),
                                                 annotateUserNode, &ast.data));
  if (!build || !ast.iteratorsAlive) {
    error = islError(ctx);
    return failure();
  }
  ast.root.reset(isl_ast_build_node_from_schedule(
      build.get(), isl_schedule_copy(taggedSchedule.get())));
  // The thread filters of poly-to-gpu are not simplified in the instances
  // that reach them (on large kernels that made isl's loop generation much
  // slower). Then isl may test thread ids in a guard around a barrier: one
  // that equals the barrier's own guard, so every thread takes the same
  // path, but no code after this can tell. Simplified filters avoid it.
  if (ast.root && gpu && ast.data.error.empty() &&
      barrierUnderThreadIds(ast.root.get(), /*guarded=*/false)) {
    taggedSchedule.reset(isl_schedule_map_schedule_node_bottom_up(
        taggedSchedule.release(), simplifyThreadFilter, nullptr));
    ast.root.reset(taggedSchedule ? isl_ast_build_node_from_schedule(
                                        build.get(), taggedSchedule.release())
                                  : nullptr);
  }
  if (!ast.root || !ast.data.error.empty()) {
    error = ast.data.error.empty() ? islError(ctx) : ast.data.error;
    return failure();
  }
  return success();
}

/// A phase of a GPU-mapped time-tiling: its filter, and the time tiles it
/// has instances in (as "host_kernel_k[T]").
struct KernelPhase {
  isl::union_set filter;
  isl::set tiles;
};

/// The phases of a GPU-mapped time-tiled tree, which has the shape domain
/// -> band [T] -> sequence -> (filter -> mark "kernel") per phase; none
/// for any other tree, or if a phase has no instance.
SmallVector<KernelPhase> kernelPhases(isl_schedule *schedule) {
  SmallVector<KernelPhase> phases;
  isl::schedule_node root = isl::manage(isl_schedule_get_root(schedule));
  if (root.is_null() || root.n_children() != 1)
    return phases;
  isl::schedule_node band = root.child(0);
  if (isl_schedule_node_get_type(band.get()) != isl_schedule_node_band ||
      isl_schedule_node_band_n_member(band.get()) != 1 ||
      band.n_children() != 1)
    return phases;
  isl::schedule_node sequence = band.child(0);
  if (isl_schedule_node_get_type(sequence.get()) != isl_schedule_node_sequence)
    return phases;
  isl::union_map timeOf = isl::manage(
      isl_schedule_node_band_get_partial_schedule_union_map(band.get()));
  isl::union_set domain = isl::manage(isl_schedule_get_domain(schedule));
  for (int i = 0, e = sequence.n_children(); i < e; ++i) {
    isl::schedule_node filter = sequence.child(i);
    if (filter.n_children() != 1)
      return {};
    isl::schedule_node mark = filter.child(0);
    if (isl_schedule_node_get_type(mark.get()) != isl_schedule_node_mark)
      return {};
    Id id(isl_schedule_node_mark_get_id(mark.get()));
    const char *name = id ? isl_id_get_name(id.get()) : nullptr;
    if (!name || StringRef(name) != kKernelMark)
      return {};
    KernelPhase &phase = phases.emplace_back();
    phase.filter =
        isl::manage(isl_schedule_node_filter_get_filter(filter.get()));
    isl::union_set tiles = domain.intersect(phase.filter).apply(timeOf);
    if (tiles.is_empty())
      return {};
    std::string tuple = kHostKernelPrefix + std::to_string(i);
    phase.tiles = isl::manage(isl_set_coalesce(isl_set_set_tuple_name(
        isl_set_from_union_set(tiles.release()), tuple.c_str())));
  }
  return phases;
}

} // namespace

LogicalResult mlir::stencil::poly::generateLoops(
    OpBuilder &b, Location loc, isl::schedule schedule,
    ArrayRef<StatementAccesses> statements,
    const llvm::StringMap<Value> &params, StatementEmitter emit,
    std::string &error, const GpuLaunchConfig *gpu) {
  if (schedule.is_null()) {
    error = "null schedule";
    return failure();
  }
  isl_ctx *ctx = isl_schedule_get_ctx(schedule.get());
  ScopedIslOptions options(ctx);

  // A GPU-mapped tiling: isl's loop generation of the phases' kernels, most
  // of the compile time of large programs, runs in parallel, one isl
  // context per kernel (a context is not thread-safe). Each kernel's AST
  // keeps its own loop over the time tiles T; the host's loop over T comes
  // from an AST of one statement per phase ("host_kernel_k[T]"), and each
  // such statement becomes the kernel's AST with its T loop turned into a
  // test of the host's T.
  MLIRContext *mlirContext = b.getContext();
  SmallVector<KernelPhase> phases =
      gpu && mlirContext->isMultithreadingEnabled()
          ? kernelPhases(schedule.get())
          : SmallVector<KernelPhase>();
  std::unique_ptr<GeneratedAst> whole;
  SmallVector<std::unique_ptr<KernelAst>> kernels;
  std::unique_ptr<GeneratedAst> host;
  if (phases.size() > 1) {
    char *text = isl_schedule_to_str(schedule.get());
    std::string scheduleText = text ? text : "";
    free(text);
    SmallVector<SmallVector<std::string>> accessTexts;
    for (const StatementAccesses &statement : statements) {
      SmallVector<std::string> &texts = accessTexts.emplace_back();
      for (const isl::pw_multi_aff &access : statement.accesses)
        texts.push_back(toString(access));
    }
    SmallVector<bool> singleTile;
    for (const KernelPhase &phase : phases) {
      kernels.push_back(std::make_unique<KernelAst>());
      singleTile.push_back(phase.tiles.is_singleton());
    }
    LogicalResult built = failableParallelForEachN(
        mlirContext, 0, phases.size(), [&](size_t k) -> LogicalResult {
          KernelAst &kernel = *kernels[k];
          isl_ctx *kctx = kernel.context.get().get();
          setAstOptions(kctx);
          // Phase k alone, its time tiles in one loop (atomic): the host
          // runs the loop's body for one tile at a time.
          isl_schedule *whole =
              isl_schedule_read_from_str(kctx, scheduleText.c_str());
          isl_schedule_node *band =
              isl_schedule_node_child(isl_schedule_get_root(whole), 0);
          isl_schedule_free(whole);
          band = isl_schedule_node_band_member_set_ast_loop_type(
              band, 0, isl_ast_loop_atomic);
          isl_schedule_node *filter = isl_schedule_node_child(
              isl_schedule_node_child(isl_schedule_node_copy(band), 0), int(k));
          isl_schedule *copy = isl_schedule_intersect_domain(
              isl_schedule_node_get_schedule(band),
              isl_schedule_node_filter_get_filter(filter));
          isl_schedule_node_free(filter);
          isl_schedule_node_free(band);
          for (auto [statement, texts] : llvm::zip(statements, accessTexts)) {
            StatementAccesses &local = kernel.statements.emplace_back();
            local.name = statement.name;
            for (const std::string &access : texts) {
              isl_pw_multi_aff *parsed =
                  isl_pw_multi_aff_read_from_str(kctx, access.c_str());
              if (!parsed) {
                isl_schedule_free(copy);
                kernel.error = islError(kctx);
                return failure();
              }
              local.accesses.push_back(isl::manage(parsed));
            }
          }
          if (!copy) {
            kernel.error = islError(kctx);
            return failure();
          }
          if (failed(buildAst(copy, kernel.statements, /*gpu=*/true, kernel.ast,
                              kernel.error)))
            return failure();
          // isl drops the loop over a single tile; with several, every
          // launch must be inside one loop over them, or the host could
          // not tell which tile a piece of the AST is for (then the whole
          // tree is generated at once instead).
          isl_ast_node *root = kernel.ast.root.get();
          kernel.timeLoopsCover = singleTile[k] || (countTimeLoops(root) == 1 &&
                                                    kernelsInTimeLoops(root));
          return success();
        });
    if (failed(built)) {
      for (const std::unique_ptr<KernelAst> &kernel : kernels)
        if (!kernel->error.empty()) {
          error = kernel->error;
          break;
        }
      if (error.empty())
        error = "loop generation of a kernel failed";
      return failure();
    }
    if (!llvm::all_of(kernels, [](const std::unique_ptr<KernelAst> &kernel) {
          return kernel->timeLoopsCover;
        }))
      kernels.clear();
  }
  if (!kernels.empty()) {
    // The host: for each phase k, the time tiles it has instances in.
    isl::union_set tiles = isl::union_set::empty(ctx);
    isl::union_set_list filters(ctx, int(phases.size()));
    SmallVector<std::string> times;
    for (const KernelPhase &phase : phases) {
      tiles = tiles.unite(phase.tiles);
      filters =
          filters.add(isl::union_set(isl::set::universe(phase.tiles.space())));
      times.push_back(tupleName(phase.tiles) + "[T] -> [(T)]");
    }
    isl::schedule_node hostRoot =
        isl::schedule::from_domain(tiles)
            .root()
            .child(0)
            .insert_partial_schedule(isl::multi_union_pw_aff(
                ctx, "[{ " + llvm::join(times, "; ") + " }]"));
    // One loop over the time tiles, as the whole tree gets (a host loop
    // carries its streams, stencil-gpu-async-loops).
    isl_schedule_node *hostBand =
        isl_schedule_node_band_member_set_ast_loop_type(hostRoot.release(), 0,
                                                        isl_ast_loop_atomic);
    isl::schedule hostSchedule = isl::manage(
        isl_schedule_node_get_schedule(isl_schedule_node_insert_sequence(
            isl_schedule_node_child(hostBand, 0), filters.release())));
    host = std::make_unique<GeneratedAst>();
    if (failed(buildAst(hostSchedule.release(), {}, /*gpu=*/false, *host, error,
                        /*host=*/true)))
      return failure();
  } else {
    whole = std::make_unique<GeneratedAst>();
    if (failed(buildAst(isl_schedule_copy(schedule.get()), statements,
                        gpu != nullptr, *whole, error)))
      return failure();
  }
  llvm::DenseMap<isl_id *, unsigned> iteratorDepths;
  SmallVector<isl_ast_node *> kernelRoots;
  for (GeneratedAst *ast : {whole.get(), host.get()})
    if (ast)
      iteratorDepths.insert(ast->iteratorDepths.begin(),
                            ast->iteratorDepths.end());
  for (const std::unique_ptr<KernelAst> &kernel : kernels) {
    iteratorDepths.insert(kernel->ast.iteratorDepths.begin(),
                          kernel->ast.iteratorDepths.end());
    kernelRoots.push_back(kernel->ast.root.get());
  }
  isl_ast_node *root = whole ? whole->root.get() : host->root.get();

  Block *block = b.getInsertionBlock();
  if (!block) {
    error = "the builder has no insertion point";
    return failure();
  }
  Block::iterator insertionPoint = b.getInsertionPoint();
  Operation *last =
      insertionPoint == block->begin() ? nullptr : &*std::prev(insertionPoint);

  AstTranslator translator(b, loc, params, iteratorDepths, emit, error, gpu,
                           kernelRoots);
  if (succeeded(translator.translate(root)))
    return success();

  // Leave the caller's IR as it was: erase what was generated so far.
  SmallVector<Operation *> generated;
  for (Block::iterator it = last ? std::next(last->getIterator())
                                 : block->begin();
       it != insertionPoint; ++it)
    generated.push_back(&*it);
  for (Operation *op : generated)
    op->dropAllReferences();
  for (Operation *op : llvm::reverse(generated)) {
    op->dropAllUses();
    op->erase();
  }
  return failure();
}
