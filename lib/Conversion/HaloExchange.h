//===- HaloExchange.h - dmp.swap to MPI runtime calls -----------*- C++ -*-===//

#ifndef STENCIL_CONVERSION_HALOEXCHANGE_H
#define STENCIL_CONVERSION_HALOEXCHANGE_H

#include "Stencil/Dmp/Dmp.h"

namespace mlir::stencil {

/// Replaces `swap` by the exchange of its regions of `memref` (the field's
/// buffer) with the neighbouring ranks through the project's MPI runtime
/// (lib/Runtime/MpiRuntime.cpp): every region is packed into a contiguous
/// buffer, all receives and sends are posted, then waited for together, and
/// the received regions are unpacked into the halo. The swap is not erased.
void lowerHaloExchange(dmp::SwapOp swap, Value memref);

} // namespace mlir::stencil

#endif // STENCIL_CONVERSION_HALOEXCHANGE_H
