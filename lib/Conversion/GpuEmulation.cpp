//===- GpuEmulation.cpp - run the mapped form on the CPU ------------------===//
//
// `stencil-gpu-emulate`: the CPU executor of the mapped form (host code with
// `gpu.launch` ops, as stencil-parallel-to-gpu and poly-to-gpu emit it). It
// lets the GPU mapping be checked bit for bit against the reference lowering
// on machines without a GPU.
//
// Each launch becomes loops over its blocks. Inside a block the threads run
// one after the other between barriers, which gives the GPU's results for
// every race-free kernel: the body is cut at each `gpu.barrier`, and in each
// barrier-free stretch the ops that differ between threads (they depend on a
// thread id, touch memory or contain such ops) move, in order, into one loop
// nest over the thread ids at the end of the stretch. Ops that are the same
// for all threads and pure stay outside, where they dominate the loops.
// Control flow around a barrier must be the same for all threads: `scf.for`
// and `scf.if` with thread-independent bounds, initial values and conditions
// are kept and their bodies treated the same way. Values that each thread
// computes cannot live across a barrier (they would need one copy per
// thread): pure computations of thread ids (indices, which CSE shares across
// barriers) are done again after the barrier, anything else is reported.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUEMULATE
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

Value pick(gpu::KernelDim3 values, gpu::Dimension dim) {
  switch (dim) {
  case gpu::Dimension::x:
    return values.x;
  case gpu::Dimension::y:
    return values.y;
  case gpu::Dimension::z:
    return values.z;
  }
  llvm_unreachable("unknown gpu::Dimension");
}

bool containsBarrier(Operation *op) {
  return op->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Runs the threads of one block, stretch by stretch, in loops over the
/// thread ids.
class ThreadLoops {
public:
  /// `zero` and `one` are index constants that dominate the launch.
  ThreadLoops(gpu::LaunchOp launch, Value zero, Value one)
      : threadIds(launch.getThreadIds()),
        blockSize(launch.getBlockSizeOperandValues()), zero(zero), one(one) {
    for (Value id : {threadIds.x, threadIds.y, threadIds.z})
      varying.insert(id);
  }

  LogicalResult run(Block &body);

private:
  LogicalResult processBlock(Block &block);
  LogicalResult processBarrierOp(Operation *op,
                                 SmallVectorImpl<Operation *> &pending);
  LogicalResult recomputeOperands(Operation *op,
                                  SmallVectorImpl<Operation *> &pending);
  Value recompute(Value value, Operation *user, IRMapping &recomputed,
                  SmallVectorImpl<Operation *> &pending);
  void flush(SmallVectorImpl<Operation *> &pending, Operation *end);
  bool isVarying(Operation *op);
  bool anyVarying(ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return varying.contains(v); });
  }
  LogicalResult reportAcrossBarrier(Operation *user, Value value);

  gpu::KernelDim3 threadIds, blockSize;
  Value zero, one;
  /// Values that may differ between the threads of a block.
  DenseSet<Value> varying;
  /// Results of the ops in the thread loops built so far, and the outermost
  /// loop of their nest.
  llvm::MapVector<Value, Operation *> nestOf;
  /// The thread loops' indices, and the thread ids they stand for.
  DenseMap<Value, Value> threadIdOf;
};

LogicalResult ThreadLoops::run(Block &body) {
  if (failed(processBlock(body)))
    return failure();
  // What is left of per-thread values outside their thread loops: uses by
  // control flow around barriers.
  for (auto [value, nest] : nestOf)
    for (Operation *user : value.getUsers())
      if (!nest->isProperAncestor(user))
        return reportAcrossBarrier(user, value);
  for (Value id : {threadIds.x, threadIds.y, threadIds.z})
    for (Operation *user : id.getUsers())
      return reportAcrossBarrier(user, id);
  return success();
}

bool ThreadLoops::isVarying(Operation *op) {
  if (!isMemoryEffectFree(op))
    return true;
  return op
      ->walk([&](Operation *nested) {
        return anyVarying(nested->getOperands()) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult ThreadLoops::reportAcrossBarrier(Operation *user, Value value) {
  InFlightDiagnostic diag =
      user->emitError("uses a value that differs between the threads across "
                      "a gpu.barrier or in control flow around one: the "
                      "emulation runs the threads one after the other "
                      "between barriers and keeps no per-thread values");
  diag.attachNote(value.getLoc()) << "the value";
  return diag;
}

LogicalResult ThreadLoops::processBlock(Block &block) {
  SmallVector<Operation *> pending;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (isa<gpu::BarrierOp>(op)) {
      flush(pending, &op);
      op.erase();
      continue;
    }
    if (containsBarrier(&op)) {
      if (failed(processBarrierOp(&op, pending)))
        return failure();
      continue;
    }
    if (!isVarying(&op))
      continue;
    if (failed(recomputeOperands(&op, pending)))
      return failure();
    pending.push_back(&op);
    varying.insert(op.getResults().begin(), op.getResults().end());
  }
  flush(pending, block.getTerminator());
  return success();
}

/// Control flow around a barrier is entered once per block: every thread
/// must take the same path. The stretch before it ends there.
LogicalResult
ThreadLoops::processBarrierOp(Operation *op,
                              SmallVectorImpl<Operation *> &pending) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (anyVarying(loop->getOperands()))
      return loop.emitError("barrier under thread-dependent control flow: "
                            "the loop's bounds, step or initial values "
                            "differ between threads");
    flush(pending, op);
    return processBlock(*loop.getBody());
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    if (varying.contains(branch.getCondition()))
      return branch.emitError("barrier under thread-dependent control flow: "
                              "the condition differs between threads");
    flush(pending, op);
    if (failed(processBlock(*branch.thenBlock())))
      return failure();
    return branch.getElseRegion().empty() ? success()
                                          : processBlock(*branch.elseBlock());
  }
  return op->emitError("barrier under control flow that the emulation does "
                       "not support (only scf.for and scf.if)");
}

/// A per-thread value from before a barrier cannot be kept, but pure
/// computations of thread ids and uniform values (typically indices, which
/// CSE shares across barriers) can be redone: `op` then uses copies, placed
/// right before it.
LogicalResult
ThreadLoops::recomputeOperands(Operation *op,
                               SmallVectorImpl<Operation *> &pending) {
  llvm::SetVector<Value> earlier;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (nestOf.contains(operand))
        earlier.insert(operand);
  });
  IRMapping recomputed;
  for (Value value : earlier) {
    Value copy = recompute(value, op, recomputed, pending);
    if (!copy)
      return reportAcrossBarrier(op, value);
    value.replaceUsesWithIf(
        copy, [&](OpOperand &use) { return op->isAncestor(use.getOwner()); });
  }
  return success();
}

/// `value` computed again before `user` (null when it cannot be).
Value ThreadLoops::recompute(Value value, Operation *user,
                             IRMapping &recomputed,
                             SmallVectorImpl<Operation *> &pending) {
  if (Value id = threadIdOf.lookup(value))
    return id;
  if (!nestOf.contains(value))
    return value;
  if (Value copy = recomputed.lookupOrNull(value))
    return copy;
  Operation *def = value.getDefiningOp();
  if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return {};
  for (Value operand : def->getOperands()) {
    Value copy = recompute(operand, user, recomputed, pending);
    if (!copy)
      return {};
    recomputed.map(operand, copy);
  }
  OpBuilder b(user);
  Operation *clone = b.clone(*def, recomputed);
  pending.push_back(clone);
  varying.insert(clone->getResults().begin(), clone->getResults().end());
  return recomputed.lookup(value);
}

/// Moves the thread-dependent ops of a stretch, in order, into loops over
/// the thread ids (z outer, x inner) right before `end`.
void ThreadLoops::flush(SmallVectorImpl<Operation *> &pending, Operation *end) {
  if (pending.empty())
    return;
  OpBuilder b(end);
  Location loc = pending.front()->getLoc();
  Operation *outermost = nullptr;
  Value ids[3];
  for (int d = 2; d >= 0; --d) {
    Value size = d == 0 ? blockSize.x : d == 1 ? blockSize.y : blockSize.z;
    auto loop = scf::ForOp::create(b, loc, zero, size, one);
    outermost = outermost ? outermost : loop.getOperation();
    ids[d] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  for (Operation *op : pending)
    op->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
  Value old[3] = {threadIds.x, threadIds.y, threadIds.z};
  for (int d = 0; d < 3; ++d) {
    old[d].replaceUsesWithIf(ids[d], [&](OpOperand &use) {
      return outermost->isProperAncestor(use.getOwner());
    });
    threadIdOf[ids[d]] = old[d];
  }
  for (Operation *op : pending)
    for (Value result : op->getResults())
      nestOf[result] = outermost;
  pending.clear();
}

/// What the emulation cannot run (yet): reported before anything changes.
LogicalResult checkLaunch(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("asynchronous gpu.launch is not supported by the "
                            "GPU emulation");
  if (launch.getNumPrivateAttributions())
    return launch.emitError("gpu.launch with private memory attributions is "
                            "not supported by the GPU emulation");
  for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape())
      return launch.emitError("workgroup memory attribution of type ")
             << buffer.getType()
             << " is not supported by the GPU emulation (only memrefs of "
                "static shape)";
  }
  if (launch.getDynamicSharedMemorySize())
    return launch.emitError("dynamic shared memory is not supported by the "
                            "GPU emulation");
  if (launch.hasClusterSize())
    return launch.emitError("thread block clusters are not supported by the "
                            "GPU emulation");
  if (!launch.getBody().hasOneBlock())
    return launch.emitError("gpu.launch body with more than one block is not "
                            "supported by the GPU emulation");
  WalkResult walk = launch.getBody().walk([](Operation *op) {
    if (isa<gpu::LaunchOp>(op) ||
        (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) &&
         !isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
              gpu::BarrierOp, gpu::TerminatorOp>(op))) {
      op->emitError("is not supported inside a gpu.launch by the GPU "
                    "emulation");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Workgroup memory: one buffer per attribution in the default memory
/// space, aligned to 128 bytes so that offsets give the banks. Blocks run
/// one after the other share one buffer, allocated at the start of the
/// function: a static alloca inside a loop would grow the stack at each
/// iteration. With parallel blocks each block allocates its own on the heap
/// at its start (the scf.parallel body becomes an OpenMP region that must
/// not keep allocas) and frees it at its end. Returns the buffers; with
/// parallel blocks they are allocated right before the launch, for the
/// caller to move into the block loop (moveWorkgroupMemory).
SmallVector<Value> allocateWorkgroupMemory(gpu::LaunchOp launch,
                                           bool parallelBlocks) {
  SmallVector<Value> buffers;
  OpBuilder b(launch);
  if (!parallelBlocks) {
    Operation *scope = launch->getParentOfType<FunctionOpInterface>();
    if (!scope)
      scope = launch->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
    b.setInsertionPointToStart(&scope->getRegion(0).front());
  }
  for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    MemRefType local = MemRefType::Builder(type).setMemorySpace(Attribute());
    Value memref;
    if (parallelBlocks)
      memref = memref::AllocOp::create(b, buffer.getLoc(), local,
                                       b.getI64IntegerAttr(128));
    else
      memref = memref::AllocaOp::create(b, buffer.getLoc(), local,
                                        b.getI64IntegerAttr(128));
    buffer.replaceAllUsesWith(memref);
    buffers.push_back(memref);
  }
  return buffers;
}

/// Moves heap buffers of parallel blocks to the start of the block body
/// `body`, whose end frees them.
void moveWorkgroupMemory(ArrayRef<Value> buffers, Block *body) {
  OpBuilder b(body->getTerminator());
  for (Value buffer : llvm::reverse(buffers)) {
    buffer.getDefiningOp()->moveBefore(body, body->begin());
    memref::DeallocOp::create(b, buffer.getLoc(), buffer);
  }
}

struct GpuEmulate final : stencil::impl::StencilGpuEmulateBase<GpuEmulate> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult emulate(gpu::LaunchOp launch);
};

LogicalResult GpuEmulate::emulate(gpu::LaunchOp launch) {
  if (failed(checkLaunch(launch)))
    return failure();
  Block &body = launch.getBody().front();
  gpu::KernelDim3 gridSize = launch.getGridSizeOperandValues();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  gpu::KernelDim3 blockIds = launch.getBlockIds();

  // Ids are the launch's region arguments, sizes its operands.
  launch.getBody().walk([&](Operation *op) {
    Value replacement =
        TypeSwitch<Operation *, Value>(op)
            .Case([&](gpu::ThreadIdOp id) {
              return pick(launch.getThreadIds(), id.getDimension());
            })
            .Case([&](gpu::BlockIdOp id) {
              return pick(blockIds, id.getDimension());
            })
            .Case([&](gpu::BlockDimOp dim) {
              return pick(blockSize, dim.getDimension());
            })
            .Case([&](gpu::GridDimOp dim) {
              return pick(gridSize, dim.getDimension());
            })
            .Default(Value());
    if (!replacement)
      return;
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  });
  gpu::KernelDim3 gridArgs = launch.getGridSize();
  gpu::KernelDim3 blockArgs = launch.getBlockSize();
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    pick(gridArgs, d).replaceAllUsesWith(pick(gridSize, d));
    pick(blockArgs, d).replaceAllUsesWith(pick(blockSize, d));
  }

  SmallVector<Value> workgroup =
      allocateWorkgroupMemory(launch, parallelBlocks);

  OpBuilder b(launch);
  Location loc = launch.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (failed(ThreadLoops(launch, zero, one).run(body)))
    return failure();

  // The blocks: z outer, x inner.
  SmallVector<Value, 3> ids; // z, y, x
  if (parallelBlocks) {
    auto loop = scf::ParallelOp::create(b, loc, {zero, zero, zero},
                                        {gridSize.z, gridSize.y, gridSize.x},
                                        {one, one, one});
    ids.assign(loop.getInductionVars().begin(), loop.getInductionVars().end());
    b.setInsertionPoint(loop.getBody()->getTerminator());
  } else {
    for (Value size : {gridSize.z, gridSize.y, gridSize.x}) {
      auto loop = scf::ForOp::create(b, loc, zero, size, one);
      ids.push_back(loop.getInductionVar());
      b.setInsertionPoint(loop.getBody()->getTerminator());
    }
  }
  blockIds.z.replaceAllUsesWith(ids[0]);
  blockIds.y.replaceAllUsesWith(ids[1]);
  blockIds.x.replaceAllUsesWith(ids[2]);
  b.getInsertionBlock()->getOperations().splice(
      b.getInsertionPoint(), body.getOperations(), body.begin(),
      std::prev(body.end()));
  if (parallelBlocks)
    moveWorkgroupMemory(workgroup, b.getInsertionBlock());
  launch.erase();
  return success();
}

void GpuEmulate::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::LaunchOp> launches;
  module.walk<WalkOrder::PreOrder>([&](gpu::LaunchOp launch) {
    launches.push_back(launch);
    return WalkResult::skip();
  });
  bool invalid = false;
  for (gpu::LaunchOp launch : launches)
    invalid |= failed(emulate(launch));
  if (invalid)
    return signalPassFailure();

  // Device memory is host memory.
  SmallVector<Operation *> memoryOps;
  module.walk([&](Operation *op) {
    if (isa<gpu::AllocOp, gpu::DeallocOp>(op))
      memoryOps.push_back(op);
  });
  for (Operation *op : memoryOps) {
    OpBuilder b(op);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty()) {
        alloc.emitError("asynchronous gpu.alloc is not supported by the GPU "
                        "emulation");
        invalid = true;
        continue;
      }
      // Aligned like the reference lowering's buffers (whole cache lines).
      Value memref = memref::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), b.getI64IntegerAttr(64));
      alloc.getMemref().replaceAllUsesWith(memref);
      alloc.erase();
      continue;
    }
    auto dealloc = cast<gpu::DeallocOp>(op);
    if (dealloc.getAsyncToken() || !dealloc.getAsyncDependencies().empty()) {
      dealloc.emitError("asynchronous gpu.dealloc is not supported by the "
                        "GPU emulation");
      invalid = true;
      continue;
    }
    memref::DeallocOp::create(b, dealloc.getLoc(), dealloc.getMemref());
    dealloc.erase();
  }
  if (invalid)
    return signalPassFailure();

  bool gpuOpsLeft =
      module
          .walk([](Operation *op) {
            return isa_and_nonnull<gpu::GPUDialect>(op->getDialect())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  if (!gpuOpsLeft)
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}

} // namespace
