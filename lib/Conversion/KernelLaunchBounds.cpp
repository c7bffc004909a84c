//===- KernelLaunchBounds.cpp - the occupancy each kernel is built for ----===//
//
// ptxas sizes a kernel's registers from its launch bounds. With only
// `.maxntid` (from the known block size) it guesses an occupancy and may
// spill to reach it (e.g. 64 registers and 8 bytes spilled where 99 fit);
// `.minnctapersm` states the occupancy the kernel is meant for, so the
// register limit is the one that occupancy allows and no lower. The
// default target is two resident blocks per SM (one block's barriers then
// overlap with the other's work), fewer when shared memory or threads do
// not allow two or when the grid has too few blocks to give every SM a
// second one; a chip outside the device table gets one.
//
// `blocks-per-sm` asks for another number, capped the same way. One block
// lets ptxas use up to 255 registers: the hex kernels of Devito's elastic
// 3D forms, which spill under the 128 registers two blocks of 256 threads
// leave, ran 1.07x (order 4) to 1.67x (order 8) faster on an H200; but a
// kernel that fits in 128 may take more and lose its second block
// (laplace 3D f64 split: 128 -> 168 registers, 2% slower), and on the
// other examples it changes nothing (docs/performance.md, "Sixth lease").
//
// A kernel without barriers and shared memory (one point per thread: the
// untiled kernels) gets no `.minnctapersm`, as nvcc's
// `__launch_bounds__(threads)` gives none: ptxas then keeps such a
// memory-bound kernel at full occupancy. Told "two blocks" it spends the
// registers that allows on hoisting loads (heat3d f64, 512 threads: 60
// registers instead of 30, half the occupancy, 0.82x nvcc's kernel on an
// H100).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"
#include "Stencil/Poly/GpuDevice.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILKERNELLAUNCHBOUNDS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

/// The resident blocks per SM a kernel is compiled for, `wanted` at most:
/// `threads` threads and `sharedBytes` of shared memory per block,
/// `gridBlocks` blocks (0: unknown).
int64_t targetBlocksPerSM(const GpuDevice &device, int64_t wanted,
                          int64_t threads, int64_t sharedBytes,
                          int64_t gridBlocks) {
  int64_t blocks = std::min<int64_t>(
      wanted, residentBlocksPerSM(device, threads, 0, sharedBytes));
  if (gridBlocks > 0)
    blocks = std::min<int64_t>(blocks, llvm::divideCeil(gridBlocks, device.sms));
  return std::max<int64_t>(blocks, 1);
}

/// Bytes of the static workgroup (shared) memory of `func`.
int64_t workgroupBytes(gpu::GPUFuncOp func) {
  int64_t bytes = 0;
  for (BlockArgument buffer : func.getWorkgroupAttributions())
    if (auto type = dyn_cast<MemRefType>(buffer.getType()))
      bytes += affine::getIntOrFloatMemRefSizeInBytes(type).value_or(0);
  return bytes;
}

struct KernelLaunchBounds final
    : stencil::impl::StencilKernelLaunchBoundsBase<KernelLaunchBounds> {
  using StencilKernelLaunchBoundsBase::StencilKernelLaunchBoundsBase;

  void runOnOperation() override {
    if (blocksPerSM < 1) {
      mlir::emitError(getOperation().getLoc(),
                      "stencil-kernel-launch-bounds: blocks-per-sm "
                      "must be at least 1");
      return signalPassFailure();
    }
    // Outside the device table only one block per SM is known to fit.
    const GpuDevice *device = lookupGpuDevice(chip);
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
      if (!func.isKernel() || !block || func->hasAttr("nvvm.minctasm"))
        return;
      bool independentThreads =
          func.getWorkgroupAttributions().empty() &&
          !func.walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
               .wasInterrupted();
      if (independentThreads)
        return;
      int64_t threads = 1, gridBlocks = 1;
      for (int32_t size : *block)
        threads *= size;
      if (std::optional<ArrayRef<int32_t>> grid = func.getKnownGridSize())
        for (int32_t size : *grid)
          gridBlocks *= size;
      else
        gridBlocks = 0;
      int64_t blocks =
          device ? targetBlocksPerSM(*device, blocksPerSM, threads,
                                     workgroupBytes(func), gridBlocks)
                 : 1;
      func->setAttr("nvvm.minctasm",
                    IntegerAttr::get(IntegerType::get(ctx, 32), blocks));
    });
  }
};
} // namespace
