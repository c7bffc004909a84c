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

#include "FieldAliases.h"
#include "Stencil/Conversion/Passes.h"
#include "Stencil/Runtime/EmulationRuntime.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

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
  /// `reverse`: the thread loops count down. `atBarrier` builds what
  /// replaces each barrier (after the threads of the stretch before it).
  ThreadLoops(gpu::LaunchOp launch, Value zero, Value one, bool reverse,
              std::function<void(OpBuilder &, Location)> atBarrier)
      : threadIds(launch.getThreadIds()),
        blockSize(launch.getBlockSizeOperandValues()), zero(zero), one(one),
        reverse(reverse), atBarrier(std::move(atBarrier)) {
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
  bool reverse;
  std::function<void(OpBuilder &, Location)> atBarrier;
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
      if (atBarrier) {
        OpBuilder b(&op);
        atBarrier(b, op.getLoc());
      }
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
  // Threads in reverse order: id = size - 1 - index. Race-free kernels give
  // the same results.
  for (int d = 0; reverse && d < 3; ++d) {
    Value size = d == 0 ? blockSize.x : d == 1 ? blockSize.y : blockSize.z;
    Value last = arith::SubIOp::create(b, loc, size, one);
    ids[d] = arith::SubIOp::create(b, loc, last, ids[d]);
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

/// A location as "file:line:col" (the first file location inside it), for
/// the runtime's reports.
std::string describe(Location loc) {
  std::string text;
  loc->walk([&](Location nested) {
    if (auto file = dyn_cast<FileLineColLoc>(nested)) {
      text = (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
              Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty())
    llvm::raw_string_ostream(text) << loc;
  // Fields of the runtime's table are separated by tabs and newlines.
  llvm::replace(text, '\t', ' ');
  llvm::replace(text, '\n', ' ');
  return text;
}

/// The statements whose code is directly in `block`, by the names their
/// ops carry (NameLoc, as the polyhedral code generator sets them), in
/// order of appearance and separated by spaces; empty when none.
std::string statementsOf(Block &block) {
  SmallVector<StringRef> names;
  for (Operation &op : block)
    op.getLoc()->walk([&](Location nested) {
      if (auto name = dyn_cast<NameLoc>(nested)) {
        if (!llvm::is_contained(names, name.getName().strref()))
          names.push_back(name.getName().strref());
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  std::string text = llvm::join(names, " ");
  llvm::replace(text, '\t', ' ');
  llvm::replace(text, '\n', ' ');
  return text;
}

std::string describe(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// The PTX instructions one execution of `op` costs a thread, as a model
/// for the profile's instruction counts (the model scales them by the
/// kernel's PTX size, python/stencil/gpumodel.py): nothing for constants
/// and terminators, the address arithmetic (a multiply-add per index) with
/// each load and store, a short sequence for division and remainder (one
/// op for unsigned ones by a power of two), one for the rest. Region ops
/// count their own branch; their blocks are counted where they run.
int64_t modeledInstructions(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() || op->hasTrait<OpTrait::IsTerminator>())
    return 0;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return 1 + load.getIndices().size();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return 1 + store.getIndices().size();
  // Unsigned division by a power of two is one shift or mask.
  if (isa<arith::DivUIOp, arith::RemUIOp>(op)) {
    APInt divisor;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) &&
        divisor.isPowerOf2())
      return 1;
  }
  if (isa<arith::FloorDivSIOp, arith::CeilDivSIOp, arith::DivSIOp,
          arith::RemSIOp, arith::DivUIOp, arith::RemUIOp,
          arith::CeilDivUIOp>(op))
    return 4;
  return 1;
}

/// Calls into libStencilEmulation (Stencil/Runtime/EmulationRuntime.h) from
/// the emulated launches: every global and shared load and store of the
/// threads, the barriers, the blocks and the launches. Each launch site gets
/// a table (a string constant) describing the kernel and its memory ops,
/// whose line numbers are the ops' ids in the calls.
class Instrumentation {
public:
  explicit Instrumentation(int64_t mode) : mode(mode) {}

  /// Instruments the loads and stores of `launch` and, when profiling, the
  /// blocks of its body with their modeled instructions (before its threads
  /// are put in loops). `shared` are the workgroup buffers, `sharedTypes`
  /// their types in the kernel.
  void instrumentAccesses(gpu::LaunchOp launch, ArrayRef<Value> shared,
                          ArrayRef<Type> sharedTypes);
  /// Calls at the start and the end of the launch (`outer`, the outermost
  /// block loop, is in place of the launch) and of each block (`body`, the
  /// innermost block loop's body, already holding the kernel body).
  void instrumentLaunch(gpu::LaunchOp launch, Operation *outer, Block *body,
                        ArrayRef<Value> blockIds);
  void barrier(OpBuilder &b, Location loc) {
    call(b, loc, "stencilEmuBarrier", {});
  }

private:
  void call(OpBuilder &b, Location loc, StringRef name, ValueRange args);
  std::string describeMemref(Value memref, gpu::LaunchOp launch,
                             ArrayRef<Value> shared, ArrayRef<Type> sharedTypes);

  /// The module of the launch being instrumented: it gets the table and
  /// the runtime's declarations.
  ModuleOp module;
  int64_t mode;
  /// Kernels per function, for their names.
  llvm::StringMap<unsigned> kernelsOf;
  /// The table of the launch being instrumented.
  std::string table;
};

void Instrumentation::call(OpBuilder &b, Location loc, StringRef name,
                           ValueRange args) {
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> types(args.size(), b.getIndexType());
    callee = func::FuncOp::create(b, module.getLoc(), name,
                                  b.getFunctionType(types, {}));
    callee.setPrivate();
  }
  func::CallOp::create(b, loc, callee, args);
}

std::string Instrumentation::describeMemref(Value memref, gpu::LaunchOp launch,
                                            ArrayRef<Value> shared,
                                            ArrayRef<Type> sharedTypes) {
  for (auto [i, buffer] : llvm::enumerate(shared))
    if (buffer == memref)
      return "workgroup buffer " + std::to_string(i) + " (" +
             describe(sharedTypes[i]) + ")";
  std::string type = " (" + describe(memref.getType()) + ")";
  if (auto arg = dyn_cast<BlockArgument>(memref)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock())
      return "argument " + std::to_string(arg.getArgNumber()) + " of @" +
             func.getName().str() + type;
    return "block argument " + std::to_string(arg.getArgNumber()) + type;
  }
  Operation *def = memref.getDefiningOp();
  return def->getName().getStringRef().str() + " at " +
         describe(def->getLoc()) + type;
}

void Instrumentation::instrumentAccesses(gpu::LaunchOp launch,
                                         ArrayRef<Value> shared,
                                         ArrayRef<Type> sharedTypes) {
  module = launch->getParentOfType<ModuleOp>();
  std::string kernel;
  if (std::optional<StringRef> name = launch.getFunction()) {
    kernel = name->str();
  } else {
    auto func = launch->getParentOfType<FunctionOpInterface>();
    std::string prefix = func ? func.getName().str() : "launch";
    kernel = prefix + "_kernel_" + std::to_string(kernelsOf[prefix]++);
  }
  // The head: kernel, location, bytes of workgroup memory per block (what
  // the performance model sizes occupancy with; on the GPU they may be
  // dynamic shared memory, which the PTX does not size).
  int64_t sharedBytes = 0;
  for (Type type : sharedTypes)
    if (auto memref = dyn_cast<MemRefType>(type))
      sharedBytes +=
          affine::getIntOrFloatMemRefSizeInBytes(memref).value_or(0);
  table = kernel + "\t" + describe(launch.getLoc()) + "\t" +
          std::to_string(sharedBytes) + "\n";

  SmallVector<Operation *> accesses;
  launch.getBody().walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp>(op))
      accesses.push_back(op);
  });
  // The blocks of the body and their modeled instructions, counted before
  // the instrumentation adds ops. A loop body also pays the increment and
  // the compare-and-branch of its iteration.
  SmallVector<std::pair<Block *, int64_t>> blocks;
  if (mode & STENCIL_EMU_PROFILE)
    launch.getBody().walk([&](Block *block) {
      int64_t weight = isa<scf::ForOp>(block->getParentOp()) ? 2 : 0;
      for (Operation &op : *block)
        weight += modeledInstructions(&op);
      blocks.push_back({block, weight});
    });

  gpu::KernelDim3 tids = launch.getThreadIds();
  gpu::KernelDim3 size = launch.getBlockSizeOperandValues();
  auto linearThread = [&](OpBuilder &b, Location loc) {
    Value thread = arith::AddIOp::create(
        b, loc, tids.y, arith::MulIOp::create(b, loc, size.y, tids.z));
    return arith::AddIOp::create(
        b, loc, tids.x, arith::MulIOp::create(b, loc, size.x, thread));
  };
  DataLayout layout = DataLayout::closest(launch);
  int64_t id = 0;
  for (Operation *op : accesses) {
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    Value memref = load ? load.getMemRef() : store.getMemRef();
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    // The buffer behind views. One allocated by the kernel itself is private
    // to the thread: no traffic to count, no race.
    Value root = stencil::viewedBuffer(memref);
    Operation *def = root.getDefiningOp();
    if (def && isa<memref::AllocaOp, memref::AllocOp>(def) &&
        launch->isProperAncestor(def))
      continue;
    bool isShared = llvm::is_contained(shared, root);
    auto type = cast<MemRefType>(memref.getType());
    uint64_t bytes = layout.getTypeSize(type.getElementType());
    table += (store ? "store\t" : "load\t") +
             std::string(isShared ? "shared\t" : "global\t") +
             std::to_string(bytes) + "\t" +
             (store && op->hasAttr("stencil.update") ? "1\t" : "0\t") +
             std::to_string(type.getRank()) + "\t" +
             describeMemref(root, launch, shared, sharedTypes) + "\t" +
             describe(op->getLoc()) + "\n";

    // address = aligned pointer + (offset + sum(index * stride)) * bytes;
    // thread = x + size.x * (y + size.y * z).
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value linear = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
      linear = arith::AddIOp::create(
          b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value elementBytes = arith::ConstantIndexOp::create(b, loc, bytes);
    Value address = arith::AddIOp::create(
        b, loc, base, arith::MulIOp::create(b, loc, linear, elementBytes));
    SmallVector<Value> args = {arith::ConstantIndexOp::create(b, loc, id++),
                               address, linearThread(b, loc)};
    for (unsigned d = 0; d < 4; ++d)
      args.push_back(d < indices.size()
                         ? indices[d]
                         : arith::ConstantIndexOp::create(b, loc, 0));
    call(b, loc, "stencilEmuAccess", args);
  }

  // Each block reports its instructions per thread that runs it (ids count
  // separately from the accesses' ids).
  int64_t blockId = 0;
  for (auto [block, weight] : blocks) {
    if (weight == 0)
      continue;
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Location loc = block->getParentOp()->getLoc();
    table += "instructions\t" + std::to_string(weight) + "\t" +
             describe(loc) + "\t" +
             block->getParentOp()->getName().getStringRef().str() + "\t" +
             statementsOf(*block) + "\n";
    call(b, loc, "stencilEmuInstructions",
         {arith::ConstantIndexOp::create(b, loc, blockId++),
          linearThread(b, loc)});
  }
}

void Instrumentation::instrumentLaunch(gpu::LaunchOp launch, Operation *outer,
                                       Block *body, ArrayRef<Value> blockIds) {
  Location loc = launch.getLoc();
  OpBuilder b(outer);
  // The table, a null-terminated string constant.
  SmallVector<int8_t> bytes(table.begin(), table.end());
  bytes.push_back(0);
  auto type = MemRefType::get({static_cast<int64_t>(bytes.size())},
                              b.getI8Type());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get(type.getShape(), b.getI8Type()),
      ArrayRef<int8_t>(bytes));
  // Created detached: the symbol table renames it if the name is taken.
  OpBuilder detached(module.getContext());
  auto global = memref::GlobalOp::create(
      detached, loc, b.getStringAttr("__stencil_emu_site"),
      b.getStringAttr("private"), TypeAttr::get(type), value, b.getUnitAttr(),
      IntegerAttr());
  SymbolTable(module).insert(global, module.getBody()->begin());
  Value site = memref::GetGlobalOp::create(b, loc, type, global.getSymName());
  site = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, site);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  call(b, loc, "stencilEmuLaunchBegin",
       {site, arith::ConstantIndexOp::create(b, loc, mode), grid.x, grid.y,
        grid.z, block.x, block.y, block.z});
  b.setInsertionPointAfter(outer);
  call(b, loc, "stencilEmuLaunchEnd", {});
  b.setInsertionPointToStart(body);
  call(b, loc, "stencilEmuBlockBegin", {blockIds[2], blockIds[1], blockIds[0]});
  b.setInsertionPoint(body->getTerminator());
  call(b, loc, "stencilEmuBlockEnd", {});
}

struct GpuEmulate final : stencil::impl::StencilGpuEmulateBase<GpuEmulate> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult emulate(gpu::LaunchOp launch,
                        Instrumentation *instrumentation);
};

LogicalResult GpuEmulate::emulate(gpu::LaunchOp launch,
                                  Instrumentation *instrumentation) {
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

  // The runtime's state is the block's: instrumented blocks run one after
  // the other.
  bool parallel = parallelBlocks && !instrumentation;
  SmallVector<Type> workgroupTypes;
  for (BlockArgument buffer : launch.getWorkgroupAttributions())
    workgroupTypes.push_back(buffer.getType());
  SmallVector<Value> workgroup = allocateWorkgroupMemory(launch, parallel);
  if (instrumentation)
    instrumentation->instrumentAccesses(launch, workgroup, workgroupTypes);

  OpBuilder b(launch);
  Location loc = launch.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  std::function<void(OpBuilder &, Location)> atBarrier;
  if (instrumentation)
    atBarrier = [&](OpBuilder &b, Location loc) {
      instrumentation->barrier(b, loc);
    };
  if (failed(ThreadLoops(launch, zero, one, reverseThreads, atBarrier)
                 .run(body)))
    return failure();

  // The blocks: z outer, x inner.
  SmallVector<Value, 3> ids; // z, y, x
  Operation *outer = nullptr;
  if (parallel) {
    auto loop = scf::ParallelOp::create(b, loc, {zero, zero, zero},
                                        {gridSize.z, gridSize.y, gridSize.x},
                                        {one, one, one});
    ids.assign(loop.getInductionVars().begin(), loop.getInductionVars().end());
    b.setInsertionPoint(loop.getBody()->getTerminator());
    outer = loop;
  } else {
    for (Value size : {gridSize.z, gridSize.y, gridSize.x}) {
      auto loop = scf::ForOp::create(b, loc, zero, size, one);
      ids.push_back(loop.getInductionVar());
      b.setInsertionPoint(loop.getBody()->getTerminator());
      outer = outer ? outer : loop.getOperation();
    }
  }
  blockIds.z.replaceAllUsesWith(ids[0]);
  blockIds.y.replaceAllUsesWith(ids[1]);
  blockIds.x.replaceAllUsesWith(ids[2]);
  b.getInsertionBlock()->getOperations().splice(
      b.getInsertionPoint(), body.getOperations(), body.begin(),
      std::prev(body.end()));
  if (parallel)
    moveWorkgroupMemory(workgroup, b.getInsertionBlock());
  if (instrumentation)
    instrumentation->instrumentLaunch(launch, outer, b.getInsertionBlock(),
                                      ids);
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
  int64_t mode = (profile ? STENCIL_EMU_PROFILE : 0) |
                 (raceCheck ? STENCIL_EMU_RACE_CHECK : 0);
  std::optional<Instrumentation> instrumentation;
  if (mode)
    instrumentation.emplace(mode);
  for (gpu::LaunchOp launch : launches)
    invalid |= failed(
        emulate(launch, instrumentation ? &*instrumentation : nullptr));
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
