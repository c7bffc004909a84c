//===- SharedLoadReuse.cpp - one shared load per element and interval -----===//
//
// `--stencil-shared-load-reuse` (Passes.td): redundant-load elimination and
// store-to-load forwarding for workgroup memory, block by block. The
// element identity is syntactic (the same SSA indices), which is what the
// unrolled steps of the polyhedral code generator give after CSE.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILSHAREDLOADREUSE
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

bool isWorkgroup(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// An element of a workgroup buffer and the value it holds.
struct Known {
  Value memref;
  SmallVector<Value> indices;
  Value value;
};

/// Whether two index lists certainly name different elements: in some
/// dimension both are constants and they differ.
bool disjoint(ValueRange a, ValueRange b) {
  for (auto [x, y] : llvm::zip_equal(a, b)) {
    APInt cx, cy;
    if (matchPattern(x, m_ConstantInt(&cx)) &&
        matchPattern(y, m_ConstantInt(&cy)) && cx != cy)
      return true;
  }
  return false;
}

/// Reuses loads within `block`, which starts knowing `known`, and within the
/// blocks of its ops: an scf.if's branches start with what is known before
/// the scf.if, other regions (loop bodies, which run again after their own
/// stores) with nothing.
void reuseLoads(Block &block, SmallVector<Known> known = {}) {
  auto lookup = [&](Value memref, ValueRange indices) -> Value {
    for (const Known &k : known)
      if (k.memref == memref && llvm::equal(k.indices, indices))
        return k.value;
    return nullptr;
  };
  // A store may change every element of its buffer that is not certainly
  // another one, and anything of a buffer it may alias: distinct workgroup
  // attributions (block arguments) are distinct memory, views may not be.
  auto forget = [&](memref::StoreOp store) {
    Value target = store.getMemRef();
    llvm::erase_if(known, [&](const Known &k) {
      if (k.memref == target)
        return !disjoint(k.indices, store.getIndices());
      return !isa<BlockArgument>(k.memref) || !isa<BlockArgument>(target);
    });
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && isWorkgroup(load.getMemRef())) {
      if (Value value = lookup(load.getMemRef(), load.getIndices())) {
        load.replaceAllUsesWith(value);
        load.erase();
        continue;
      }
      known.push_back({load.getMemRef(),
                       SmallVector<Value>(load.getIndices()), load.getResult()});
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && isWorkgroup(store.getMemRef())) {
      forget(store);
      known.push_back({store.getMemRef(),
                       SmallVector<Value>(store.getIndices()),
                       store.getValueToStore()});
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        reuseLoads(nested, isa<scf::IfOp>(op) ? known : SmallVector<Known>());
    // Nested code (a guarded point) forgets what its stores may touch; a
    // barrier or an op with other effects anywhere in it, everything.
    op.walk([&](Operation *nested) {
      if (auto store = dyn_cast<memref::StoreOp>(nested);
          store && isWorkgroup(store.getMemRef()))
        forget(store);
      else if (!isa<memref::LoadOp, memref::StoreOp>(nested) &&
               nested->getNumRegions() == 0 && !isMemoryEffectFree(nested) &&
               !nested->hasTrait<OpTrait::IsTerminator>())
        known.clear();
    });
  }
}

struct SharedLoadReuse final
    : stencil::impl::StencilSharedLoadReuseBase<SharedLoadReuse> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::LaunchOp launch) {
      for (Block &block : launch.getBody())
        reuseLoads(block);
    });
  }
};
} // namespace
