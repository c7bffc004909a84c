//===- TileSizeModel.h - tile sizes of the time tilings by a model -*- C++ -*-===//
//
// The CPU tile sizes of hybrid hexagonal and split tiling chosen by a model
// (thesis sec. 5.3 and 7.2: sizes are chosen for the ratio of memory
// traffic to computation under the capacity of the fast memory). For a
// candidate the model takes one full interior tile on the points of P,
// counts with isl the updates it performs, the array elements it loads
// (first touched by a read), stores and touches, and keeps the candidate
// with the least traffic per update whose footprint fits the budget.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_TILESIZEMODEL_H
#define STENCIL_POLY_TILESIZEMODEL_H

#include "Stencil/Poly/HybridTiling.h"
#include "Stencil/Poly/SplitTiling.h"

#include "llvm/ADT/StringMap.h"

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stencil::poly {

/// What the model needs of a program: the canonical schedule as one affine
/// function per statement (affineCanonical), and the accesses on the
/// statements' whole spaces (not restricted to their domains: the model's
/// tile lies anywhere in P).
struct TileModelProgram {
  isl::union_pw_multi_aff canonical;
  /// One map per access, `S_k[t, s...] -> A[...]`.
  llvm::SmallVector<isl::map> reads;
  llvm::SmallVector<isl::map> writes;
  llvm::StringMap<int64_t> elementBytes; // by array name (default 8)
};

/// One full interior tile, counted.
struct TileCost {
  int64_t updates = 0;        // statement instances
  int64_t loads = 0;          // elements whose first access is a read
  int64_t stores = 0;         // elements written
  int64_t footprintBytes = 0; // elements touched, times their size
  double trafficPerUpdate() const {
    return updates ? double(loads + stores) / double(updates) : 1e300;
  }
};

/// How a tile's elements are counted: per time step in boxes where the
/// tile's slices and the accesses' images are boxes (stencils), isl's
/// enumeration otherwise; by isl's enumeration always (the same figures;
/// tests compare the two); or in boxes only (nothing where they do not
/// apply: for tests).
enum class TileCounting { Boxes, Isl, BoxesOnly };

/// The cost of a full tile of `piece` (the tiling is periodic: any tile far
/// from the origin is one). Nothing when isl fails or the tile is empty.
std::optional<TileCost>
interiorTileCost(const TileModelProgram &program, const TilePiece &piece,
                 unsigned numSpaceDims,
                 TileCounting counting = TileCounting::Boxes);

/// The figures the split model compares for `options`: one full tile of
/// each color, summed, with the largest footprint. Counted in boxes on the
/// product of each dimension's one-dimensional tiles; nothing where boxes
/// do not apply.
std::optional<TileCost> splitTileCost(const TileModelProgram &program,
                                      const DependenceCone &cone,
                                      const SplitTilingOptions &options);

/// The host's per-core L2 cache (Linux sysfs), or 1 MiB when it is unknown:
/// the time tilings' default budget (a tile's footprint counts every element
/// of all its steps, more than is live at once; measured in performance.md),
/// fusion's is half of it.
int64_t hostL2CacheBytes();

/// The model's choice of hybrid tile sizes for the CPU: h with h+1 a
/// multiple of `statementsPerStep`, w0 convex (condition (1)), the
/// innermost classical width a multiple of 8 of at least 32 (vectors),
/// every classical width at least the cone's span over h+1 steps,
/// searched one parameter at a time from defaultTileSizes(). `cost`
/// receives the chosen tile's figures. Nothing when no candidate could be
/// counted.
std::optional<HybridTileSizes>
modelHybridTileSizes(const TileModelProgram &program,
                     const DependenceCone &cone, unsigned hexDim,
                     unsigned statementsPerStep, int64_t budgetBytes,
                     TileCost &cost);

/// The same for split tiling: h a multiple of the statements per step,
/// widths at least what checkSplitTileSizes asks.
std::optional<SplitTileSizes>
modelSplitTileSizes(const TileModelProgram &program,
                    const DependenceCone &cone, unsigned statementsPerStep,
                    int64_t budgetBytes, TileCost &cost);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_TILESIZEMODEL_H
