//===- HybridTiling.h - hybrid hexagonal/parallelogram tiling ---*- C++ -*-===//
//
// Hybrid hexagonal/classical time tiling of a stencil schedule (Grosser et
// al., CGO'14 sec. 3; Grosser's thesis ch. 5), as pure functions on isl
// objects. The input is a program in canonical form: statement instances
// `S_k[t, s_0, ..., s_{n-1}]` (t: the time step) and a schedule
// `S_k[t, s...] -> [K*t + k, s...]` that carries every dependence in its
// first dimension. The output is an isl schedule tree.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_HYBRIDTILING_H
#define STENCIL_POLY_HYBRIDTILING_H

#include "llvm/ADT/SmallVector.h"

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stencil::poly {

/// A non-negative rational num/den, den > 0, in lowest terms.
struct Rational {
  int64_t num = 0;
  int64_t den = 1;
  /// floor(this * k).
  int64_t floorTimes(int64_t k) const;
  /// ceil(this * k).
  int64_t ceilTimes(int64_t k) const;
  std::string str() const;
};

/// Slopes of the opposite dependence cone in the canonical schedule space
/// [t, s_0, ..., s_{n-1}] (sec. 3.3.2): every dependence distance
/// (dt, ds) has dt >= 1 and -lower[i]*dt <= ds_i <= upper[i]*dt.
/// For the hexagonal dimension upper is delta0 and lower delta1; the
/// classical dimensions use only lower (delta1_i, sec. 3.4). Slopes are
/// clamped at 0 (a larger slope is still a valid bound).
struct DependenceCone {
  llvm::SmallVector<Rational> upper;
  llvm::SmallVector<Rational> lower;
};

/// Computes the cone from dependences between statement instances, mapped
/// into the canonical schedule space by `canonical`. Fails (with `error`
/// set) when a dependence is not carried by the first dimension or when the
/// space distances are not bounded by a multiple of the time distance.
std::optional<DependenceCone> computeDependenceCone(isl::union_map deps,
                                                   isl::union_map canonical,
                                                   unsigned numSpaceDims,
                                                   std::string &error);

/// Tile sizes: `h` (a hexagon spans 2h+2 canonical time steps) and one width
/// per space dimension: widths[hexDim] is w0, the minimal width of the
/// hexagon's top (sec. 3.3.2), the others are the exact widths w_i of the
/// parallelogram tiles (sec. 3.4).
struct HybridTileSizes {
  int64_t h = 0;
  llvm::SmallVector<int64_t> widths;
};

struct HybridTilingOptions {
  HybridTileSizes sizes;
  /// The space dimension that is tiled hexagonally.
  unsigned hexDim = 0;
  /// Number of statements per time step (K of the canonical schedule).
  unsigned statementsPerStep = 1;
  /// Isolate full tiles so that the AST generator emits them without
  /// boundary conditions (thesis ch. 10.4.2).
  bool isolateFullTiles = true;
  /// Unroll the intra-tile time loop (thesis sec. 5.3.4).
  bool unrollTime = false;
  /// Translation of the parallelogram tiles of the innermost classical
  /// dimension (the hybrid paper's translation offset, sec. 4.2.3): tile S
  /// of it starts `offset` points lower. Legal for any value; it decides
  /// where the tiles' loads start (their alignment).
  int64_t offset = 0;
};

/// The innermost space dimension tiled with parallelograms (the one
/// `HybridTilingOptions::offset` translates) of `n` with `hexDim` tiled
/// hexagonally; `n` when there is none (1D).
unsigned innermostClassical(unsigned n, unsigned hexDim);

/// The canonical schedule S_k[t, s] -> [K*t + k, s] of every statement as
/// one affine function over the statement's whole space (the ideal tile
/// shapes of full-tile isolation look beyond the domain). Fails with
/// `error` set when a statement's is not one affine function into
/// [t, s_0, ..., s_{numSpaceDims-1}].
std::optional<isl::union_pw_multi_aff>
affineCanonical(isl::union_map canonical, unsigned numSpaceDims,
                std::string &error);

/// The full tiles of a tiling, for the AST build option `isolate`:
/// `tileOf` maps the points of P a tiling covers to their tile
/// `[[outer...] -> [tile...]]`; a tile is full when, for every statement,
/// every instance of the tile's ideal shape (the tile on an unbounded
/// domain, through `canonical`) lies in `domain` (thesis sec. 10.4.2).
/// The result is named `isolate`.
isl::set fullTiles(isl::map tileOf, isl::union_set domain,
                   const isl::union_pw_multi_aff &canonical);

/// What the default tile sizes are chosen for.
enum class TileTarget { Cpu, Gpu };

/// The default sizes for a program: the one place where tile sizes are
/// chosen when the user gives none (a tile-size model replaces it later).
/// Respects the convexity condition on w0 and h+1 being a multiple of
/// `statementsPerStep`.
HybridTileSizes defaultTileSizes(const DependenceCone &cone, unsigned hexDim,
                                 unsigned statementsPerStep,
                                 TileTarget target = TileTarget::Cpu);

/// Checks the conditions of sec. 3.3.2 on the sizes: h >= 0, h+1 a multiple
/// of the statements per step, w0 satisfying the convexity condition (1),
/// widths >= 1. Returns a message naming the violated condition, or
/// nothing.
std::optional<std::string> checkTileSizes(const DependenceCone &cone,
                                          const HybridTilingOptions &options);

/// The tiles of one phase (or color) of a tiling on the points of P: the
/// points it executes and their tile, `[T, S...]`.
struct TilePiece {
  isl::set points;
  isl::multi_aff tile;
};

/// The two phases of the hybrid tiling of `options` on P (sec. 3.3.3-3.5),
/// without a domain.
llvm::SmallVector<TilePiece> hybridTilePieces(isl::ctx ctx,
                                              const DependenceCone &cone,
                                              const HybridTilingOptions &options);

/// The smallest w0 that satisfies the convexity condition (1) for `h`.
int64_t minimalHexWidth(const DependenceCone &cone, unsigned hexDim, int64_t h);

/// Whether no tile of `options` can be full because some space dimension
/// of `points` (the canonical image of the domain, in P) is narrower than
/// every row of a tile along it: w_i for a parallelogram, w0 + 1 (its top
/// and bottom rows) for a hexagon. buildHybridSchedule then skips the
/// isolation, which would find nothing to isolate at the price of a
/// subtraction per statement (a tenth of a 3D compile with nine statements
/// per step, on grids smaller than the model's tiles).
bool tilesWiderThanPoints(isl::union_set points,
                          const HybridTilingOptions &options);

/// Builds the hybrid tiled schedule tree of `domain` (eqs. (2)-(17)):
///
///   domain
///     band [T]                               time tile, eq. (2)/(4)
///       sequence
///         filter (phase 0 instances)
///           mark "parallel"
///             band [S_hex, S_other...]       eq. (3)/(5), (14); isolate
///               band [t']                    intra-tile time, eq. (15)/(16)
///                 band [s'_0, ..., s'_{n-1}] intra-tile space, eq. (17)
///         filter (phase 1 instances)
///           ... the same with the phase-1 equations
///
/// `canonical` is the canonical schedule of the domain's statements.
///
/// The T band is piecewise (T of phase 0 or 1 by instance). The tile band is
/// permutable with member 0 coincident; all members of the s' band are
/// coincident. With isolateFullTiles the tile band carries the AST build
/// option `{ isolate[[T] -> [S_hex, S_other...]] : full tile }` (its domain
/// is the one outer band member T; sequence, filter and mark nodes add no
/// dimension), omitted when no tile is full; with unrollTime the t' member
/// has loop type unroll (printed as `options: "{ unroll[0] }"`).
///
/// Phase 0 uses the offset w0 + 1 + floor(delta0 h) in (3) where the paper
/// prints floor(delta1 h); see HybridTiling.cpp.
std::optional<isl::schedule>
buildHybridSchedule(isl::union_set domain, isl::union_map canonical,
                    const DependenceCone &cone,
                    const HybridTilingOptions &options, std::string &error);

/// The distances of `deps` on the points of P (canonical time, space),
/// over all parameter values, widened to a box per time distance: what
/// hybridTilingIsLegal checks a tiling against, the same for every tile
/// size. Nothing when they are unbounded or not all on one space of P.
std::optional<isl::set> dependenceDistanceBoxes(isl::union_map canonical,
                                                unsigned numSpaceDims,
                                                isl::union_map deps);

/// Proves the hybrid tiling of `options` legal for the dependences whose
/// distances `distanceBoxes` holds (dependenceDistanceBoxes) without
/// building its schedule tree: on the points of P, for every distance, the
/// tile order [T, phase, S_hex, S_others, t'] of the target is after the
/// source's, and source and target share a hexagonal tile when they share a
/// (T, phase). Exact for an unbounded domain, which implies the bounded
/// one; false when it cannot prove it (then verifySchedule decides on the
/// tree and names the violated dependence). One emptiness test per pair of
/// phases instead of one per pair of dependent statements, on the pairs
/// (x, x + d) with the tile keys pulled back onto them (no projection).
bool hybridTilingIsLegal(const std::optional<isl::set> &distanceBoxes,
                         const DependenceCone &cone,
                         const HybridTilingOptions &options);
/// The part of that proof for the dependences whose source is in phase
/// `a` (0 or 1) of the hexagonal tiles: the proof is this for both phases,
/// two independent tests that may run in parallel (each in its own isl
/// context; the sizes must have passed checkTileSizes and `distanceBoxes`
/// must not be empty).
bool hybridTilingIsLegalFrom(const isl::set &distanceBoxes,
                             const DependenceCone &cone,
                             const HybridTilingOptions &options, unsigned a);
/// The same for the dependences `deps` of a program with schedule
/// `canonical`.
bool hybridTilingIsLegal(isl::union_map canonical, const DependenceCone &cone,
                         const HybridTilingOptions &options,
                         isl::union_map deps);

/// Checks `schedule` against `deps`: every dependence must go forward in the
/// schedule, and no dependence may connect two different tiles of the band
/// under a "parallel" mark within the same outer iteration. Returns a message
/// naming a violated dependence, or nothing.
std::optional<std::string> verifySchedule(isl::schedule schedule,
                                          isl::union_map deps);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_HYBRIDTILING_H
