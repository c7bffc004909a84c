//===- HaloExchange.h - dmp.swap to MPI runtime calls -----------*- C++ -*-===//

#ifndef STENCIL_CONVERSION_HALOEXCHANGE_H
#define STENCIL_CONVERSION_HALOEXCHANGE_H

#include "Stencil/Dmp/Dmp.h"

namespace mlir::stencil {

/// A message pair of an exchange in flight: what its completion needs.
struct PostedExchange {
  Value memref;
  dmp::ExchangeAttr exchange;
  SmallVector<int64_t> at; // the receive box's corner in the memref
  Value valid, sendBuffer, recvBuffer;
};
using PostedExchanges = SmallVector<PostedExchange>;

/// Packs every region of consecutive swaps (each with the memref of its
/// field's buffer) into a contiguous buffer and posts all receives and
/// sends, before the first swap.
PostedExchanges
postHaloExchanges(ArrayRef<std::pair<dmp::SwapOp, Value>> swaps);

/// Waits for the messages of `posted` and unpacks the received regions into
/// the halos, at `b`'s insertion point (after the posting, in its block).
void completeHaloExchanges(OpBuilder &b, Location loc,
                           const PostedExchanges &posted);

/// Lowers consecutive swaps, each with the memref of its field's buffer, to
/// one exchange through the project's MPI runtime
/// (lib/Runtime/MpiRuntime.cpp): every region is packed into a contiguous
/// buffer, all receives and sends of all the swaps are posted, then waited
/// for together, and the received regions are unpacked into the halos
/// (post, then complete, at once). The code goes before the first swap; the
/// swaps are not erased.
void lowerHaloExchanges(ArrayRef<std::pair<dmp::SwapOp, Value>> swaps);

/// Fails with a diagnostic when an exchange of `swap` has no exchange in the
/// opposite direction of the same size: every rank runs the same swap, so
/// the neighbour's matching send or receive would never come (a hang).
LogicalResult checkExchangesPaired(dmp::SwapOp swap);

} // namespace mlir::stencil

#endif // STENCIL_CONVERSION_HALOEXCHANGE_H
