//===- SplitTiling.cpp - split tiling of stencil schedules ----------------===//
//
// Split tiling, following Grosser et al., "Split Tiling for GPUs: Automatic
// Parallelization Using Trapezoidal Tiles", GPGPU'13 (sections below refer
// to it; Grosser's thesis ch. 4 is an earlier version):
//
//   sec. 4.1  time is cut into bands of fixed height, run in sequence; a
//             band is split into colors that run in order, the tiles of
//             one color in parallel, nothing computed twice;
//   sec. 4.2  the pyramid of the first color widened to a rectangular base,
//             so that every color is convex: along each space dimension a
//             band alternates between upright trapezoids (the pyramid's
//             section) and inverted ones filling the gaps, and color c is
//             the product over the dimensions of one of the two (one color
//             per subset of the dimensions: C0, Cx, Cy, Cxy, ...);
//   sec. 4.3  several statements per step folded into the time dimension
//             (the canonical schedule K*t + k does that).
//
// The trapezoids come from the dependence cone of HybridTiling.h: every
// dependence distance (dt, ds) has -lower_i dt <= ds_i <= upper_i dt. In a
// band of height h with local time t' = t mod h, the upright trapezoid of
// tile k along dimension i (width W) holds
//
//   k W + ceil(upper_i t') <= s_i <= k W + W - 1 - ceil(lower_i t')     (U)
//
// so that a point's sources in the band lie in its own trapezoid (its left
// side moves right by ceil(upper_i t'), the farthest a source lies to the
// left); the inverted trapezoid j holds the rest between tiles j-1 and j,
//
//   j W - ceil(lower_i t') <= s_i <= j W + ceil(upper_i t') - 1,        (I)
//
// whose sources lie in it or in the neighbouring upright ones, which run
// before it. So along each dimension a dependence within a band goes from
// U to U (same tile), from U to I, or from I to I (same tile), never from I
// to U: the colors ordered as integers (bit i: I along dimension i) run
// every source first, and two tiles of one color share no dependence. (I)
// is one tile when the inverted trapezoids do not overlap,
// W >= ceil(upper_i (h-1)) + ceil(lower_i (h-1)). The construction is on
// the unbounded space P = [t, s...] and meets the domain last (sec. 4.1).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/SplitTiling.h"

#include "llvm/ADT/STLExtras.h"

#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_set.h>

#include <algorithm>

using namespace mlir::stencil::poly;

/// Sizes beyond this are rejected so that products such as a slope times h
/// stay far from overflowing int64_t.
static constexpr int64_t kMaxSize = int64_t(1) << 24;

/// The tuple of P: "[t, s0, ..., s{n-1}]".
static std::string pTuple(unsigned n) {
  std::string tuple = "[t";
  for (unsigned i = 0; i < n; ++i)
    tuple += ", s" + std::to_string(i);
  return tuple + "]";
}

/// What the trapezoids of dimension `i` lose over a band of height h:
/// ceil(upper (h-1)) + ceil(lower (h-1)).
static int64_t shrinkOverBand(const DependenceCone &cone, unsigned i,
                              int64_t h) {
  return cone.upper[i].ceilTimes(h - 1) + cone.lower[i].ceilTimes(h - 1);
}

SplitTileSizes mlir::stencil::poly::defaultSplitTileSizes(
    const DependenceCone &cone, unsigned statementsPerStep, TileTarget target) {
  // CPU: a tile's data should stay within the L2 cache and its innermost
  // width be long enough to vectorize and stream. GPU: a tile per block,
  // a multiple of a warp along the innermost dimension; in 1D and 2D its
  // footprint within 48 KiB of shared memory. In 3D the bands are 2 steps,
  // too few for a copy to shared memory to pay: the measured best on an
  // H100 (docs/performance.md, "Fourth lease") is 8 x 8 x 128, whose box
  // at the papers' sizes is over the budget and stays in global memory
  // (laplace3d f32: 134 GStencils/s, against 46 for 8 x 8 x 32 promoted
  // and 93 for it in global memory).
  struct Defaults {
    int64_t height, outerWidth, innerWidth;
  };
  // Indexed by [target][rank - 1] (rank 3 and above share the last row).
  static constexpr Defaults table[2][3] = {
      {{16, 512, 512}, {8, 64, 512}, {4, 16, 256}}, // CPU
      {{8, 128, 128}, {4, 16, 64}, {2, 8, 128}},    // GPU
  };
  size_t n = cone.upper.size();
  auto [height, outerWidth, innerWidth] =
      table[target == TileTarget::Gpu][std::clamp<size_t>(n, 1, 3) - 1];
  int64_t k = std::max(statementsPerStep, 1u);
  SplitTileSizes sizes;
  sizes.h = (height + k - 1) / k * k;
  for (size_t i = 0; i < n; ++i)
    sizes.widths.push_back(std::max(i + 1 == n ? innerWidth : outerWidth,
                                    2 * shrinkOverBand(cone, i, sizes.h)));
  return sizes;
}

std::optional<std::string>
mlir::stencil::poly::checkSplitTileSizes(const DependenceCone &cone,
                                         const SplitTilingOptions &options) {
  const SplitTileSizes &sizes = options.sizes;
  unsigned n = cone.upper.size();
  int64_t k = std::max(options.statementsPerStep, 1u);
  if (sizes.h < 1 || sizes.h > kMaxSize)
    return "h must be between 1 and " + std::to_string(kMaxSize) + ", got " +
           std::to_string(sizes.h);
  if (sizes.h % k != 0)
    return "h must be a multiple of the " + std::to_string(k) +
           " statements per time step, got " + std::to_string(sizes.h);
  if (sizes.widths.size() != n)
    return "widths needs " + std::to_string(n) +
           " values (one per space dimension), got " +
           std::to_string(sizes.widths.size());
  for (unsigned i = 0; i < n; ++i) {
    int64_t w = sizes.widths[i];
    if (w < 1 || w > kMaxSize)
      return "width " + std::to_string(i) + " must be between 1 and " +
             std::to_string(kMaxSize) + ", got " + std::to_string(w);
    int64_t least = shrinkOverBand(cone, i, sizes.h);
    if (w < least)
      return "width " + std::to_string(i) + " must be at least ceil(" +
             cone.upper[i].str() + " * (h-1)) + ceil(" + cone.lower[i].str() +
             " * (h-1)) = " + std::to_string(least) +
             " so that the inverted trapezoids of a band do not overlap, got " +
             std::to_string(w);
  }
  return std::nullopt;
}

llvm::SmallVector<SplitColor>
mlir::stencil::poly::splitColors(isl::ctx ctx, const DependenceCone &cone,
                                 const SplitTilingOptions &options) {
  unsigned n = cone.upper.size();
  int64_t h = options.sizes.h;
  std::string p = pTuple(n);
  std::string local = "(t mod " + std::to_string(h) + ")"; // t'
  isl::set universe(ctx, "{ " + p + " }");
  // Per dimension: the upright trapezoids (U), the inverted ones (I), and
  // the tile index of each.
  llvm::SmallVector<isl::set> upright, inverted;
  llvm::SmallVector<std::string> uprightTile, invertedTile, uprightLocal,
      invertedLocal;
  for (unsigned i = 0; i < n; ++i) {
    std::string s = "s" + std::to_string(i);
    std::string w = std::to_string(options.sizes.widths[i]);
    const Rational &up = cone.upper[i], &low = cone.lower[i];
    std::string offset = "(" + s + " mod " + w + ")"; // s - k W
    // (U) with the ceilings cleared: den (s - kW) >= num t'.
    upright.push_back(isl::set(
        ctx, "{ " + p + " : " + std::to_string(up.den) + "*" + offset +
                 " >= " + std::to_string(up.num) + "*" + local + " and " +
                 std::to_string(low.den) + "*(" + w + " - 1 - " + offset +
                 ") >= " + std::to_string(low.num) + "*" + local + " }"));
    inverted.push_back(universe.subtract(upright.back()));
    uprightTile.push_back("floor(" + s + "/" + w + ")");
    uprightLocal.push_back(offset);
    // (I): j = floor((s + ceil(lower t')) / W); its points lie in
    // [jW - ceil(lower (h-1)), jW + ceil(upper (h-1)) - 1].
    std::string ceilLower = "floor((" + std::to_string(low.num) + "*" + local +
                            " + " + std::to_string(low.den - 1) + ")/" +
                            std::to_string(low.den) + ")";
    invertedTile.push_back("floor((" + s + " + " + ceilLower + ")/" + w + ")");
    invertedLocal.push_back(s + " + " + std::to_string(low.ceilTimes(h - 1)) +
                            " - " + w + "*" + invertedTile.back());
  }
  llvm::SmallVector<SplitColor> colors;
  for (unsigned bits = 0; bits < (1u << n); ++bits) {
    SplitColor color;
    color.bits = bits;
    color.points = universe;
    std::string tile = "floor(t/" + std::to_string(h) + ")", within = local;
    for (unsigned i = 0; i < n; ++i) {
      bool in = bits & (1u << i);
      color.points = color.points.intersect(in ? inverted[i] : upright[i]);
      tile += ", " + (in ? invertedTile[i] : uprightTile[i]);
      within += ", " + (in ? invertedLocal[i] : uprightLocal[i]);
    }
    if (color.points.is_empty())
      continue;
    color.tile = isl::multi_aff(ctx, "{ " + p + " -> [" + tile + "] }");
    color.local = isl::multi_aff(ctx, "{ " + p + " -> [" + within + "] }");
    colors.push_back(color);
  }
  return colors;
}

std::optional<isl::schedule> mlir::stencil::poly::buildSplitSchedule(
    isl::union_set domain, isl::union_map canonical, const DependenceCone &cone,
    const SplitTilingOptions &options, std::string &error) {
  if (std::optional<std::string> message = checkSplitTileSizes(cone, options)) {
    error = *message;
    return std::nullopt;
  }
  try {
    isl::ctx ctx = domain.ctx();
    unsigned n = cone.upper.size();
    std::optional<isl::union_pw_multi_aff> canon =
        affineCanonical(canonical, n, error);
    if (!canon)
      return std::nullopt;
    if (!domain.is_subset(canon->domain())) {
      error = "the canonical schedule does not cover every statement";
      return std::nullopt;
    }
    // From P to the statements: f o canonical.
    auto band = [&](isl::multi_aff f) {
      isl::union_pw_multi_aff onStatements =
          isl::union_pw_multi_aff(isl::pw_multi_aff(f)).pullback(*canon);
      return isl::manage(isl_multi_union_pw_aff_from_union_pw_multi_aff(
          onStatements.release()));
    };
    std::string p = pTuple(n), tiles, nested, space;
    for (unsigned i = 0; i < n; ++i) {
      tiles += ", K" + std::to_string(i);
      nested += (i ? ", K" : "K") + std::to_string(i);
      space += (i ? ", s" : "s") + std::to_string(i);
    }
    auto project = [&](const std::string &range) {
      return isl::multi_aff(ctx, "{ [T" + tiles + "] -> " + range + " }");
    };
    // [T, K...] -> [[T] -> [K...]]: the isolate option's space.
    isl::map nest(ctx, "{ [T" + tiles + "] -> [[T] -> [" + nested + "]] }");

    llvm::SmallVector<SplitColor> colors = splitColors(ctx, cone, options);
    isl::union_set_list filters(ctx, colors.size());
    for (const SplitColor &color : colors)
      filters = filters.add(
          domain.intersect(isl::union_set(color.points).preimage(*canon)));

    isl::schedule_node node =
        isl::schedule::from_domain(domain).root().child(0);
    node = node.insert_partial_schedule(
                   band(project("[T]").pullback(colors.front().tile)))
               .child(0);
    node = node.insert_sequence(filters);
    for (auto [c, color] : llvm::enumerate(colors)) {
      node = node.child(c).child(0);
      // Built bottom-up: each insertion goes above the current node. Within
      // a tile the steps run in order, in local coordinates (t', s'...).
      auto localPart = [&](const std::string &range) {
        return band(
            isl::multi_aff(ctx, "{ [tl, " + space + "] -> " + range + " }")
                .pullback(color.local));
      };
      isl::schedule_node_band points =
          node.insert_partial_schedule(localPart("[" + space + "]"))
              .as<isl::schedule_node_band>();
      for (unsigned i = 0; i < n; ++i)
        points = points.member_set_coincident(i, 1);
      isl::schedule_node_band time =
          points.insert_partial_schedule(localPart("[tl]"))
              .as<isl::schedule_node_band>();
      // Several statements per step, not unrolled: the steps stay one loop
      // (atomic), as in the hybrid tree.
      if (options.unrollTime)
        time = time.member_set_ast_loop_unroll(0);
      else if (options.statementsPerStep > 1)
        time = time.member_set_ast_loop_atomic(0);
      isl::schedule_node_band tileBand =
          time.insert_partial_schedule(
                  band(project("[" + nested + "]").pullback(color.tile)))
              .as<isl::schedule_node_band>()
              .set_permutable(1);
      for (unsigned i = 0; i < n; ++i)
        tileBand = tileBand.member_set_coincident(i, 1);
      if (options.isolateFullTiles) {
        isl::map tileOf = isl::manage(isl_map_from_multi_aff(color.tile.copy()))
                              .intersect_domain(color.points)
                              .apply_range(nest);
        isl::set full = fullTiles(tileOf, domain, *canon);
        if (!full.is_empty())
          tileBand = tileBand.set_ast_build_options(isl::union_set(full));
      }
      node = tileBand.insert_mark(isl::id(ctx, "parallel"));
      node = node.parent().parent(); // the sequence
    }
    return node.schedule();
  } catch (const isl::exception &e) {
    error =
        std::string("isl error while building the split schedule: ") + e.what();
    return std::nullopt;
  }
}

// The proof goes one dimension at a time. Take a dependence distance
// (dt, ds), dt >= 1, between two points of one band. If along every
// dimension i the pair (dt, ds_i) goes from U to U within one tile, from U
// to I, or from I to I within one tile (never from I to U), then the
// target's color has every bit of the source's: it is a larger integer and
// runs later, or the same color, and then the same tile in every
// dimension, where the target's step t' is later. Between bands T grows.
// The distances are a box per dt, so checking each dimension over its
// projection covers every distance; each check is a few emptiness tests in
// two dimensions (t, s_i) instead of one per pair of colors in n + 1.
bool mlir::stencil::poly::splitTilingIsLegal(
    const std::optional<isl::set> &distanceBoxes, const DependenceCone &cone,
    const SplitTilingOptions &options) {
  if (!distanceBoxes || checkSplitTileSizes(cone, options))
    return false;
  try {
    if (distanceBoxes->is_empty())
      return true;
    isl::ctx ctx = distanceBoxes->ctx();
    unsigned n = cone.upper.size();
    if (!distanceBoxes->dim_min_val(0).ge(isl::val(ctx, 1)))
      return false; // a dependence not carried by time
    for (unsigned i = 0; i < n; ++i) {
      // The 1D split tiling of (t, s_i) and the distances along it.
      DependenceCone along;
      along.upper = {cone.upper[i]};
      along.lower = {cone.lower[i]};
      SplitTilingOptions alongOptions = options;
      alongOptions.sizes.widths = {options.sizes.widths[i]};
      isl::set distances = isl::manage(isl_set_project_out(
          isl_set_project_out(distanceBoxes->copy(), isl_dim_set, i + 2,
                              n - 1 - i),
          isl_dim_set, 1, i));
      isl::map shift = distances.translation();
      llvm::SmallVector<SplitColor> colors =
          splitColors(ctx, along, alongOptions);
      for (const SplitColor &from : colors) {
        isl::map fromTile =
            isl::manage(isl_map_from_multi_aff(from.tile.copy()))
                .intersect_domain(from.points);
        for (const SplitColor &to : colors) {
          isl::map toTile = isl::manage(isl_map_from_multi_aff(to.tile.copy()))
                                .intersect_domain(to.points);
          // [T, K] -> [T', K'] of the pairs in one band.
          isl::map pairs = isl::manage(isl_map_equate(
              shift.apply_domain(fromTile).apply_range(toTile).release(),
              isl_dim_in, 0, isl_dim_out, 0));
          if (from.bits > to.bits && !pairs.is_empty())
            return false; // from I back to U
          if (from.bits == to.bits &&
              !pairs
                   .intersect(isl::manage(isl_map_lex_gt(
                       isl_space_copy(pairs.get_space().range().get()))))
                   .unite(pairs.intersect(isl::manage(isl_map_lex_lt(
                       isl_space_copy(pairs.get_space().range().get())))))
                   .is_empty())
            return false; // between two tiles of one color
        }
      }
    }
    return true;
  } catch (const isl::exception &) {
    return false;
  }
}
