//===- Distribute.cpp - a stencil program decomposed over MPI ranks --------===//
//
// --stencil-distribute="grid=PxQ" turns every function over global fields
// into the program one rank of a P x Q process grid runs on its block:
//
// 1. The domain is the box every store of the function writes. Its leading
//    dimensions are cut into balanced blocks (the first N mod P ranks of a
//    dimension get one point more); every field keeps, around the rank's
//    block, a halo as wide as the widest field halo of that dimension.
// 2. Each distinct block shape gets a private copy of the function with
//    static local field types (`@f_dmp_<shape>`); the function itself becomes
//    a dispatcher over fields of unknown bounds and a communicator that calls
//    the copy of its rank's shape.
// 3. A `dmp.swap` goes before every load of a field the function writes. Its
//    exchanges follow from the loaded temp's bounds (shape inference): a
//    face per side that reads outside the block, an edge or corner where an
//    access reaches diagonally. Both partners of an exchange move boxes of
//    the same size, the wider of the two sides' halos.
// 4. With depth=h (DeepHalo.cpp), each time loop runs in blocks of h steps:
//    one exchange of a halo deep enough for the block, then h steps that
//    compute the block widened by what the rest of the block reads, which
//    neighbours compute too (redundantly). Messages drop by a factor of h.
// 5. With grid=auto, steps 1-4 run once per rank count of `ranks` on a
//    copy of the function, over the grid MPI_Dims_create gives that many
//    ranks; the function dispatches at run time on the grid MPI chooses.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Transforms/Passes.h"

#include "DeepHalo.h"
#include "Stencil/Dmp/Dmp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILDISTRIBUTE
#include "Stencil/Transforms/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

namespace {

/// The blocks of one dimension: `n` points over `ranks` ranks, the first
/// `remainder` ranks one point more than `base`.
struct BlockSplit {
  int64_t base, remainder;
};

/// The blocks of one dimension that need different code: their size,
/// with deep halos whether they lie at either end of the grid (no
/// neighbour there, so nothing computed beyond the block on that side),
/// and, for each store box narrower than the domain in that dimension, the
/// part of the block it covers (relative to the block's start; {0, 0} for
/// none).
struct BlockClass {
  int64_t size;
  bool low, high;
  SmallVector<std::pair<int64_t, int64_t>> clips;
  bool operator==(const BlockClass &o) const {
    return size == o.size && low == o.low && high == o.high && clips == o.clips;
  }
};

/// The classes of the `ranks` blocks of a dimension, in coordinate order of
/// first appearance, and the class of each coordinate. `narrower`: the
/// intervals of the store boxes narrower than the domain there, relative to
/// the domain's start.
std::pair<SmallVector<BlockClass>, SmallVector<unsigned>>
blockClasses(const BlockSplit &split, int64_t ranks, bool edges,
             ArrayRef<std::pair<int64_t, int64_t>> narrower) {
  SmallVector<BlockClass> classes;
  SmallVector<unsigned> classOf;
  for (int64_t c = 0; c < ranks; ++c) {
    BlockClass cls{split.base + (c < split.remainder),
                   edges && c == 0,
                   edges && c == ranks - 1,
                   {}};
    int64_t start = c * split.base + std::min(c, split.remainder);
    for (auto [lo, hi] : narrower) {
      int64_t from = std::max(lo, start) - start;
      int64_t to = std::min(hi, start + cls.size) - start;
      cls.clips.push_back(from < to ? std::make_pair(from, to)
                                    : std::make_pair(int64_t(0), int64_t(0)));
    }
    auto *it = llvm::find(classes, cls);
    classOf.push_back(it - classes.begin());
    if (it == classes.end())
      classes.push_back(cls);
  }
  return {classes, classOf};
}

/// The grid MPI_Dims_create gives `ranks` ranks over `dims` dimensions:
/// prime factors, largest first, each to the dimension with the fewest
/// ranks so far, then sorted largest first.
SmallVector<int64_t> balancedGrid(int64_t ranks, unsigned dims) {
  SmallVector<int64_t> factors;
  for (int64_t f = 2; f * f <= ranks; ++f)
    for (; ranks % f == 0; ranks /= f)
      factors.push_back(f);
  if (ranks > 1)
    factors.push_back(ranks);
  SmallVector<int64_t> grid(dims, 1);
  for (int64_t f : llvm::reverse(factors))
    *llvm::min_element(grid) *= f;
  llvm::sort(grid, std::greater<int64_t>());
  return grid;
}

/// A grid as the stencil_mpi_grid_code runtime call encodes it: 20 bits per
/// dimension, first dimension lowest, missing dimensions 1.
int64_t gridCode(ArrayRef<int64_t> grid, unsigned dims) {
  int64_t code = 0;
  for (unsigned d = 0; d < dims; ++d)
    code |= (d < grid.size() ? grid[d] : 1) << (20 * d);
  return code;
}

std::string gridText(ArrayRef<int64_t> grid) {
  std::string text;
  for (auto [d, n] : llvm::enumerate(grid))
    text += (d ? "x" : "") + std::to_string(n);
  return text;
}

/// The function's domain: the smallest box holding every store's bounds
/// (`boxes`: the distinct bounds of the stores).
FailureOr<BoundsAttr>
storeDomain(func::FuncOp func, SmallVectorImpl<BoundsAttr> *boxes = nullptr) {
  StoreOp first;
  SmallVector<int64_t> lb, ub;
  WalkResult walk = func.walk([&](Operation *op) {
    if (auto apply = dyn_cast<ApplyOp>(op); apply && !apply.getDest().empty()) {
      apply.emitOpError("writes fields directly (`outs`), which "
                        "--stencil-distribute does not support yet");
      return WalkResult::interrupt();
    }
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      return WalkResult::advance();
    BoundsAttr bounds = store.getBounds();
    if (boxes && !llvm::is_contained(*boxes, bounds))
      boxes->push_back(bounds);
    if (!first) {
      first = store;
      lb.assign(bounds.getLb().begin(), bounds.getLb().end());
      ub.assign(bounds.getUb().begin(), bounds.getUb().end());
      return WalkResult::advance();
    }
    if (bounds.getRank() != lb.size()) {
      store.emitOpError("writes a box of another rank than an earlier store")
              .attachNote(first.getLoc())
          << "the earlier store";
      return WalkResult::interrupt();
    }
    for (unsigned d = 0; d < lb.size(); ++d) {
      lb[d] = std::min(lb[d], bounds.getLb()[d]);
      ub[d] = std::max(ub[d], bounds.getUb()[d]);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!first)
    return func.emitOpError("stores nothing: there is nothing to distribute");
  return BoundsAttr::get(func.getContext(), lb, ub);
}

/// Whether `func` reads the grid position of a decomposed dimension.
bool readsPosition(func::FuncOp func, unsigned gridRank) {
  WalkResult walk = func.walk([&](IndexOp op) {
    return op.getDimValue() < gridRank ? WalkResult::interrupt()
                                       : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Makes the positions `stencil.index` reads along decomposed dimensions
/// global in the per-rank copy `copy`: it takes where its rank's block
/// starts (relative to the domain's start) per decomposed dimension as
/// trailing index arguments, and every apply that reads a position takes
/// the start and adds it.
void makePositionsGlobal(func::FuncOp copy, unsigned gridRank) {
  Location loc = copy.getLoc();
  Type index = IndexType::get(copy.getContext());
  SmallVector<Value> starts;
  for (unsigned d = 0; d < gridRank; ++d) {
    (void)copy.insertArgument(copy.getNumArguments(), index, {}, loc);
    starts.push_back(copy.getArguments().back());
  }
  copy.walk([&](ApplyOp apply) {
    SmallVector<IndexOp> reads;
    apply.getBody()->walk([&](IndexOp op) {
      if (op.getDimValue() < gridRank)
        reads.push_back(op);
    });
    DenseMap<int64_t, Value> start;
    for (IndexOp read : reads) {
      int64_t d = read.getDimValue();
      if (!start.count(d)) {
        apply.getArgsMutable().append(starts[d]);
        start[d] = apply.getBody()->addArgument(index, loc);
      }
      OpBuilder b(read->getBlock(), std::next(Block::iterator(read)));
      auto global = arith::AddIOp::create(b, read.getLoc(), read, start[d]);
      read.getResult().replaceAllUsesExcept(global, global);
    }
  });
}

/// Whether `t` is a field of lower rank than the domain's.
bool isLowerRankField(Type t, unsigned domainRank) {
  auto field = dyn_cast<FieldType>(t);
  return field && field.getRank() < domainRank;
}

/// Per lower-rank field (a coefficient profile, keyed by its root: the
/// value its casts start from), the domain dimension each of its dimensions
/// is read along (-1: never read), from the accesses to the temps loaded
/// from it. Fails (located error) on a reader other than stencil.access and
/// on a field dimension read along two domain dimensions.
FailureOr<DenseMap<Value, SmallVector<int64_t>>>
lowerRankDims(func::FuncOp func, unsigned domainRank) {
  DenseMap<Value, SmallVector<int64_t>> dims;
  WalkResult walk = func.walk([&](LoadOp load) -> WalkResult {
    auto field = cast<FieldType>(load.getField().getType());
    if (!isLowerRankField(field, domainRank))
      return WalkResult::advance();
    SmallVector<int64_t> &along =
        dims.try_emplace(fieldRoot(load.getField()),
                         SmallVector<int64_t>(field.getRank(), -1))
            .first->second;
    for (OpOperand &use : load.getRes().getUses()) {
      auto apply = dyn_cast<ApplyOp>(use.getOwner());
      if (!apply)
        continue;
      for (Operation *reader :
           apply.getBodyArg(use.getOperandNumber()).getUsers()) {
        auto access = dyn_cast<AccessOp>(reader);
        if (!access)
          return reader->emitOpError(
              "reads a lower-rank field other than by stencil.access, "
              "which --stencil-distribute does not support");
        SmallVector<int64_t> operandDims =
            access.getOperandDims(apply.getRank());
        for (auto [d, j] : llvm::enumerate(operandDims)) {
          if (j < 0)
            continue;
          if (along[j] >= 0 && along[j] != (int64_t)d)
            return access.emitOpError("reads dimension ")
                   << j << " of a lower-rank field along dimension " << d
                   << ", and another access along dimension " << along[j]
                   << ": --stencil-distribute needs one dimension of the "
                      "domain per dimension of the field";
          along[j] = d;
        }
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return dims;
}

/// Gives every lower-rank field value of `copy` with bounds the bounds
/// `retype(d, lb, ub)` returns along each of its dimensions read along a
/// decomposed dimension d (`gridRank` of them): what the rank holds of a
/// coefficient profile, as for the full-rank fields.
void retypeLowerRank(
    func::FuncOp copy, unsigned domainRank, unsigned gridRank,
    function_ref<std::pair<int64_t, int64_t>(unsigned, int64_t, int64_t)>
        retype) {
  FailureOr<DenseMap<Value, SmallVector<int64_t>>> dims =
      lowerRankDims(copy, domainRank); // (checked on the original)
  auto visit = [&](Value v) {
    auto field = dyn_cast<FieldType>(v.getType());
    if (!field || !field.hasBounds() || !isLowerRankField(field, domainRank))
      return;
    auto it = dims->find(fieldRoot(v));
    if (it == dims->end())
      return;
    SmallVector<int64_t> lb(field.getLb()), ub(field.getUb());
    for (auto [j, d] : llvm::enumerate(it->second))
      if (d >= 0 && d < (int64_t)gridRank)
        std::tie(lb[j], ub[j]) = retype(d, lb[j], ub[j]);
    v.setType(field.withBounds(lb, ub));
  };
  copy.walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      visit(arg);
  });
  copy.walk([&](Operation *op) {
    for (Value v : op->getResults())
      visit(v);
  });
  copy.setFunctionType(FunctionType::get(
      copy.getContext(), copy.getBody().getArgumentTypes(), {}));
}

/// Ops whose meaning depends on where the block lies in the global grid.
LogicalResult checkSupported(func::FuncOp func, BoundsAttr domain,
                             unsigned gridRank) {
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (auto combine = dyn_cast<CombineOp>(op);
        combine && combine.getDim().getZExtValue() < gridRank)
      return op->emitOpError("splits a decomposed dimension at a global "
                             "index, which --stencil-distribute does not "
                             "support yet");
    if (isa<ExternalLoadOp, ExternalStoreOp>(op))
      return op->emitOpError("copies between a field and global memory, "
                             "which --stencil-distribute does not support");
    if (auto call = dyn_cast<CallOpInterface>(op))
      if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<FieldType>))
        return op->emitOpError("passes a field to another function, which "
                               "--stencil-distribute does not support");
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (func.getNumResults())
    return func.emitOpError("returns values: --stencil-distribute needs a "
                            "function that updates its fields in place");
  return success();
}

/// The fields a function may write: roots of stores and of the buffers of
/// time loops that rotate a written field, and fields that leave the
/// stencil dialect (a frontend's cast to a memref may write them).
DenseSet<Value> writtenFields(func::FuncOp func) {
  DenseSet<Value> written;
  std::function<void(Value)> mark = [&](Value field) {
    field = fieldRoot(field);
    if (!written.insert(field).second)
      return;
    auto arg = dyn_cast<BlockArgument>(field);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : scf::ForOp();
    if (!loop)
      return;
    // The buffers of a time loop rotate: any of them may be written.
    for (auto [init, iterArg] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
      if (isa<FieldType>(iterArg.getType())) {
        mark(init);
        mark(iterArg);
      }
  };
  func.walk([&](Operation *op) {
    if (auto store = dyn_cast<StoreOp>(op))
      mark(store.getField());
    else if (!isa_and_nonnull<StencilDialect>(op->getDialect()) &&
             !isa<scf::ForOp, scf::YieldOp>(op))
      for (Value operand : op->getOperands())
        if (isa<FieldType>(operand.getType()))
          mark(operand);
  });
  return written;
}

/// Whether a load reads values this rank may not have: a field written in
/// the function, or one that is not simply an argument.
bool needsExchange(LoadOp load, const DenseSet<Value> &written,
                   func::FuncOp func) {
  Value root = fieldRoot(load.getField());
  auto arg = dyn_cast<BlockArgument>(root);
  bool isArgument = arg && arg.getOwner() == &func.getBody().front();
  return !isArgument || written.contains(root);
}

/// Whether some access to the loaded temp reaches diagonally into the
/// neighbour at grid offset `dir` (a sign per decomposed dimension).
bool readsTowards(LoadOp load, ArrayRef<int64_t> dir) {
  for (OpOperand &use : load.getRes().getUses()) {
    if (isa<StoreOp>(use.getOwner()))
      continue; // a copy of the loaded values reads no neighbour
    auto apply = dyn_cast<ApplyOp>(use.getOwner());
    if (!apply)
      return true; // through a buffer or combine: assume every direction
    // Chained applies compose offsets: assume every direction.
    for (Value res : apply.getRes())
      for (Operation *user : res.getUsers())
        if (isa<ApplyOp>(user))
          return true;
    BlockArgument arg = apply.getBodyArg(use.getOperandNumber());
    bool reaches = false;
    apply.getBody()->walk([&](Operation *op) {
      if (isa<DynAccessOp>(op) && op->getOperand(0) == arg)
        reaches = true;
      auto access = dyn_cast<AccessOp>(op);
      if (!access || access.getTemp() != arg)
        return;
      SmallVector<int64_t> offset = access.getApplyOffset(apply.getRank());
      bool all = true;
      for (auto [d, sign] : llvm::enumerate(dir))
        if (sign && (offset[d] == 0 || (offset[d] > 0) != (sign > 0)))
          all = false;
      reaches |= all;
    });
    if (reaches)
      return true;
  }
  return false;
}

/// Moves every swap up past the loads, other swaps and pure ops before it
/// (never past a store, which may write the field it sends, nor its
/// field's definition), so that the swaps of a step stand together and
/// exchange in one round (one wait for all their messages).
void hoistSwaps(ModuleOp module) {
  SmallVector<dmp::SwapOp> swaps;
  module.walk([&](dmp::SwapOp swap) { swaps.push_back(swap); });
  for (dmp::SwapOp swap : swaps) {
    Value root = fieldRoot(swap.getField());
    Operation *above = swap->getPrevNode();
    while (above && above != swap.getField().getDefiningOp()) {
      bool movable = isa<LoadOp, dmp::SwapOp>(above) || isPure(above);
      if (!movable || (isa<dmp::SwapOp>(above) &&
                       fieldRoot(cast<dmp::SwapOp>(above).getField()) == root))
        break;
      above = above->getPrevNode();
    }
    if (above)
      swap->moveAfter(above);
    else
      swap->moveBefore(&swap->getBlock()->front());
  }
}

struct StencilDistributePass
    : stencil::impl::StencilDistributeBase<StencilDistributePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult parseOptions();
  LogicalResult distribute(func::FuncOp func);
  LogicalResult distributeAuto(func::FuncOp func);
  LogicalResult dispatchAuto();
  /// A swap whose exchanges are known once the loaded temp has bounds: its
  /// load, the block of its variant and the smallest block of any rank (no
  /// exchange may be wider).
  struct PendingSwap {
    dmp::SwapOp swap;
    LoadOp load;
    SmallVector<int64_t> coreLb, coreUb, minBlock;
    /// A deep swap: the box its block reads (else the load's temp bounds),
    /// with every edge and corner (steps compose diagonal reach), and its
    /// number, the same in every copy of the function: partners must move
    /// the same boxes, but ranks at the ends of the grid read less.
    SmallVector<int64_t> boxLb, boxUb;
    int64_t slot = -1;
    /// With grid=auto: the index of its grid in `autoGrids`.
    int64_t autoGrid = -1;
    /// A swap of every step: its load's number, the same in every copy, and
    /// the box the swaps of that number read in any copy. Partners must
    /// move the same boxes; with stores narrower than the domain the
    /// copies at the ends of the grid read less (a store's part of the
    /// first block can start inside it).
    int64_t shallowSlot = -1;
    SmallVector<int64_t> readLb, readUb;
  };
  /// Loads get numbers for their swaps from here on.
  int64_t nextShallowSlot = 0;
  /// grid=auto: one decomposition of a function, its dispatcher
  /// `@f_g<grid>` and copies, and why it was dropped (blocks too small).
  struct AutoGrid {
    func::FuncOp func, dispatcher;
    SmallVector<int64_t> grid;
    SmallVector<func::FuncOp> copies;
    std::string dropped;
  };
  SmallVector<AutoGrid> autoGrids;
  /// The grid `distribute` works on: its index in `autoGrids` (-1: a
  /// fixed grid).
  int64_t currentAutoGrid() const {
    return autoTopology ? static_cast<int64_t>(autoGrids.size()) - 1 : -1;
  }
  /// The copies the last `distribute` made.
  SmallVector<func::FuncOp> lastCopies;
  /// Deep swaps get numbers from here on.
  int64_t nextSlot = 0;
  LogicalResult computeExchanges(const PendingSwap &p);

  SmallVector<int64_t> topology;
  bool autoTopology = false;
  SmallVector<int64_t> rankCounts;
  std::vector<PendingSwap> pending;
  /// Blocks of steps to roll into loops once their exchanges are known.
  SmallVector<BlockedLoop> toRoll;
};

LogicalResult StencilDistributePass::parseOptions() {
  topology.clear();
  rankCounts.clear();
  StringRef rest = grid;
  if (rest.empty())
    return emitError(UnknownLoc::get(&getContext()))
           << "--stencil-distribute needs grid=PxQ (ranks per dimension) "
              "or grid=auto";
  autoTopology = rest.trim() == "auto";
  if (!ranks.empty() && !autoTopology)
    return emitError(UnknownLoc::get(&getContext()))
           << "--stencil-distribute: ranks= needs grid=auto (grid=" << grid
           << " fixes the rank count)";
  for (int64_t n : ranks) {
    if (n < 1)
      return emitError(UnknownLoc::get(&getContext()))
             << "--stencil-distribute: ranks=" << n
             << " is not a positive rank count";
    if (!llvm::is_contained(rankCounts, n))
      rankCounts.push_back(n);
  }
  if (autoTopology && rankCounts.empty())
    rankCounts = llvm::to_vector(llvm::seq<int64_t>(1, 9));
  while (!autoTopology && !rest.empty()) {
    auto [head, tail] = rest.split(rest.contains('x') ? 'x' : ',');
    int64_t n;
    if (head.trim().getAsInteger(10, n) || n < 1)
      return emitError(UnknownLoc::get(&getContext()))
             << "--stencil-distribute: grid=" << grid
             << " is not a list of positive rank counts such as 2x2";
    topology.push_back(n);
    rest = tail;
  }
  if (topology.size() > 3)
    return emitError(UnknownLoc::get(&getContext()))
           << "--stencil-distribute: grid=" << grid
           << " has more than 3 dimensions";
  if (depth < 1)
    return emitError(UnknownLoc::get(&getContext()))
           << "--stencil-distribute: depth=" << static_cast<int64_t>(depth)
           << " is not a number of steps (1: exchange every step)";
  return success();
}

LogicalResult StencilDistributePass::distribute(func::FuncOp func) {
  SmallVector<BoundsAttr> storeBoxes;
  FailureOr<BoundsAttr> domainOr = storeDomain(func, &storeBoxes);
  if (failed(domainOr))
    return failure();
  BoundsAttr domain = *domainOr;
  // Stores of boxes narrower than the domain write, on each rank, their
  // box's part of its block.
  SmallVector<BoundsAttr> narrower = llvm::to_vector(llvm::make_filter_range(
      storeBoxes, [&](BoundsAttr b) { return b != domain; }));
  auto storeWriting = [&](BoundsAttr box) {
    StoreOp store;
    func.walk([&](StoreOp op) {
      if (!store && op.getBounds() == box)
        store = op;
    });
    return store;
  };
  if (!narrower.empty() && depth > 1)
    return storeWriting(narrower.front())
        .emitOpError(
            "writes a box narrower than the function's other stores: deep "
            "halos "
            "(depth > 1) need every store of a function to write the same box");
  unsigned k = topology.size();
  if (k > domain.getRank())
    return func.emitOpError("is over a ")
           << domain.getRank()
           << "-dimensional domain: grid=" << gridText(topology)
           << " decomposes " << k << " dimensions";
  if (failed(checkSupported(func, domain, k)))
    return failure();

  // Halo widths (the widest field side per decomposed dimension) and
  // blocks.
  SmallVector<int64_t> halo(k, 0);
  auto widen = [&](Type t) {
    auto field = dyn_cast<FieldType>(t);
    if (!field || !field.hasBounds() ||
        isLowerRankField(field, domain.getRank()))
      return;
    for (unsigned d = 0; d < k; ++d)
      halo[d] = std::max({halo[d], domain.getLb()[d] - field.getLb()[d],
                          field.getUb()[d] - domain.getUb()[d]});
  };
  for (Type t : func.getArgumentTypes())
    widen(t);
  func.walk([&](CastOp cast) { widen(cast.getType()); });
  // A lower-rank field's halo counts along the dimensions it is read along.
  FailureOr<DenseMap<Value, SmallVector<int64_t>>> lowerDimsOr =
      lowerRankDims(func, domain.getRank());
  if (failed(lowerDimsOr))
    return failure();
  DenseMap<Value, SmallVector<int64_t>> &lowerDims = *lowerDimsOr;
  auto widenLowerRank = [&](Value v) {
    auto field = dyn_cast<FieldType>(v.getType());
    if (!field || !field.hasBounds() ||
        !isLowerRankField(field, domain.getRank()))
      return;
    for (auto [j, d] : llvm::enumerate(lowerDims.lookup(fieldRoot(v))))
      if (d >= 0 && d < (int64_t)k)
        halo[d] = std::max({halo[d], domain.getLb()[d] - field.getLb()[j],
                            field.getUb()[j] - domain.getUb()[d]});
  };
  for (Value arg : func.getArguments())
    widenLowerRank(arg);
  func.walk([&](CastOp cast) { widenLowerRank(cast.getResult()); });
  SmallVector<BlockSplit> splits;
  for (unsigned d = 0; d < k; ++d) {
    int64_t n = domain.getUb()[d] - domain.getLb()[d];
    if (topology[d] > n)
      return func.emitOpError("cannot give ")
             << topology[d] << " ranks a block each of the " << n
             << " points of dimension " << d;
    splits.push_back({n / topology[d], n % topology[d]});
  }
  SmallVector<int64_t> minBlock;
  for (const BlockSplit &s : splits)
    minBlock.push_back(s.base);

  MLIRContext *ctx = &getContext();
  // Deep halos: local fields first as wide as `depth` steps of every store
  // of a step could read, narrowed to what the blocks read once known.
  int64_t storesPerStep = 1;
  func.walk([&](scf::ForOp loop) {
    int64_t n = 0;
    loop.getBody()->walk([&](StoreOp) { ++n; });
    storesPerStep = std::max(storesPerStep, n);
  });
  SmallVector<int64_t> localHalo(halo);
  if (depth > 1)
    for (int64_t &h : localHalo)
      h *= depth * storesPerStep;
  auto localBounds = [&](ArrayRef<int64_t> sizes, ArrayRef<int64_t> lb,
                         ArrayRef<int64_t> ub) {
    SmallVector<int64_t> l(lb), u(ub);
    for (unsigned d = 0; d < k; ++d) {
      l[d] = domain.getLb()[d] - localHalo[d];
      u[d] = domain.getLb()[d] + sizes[d] + localHalo[d];
    }
    return std::make_pair(l, u);
  };

  bool position = readsPosition(func, k);

  // The variants: every combination of the block classes of the
  // dimensions, numbered with the first dimension's class slowest.
  std::vector<SmallVector<BlockClass>> classes;
  std::vector<SmallVector<unsigned>> classOf;
  // Whether a dimension's classes differ in what narrower stores cover.
  SmallVector<bool> clipped;
  for (unsigned d = 0; d < k; ++d) {
    SmallVector<std::pair<int64_t, int64_t>> intervals;
    for (BoundsAttr b : narrower)
      intervals.push_back(
          {b.getLb()[d] - domain.getLb()[d], b.getUb()[d] - domain.getLb()[d]});
    auto [dimClasses, dimClassOf] =
        blockClasses(splits[d], topology[d], depth > 1, intervals);
    // Every rank writes part of every store (a rank without it would skip
    // exchanges its neighbours post).
    for (const BlockClass &cls : dimClasses)
      for (auto [j, clip] : llvm::enumerate(cls.clips))
        if (clip.first == clip.second) {
          std::string box = "[" + std::to_string(narrower[j].getLb()[d]) +
                            ", " + std::to_string(narrower[j].getUb()[d]) +
                            ") in dimension " + std::to_string(d);
          if (currentAutoGrid() >= 0) {
            autoGrids.back().dropped =
                "a store of " + box + " misses the blocks of some ranks";
            lastCopies.clear();
            return success();
          }
          return storeWriting(narrower[j]).emitOpError("writes ")
                 << box << ", which misses the blocks of some ranks of grid="
                 << gridText(topology)
                 << ": every rank's block must meet every store's box (use "
                    "fewer ranks)";
        }
    clipped.push_back(llvm::any_of(dimClasses, [&](const BlockClass &c) {
      return c.clips != dimClasses.front().clips;
    }));
    classes.push_back(std::move(dimClasses));
    classOf.push_back(std::move(dimClassOf));
  }
  std::vector<SmallVector<BlockClass, 3>> variants{{}};
  for (const auto &dimClasses : classes) {
    std::vector<SmallVector<BlockClass, 3>> next;
    for (const auto &prefix : variants)
      for (const BlockClass &cls : dimClasses) {
        next.push_back(prefix);
        next.back().push_back(cls);
      }
    variants = std::move(next);
  }

  auto module = func->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  OpBuilder moduleBuilder(func);
  auto topo = dmp::TopoAttr::get(ctx, topology);
  Attribute strategy = dmp::getGridSliceStrategy(topo, false);
  SmallVector<func::FuncOp> &copies = lastCopies;
  copies.clear();
  auto fail = [&]() {
    for (func::FuncOp c : copies)
      c.erase();
    return failure();
  };
  // What the deep blocks read beyond the core, per decomposed dimension.
  SmallVector<int64_t> deepReach(k, 0);
  int64_t slots = nextSlot;
  for (const auto &variant : variants) {
    auto copy = cast<func::FuncOp>(moduleBuilder.clone(*func));
    copies.push_back(copy);
    SmallVector<int64_t> sizes = llvm::map_to_vector(
        variant, [](const BlockClass &c) { return c.size; });
    std::string name = (func.getSymName() + "_dmp").str();
    for (auto [d, cls] : llvm::enumerate(variant)) {
      name += (d ? "x" : "_") + std::to_string(cls.size) +
              (cls.low ? "l" : "") + (cls.high ? "h" : "");
      if (clipped[d]) // classes of one size that narrower stores tell apart
        name += "c" + std::to_string(llvm::find(classes[d], cls) -
                                     classes[d].begin());
    }
    copy.setSymName(name);
    copy.setPrivate();
    copy->removeAttr("llvm.emit_c_interface");
    symbols.insert(copy);

    SmallVector<int64_t> coreLb(domain.getLb()), coreUb(domain.getUb());
    for (unsigned d = 0; d < k; ++d)
      coreUb[d] = domain.getLb()[d] + sizes[d];
    auto localDomain = BoundsAttr::get(ctx, coreLb, coreUb);
    // A narrower store writes its box's part of the block.
    DenseMap<Attribute, BoundsAttr> localBoxes;
    for (auto [j, box] : llvm::enumerate(narrower)) {
      SmallVector<int64_t> l(box.getLb()), u(box.getUb());
      for (unsigned d = 0; d < k; ++d) {
        l[d] = domain.getLb()[d] + variant[d].clips[j].first;
        u[d] = domain.getLb()[d] + variant[d].clips[j].second;
      }
      localBoxes[box] = BoundsAttr::get(ctx, l, u);
    }
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](FieldType t) -> std::optional<Type> {
      // (Lower-rank fields: retypeLowerRank, by the dimensions they lie
      // along.)
      if (!t.hasBounds() || isLowerRankField(t, domain.getRank()))
        return std::nullopt;
      auto [l, u] = localBounds(sizes, t.getLb(), t.getUb());
      return t.withBounds(l, u);
    });
    replacer.addReplacement([&](TempType t) -> std::optional<Type> {
      return TempType::get(t.getRank(), t.getElementType());
    });
    replacer.addReplacement([&](BoundsAttr b) -> std::optional<Attribute> {
      if (b == domain)
        return localDomain;
      if (BoundsAttr local = localBoxes.lookup(b))
        return local;
      return std::nullopt;
    });
    replacer.recursivelyReplaceElementsIn(copy, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    retypeLowerRank(
        copy, domain.getRank(), k, [&](unsigned d, int64_t, int64_t) {
          return std::make_pair(domain.getLb()[d] - localHalo[d],
                                domain.getLb()[d] + sizes[d] + localHalo[d]);
        });
    // Apply bounds other than the domain's would read or write elsewhere.
    WalkResult bad = copy.walk([&](ApplyOp apply) {
      if (apply.getBoundsAttr() && apply.getBoundsAttr() != localDomain) {
        func.emitOpError("has an apply with bounds other than its stores', "
                         "which --stencil-distribute does not support");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return fail();
    if (position)
      makePositionsGlobal(copy, k);

    SmallVector<BlockedLoop> blocked;
    SmallVector<scf::ForOp> blocks;
    if (depth > 1) {
      FailureOr<SmallVector<BlockedLoop>> loops = blockTimeLoops(copy, depth);
      if (failed(loops))
        return fail();
      blocked = std::move(*loops);
      blocks = llvm::map_to_vector(blocked,
                                   [](const BlockedLoop &l) { return l.loop; });
      // A block computes beyond its core only towards neighbours.
      SmallVector<int64_t> allowedLb(coreLb), allowedUb(coreUb);
      for (unsigned d = 0; d < k; ++d) {
        if (!variant[d].low)
          allowedLb[d] -= localHalo[d];
        if (!variant[d].high)
          allowedUb[d] += localHalo[d];
      }
      for (scf::ForOp block : blocks)
        if (failed(widenBlockStores(block, coreLb, coreUb, allowedLb,
                                    allowedUb)))
          return fail();
    }

    DenseSet<Value> written = writtenFields(copy);
    auto reach = [&](ArrayRef<int64_t> lb, ArrayRef<int64_t> ub) {
      for (unsigned d = 0; d < k; ++d)
        deepReach[d] = std::max({deepReach[d], coreLb[d] - lb[d],
                                 ub[d] - coreUb[d]});
    };
    int64_t slot = nextSlot; // the same numbers in every copy
    for (scf::ForOp block : blocks) {
      block.getBody()->walk(
          [&](StoreOp store) { reach(store.getBounds().getLb(),
                                     store.getBounds().getUb()); });
      SmallVector<BlockInput> inputs = blockInputs(block);
      for (BlockInput &in : inputs) {
        if (!written.contains(in.root))
          continue;
        OpBuilder b(in.firstLoad);
        Value field = in.firstLoad.getField();
        auto swap = dmp::SwapOp::create(b, in.firstLoad.getLoc(), Type(),
                                        field, strategy, b.getArrayAttr({}));
        pending.push_back({swap, in.firstLoad, coreLb, coreUb, minBlock, in.lb,
                           in.ub, slot++, currentAutoGrid()});
        slots = std::max(slots, slot);
      }
    }
    // What every load reads (after the blocks' shape inference): a block
    // reads fields loaded before its loop (coefficients) on its widened
    // boxes too. A lower-rank field counts along the dimensions it is read
    // along.
    if (!blocks.empty()) {
      DenseMap<Value, SmallVector<int64_t>> dims =
          *lowerRankDims(copy, domain.getRank());
      copy.walk([&](LoadOp load) {
        auto temp = cast<TempType>(load.getRes().getType());
        if (!temp.hasBounds())
          return;
        if (temp.getRank() == domain.getRank())
          return reach(temp.getLb(), temp.getUb());
        for (auto [j, d] :
             llvm::enumerate(dims.lookup(fieldRoot(load.getField()))))
          if (d >= 0 && d < (int64_t)k)
            deepReach[d] = std::max({deepReach[d], coreLb[d] - temp.getLb()[j],
                                     temp.getUb()[j] - coreUb[d]});
      });
    }
    if (blockLoops)
      llvm::append_range(toRoll, blocked);
    int64_t loadNumber = nextShallowSlot;
    copy.walk([&](LoadOp load) {
      int64_t number = loadNumber++;
      if (llvm::any_of(blocks, [&](scf::ForOp block) {
            return block->isAncestor(load);
          }))
        return;
      if (!needsExchange(load, written, copy))
        return;
      OpBuilder b(load);
      auto swap = dmp::SwapOp::create(b, load.getLoc(), Type(),
                                      load.getField(), strategy,
                                      b.getArrayAttr({}));
      PendingSwap p{swap, load, coreLb, coreUb, minBlock};
      p.autoGrid = currentAutoGrid();
      p.shallowSlot = number;
      pending.push_back(std::move(p));
    });
  }

  // Deep halos: the local fields as wide as the blocks read (and at least
  // the global fields' halos, which the edge ranks hold).
  nextSlot = slots;
  func.walk([&](LoadOp) { ++nextShallowSlot; });
  if (depth > 1) {
    SmallVector<int64_t> shrink(k);
    for (unsigned d = 0; d < k; ++d) {
      int64_t wanted = std::max(halo[d], deepReach[d]);
      shrink[d] = localHalo[d] - wanted;
      localHalo[d] = wanted;
    }
    AttrTypeReplacer narrower;
    narrower.addReplacement([&](FieldType t) -> std::optional<Type> {
      if (!t.hasBounds() || isLowerRankField(t, domain.getRank()))
        return std::nullopt;
      SmallVector<int64_t> l(t.getLb()), u(t.getUb());
      for (unsigned d = 0; d < k; ++d) {
        l[d] += shrink[d];
        u[d] -= shrink[d];
      }
      return t.withBounds(l, u);
    });
    narrower.addReplacement([&](TempType t) -> std::optional<Type> {
      return TempType::get(t.getRank(), t.getElementType());
    });
    for (func::FuncOp copy : copies) {
      narrower.recursivelyReplaceElementsIn(copy, /*replaceAttrs=*/true,
                                            /*replaceLocs=*/false,
                                            /*replaceTypes=*/true);
      retypeLowerRank(copy, domain.getRank(), k,
                      [&](unsigned d, int64_t lb, int64_t ub) {
                        return std::make_pair(lb + shrink[d], ub - shrink[d]);
                      });
    }
  }

  // The dispatcher: fields of unknown bounds and a communicator.
  OpBuilder b(ctx);
  Location loc = func.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    auto field = dyn_cast<FieldType>(t);
    argTypes.push_back(field ? FieldType::get(field.getRank(),
                                              field.getElementType())
                             : t);
  }
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  argTypes.push_back(ptrType);
  // The global layout, in builtin attributes (they stay on the function
  // down to LLVM): per argument `array<lb..., ub...>` of a field, `unit`
  // for anything else.
  // A field argument of unknown bounds has the bounds of the function's
  // fields when they all have the same.
  FieldType common;
  bool several = false;
  auto note = [&](Type t) {
    auto field = dyn_cast<FieldType>(t);
    if (!field || !field.hasBounds() ||
        isLowerRankField(field, domain.getRank()))
      return;
    several |= common && (common.getLb() != field.getLb() ||
                          common.getUb() != field.getUb());
    common = common ? common : field;
  };
  for (Type t : func.getArgumentTypes())
    note(t);
  func.walk([&](CastOp cast) { note(cast.getType()); });
  SmallVector<Attribute> globalFields;
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    auto field = dyn_cast<FieldType>(t);
    if (!field) {
      globalFields.push_back(UnitAttr::get(ctx));
      continue;
    }
    if (!field.hasBounds() && isLowerRankField(field, domain.getRank())) {
      // A lower-rank field has the bounds of its casts.
      for (Operation *user : func.getArgument(i).getUsers())
        if (auto cast = dyn_cast<CastOp>(user))
          field = cast.getType();
      if (!field.hasBounds()) {
        for (func::FuncOp c : copies)
          c.erase();
        return func.emitOpError("argument ")
               << i << " is a lower-rank field of unknown bounds that is "
               << "never cast to bounds: --stencil-distribute cannot tell "
               << "its global size";
      }
    }
    if (!field.hasBounds()) {
      if (!common || several) {
        for (func::FuncOp c : copies)
          c.erase();
        return func.emitOpError("argument ")
               << i << " is a field of unknown bounds and the function's "
               << "fields have " << (several ? "several" : "no")
               << " bounds: --stencil-distribute cannot tell its global size";
      }
      field = common;
    }
    SmallVector<int64_t> box(field.getLb());
    llvm::append_range(box, field.getUb());
    globalFields.push_back(b.getDenseI64ArrayAttr(box));
  }
  SmallVector<Attribute> fieldDims;
  for (BlockArgument arg : func.getArguments()) {
    auto field = dyn_cast<FieldType>(arg.getType());
    if (!field || !isLowerRankField(field, domain.getRank())) {
      fieldDims.push_back(UnitAttr::get(ctx));
      continue;
    }
    SmallVector<int64_t> along = lowerDims.lookup(arg);
    along.resize(field.getRank(), -1);
    fieldDims.push_back(b.getDenseI64ArrayAttr(along));
  }
  func.getBody().dropAllReferences();
  func.getBody().getBlocks().clear();
  func.setType(FunctionType::get(ctx, argTypes, {}));
  Block *entry = b.createBlock(&func.getBody());
  for (Type t : argTypes)
    entry->addArgument(t, loc);
  if (ArrayAttr argAttrs = func.getAllArgAttrs()) {
    SmallVector<Attribute> attrs(argAttrs.begin(), argAttrs.end());
    attrs.push_back(DictionaryAttr::get(ctx));
    func.setAllArgAttrs(attrs);
  }
  func->setAttr("dmp.grid", b.getDenseI64ArrayAttr(topology));
  func->setAttr("dmp.core_lb", b.getDenseI64ArrayAttr(domain.getLb()));
  func->setAttr("dmp.core_ub", b.getDenseI64ArrayAttr(domain.getUb()));
  func->setAttr("dmp.halo", b.getDenseI64ArrayAttr(localHalo));
  func->setAttr("dmp.fields", b.getArrayAttr(globalFields));
  // Per argument, for lower-rank fields: the domain dimension each of its
  // dimensions is read along (-1: not read).
  if (llvm::any_of(fieldDims, llvm::IsaPred<DenseI64ArrayAttr>))
    func->setAttr("dmp.field_dims", b.getArrayAttr(fieldDims));

  if (!symbols.lookup("stencil_mpi_enter")) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto decl = func::FuncOp::create(
        b, loc, "stencil_mpi_enter",
        b.getFunctionType({ptrType, b.getI64Type()}, {b.getI64Type()}));
    decl.setPrivate();
  }
  b.setInsertionPointToStart(entry);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value ranks = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                             topo.getNumRanks());
  Value rank64 = func::CallOp::create(b, loc, "stencil_mpi_enter",
                                      b.getI64Type(),
                                      ValueRange{entry->getArguments().back(),
                                                 ranks})
                     .getResult(0);
  Value rank = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank64);
  // Row-major coordinates; the variant of the block classes they give:
  // per dimension the sum of class index times (coordinate in the class).
  Value variant = idx(0);
  SmallVector<Value> blockStarts;
  int64_t stride = topo.getNumRanks(), variantStride = variants.size();
  for (unsigned d = 0; d < k; ++d) {
    stride /= topology[d];
    variantStride /= classes[d].size();
    Value coord = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, rank, idx(stride)),
        idx(topology[d]));
    // Where the rank's block starts, relative to the domain's start:
    // coord * base + min(coord, remainder) (the first ranks have one more).
    if (position)
      blockStarts.push_back(arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, coord, idx(splits[d].base)),
          arith::MinUIOp::create(b, loc, coord, idx(splits[d].remainder))));
    if (classes[d].size() == 1)
      continue;
    // `coord pred v` when `want`, its negation otherwise.
    auto test = [&](arith::CmpIPredicate pred, int64_t v, bool want) -> Value {
      if (!want)
        pred = arith::invertPredicate(pred);
      return arith::CmpIOp::create(b, loc, pred, coord, idx(v));
    };
    for (auto [i, cls] : llvm::enumerate(classes[d])) {
      if (!i)
        continue; // class 0 adds nothing
      if (clipped[d]) {
        // Narrower stores: the class's coordinates, one by one.
        Value in;
        for (auto [c, of] : llvm::enumerate(classOf[d])) {
          if (of != i)
            continue;
          Value is = test(arith::CmpIPredicate::eq, c, true);
          in = in ? arith::OrIOp::create(b, loc, in, is) : is;
        }
        variant = arith::AddIOp::create(
            b, loc, variant,
            arith::SelectOp::create(b, loc, in, idx(i * variantStride),
                                    idx(0)));
        continue;
      }
      Value in = test(arith::CmpIPredicate::ult, splits[d].remainder,
                      cls.size == splits[d].base + 1 && splits[d].remainder);
      if (depth > 1) {
        in = arith::AndIOp::create(b, loc, in,
                                   test(arith::CmpIPredicate::eq, 0, cls.low));
        in = arith::AndIOp::create(
            b, loc, in,
            test(arith::CmpIPredicate::eq, topology[d] - 1, cls.high));
      }
      Value choice = arith::SelectOp::create(
          b, loc, in, idx(i * variantStride), idx(0));
      variant = arith::AddIOp::create(b, loc, variant, choice);
    }
  }
  SmallVector<int64_t> cases = llvm::to_vector(
      llvm::seq<int64_t>(0, static_cast<int64_t>(copies.size())));
  auto sw = scf::IndexSwitchOp::create(b, loc, TypeRange{}, variant, cases,
                                       cases.size());
  for (auto [i, copy] : llvm::enumerate(copies)) {
    Block &caseBlock = sw.getCaseRegions()[i].emplaceBlock();
    OpBuilder cb = OpBuilder::atBlockBegin(&caseBlock);
    SmallVector<Value> operands;
    for (auto [arg, t] : llvm::zip(entry->getArguments().drop_back(),
                                   copy.getArgumentTypes())) {
      if (arg.getType() != t)
        operands.push_back(CastOp::create(cb, loc, t, arg));
      else
        operands.push_back(arg);
    }
    llvm::append_range(operands, blockStarts);
    func::CallOp::create(cb, loc, copy, operands);
    scf::YieldOp::create(cb, loc);
  }
  Block &defaultBlock = sw.getDefaultRegion().emplaceBlock();
  {
    OpBuilder db = OpBuilder::atBlockBegin(&defaultBlock);
    scf::YieldOp::create(db, loc);
  }
  func::ReturnOp::create(b, loc);
  return success();
}

LogicalResult StencilDistributePass::computeExchanges(const PendingSwap &p) {
  dmp::SwapOp swap = p.swap;
  LoadOp load = p.load;
  ArrayRef<int64_t> coreLb = p.coreLb, coreUb = p.coreUb, minBlock = p.minBlock;
  auto temp = cast<TempType>(load.getRes().getType());
  auto field = cast<FieldType>(load.getField().getType());
  ArrayRef<int64_t> procGrid = swap.getTopology().getShape();
  unsigned k = procGrid.size(), rank = field.getRank();
  bool deep = !p.boxLb.empty();
  if (!deep && p.readLb.empty() && !temp.hasBounds()) {
    // Nothing reads the temp (a frontend's load after its last store).
    swap.erase();
    return success();
  }
  if (!field.hasBounds())
    return load.emitOpError("needs known bounds to exchange its halo");
  // What the exchange must fill: the temp's box, or a deep block's.
  ArrayRef<int64_t> readLb = deep                ? ArrayRef<int64_t>(p.boxLb)
                             : !p.readLb.empty() ? ArrayRef<int64_t>(p.readLb)
                                                 : temp.getLb();
  ArrayRef<int64_t> readUb = deep                ? ArrayRef<int64_t>(p.boxUb)
                             : !p.readUb.empty() ? ArrayRef<int64_t>(p.readUb)
                                                 : temp.getUb();
  SmallVector<int64_t> width(k);
  for (unsigned d = 0; d < k; ++d)
    width[d] = std::max({int64_t(0), coreLb[d] - readLb[d],
                         readUb[d] - coreUb[d]});
  for (unsigned d = 0; d < k; ++d) {
    if (width[d] <= minBlock[d])
      continue;
    if (p.autoGrid >= 0) { // this rank count gets no decomposition
      AutoGrid &g = autoGrids[p.autoGrid];
      if (g.dropped.empty())
        g.dropped = "an exchange " + std::to_string(width[d]) +
                    " points wide in dimension " + std::to_string(d) +
                    ", blocks of " + std::to_string(minBlock[d]);
      return success();
    }
    return load.emitOpError("reads ")
           << width[d] << " points beyond its block in dimension " << d
           << ", but grid=" << gridText(procGrid)
           << " gives some ranks blocks of only " << minBlock[d]
           << " points there (use fewer ranks)";
  }

  SmallVector<Attribute> exchanges;
  bool diagonals = false;
  // Every direction with a non-zero entry, first dimension slowest.
  int64_t directions = 1;
  for (unsigned d = 0; d < k; ++d)
    directions *= 3;
  for (int64_t code = 0; code < directions; ++code) {
    SmallVector<int64_t> dir(k);
    int64_t c = code, nonzero = 0;
    for (int d = k - 1; d >= 0; --d) {
      dir[d] = c % 3 - 1;
      c /= 3;
      nonzero += dir[d] != 0;
    }
    if (!nonzero ||
        llvm::any_of(llvm::seq(0u, k),
                     [&](unsigned d) { return dir[d] && !width[d]; }))
      continue;
    if (nonzero > 1) {
      // Both partners of an exchange post it: the neighbour at `dir` sends
      // this rank the region it reads towards -dir.
      SmallVector<int64_t> back = llvm::map_to_vector(
          dir, [](int64_t d) { return -d; });
      if (!deep && !readsTowards(load, dir) && !readsTowards(load, back))
        continue;
      diagonals = true;
    }
    SmallVector<int64_t> at(rank), size(rank), source(rank), to(rank, 0);
    for (unsigned d = 0; d < rank; ++d) {
      int64_t lo, hi, src;
      if (d >= k) { // not decomposed: what the temp covers
        lo = readLb[d];
        hi = readUb[d];
        src = lo;
      } else if (dir[d] < 0) {
        lo = coreLb[d] - width[d];
        hi = coreLb[d];
        src = coreLb[d];
      } else if (dir[d] > 0) {
        lo = coreUb[d];
        hi = coreUb[d] + width[d];
        src = coreUb[d] - width[d];
      } else {
        lo = coreLb[d];
        hi = coreUb[d];
        src = lo;
      }
      at[d] = lo; // the domain's coordinates, as xDSL's exchanges
      size[d] = hi - lo;
      source[d] = src - lo;
      if (d < k)
        to[d] = dir[d];
    }
    exchanges.push_back(
        dmp::ExchangeAttr::get(&getContext(), at, size, source, to));
  }
  if (exchanges.empty()) {
    swap.erase();
    return success();
  }
  OpBuilder b(swap);
  swap.setStrategyAttr(dmp::getGridSliceStrategy(swap.getTopology(), diagonals));
  swap.setSwapsAttr(b.getArrayAttr(exchanges));
  return success();
}

/// grid=auto: one decomposition of `func` per rank count, each distributed
/// as for a fixed grid on a private clone `@f_g<grid>`; dispatchAuto then
/// turns `func` into the run-time choice between them.
LogicalResult StencilDistributePass::distributeAuto(func::FuncOp func) {
  FailureOr<BoundsAttr> domain = storeDomain(func);
  if (failed(domain))
    return failure();
  unsigned dims = std::min<unsigned>(3, domain->getRank());
  SymbolTable symbols(func->getParentOfType<ModuleOp>());
  SmallVector<SmallVector<int64_t>> grids;
  for (int64_t n : rankCounts) {
    SmallVector<int64_t> grid = balancedGrid(n, dims);
    while (grid.size() > 1 && grid.back() == 1) // nothing to exchange there
      grid.pop_back();
    if (llvm::is_contained(grids, grid))
      continue;
    grids.push_back(grid);
    std::string tooMany;
    for (unsigned d = 0; d < grid.size() && tooMany.empty(); ++d) {
      int64_t points = domain->getUb()[d] - domain->getLb()[d];
      if (grid[d] > points)
        tooMany = std::to_string(grid[d]) + " ranks for " +
                  std::to_string(points) + " points in dimension " +
                  std::to_string(d);
    }
    if (!tooMany.empty()) {
      autoGrids.push_back({func, nullptr, grid, {}, tooMany});
      continue;
    }
    auto clone = cast<func::FuncOp>(OpBuilder(func).clone(*func));
    clone.setSymName((func.getSymName() + "_g" + gridText(grid)).str());
    symbols.insert(clone);
    autoGrids.push_back({func, clone, grid, {}, {}});
    topology = grid;
    if (failed(distribute(clone)))
      return failure();
    clone.setPrivate();
    clone->removeAttr("llvm.emit_c_interface");
    autoGrids.back().copies = lastCopies;
  }
  return success();
}

/// grid=auto: each distributed function calls the dispatcher of the grid
/// MPI_Dims_create chooses at run time (encoded by stencil_mpi_grid_code),
/// and fails with the list of compiled grids on any other.
LogicalResult StencilDistributePass::dispatchAuto() {
  MLIRContext *ctx = &getContext();
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  OpBuilder b(ctx);
  auto declare = [&](StringRef name, FunctionType type) {
    if (symbols.lookup(name))
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
  };
  SmallVector<func::FuncOp> funcs;
  for (const AutoGrid &g : autoGrids)
    if (!llvm::is_contained(funcs, g.func))
      funcs.push_back(g.func);
  for (func::FuncOp func : funcs) {
    auto grids = llvm::make_filter_range(
        autoGrids, [&](const AutoGrid &g) { return g.func == func; });
    SmallVector<const AutoGrid *> kept;
    std::string compiled, skipped;
    for (AutoGrid &g : grids) {
      int64_t n = dmp::TopoAttr::get(ctx, g.grid).getNumRanks();
      std::string what =
          std::to_string(n) + " ranks (" + gridText(g.grid) + ")";
      if (!g.dropped.empty()) {
        skipped += (skipped.empty() ? "" : "; ") + what + ": " + g.dropped;
        if (g.dispatcher) {
          for (func::FuncOp copy : g.copies)
            copy.erase();
          g.dispatcher.erase();
        }
        continue;
      }
      kept.push_back(&g);
      compiled += (compiled.empty() ? "" : ", ") + gridText(g.grid);
    }
    if (kept.empty())
      return func.emitOpError("has blocks too small for its halo at every "
                              "rank count of grid=auto: ")
             << skipped;
    if (!skipped.empty())
      mlir::emitRemark(func.getLoc(), "grid=auto: no decomposition for ")
          << skipped;

    // The dispatchers of all grids share the signature and global layout.
    func::FuncOp first = kept.front()->dispatcher;
    unsigned dims = std::min<unsigned>(
        3, first->getAttrOfType<DenseI64ArrayAttr>("dmp.core_lb").size());
    SmallVector<Attribute> gridAttrs, haloAttrs;
    for (const AutoGrid *g : kept) {
      gridAttrs.push_back(b.getDenseI64ArrayAttr(g->grid));
      haloAttrs.push_back(g->dispatcher->getAttr("dmp.halo"));
    }
    Location loc = func.getLoc();
    func.getBody().dropAllReferences();
    func.getBody().getBlocks().clear();
    func.setType(first.getFunctionType());
    if (ArrayAttr argAttrs = first.getAllArgAttrs())
      func.setAllArgAttrs(argAttrs);
    for (StringRef name :
         {"dmp.core_lb", "dmp.core_ub", "dmp.fields", "dmp.field_dims"})
      if (Attribute attr = first->getAttr(name))
        func->setAttr(name, attr);
    func->setAttr("dmp.grids", b.getArrayAttr(gridAttrs));
    func->setAttr("dmp.halos", b.getArrayAttr(haloAttrs));

    declare("stencil_mpi_grid_code",
            b.getFunctionType({ptrType, b.getI64Type()}, {b.getI64Type()}));
    declare("stencil_mpi_no_grid",
            b.getFunctionType({b.getI64Type(), b.getI64Type(), ptrType}, {}));
    Block *entry = b.createBlock(&func.getBody());
    for (Type t : first.getArgumentTypes())
      entry->addArgument(t, loc);
    Value comm = entry->getArguments().back();
    Value ndims = arith::ConstantIntOp::create(b, loc, b.getI64Type(), dims);
    Value code = func::CallOp::create(b, loc, "stencil_mpi_grid_code",
                                      b.getI64Type(), ValueRange{comm, ndims})
                     .getResult(0);
    SmallVector<int64_t> cases = llvm::map_to_vector(
        kept, [&](const AutoGrid *g) { return gridCode(g->grid, dims); });
    auto sw = scf::IndexSwitchOp::create(
        b, loc, TypeRange{},
        arith::IndexCastOp::create(b, loc, b.getIndexType(), code), cases,
        cases.size());
    for (auto [region, g] : llvm::zip(sw.getCaseRegions(), kept)) {
      OpBuilder cb = OpBuilder::atBlockBegin(&region.emplaceBlock());
      func::CallOp::create(cb, loc, g->dispatcher, entry->getArguments());
      scf::YieldOp::create(cb, loc);
    }
    OpBuilder db =
        OpBuilder::atBlockBegin(&sw.getDefaultRegion().emplaceBlock());
    compiled.push_back('\0');
    Value list =
        LLVM::createGlobalString(loc, db, (func.getSymName() + "_grids").str(),
                                 compiled, LLVM::Linkage::Internal);
    func::CallOp::create(db, loc, "stencil_mpi_no_grid", TypeRange{},
                         ValueRange{code, ndims, list});
    scf::YieldOp::create(db, loc);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
  }
  autoGrids.clear();
  return success();
}

void StencilDistributePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(parseOptions()))
    return signalPassFailure();
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<FieldType>))
      funcs.push_back(func);
  for (func::FuncOp func : funcs)
    if (failed(autoTopology ? distributeAuto(func) : distribute(func)))
      return signalPassFailure();
  // The exchanges follow from the bounds of the loaded temps.
  if (failed(inferShapes(module)))
    return signalPassFailure();
  // Each deep swap moves, in every copy, the widest box any copy reads.
  DenseMap<int64_t, std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
      reach;
  for (PendingSwap &p : pending) {
    if (p.slot < 0)
      continue;
    auto [it, fresh] = reach.try_emplace(
        p.slot, SmallVector<int64_t>(p.boxLb.size(), 0),
        SmallVector<int64_t>(p.boxLb.size(), 0));
    for (unsigned d = 0; d < p.boxLb.size(); ++d) {
      it->second.first[d] =
          std::max(it->second.first[d], p.coreLb[d] - p.boxLb[d]);
      it->second.second[d] =
          std::max(it->second.second[d], p.boxUb[d] - p.coreUb[d]);
    }
  }
  for (PendingSwap &p : pending) {
    if (p.slot < 0)
      continue;
    auto &[below, above] = reach[p.slot];
    for (unsigned d = 0; d < p.boxLb.size(); ++d) {
      p.boxLb[d] = p.coreLb[d] - below[d];
      p.boxUb[d] = p.coreUb[d] + above[d];
    }
  }
  // Each swap of every step moves, in every copy, what any copy reads: as
  // far beyond the core along decomposed dimensions, the union along the
  // others.
  struct Reach {
    SmallVector<int64_t> below, above, lb, ub;
  };
  DenseMap<int64_t, Reach> shallow;
  for (PendingSwap &p : pending) {
    auto temp = cast<TempType>(p.load.getRes().getType());
    if (p.shallowSlot < 0 || !temp.hasBounds())
      continue;
    unsigned k = p.swap.getTopology().getShape().size();
    auto [it, fresh] = shallow.try_emplace(p.shallowSlot);
    Reach &r = it->second;
    if (fresh)
      r = {SmallVector<int64_t>(k, 0), SmallVector<int64_t>(k, 0),
           SmallVector<int64_t>(temp.getLb()),
           SmallVector<int64_t>(temp.getUb())};
    for (unsigned d = 0; d < temp.getRank(); ++d) {
      if (d < k) {
        r.below[d] = std::max(r.below[d], p.coreLb[d] - temp.getLb()[d]);
        r.above[d] = std::max(r.above[d], temp.getUb()[d] - p.coreUb[d]);
      } else {
        r.lb[d] = std::min(r.lb[d], temp.getLb()[d]);
        r.ub[d] = std::max(r.ub[d], temp.getUb()[d]);
      }
    }
  }
  for (PendingSwap &p : pending) {
    auto it = shallow.find(p.shallowSlot);
    if (it == shallow.end())
      continue;
    const Reach &r = it->second;
    p.readLb = r.lb;
    p.readUb = r.ub;
    for (unsigned d = 0; d < r.below.size(); ++d) {
      p.readLb[d] = p.coreLb[d] - r.below[d];
      p.readUb[d] = p.coreUb[d] + r.above[d];
    }
  }
  for (PendingSwap &p : pending)
    if (failed(computeExchanges(p)))
      return signalPassFailure();
  pending.clear();
  // grid=auto: the rank counts whose blocks turned out too small go.
  DenseSet<Operation *> dropped;
  for (AutoGrid &g : autoGrids)
    if (!g.dropped.empty()) {
      dropped.insert(g.dispatcher);
      for (func::FuncOp copy : g.copies)
        dropped.insert(copy);
    }
  for (const BlockedLoop &l : toRoll)
    if (!dropped.contains(l.loop->getParentOfType<func::FuncOp>()) &&
        failed(rollBlockSteps(l)))
      return signalPassFailure();
  toRoll.clear();
  if (failed(dispatchAuto()))
    return signalPassFailure();
  hoistSwaps(module);
  nextSlot = 0;
  if (!overlap)
    module.walk([&](dmp::SwapOp swap) {
      swap->setAttr(dmp::kBlockingAttr, UnitAttr::get(&getContext()));
    });
}

} // namespace
