//===- Fusion.h - fusion of the statements of a step by scheduling -*- C++ -*-===//
//
// Overlapped fusion of the statements of one time step (or of a single
// sweep), after OverTile (Holewinski et al., ICS'12, sec. 3) and STENCILGEN
// (Rawat et al., Proc. IEEE 2018, sec. III): space is cut into rectangular
// tiles; inside a tile each statement runs right after the producers it
// needs, and a producer whose value only feeds later statements of its step
// (an intermediate) is computed on the tile's halo as well, redundantly,
// into a buffer local to the tile instead of a full-size array. Pure
// functions on isl objects, like the tilings.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_FUSION_H
#define STENCIL_POLY_FUSION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stencil::poly {

/// One statement of the step, as in the scop: `name[t, s_0, ..., s_{n-1}]`.
struct FusionStatement {
  std::string name;
  isl::set domain;
  isl::map write;
  llvm::SmallVector<isl::map> reads;
};

/// One array of the scop.
struct FusionArray {
  std::string name;
  /// A temp (no field storage): it may live in tile-local buffers when
  /// every statement reading it is fused with the one writing it.
  bool temp = false;
  int64_t elementBytes = 8;
};

struct FusionOptions {
  /// Tile size per space dimension; empty: chosen by the model
  /// (chooseFusionTileSizes).
  llvm::SmallVector<int64_t> tileSizes;
  /// The model's budget for the local buffers of one tile (on the CPU
  /// with the fields the tile touches, on a GPU the shared memory).
  int64_t budgetBytes = 512 * 1024;
  /// A tree mapped to a GPU kernel per group, with `threads` per block (x
  /// along the innermost dimension, y along the next; empty: from the tile
  /// sizes).
  bool gpu = false;
  llvm::SmallVector<int64_t> threads;
};

/// The buffer of an intermediate inside one tile: element `l` of the buffer
/// is element `offset(t, T_0, ..., T_{n-1}) + l` of the array.
struct LocalBuffer {
  std::string array;
  llvm::SmallVector<int64_t> shape;
  isl::multi_aff offset; // [t, T...] -> array[...]
};

struct FusionPlan {
  /// Statement positions per group, in execution order. A group is one
  /// tiled loop nest; the groups of a step run one after the other.
  llvm::SmallVector<llvm::SmallVector<unsigned>> groups;
  llvm::SmallVector<int64_t> tileSizes;
  /// GPU trees: threads per block along x, y.
  llvm::SmallVector<int64_t> threads;
  llvm::SmallVector<LocalBuffer> buffers;
  /// Per statement, the instances a tile computes: `[t, T...] -> S[t, s...]`
  /// (none for a statement nothing needs).
  llvm::SmallVector<std::optional<isl::map>> instances;
  /// Per statement: how far its instances in a tile reach beyond the tile
  /// (the halo it is computed on), per dimension below and above.
  llvm::SmallVector<llvm::SmallVector<std::pair<int64_t, int64_t>>> halos;
  /// The model's figures for the chosen sizes: statement instances computed
  /// per instance of the unfused program in an interior tile (>= 1), and
  /// the bytes of one tile's local buffers.
  double recomputation = 1;
  int64_t footprintBytes = 0;
  /// `band [t] -> (sequence of groups) -> filter -> mark "parallel" -> band
  /// [T...] -> mark "fused" -> extension -> sequence of the statements ->
  /// band [s...]`; on a GPU `mark "kernel" -> context` in place of the
  /// parallel mark, a thread filter below each point band and barriers.
  isl::schedule schedule;
};

/// The name of the mark above the statements of one tile; the prefix
/// schedule there is `[t, T_0, ..., T_{n-1}]`.
constexpr const char *kFusedMark = "fused";

/// The statement whose instances `name[t, T_0, ..., T_{n-1}, s...]` are
/// those of statement `name` computed by tile T in a fused tree.
inline std::string fusedInstanceName(llvm::StringRef statement) {
  return statement.str() + "_fused";
}

/// Plans the fusion of `statements` (in program order) over `domain` (their
/// union). Nothing, with `error` set, when it cannot (invalid sizes, an isl
/// failure, a footprint without a constant box); `error` stays empty when
/// there is simply nothing to fuse (no group with two statements).
std::optional<FusionPlan>
planFusion(llvm::ArrayRef<FusionStatement> statements,
           llvm::ArrayRef<FusionArray> arrays, unsigned numSpaceDims,
           const FusionOptions &options, std::string &error);

/// Checks the plan exactly: the tiles of a group touch a field array that
/// the group writes only at the points they own (no value crosses tiles
/// through memory), and every read of a local buffer is of an element the
/// same tile wrote. Returns what is violated.
std::optional<std::string>
verifyFusion(llvm::ArrayRef<FusionStatement> statements,
             const FusionPlan &plan);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_FUSION_H
