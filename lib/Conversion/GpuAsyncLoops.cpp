//===- GpuAsyncLoops.cpp - one wait for the device per loop nest ----------===//
//
// gpu-async-region makes the GPU ops of a block one chain of async tokens,
// started by `gpu.wait async` and ended by a blocking `gpu.wait` before the
// block's terminator. In the body of a time loop that is a host wait per
// time step: the device finishes a step's kernels and idles while the host
// returns from cuStreamSynchronize and launches the next ones (measured on
// an H100: our untiled kernels at 0.80-0.87x the naive CUDA ones on small
// 2D steps, 0.97x on large 3D ones, docs/performance.md). Here the token
// becomes an iteration argument of the loop instead, so that the steps'
// kernels queue up back to back and the host waits once, after the loop.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUASYNCLOOPS
#define GEN_PASS_DEF_STENCILGPUCARRIEDSTREAMS
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// The chain of one loop body: the `gpu.wait async` that starts it and the
/// blocking `gpu.wait` that ends it.
struct BodyChain {
  gpu::WaitOp start, end;
};

/// The chain of `body` (a loop's or a branch's) when the block is nothing
/// but that chain (see the pass description); `threaded` holds the loops
/// and branches already carrying their token, the only ones such a block
/// may contain.
std::optional<BodyChain>
matchBodyChain(Block *body, const DenseSet<Operation *> &threaded) {
  BodyChain chain;
  for (Operation &op : body->without_terminator()) {
    if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
      if (!wait.getAsyncToken()) {
        if (chain.end)
          return std::nullopt;
        chain.end = wait;
      } else if (wait.getAsyncDependencies().empty()) {
        if (chain.start)
          return std::nullopt;
        chain.start = wait;
      } else {
        // A join: upstream lowers it to a new stream waiting on events,
        // which a carried token cannot be (see GpuCarriedStreams).
        return std::nullopt;
      }
      continue;
    }
    if (auto async = dyn_cast<gpu::AsyncOpInterface>(op)) {
      if (!async.getAsyncToken())
        return std::nullopt;
      continue;
    }
    if (threaded.contains(&op))
      continue;
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return std::nullopt;
  }
  if (!chain.start || !chain.end ||
      chain.end->getNextNode() != body->getTerminator() ||
      chain.end.getAsyncDependencies().size() != 1)
    return std::nullopt;
  return chain;
}

/// Replaces the start of `chain` by `token` and drops its end; returns the
/// token the chain ended with.
Value continueChain(RewriterBase &rewriter, BodyChain chain, Value token) {
  Value last = chain.end.getAsyncDependencies().front();
  rewriter.replaceAllUsesWith(chain.start.getAsyncToken(), token);
  if (last == chain.start.getAsyncToken())
    last = token;
  rewriter.eraseOp(chain.start);
  rewriter.eraseOp(chain.end);
  return last;
}

struct GpuAsyncLoops final
    : stencil::impl::StencilGpuAsyncLoopsBase<GpuAsyncLoops> {
  DenseSet<Operation *> threaded;

  /// An scf.for whose body is a chain: the token as iteration argument.
  void threadLoop(RewriterBase &rewriter, scf::ForOp loop) {
    std::optional<BodyChain> chain = matchBodyChain(loop.getBody(), threaded);
    if (!chain)
      return;
    Location loc = loop.getLoc();
    Type tokenType = gpu::AsyncTokenType::get(&getContext());
    rewriter.setInsertionPoint(loop);
    Value first = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange())
                      .getAsyncToken();
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{continueChain(rewriter, *chain, args[0])};
        });
    if (failed(replaced))
      return;
    rewriter.setInsertionPointAfter(*replaced);
    gpu::WaitOp::create(rewriter, loc, Type(),
                        ValueRange{replaced->getOperation()->getResults().back()});
    threaded.insert(*replaced);
  }

  /// An scf.if without results whose branches are chains (a partial last
  /// time tile's launches): the branches continue the chain before the if
  /// and yield its token.
  void threadBranch(RewriterBase &rewriter, scf::IfOp branch) {
    if (branch.getNumResults() != 0)
      return;
    std::optional<BodyChain> thenChain =
        matchBodyChain(branch.thenBlock(), threaded);
    std::optional<BodyChain> elseChain;
    if (Block *elseBlock = branch.elseBlock())
      if (!(elseChain = matchBodyChain(elseBlock, threaded)))
        return;
    if (!thenChain)
      return;
    Location loc = branch.getLoc();
    Type tokenType = gpu::AsyncTokenType::get(&getContext());
    rewriter.setInsertionPoint(branch);
    // The chain before the branch (ended by a blocking wait, maybe followed
    // by host arithmetic) goes on into it; else one starts here.
    Value incoming;
    Operation *prev = branch->getPrevNode();
    while (prev && !isa<gpu::WaitOp>(prev) && prev->getNumRegions() == 0 &&
           isMemoryEffectFree(prev))
      prev = prev->getPrevNode();
    auto before = dyn_cast_or_null<gpu::WaitOp>(prev);
    if (before && !before.getAsyncToken() &&
        before.getAsyncDependencies().size() == 1) {
      incoming = before.getAsyncDependencies().front();
      rewriter.eraseOp(before);
    } else {
      incoming = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange())
                     .getAsyncToken();
    }
    auto threadedBranch = scf::IfOp::create(rewriter, loc, TypeRange{tokenType},
                                            branch.getCondition(),
                                            /*withElseRegion=*/true);
    auto moveChain = [&](Region &from, Region &to,
                         std::optional<BodyChain> chain) {
      to.takeBody(from);
      if (to.empty())
        to.push_back(new Block());
      Block &block = to.front();
      Value out = incoming;
      if (chain)
        out = continueChain(rewriter, *chain, incoming);
      if (!block.empty() && isa<scf::YieldOp>(block.back()))
        rewriter.eraseOp(&block.back());
      rewriter.setInsertionPointToEnd(&block);
      scf::YieldOp::create(rewriter, loc, out);
    };
    moveChain(branch.getThenRegion(), threadedBranch.getThenRegion(), thenChain);
    moveChain(branch.getElseRegion(), threadedBranch.getElseRegion(), elseChain);
    rewriter.eraseOp(branch);
    rewriter.setInsertionPointAfter(threadedBranch);
    gpu::WaitOp::create(rewriter, loc, Type(),
                        ValueRange{threadedBranch.getResult(0)});
    threaded.insert(threadedBranch);
  }

  void runOnOperation() override {
    SmallVector<Operation *> nests;
    // Post-order: inner loops and branches first.
    getOperation().walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::IfOp>(op))
        nests.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : nests) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        threadLoop(rewriter, loop);
      else
        threadBranch(rewriter, cast<scf::IfOp>(op));
    }
  }
};

/// Whether every value `arg` can hold is a result of mgpuStreamCreate, through
/// the branches into its block.
bool holdsStream(BlockArgument arg, DenseSet<Value> &visiting) {
  if (!visiting.insert(arg).second)
    return true; // A cycle adds no other value.
  Block *block = arg.getOwner();
  if (block->isEntryBlock())
    return false;
  for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
    auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!branch)
      return false;
    Value in = branch.getSuccessorOperands(it.getSuccessorIndex())
                   [arg.getArgNumber()];
    if (auto inArg = dyn_cast_or_null<BlockArgument>(in)) {
      if (!holdsStream(inArg, visiting))
        return false;
      continue;
    }
    auto call = in ? in.getDefiningOp<LLVM::CallOp>() : nullptr;
    if (!call || call.getCallee() != "mgpuStreamCreate")
      return false;
  }
  return true;
}

struct GpuCarriedStreams final
    : stencil::impl::StencilGpuCarriedStreamsBase<GpuCarriedStreams> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto declare = [&](StringRef name) {
      if (!module.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
        OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
        LLVM::LLVMFuncOp::create(
            b, module.getLoc(), name,
            LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                        {LLVM::LLVMPointerType::get(ctx)}));
      }
      return FlatSymbolRefAttr::get(ctx, name);
    };
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || call.getNumOperands() != 1 ||
          (*callee != "mgpuEventSynchronize" && *callee != "mgpuEventDestroy"))
        return;
      auto arg = dyn_cast<BlockArgument>(call.getOperand(0));
      DenseSet<Value> visiting;
      if (!arg || !holdsStream(arg, visiting))
        return;
      call.setCalleeAttr(declare(*callee == "mgpuEventSynchronize"
                                     ? "mgpuStreamSynchronize"
                                     : "mgpuStreamDestroy"));
    });
    for (StringRef name : {"mgpuEventSynchronize", "mgpuEventDestroy"})
      if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
          func && func.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
  }
};
} // namespace
