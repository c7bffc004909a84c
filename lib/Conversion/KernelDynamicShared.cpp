//===- KernelDynamicShared.cpp - shared memory past the static limit ------===//
//
// CUDA caps the static shared memory of a kernel at 48 KiB; a block may use
// more (up to 227 KiB on sm_90) only as dynamic shared memory, whose size
// the launch gives and which the kernel opts into (the runtime calls
// cuFuncSetAttribute for launches above 48 KiB). Promotion with a larger
// `shared-budget` gives kernels workgroup attributions past the limit, which
// ptxas refuses; here they become views into the dynamic buffer.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"
#include "Stencil/Poly/GpuDevice.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILKERNELDYNAMICSHARED
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

/// Views start at multiples of 16 bytes, the alignment of the dynamic
/// buffer, so that every element type is aligned and vector accesses stay
/// possible.
constexpr int64_t kViewAlignment = 16;

/// The byte offset of each attribution in the dynamic buffer and the total,
/// or nothing when an attribution has no static size.
std::optional<int64_t> layOut(gpu::GPUFuncOp func,
                              SmallVectorImpl<int64_t> &offsets) {
  int64_t total = 0;
  for (BlockArgument buffer : func.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    std::optional<uint64_t> bytes =
        type && type.getLayout().isIdentity()
            ? affine::getIntOrFloatMemRefSizeInBytes(type)
            : std::nullopt;
    if (!bytes)
      return std::nullopt;
    total = llvm::alignTo(total, kViewAlignment);
    offsets.push_back(total);
    total += *bytes;
  }
  return total;
}

/// Replaces the workgroup attributions of `func` by views at `offsets` into
/// its dynamic shared memory.
void replaceAttributions(gpu::GPUFuncOp func, ArrayRef<int64_t> offsets) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      func.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto bytesType =
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup);
  Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  for (auto [attribution, offset] :
       llvm::zip_equal(func.getWorkgroupAttributions(), offsets)) {
    BlockArgument buffer = attribution;
    Value at = arith::ConstantIndexOp::create(b, buffer.getLoc(), offset);
    Value view = memref::ViewOp::create(b, buffer.getLoc(), buffer.getType(),
                                        dynamic, at, ValueRange());
    buffer.replaceAllUsesWith(view);
  }
  unsigned first = func.getFirstWorkgroupAttributionIndex();
  entry.eraseArguments(first, offsets.size());
  func->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                b.getI64IntegerAttr(0));
  func->removeAttr("workgroup_attrib_attrs");
}

struct KernelDynamicShared final
    : stencil::impl::StencilKernelDynamicSharedBase<KernelDynamicShared> {
  using StencilKernelDynamicSharedBase::StencilKernelDynamicSharedBase;

  void runOnOperation() override {
    const GpuDevice *device = lookupGpuDevice(chip);
    int64_t staticLimit = device ? device->maxSharedPerBlockStatic : 48 * 1024;
    ModuleOp module = getOperation();
    // Bytes of dynamic shared memory per kernel, by symbol.
    DenseMap<Operation *, int64_t> dynamicBytes;
    WalkResult walk = module.walk([&](gpu::GPUFuncOp func) {
      // A kernel that uses dynamic shared memory itself keeps its layout.
      if (!func.isKernel() || func.getNumWorkgroupAttributions() == 0 ||
          func.walk([](gpu::DynamicSharedMemoryOp) {
                return WalkResult::interrupt();
              }).wasInterrupted())
        return WalkResult::advance();
      SmallVector<int64_t> offsets;
      std::optional<int64_t> total = layOut(func, offsets);
      if (!total || *total <= staticLimit)
        return WalkResult::advance();
      if (device && *total > device->maxSharedPerBlockOptIn) {
        func.emitError("kernel needs ")
            << *total << " bytes of shared memory, more than the "
            << device->maxSharedPerBlockOptIn << " a block of " << chip
            << " can have";
        return WalkResult::interrupt();
      }
      replaceAttributions(func, offsets);
      dynamicBytes[func] = *total;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (dynamicBytes.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto *kernel = SymbolTable::lookupNearestSymbolFrom(
          launch, launch.getKernelAttr());
      auto it = dynamicBytes.find(kernel);
      if (it == dynamicBytes.end())
        return;
      OpBuilder b(launch);
      Value size = arith::ConstantIntOp::create(b, launch.getLoc(),
                                                b.getI32Type(), it->second);
      launch.getDynamicSharedMemorySizeMutable().assign(size);
    });
  }
};
} // namespace
