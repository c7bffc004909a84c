//===- GpuDevice.cpp - The device table and occupancy ---------------------===//

#include "Stencil/Poly/GpuDevice.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::stencil;

namespace {
// NVIDIA A100 (sm_80) and H100 SXM5 (sm_90): CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability", and the architecture
// whitepapers (python/stencil/gpumodel.py cites each figure).
const GpuDevice kDevices[] = {
    {"sm_80", /*sms=*/108, /*registersPerSM=*/65536,
     /*maxRegistersPerThread=*/255, /*maxThreadsPerSM=*/2048,
     /*maxBlocksPerSM=*/32, /*maxSharedPerSM=*/164 * 1024,
     /*maxSharedPerBlockOptIn=*/166912, /*maxSharedPerBlockStatic=*/48 * 1024},
    {"sm_90", /*sms=*/132, /*registersPerSM=*/65536,
     /*maxRegistersPerThread=*/255, /*maxThreadsPerSM=*/2048,
     /*maxBlocksPerSM=*/32, /*maxSharedPerSM=*/228 * 1024,
     /*maxSharedPerBlockOptIn=*/232448, /*maxSharedPerBlockStatic=*/48 * 1024},
};

int64_t roundUp(int64_t value, int64_t unit) {
  return llvm::divideCeil(value, unit) * unit;
}
} // namespace

const GpuDevice *mlir::stencil::lookupGpuDevice(StringRef chip) {
  for (const GpuDevice &device : kDevices)
    if (device.chip == chip)
      return &device;
  return nullptr;
}

std::string mlir::stencil::knownGpuChips() {
  std::string chips;
  for (const GpuDevice &device : kDevices)
    chips += (chips.empty() ? "" : ", ") + device.chip.str();
  return chips;
}

int64_t mlir::stencil::residentBlocksPerSM(const GpuDevice &device,
                                           int64_t threads, int64_t registers,
                                           int64_t sharedBytes) {
  if (threads <= 0 || threads > 1024 ||
      registers > device.maxRegistersPerThread ||
      sharedBytes > device.maxSharedPerBlockOptIn)
    return 0;
  int64_t warps = llvm::divideCeil(threads, device.warpSize);
  int64_t limit = std::min(device.maxBlocksPerSM,
                           device.maxThreadsPerSM / device.warpSize / warps);
  if (registers > 0) {
    int64_t perWarp =
        roundUp(registers * device.warpSize, device.registerAllocUnit);
    limit = std::min(limit, device.registersPerSM / perWarp / warps);
  }
  if (sharedBytes > 0)
    limit = std::min(limit, device.maxSharedPerSM /
                                roundUp(sharedBytes +
                                            device.reservedSharedPerBlock,
                                        device.sharedAllocUnit));
  return std::max<int64_t>(limit, 0);
}

int64_t mlir::stencil::registersForBlocks(const GpuDevice &device,
                                          int64_t threads, int64_t blocks) {
  int64_t warps = llvm::divideCeil(threads, device.warpSize) * blocks;
  if (warps <= 0)
    return device.maxRegistersPerThread;
  // Registers are allocated per warp in units: round down to a unit.
  int64_t perWarp = device.registersPerSM / warps / device.registerAllocUnit *
                    device.registerAllocUnit;
  return std::min(device.maxRegistersPerThread, perWarp / device.warpSize);
}
