//===- GpuDevice.h - What the compiler knows of a GPU -------------*- C++ -*-===//
//
// The device table of the GPU path, keyed by the `chip` option of
// --convert-to-gpu, and the occupancy it implies (resident blocks per SM).
// The same figures as python/stencil/gpumodel.py's DEVICES (a test checks
// that the two agree); sources are cited there.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_GPUDEVICE_H
#define STENCIL_POLY_GPUDEVICE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::stencil {

struct GpuDevice {
  StringRef chip;
  int64_t sms;
  int64_t registersPerSM;
  int64_t maxRegistersPerThread;
  int64_t maxThreadsPerSM;
  int64_t maxBlocksPerSM;
  int64_t maxSharedPerSM;           // bytes, the largest carveout
  int64_t maxSharedPerBlockOptIn;   // bytes, dynamic shared memory
  int64_t maxSharedPerBlockStatic;  // bytes, without opt-in
  // Allocation granularities of the CUDA occupancy calculator.
  int64_t warpSize = 32;
  int64_t registerAllocUnit = 256;  // registers, per warp
  int64_t sharedAllocUnit = 128;    // bytes
  int64_t reservedSharedPerBlock = 1024;
};

/// The table entry of `chip` (e.g. "sm_90"), or null for a chip the table
/// does not know.
const GpuDevice *lookupGpuDevice(StringRef chip);

/// The chips of the table, comma-separated (for diagnostics).
std::string knownGpuChips();

/// Resident blocks per SM of a kernel with `threads` threads per block,
/// `registers` registers per thread (0: not limiting) and `sharedBytes` of
/// shared memory per block; 0 when one block does not fit.
int64_t residentBlocksPerSM(const GpuDevice &device, int64_t threads,
                            int64_t registers, int64_t sharedBytes);

/// The most registers per thread that keep `blocks` blocks of `threads`
/// threads resident on one SM (at most the per-thread maximum).
int64_t registersForBlocks(const GpuDevice &device, int64_t threads,
                           int64_t blocks);

} // namespace mlir::stencil

#endif // STENCIL_POLY_GPUDEVICE_H
