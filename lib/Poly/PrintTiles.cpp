//===- PrintTiles.cpp - the --poly-print-tiles pass ----------------------===//
//
// Writes, for every hex- or split-tiled scop, where each statement instance
// runs: its time tile or band T, its phase or color (the position in the
// tree's sequence) and its tile, read from the prefix schedule at the
// leaves of the schedule tree that code generation turns into loops; plus
// the dependence distances in the canonical space. As JSON, for pictures
// of the tiling (python3 -m stencil picture) and for checking them.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <isl/point.h>
#include <isl/schedule_node.h>

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_POLYPRINTTILES
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

/// Instances beyond this are refused: the output is for small programs.
constexpr int64_t kMaxInstances = 1 << 20;

int64_t coordinate(const isl::point &p, unsigned pos) {
  isl_val *v = isl_point_get_coordinate_val(p.get(), isl_dim_set, pos);
  int64_t result = isl_val_get_num_si(v);
  isl_val_free(v);
  return result;
}

struct PolyPrintTilesPass
    : mlir::stencil::poly::impl::PolyPrintTilesBase<PolyPrintTilesPass> {
  using Base::Base;

  FailureOr<llvm::json::Object> describe(ScopOp scop);

  void runOnOperation() override {
    llvm::json::Array scops;
    WalkResult walked = getOperation().walk([&](ScopOp scop) {
      FailureOr<llvm::json::Object> described = describe(scop);
      if (failed(described))
        return WalkResult::interrupt();
      scops.push_back(std::move(*described));
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    llvm::json::Value json(llvm::json::Object{{"scops", std::move(scops)}});
    if (output == "-") {
      llvm::errs() << json << "\n";
      return;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(output, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      mlir::emitError(getOperation().getLoc(),
                      "poly-print-tiles: cannot write '")
          << output << "': " << ec.message();
      return signalPassFailure();
    }
    os << json << "\n";
  }
};

FailureOr<llvm::json::Object> PolyPrintTilesPass::describe(ScopOp scop) {
  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (!model)
    return scop.emitError("cannot read the polyhedral form: ") << error;
  unsigned n = model->numSpaceDims;
  if (n == 0 || !isTimeTiled(model->schedule, n))
    return mlir::emitError(scop.getLoc(),
                           "poly-print-tiles: the scop is not hex- or "
                           "split-tiled (run --hex-tile or --split-tile "
                           "first, and no GPU mapping)");
  try {
    // A program with a dynamic step count: steps= fixes it.
    isl::set params = isl::set::universe(model->domain.get_space());
    if (isl_union_set_dim(model->domain.get(), isl_dim_param) > 0) {
      if (steps <= 0)
        return mlir::emitError(scop.getLoc(),
                               "poly-print-tiles: the number of steps is not "
                               "a constant; give it with steps= (the "
                               "picture command's --steps)");
      params = isl::set(ctx, "[N] -> { : N = " + std::to_string(steps) + " }");
    }
    isl::union_set domain = model->domain.intersect_params(params);
    int64_t count = 0;
    domain.foreach_point([&](isl::point) { ++count; });
    if (count > kMaxInstances)
      return mlir::emitError(scop.getLoc(), "poly-print-tiles: ")
             << count << " statement instances, more than " << kMaxInstances
             << "; use a smaller program";
    llvm::json::Array points;
    isl::schedule_node sequence = model->schedule.root().child(0).child(0);
    for (unsigned c = 0; c < unsigned(sequence.n_children()); ++c) {
      // filter -> mark -> tiles -> t' -> points -> leaf
      isl::schedule_node leaf =
          sequence.child(c).child(0).child(0).child(0).child(0).child(0);
      isl::union_map placed =
          leaf.get_prefix_schedule_union_map().intersect_domain(domain);
      placed.foreach_map([&](isl::map map) {
        // llvm::json borrows StringRefs: own the names.
        std::string name = isl_map_get_tuple_name(map.get(), isl_dim_in);
        unsigned in = n + 1;
        map.wrap().foreach_point([&](isl::point p) {
          llvm::json::Array instance, tile;
          for (unsigned i = 0; i < in; ++i)
            instance.push_back(coordinate(p, i));
          // [T, tile...] of the prefix [T, tile..., t', s'...].
          for (unsigned i = 0; i <= n; ++i)
            tile.push_back(coordinate(p, in + i));
          points.push_back(llvm::json::Object{{"statement", name},
                                              {"instance", std::move(instance)},
                                              {"color", int64_t(c)},
                                              {"tile", std::move(tile)}});
        });
      });
    }
    // Statement k's instances run at canonical time K*t + k.
    llvm::json::Object position;
    SmallVector<isl::map> canonicalMaps;
    model->canonical.foreach_map(
        [&](isl::map m) { canonicalMaps.push_back(m); });
    for (isl::map map : canonicalMaps) {
      isl::map atOrigin = map.intersect_domain(isl::manage(
          isl_set_fix_si(isl_set_universe(map.get_space().domain().release()),
                         isl_dim_set, 0, 0)));
      isl::val k = atOrigin.range().dim_min_val(0);
      position[std::string(isl_map_get_tuple_name(map.get(), isl_dim_in))] =
          k.get_num_si();
    }
    llvm::json::Array distances;
    isl::union_map deps =
        computeDependences(*model).all().intersect_params(params);
    deps.apply_domain(model->canonical)
        .apply_range(model->canonical)
        .deltas()
        .foreach_point([&](isl::point p) {
          llvm::json::Array d;
          for (unsigned i = 0; i <= n; ++i)
            d.push_back(coordinate(p, i));
          distances.push_back(std::move(d));
        });
    std::string loc;
    llvm::raw_string_ostream(loc) << scop.getLoc();
    return llvm::json::Object{
        {"location", loc},
        {"space_dims", int64_t(n)},
        {"statements_per_step", int64_t(model->statementsPerStep)},
        {"colors", int64_t(sequence.n_children())},
        {"statement_position", std::move(position)},
        {"points", std::move(points)},
        {"distances", std::move(distances)}};
  } catch (const isl::exception &e) {
    return mlir::emitError(scop.getLoc(), "poly-print-tiles: isl failed: ")
           << e.what();
  }
}

} // namespace
