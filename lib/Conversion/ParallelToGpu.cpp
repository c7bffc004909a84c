//===- ParallelToGpu.cpp - parallel point loops to gpu.launch -------------===//
//
// `stencil-parallel-to-gpu`: maps the loop form of the reference lowering
// (convert-stencil-to-loops) to the mapped form of the GPU path, host code
// with `gpu.launch` ops that are not outlined yet. Both executors of the
// mapped form start from its output: the GPU (kernel outlining, NVVM, cubin)
// and the CPU (stencil-gpu-emulate).
//
// Each outermost `scf.parallel` becomes one launch with one thread per
// iteration: the innermost loop dimension goes to `x`, where consecutive
// threads touch consecutive elements (coalesced accesses), the next ones to
// `y` and `z`, and dimensions beyond three become loops in every thread.
// Grids that may exceed CUDA's limits (2^31-1 blocks along x, 65535 along y
// and z) are clamped and their blocks loop over the rest. Memory that the
// kernels touch must live on the GPU: host allocations become `gpu.alloc`,
// and host code of these functions must not access memref elements.
//
//===----------------------------------------------------------------------===//

#include "FieldAliases.h"
#include "Stencil/Conversion/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILPARALLELTOGPU
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// CUDA's largest grid per dimension (x, y, z) and block per dimension and
/// in total.
constexpr int64_t kMaxGrid[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};
constexpr int64_t kMaxThreads = 1024;

/// One mapped loop dimension (x, y or z): where its iterations come from.
struct MappedDim {
  Value lb, ub, step;
  int64_t block;
  /// Blocks needed to cover the iterations.
  Value blocks;
  /// Every thread of every block has an iteration (static bounds).
  bool exact;
  /// The grid is clamped and blocks loop over the rest (grid-stride loop).
  bool strided;
};

/// Index constants, one op per value.
class Constants {
public:
  Constants(OpBuilder &b, Location loc) : b(b), loc(loc) {}
  Value operator()(int64_t value) {
    Value &c = values[value];
    if (!c)
      c = arith::ConstantIndexOp::create(b, loc, value);
    return c;
  }

private:
  OpBuilder &b;
  Location loc;
  DenseMap<int64_t, Value> values;
};

struct ParallelToGpu final
    : stencil::impl::StencilParallelToGpuBase<ParallelToGpu> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult checkBlockSizes();
  SmallVector<int64_t, 3> blockShape(unsigned mappedDims) const;
  void mapLoop(scf::ParallelOp loop);
};

LogicalResult ParallelToGpu::checkBlockSizes() {
  ModuleOp module = getOperation();
  // Located at the first loop to map, else at the first op (a module's own
  // location is its file's line 0).
  Location loc = module.getLoc();
  if (!module.getBody()->empty())
    loc = module.getBody()->front().getLoc();
  module.walk([&](scf::ParallelOp loop) {
    loc = loop.getLoc();
    return WalkResult::interrupt();
  });
  if (blockSizes.size() > 3)
    return mlir::emitError(loc,
                           "block-sizes takes at most 3 entries (x, y, z), "
                           "got ")
           << blockSizes.size();
  int64_t total = 1;
  for (auto [d, size] : llvm::enumerate(blockSizes)) {
    if (size <= 0 || size > kMaxBlock[d])
      return mlir::emitError(loc, "block-sizes entry ")
             << d << " is " << size << "; CUDA allows 1 to " << kMaxBlock[d];
    total *= size;
  }
  if (total > kMaxThreads)
    return mlir::emitError(loc, "block-sizes give ")
           << total << " threads per block; CUDA allows at most "
           << kMaxThreads;
  return success();
}

/// Threads per block along x, y, z for a loop with `mappedDims` mapped
/// dimensions (unmapped ones get 1).
SmallVector<int64_t, 3> ParallelToGpu::blockShape(unsigned mappedDims) const {
  SmallVector<int64_t, 3> shape(3, 1);
  if (blockSizes.empty()) {
    static const int64_t defaults[3][3] = {{256, 1, 1}, {32, 8, 1}, {32, 4, 4}};
    for (unsigned d = 0; d < mappedDims; ++d)
      shape[d] = defaults[mappedDims - 1][d];
    return shape;
  }
  for (unsigned d = 0; d < mappedDims && d < blockSizes.size(); ++d)
    shape[d] = blockSizes[d];
  return shape;
}

void ParallelToGpu::mapLoop(scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  unsigned rank = loop.getNumLoops();
  unsigned mapped = std::min(rank, 3u);
  SmallVector<int64_t, 3> block = blockShape(mapped);

  // Host side: the grid, computed here when the bounds are static. Dimension
  // d of the launch (0 = x) is loop dimension rank - 1 - d.
  OpBuilder b(loop);
  Constants hostConstant(b, loc);
  SmallVector<MappedDim, 3> dims;
  SmallVector<Value, 3> grid, threads;
  for (unsigned d = 0; d < 3; ++d) {
    threads.push_back(hostConstant(block[d]));
    if (d >= mapped) {
      grid.push_back(hostConstant(1));
      continue;
    }
    unsigned l = rank - 1 - d;
    MappedDim dim{loop.getLowerBound()[l],
                  loop.getUpperBound()[l],
                  loop.getStep()[l],
                  block[d],
                  {},
                  false,
                  false};
    std::optional<int64_t> lb = getConstantIntValue(dim.lb),
                           ub = getConstantIntValue(dim.ub),
                           step = getConstantIntValue(dim.step);
    if (lb && ub && step) {
      int64_t trips =
          std::max<int64_t>(llvm::divideCeilSigned(*ub - *lb, *step), 0);
      int64_t blocks = llvm::divideCeilSigned(trips, dim.block);
      dim.exact = trips > 0 && trips % dim.block == 0;
      dim.strided = blocks > kMaxGrid[d];
      if (dim.strided)
        dim.blocks = hostConstant(blocks);
      // An empty loop still gets one block (CUDA rejects an empty grid): the
      // bounds check drops its threads.
      grid.push_back(hostConstant(std::clamp<int64_t>(blocks, 1, kMaxGrid[d])));
    } else {
      Value extent = arith::SubIOp::create(b, loc, dim.ub, dim.lb);
      Value trips = b.createOrFold<arith::CeilDivSIOp>(loc, extent, dim.step);
      dim.blocks = arith::CeilDivSIOp::create(b, loc, trips, threads[d]);
      dim.strided = true;
      Value size = arith::MaxSIOp::create(b, loc, dim.blocks, hostConstant(1));
      grid.push_back(
          arith::MinSIOp::create(b, loc, size, hostConstant(kMaxGrid[d])));
    }
    dims.push_back(dim);
  }
  auto launch = gpu::LaunchOp::create(b, loc, grid[0], grid[1], grid[2],
                                      threads[0], threads[1], threads[2]);

  // Kernel side: z, y, x grid-stride loops where needed, the induction
  // variables, the bounds check, then the loops of the unmapped dimensions.
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  Constants kernelConstant(b, loc);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  gpu::KernelDim3 gridSize = launch.getGridSize();
  Value blockId[3] = {blockIds.x, blockIds.y, blockIds.z};
  Value threadId[3] = {threadIds.x, threadIds.y, threadIds.z};
  Value gridDim[3] = {gridSize.x, gridSize.y, gridSize.z};
  for (int d = mapped - 1; d >= 0; --d) {
    if (!dims[d].strided)
      continue;
    auto stride =
        scf::ForOp::create(b, loc, blockId[d], dims[d].blocks, gridDim[d]);
    blockId[d] = stride.getInductionVar();
    b.setInsertionPointToStart(stride.getBody());
  }
  SmallVector<Value> ivs(rank);
  Value inBounds;
  for (int d = mapped - 1; d >= 0; --d) {
    const MappedDim &dim = dims[d];
    Value first = dim.block == 1
                      ? blockId[d]
                      : arith::MulIOp::create(b, loc, blockId[d],
                                              kernelConstant(dim.block));
    Value linear = arith::AddIOp::create(b, loc, first, threadId[d]);
    Value offset = b.createOrFold<arith::MulIOp>(loc, linear, dim.step);
    Value iv = b.createOrFold<arith::AddIOp>(loc, dim.lb, offset);
    ivs[rank - 1 - d] = iv;
    if (dim.exact)
      continue;
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, dim.ub);
    inBounds =
        inBounds ? arith::AndIOp::create(b, loc, inBounds, inside) : inside;
  }
  if (inBounds) {
    auto guard = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
  }
  for (unsigned l = 0; l < rank - mapped; ++l) {
    auto outer = scf::ForOp::create(b, loc, loop.getLowerBound()[l],
                                    loop.getUpperBound()[l], loop.getStep()[l]);
    ivs[l] = outer.getInductionVar();
    b.setInsertionPoint(outer.getBody()->getTerminator());
  }

  // The loop body without its scf.reduce terminator moves into the kernel.
  Block *loopBody = loop.getBody();
  for (auto [old, iv] : llvm::zip(loop.getInductionVars(), ivs))
    old.replaceAllUsesWith(iv);
  Block *dest = b.getInsertionBlock();
  dest->getOperations().splice(b.getInsertionPoint(), loopBody->getOperations(),
                               loopBody->begin(), std::prev(loopBody->end()));
  loop.erase();
}

/// The allocation a memref value is a view of, through view-like ops.
Operation *allocationOf(Value memref) {
  return stencil::viewedBuffer(memref).getDefiningOp();
}

/// Whether `op` (not counting its regions) reads or writes memref elements.
bool accessesMemRef(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
           e.getValue() && isa<BaseMemRefType>(e.getValue().getType());
  });
}

/// Checks and converts the host code of a function that launches kernels.
LogicalResult convertHost(FunctionOpInterface func) {
  bool invalid = false;
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(launch.getBody(), captured);
      for (Value value : captured) {
        if (!isa<BaseMemRefType>(value.getType()))
          continue;
        Operation *alloc = allocationOf(value);
        if (!isa_and_nonnull<memref::AllocaOp>(alloc))
          continue;
        alloc->emitError("memref.alloca is used by a gpu.launch: kernels "
                         "cannot access the host stack")
                .attachNote(launch.getLoc())
            << "the launch";
        invalid = true;
      }
      return WalkResult::skip();
    }
    if (isa<gpu::GPUDialect>(op->getDialect()) && accessesMemRef(op)) {
      op->emitError("the program already moves data to or from the GPU: "
                    "convert-to-gpu allocates and copies the fields itself; "
                    "give it the program without GPU memory operations");
      invalid = true;
    } else if (accessesMemRef(op)) {
      op->emitError("host code accesses memory that lives on the GPU (the "
                    "function launches kernels)");
      invalid = true;
    }
    return WalkResult::advance();
  });
  if (invalid)
    return failure();

  // Outside launches: kernels read and write what the host allocates.
  SmallVector<Operation *> allocs;
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      allocs.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : allocs) {
    OpBuilder b(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto device = gpu::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands());
      alloc.replaceAllUsesWith(device.getMemref());
    } else {
      gpu::DeallocOp::create(b, op->getLoc(), /*asyncToken=*/Type(),
                             /*asyncDependencies=*/ValueRange(),
                             cast<memref::DeallocOp>(op).getMemref());
    }
    op->erase();
  }
  return success();
}

void ParallelToGpu::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(checkBlockSizes()))
    return signalPassFailure();

  // Outermost parallel loops of host code; loops in existing kernels (or
  // nested in a mapped loop) run inside a thread.
  SmallVector<scf::ParallelOp> loops;
  bool invalid = false;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop)
      return WalkResult::advance();
    if (loop.getNumResults() != 0) {
      loop.emitError("scf.parallel with reductions cannot be mapped to the "
                     "GPU");
      invalid = true;
    }
    loops.push_back(loop);
    return WalkResult::skip();
  });
  if (invalid)
    return signalPassFailure();
  for (scf::ParallelOp loop : loops)
    mapLoop(loop);

  bool launches = false;
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (!func->walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      continue;
    launches = true;
    if (failed(convertHost(func)))
      invalid = true;
  }
  if (invalid)
    return signalPassFailure();
  if (launches)
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
}

} // namespace
