//===- SplitTiling.h - split tiling of stencil schedules --------*- C++ -*-===//
//
// Split tiling (Grosser et al., "Split Tiling for GPUs", GPGPU'13, sec. 4;
// Grosser's thesis ch. 4) with the rectangular-base simplification of sec.
// 4.2 (thesis sec. 4.3.2), as pure functions on isl objects. The input is a
// program in the canonical form of HybridTiling.h: statement instances
// `S_k[t, s_0, ..., s_{n-1}]` and a schedule `S_k[t, s...] -> [K*t + k,
// s...]` that carries every dependence in its first dimension (sec. 4.3:
// several statements per step are folded into that dimension).
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_SPLITTILING_H
#define STENCIL_POLY_SPLITTILING_H

#include "Stencil/Poly/HybridTiling.h"

#include "llvm/ADT/SmallVector.h"

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stencil::poly {

/// Band height and tile widths: a band holds `h` canonical time steps, and
/// the tiles of space dimension i repeat every widths[i] points (one
/// upright and one inverted trapezoid per period).
struct SplitTileSizes {
  int64_t h = 0;
  llvm::SmallVector<int64_t> widths;
};

struct SplitTilingOptions {
  SplitTileSizes sizes;
  /// Number of statements per time step (K of the canonical schedule); the
  /// band height must be a multiple of it, so a band holds whole steps.
  unsigned statementsPerStep = 1;
  /// Isolate full tiles so that the AST generator emits them without
  /// boundary conditions (thesis ch. 10.4.2).
  bool isolateFullTiles = true;
  /// Unroll the steps of a band within a tile (its t' loop).
  bool unrollTime = false;
};

/// The default sizes for a program (until a tile-size model chooses them):
/// on the CPU a band of 16, 8 or 4 steps in 1D, 2D, 3D and tiles within the
/// L2 cache, on the GPU 8, 4 or 2 steps and tiles whose footprint fits a
/// block's shared memory (the hybrid tiling's GPU sizes); the height a
/// multiple of the statements per step, widths long along the innermost
/// dimension and at least twice what the trapezoids lose over a band.
SplitTileSizes defaultSplitTileSizes(const DependenceCone &cone,
                                     unsigned statementsPerStep,
                                     TileTarget target = TileTarget::Cpu);

/// Checks the sizes: h >= 1 and a multiple of the statements per step, and
/// in every dimension a width of at least ceil(upper (h-1)) + ceil(lower
/// (h-1)) (the inverted trapezoids of one band do not overlap, which makes
/// each one tile). Returns a message naming the violated condition.
std::optional<std::string>
checkSplitTileSizes(const DependenceCone &cone,
                    const SplitTilingOptions &options);

/// The colors of split tiling in P = [t, s_0, ..., s_{n-1}]: color c (a
/// bit set over the space dimensions; bit i set means the point lies in an
/// inverted trapezoid along dimension i) with, for its points, the band
/// `T = floor(t / h)` and the tile `[K_0, ..., K_{n-1}]`. Colors that hold
/// no point (a dimension without dependences has no inverted trapezoids)
/// are left out; the others are in execution order.
struct SplitColor {
  unsigned bits = 0;
  isl::set points;      // in P
  isl::multi_aff tile;  // P -> [T, K_0, ..., K_{n-1}]
  isl::multi_aff local; // P -> [t', s'_0, ..., s'_{n-1}], from 0
};
llvm::SmallVector<SplitColor> splitColors(isl::ctx ctx,
                                          const DependenceCone &cone,
                                          const SplitTilingOptions &options);

/// Builds the split-tiled schedule tree of `domain`:
///
///   domain
///     band [T]                          bands of h steps, in sequence
///       sequence                        the colors, in order
///         filter (color c instances)
///           mark "parallel"
///             band [K_0, ..., K_{n-1}]  the tiles of the color; isolate
///               band [t']               the steps within the band (unrolled
///                                       with unrollTime)
///                 band [s'_0, ..., s'_{n-1}]  the points of a step
///
/// in the tile's local coordinates: t' = t mod h, s'_i = s_i - W_i K_i
/// in an upright trapezoid, s_i - W_i K_i + ceil(lower_i (h-1)) in an
/// inverted one (both from 0). This is the shape of the hybrid tree (two
/// phases there, 2^n colors here), which poly-to-gpu maps the same way.
///
/// The tile band is permutable with every member coincident (the tiles of
/// one color are independent); so are the point band's members. With
/// isolateFullTiles the tile band carries `{ isolate[[T] -> [K...]] : full
/// tile }`. `canonical` is the canonical schedule of the statements.
std::optional<isl::schedule>
buildSplitSchedule(isl::union_set domain, isl::union_map canonical,
                   const DependenceCone &cone,
                   const SplitTilingOptions &options, std::string &error);

/// Proves the split tiling of `options` legal for the dependences whose
/// distances `distanceBoxes` holds (dependenceDistanceBoxes) without
/// building its schedule tree: on the points of P, for every distance, the
/// order [T, color, K..., t', s'...] of the target is after the source's,
/// and source and target share a tile when they share a (T, color). Exact
/// for an unbounded domain, which implies the bounded one; false when it
/// cannot prove it (then verifySchedule decides on the tree and names the
/// violated dependence).
bool splitTilingIsLegal(const std::optional<isl::set> &distanceBoxes,
                        const DependenceCone &cone,
                        const SplitTilingOptions &options);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_SPLITTILING_H
