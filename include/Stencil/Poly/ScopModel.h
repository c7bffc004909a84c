//===- ScopModel.h - the isl view of a poly.scop ---------------*- C++ -*-===//
//
// Reads the isl objects of a `poly.scop` (domains, accesses, schedule),
// builds its canonical schedule and computes its dependences.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_SCOPMODEL_H
#define STENCIL_POLY_SCOPMODEL_H

#include "Stencil/Poly/HybridTiling.h"
#include "Stencil/Poly/Fusion.h"
#include "Stencil/Poly/TileSizeModel.h"
#include "Stencil/Poly/PolyOps.h"

#include <isl/cpp.h>

#include <optional>
#include <string>

namespace mlir::stencil::poly {

struct ScopModel {
  isl::union_set domain;
  isl::union_map writes;
  isl::union_map reads;
  isl::schedule schedule;
  /// `S_k[t, s...] -> [K*t + k, s...]`, k the statement's position.
  isl::union_map canonical;
  unsigned statementsPerStep = 0;
  unsigned numSpaceDims = 0;
};

/// Parses the isl text of `scop` in `ctx`; nothing (with `error` set) when
/// it does not parse or the statements differ in rank.
std::optional<ScopModel> readScop(isl::ctx ctx, ScopOp scop,
                                  std::string &error);

/// The canonical schedule tree: `domain -> band [K*t + k] -> mark
/// "parallel" -> band [s...]`.
isl::schedule canonicalSchedule(isl::union_set domain,
                                isl::union_map canonical,
                                unsigned numSpaceDims);

struct Dependences {
  isl::union_map flow;   // write -> later read of the value written
  isl::union_map anti;   // read -> the next write of the location read
  isl::union_map output; // write -> the next write of the same location
  isl::union_map all() const { return flow.unite(anti).unite(output); }
};

/// Dependences of the program order, i.e. under the canonical schedule.
Dependences computeDependences(const ScopModel &model);

/// Whether `schedule` is the canonical one (canonicalSchedule): `band
/// [K*t + k] -> mark "parallel" -> band [s...]`.
bool isCanonical(isl::schedule schedule, unsigned numSpaceDims);

/// Whether `schedule` has the layout buildHybridSchedule (two phases) and
/// buildSplitSchedule (2^n colors) produce: `band [T] -> sequence -> filter
/// -> mark "parallel" -> band [tiles] -> band [t'] -> band [points]` per
/// phase or color.
bool isTimeTiled(isl::schedule schedule, unsigned numSpaceDims);

/// What time-tiling one scop needs whatever the tiling (hexagonal, split)
/// and its sizes: its model, whether it has more than one step, its
/// dependences and their cone.
struct TimeLoopAnalysis {
  std::optional<ScopModel> model;
  /// False for a single sweep (only t = 0): nothing to tile.
  bool timeToTile = false;
  isl::union_map deps;
  std::optional<DependenceCone> cone;
};

/// Fills `analysis` for `scop`; a located error naming `tiling` (the
/// pass, e.g. "hex-tile") when it cannot be tiled.
LogicalResult analyzeTimeLoop(isl::ctx ctx, ScopOp scop, StringRef tiling,
                              TimeLoopAnalysis &analysis);

/// The attribute --fuse leaves on a scop for its tile-local buffers: one
/// dictionary per buffer, `{array, offset, shape}` (offset in isl text,
/// `[t, T...] -> array[...]`).
constexpr const char *kFusedLocalAttr = "fused_local";

/// The tile-local buffers recorded on a fused scop; nothing when it has
/// none. Fails with `error` set on a malformed entry.
LogicalResult readFusedLocalBuffers(isl::ctx ctx, ScopOp scop,
                                    SmallVectorImpl<LocalBuffer> &buffers,
                                    std::string &error);

/// What the tile-size model needs of `scop` (TileSizeModel.h): its
/// accesses on the statements' whole spaces and the canonical schedule as
/// affine functions. Nothing, with `error` set, when they do not parse.
std::optional<TileModelProgram> tileModelProgram(ScopOp scop,
                                                 const ScopModel &model,
                                                 std::string &error);

/// The remark of a tiling pass's `report` option on the model's choice
/// (`h` -1: the model found none; a footprint over the budget: none
/// within it, the defaults taken instead).
void reportModel(ScopOp scop, StringRef tiling, int64_t h,
                 ArrayRef<int64_t> widths, const TileCost &cost,
                 int64_t budgetBytes);

/// The sizes `choose(program, budget, cost)` picks with the tile-size model
/// for `scop` (budget 0: the host's), with a remark naming `tiling` when
/// `report`; nothing when the model finds none or none within the budget
/// (the caller keeps its defaults). A tile larger than the cache reuses
/// nothing there, and the smallest such tiles are the worst: short rows,
/// loops split into many cases (elastic 3D at order 8, 160^3: the smallest
/// tile over the budget ran 1.8x slower than the untiled code, the fixed
/// defaults 1.2x faster; docs/performance.md).
template <typename Sizes, typename Choose>
std::optional<Sizes> modelTileSizes(ScopOp scop, const ScopModel &model,
                                    StringRef tiling, int64_t budgetBytes,
                                    bool report, Choose choose) {
  std::string error;
  std::optional<TileModelProgram> program =
      tileModelProgram(scop, model, error);
  int64_t budget = budgetBytes > 0 ? budgetBytes : hostL2CacheBytes();
  TileCost cost;
  std::optional<Sizes> sizes =
      program ? choose(*program, budget, cost) : std::nullopt;
  bool fits = sizes && cost.footprintBytes <= budget;
  if (report)
    reportModel(scop, tiling, sizes ? sizes->h : -1,
                sizes ? ArrayRef<int64_t>(sizes->widths) : ArrayRef<int64_t>(),
                cost, budget);
  return fits ? sizes : std::nullopt;
}

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_SCOPMODEL_H
