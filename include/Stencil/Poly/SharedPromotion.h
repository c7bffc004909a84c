//===- SharedPromotion.h - shared-memory promotion of GPU tiles -*- C++ -*-===//
//
// Promotion of the arrays a GPU tile touches into shared (workgroup) memory,
// on the mapped schedule tree of poly-to-gpu (hybrid paper sec. 4.2; thesis
// sec. 5.3.1). PPCG's design in our terms: per kernel and array, the
// footprint of one tile over all its time steps as a box whose offset is an
// affine function of the tile coordinates; copies grafted into the tree as
// extension nodes; the computation's accesses rewritten to the box.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_SHAREDPROMOTION_H
#define STENCIL_POLY_SHAREDPROMOTION_H

#include "Stencil/Poly/PolyOps.h"
#include "Stencil/Poly/ScopModel.h"

#include <isl/cpp.h>

#include <string>

namespace mlir::stencil::poly {

/// The mark that sits above the copies of one kernel: its prefix schedule,
/// (T, S_hex, S_other...), names one tile.
constexpr const char *kSharedMark = "shared";

/// How far promotion goes (the steps of the hybrid paper's Table 4).
enum class PromotionMode {
  None,       // (a) every access in global memory
  Copy,       // (b) copy-in, compute in shared memory, copy-out
  Interleaved // (c) copy-in; every computed value is also stored to global
              //     memory as it is computed (sec. 4.2.1): no copy-out phase
};

/// One array of one kernel in shared memory: element `l` of the buffer is
/// element `offset(T, S_hex, S_other...) + l` of the array (the buffer
/// subscript of rotating arrays included).
struct SharedBuffer {
  std::string array;
  unsigned kernel = 0; // the kernel's "shared" mark, in tree order
  SmallVector<int64_t> shape;
  isl::multi_aff offset;
  /// Inter-tile reuse (hybrid paper sec. 4.2.2): when not empty, a tile whose
  /// predecessor along the last parallelogram dimension ran just before on
  /// the same block moves element `l + reuseShift` of the buffer to `l`
  /// instead of loading what the predecessor already holds. The shift is
  /// offset(P) - offset(P - e_last).
  SmallVector<int64_t> reuseShift;
};

/// How promotion runs (the options of poly-to-gpu that concern it).
struct PromotionOptions {
  PromotionMode mode = PromotionMode::Interleaved;
  /// Threads per block, x (innermost) first.
  SmallVector<int64_t, 3> threads;
  /// Shared memory per block for the buffers of a kernel.
  int64_t budgetBytes = 48 * 1024;
  /// Unroll each thread's copy loop along the innermost dimension where it
  /// makes at most kMaxUnrolledCopies copies of a row.
  bool unrollCopies = true;
  /// Step (f): moves within shared memory instead of loads (sec. 4.2.2).
  bool interTileReuse = true;
};

/// Names of the statements promotion adds (copies of `array` in `kernel`).
std::string copyInName(unsigned kernel, StringRef array);
std::string copyOutName(unsigned kernel, StringRef array);
std::string moveName(unsigned kernel, StringRef array);
/// The name of the shared buffers of `array` in access functions; their
/// first subscript is the kernel.
std::string sharedArrayName(StringRef array);

/// Promotes the arrays of `scop` whose tile footprint has a box that fits in
/// the budget (per kernel, greedily in array order) in the mapped tree
/// `schedule` (the result of poly-to-gpu's hybrid mapping with
/// `options.threads` per block). Arrays that cannot be promoted get a remark
/// on the scop and stay in global memory. Returns the new tree and fills
/// `buffers`.
isl::schedule promoteToShared(ScopOp scop, const ScopModel &model,
                              isl::schedule schedule,
                              const PromotionOptions &options,
                              SmallVectorImpl<SharedBuffer> &buffers);

/// Copies per thread and row up to which promotion unrolls copy loops.
constexpr int64_t kMaxUnrolledCopies = 64;

/// The shared memory promotion would need per block (the largest kernel's
/// sum of footprint boxes) for the hybrid-tiled, not yet mapped, schedule
/// of `model`; -1 when some footprint has no box of constant size.
int64_t hybridTileFootprintBytes(ScopOp scop, const ScopModel &model);

/// Aligned loads (hybrid paper sec. 4.2.3): the translation offset of the
/// innermost parallelogram tiles (HybridTilingOptions::offset) that puts the
/// loads of the first full-rank array on `alignBytes` boundaries relative
/// to the start of its rows, for the hybrid-tiled, not yet mapped schedule
/// of `model` (tiled with offset 0): the start of each tile's box, or with
/// `interTileReuse` the start of the part a following tile loads. 0 when
/// no array qualifies, the tiles' stride along the rows is not a multiple
/// of the alignment, or the innermost dimension is the hexagonal one.
int64_t alignedTileOffset(ScopOp scop, const ScopModel &model,
                          int64_t alignBytes, bool interTileReuse);

/// The buffers recorded on a mapped scop (`gpu_shared`); nothing when it has
/// none. Fails with `error` set on a malformed entry.
LogicalResult readSharedBuffers(isl::ctx ctx, ScopOp scop,
                                SmallVectorImpl<SharedBuffer> &buffers,
                                std::string &error);

/// Records `buffers` on `scop` (`gpu_shared`).
void writeSharedBuffers(ScopOp scop, ArrayRef<SharedBuffer> buffers,
                        PromotionMode mode);

/// Rewrites the accesses of the computation to the shared buffers, using
/// the prefix schedules (the tile) at the "shared" marks of the tree.
class SharedAccessMap {
public:
  SharedAccessMap(isl::schedule schedule, ArrayRef<SharedBuffer> buffers);

  /// `access` (a statement's, into an array) into the shared buffers of its
  /// array: `sharedArrayName(array)[kernel, l...]`, one piece per kernel.
  /// Null when the array is not promoted.
  isl::pw_multi_aff rewrite(isl::pw_multi_aff access) const;
  /// Whether `rewrite` moves the accesses of `statement` to `array` into a
  /// buffer: a kernel promotes the array and holds instances of `statement`.
  bool promotes(StringRef statement, StringRef array) const;
  /// The number of "shared" marks (kernels) in the tree.
  unsigned numKernels() const { return tileOf.size(); }

private:
  ArrayRef<SharedBuffer> buffers;
  SmallVector<isl::union_pw_multi_aff> tileOf; // per kernel
};

/// The accesses of a copy statement `statement[P..., l...]` of `buffer`:
/// the global element `offset(P) + l`, and the shared one `[kernel, l...]`.
isl::pw_multi_aff copyGlobalAccess(const SharedBuffer &buffer,
                                   StringRef statement);
isl::pw_multi_aff copySharedAccess(const SharedBuffer &buffer,
                                   StringRef statement);
/// The source of a move statement `statement[P..., l...]` of `buffer`: the
/// shared element `[kernel, l + reuseShift]`.
isl::pw_multi_aff moveSourceAccess(const SharedBuffer &buffer,
                                   StringRef statement);

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_SHAREDPROMOTION_H
