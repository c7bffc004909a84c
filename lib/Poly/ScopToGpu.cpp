//===- ScopToGpu.cpp - map hybrid-tiled schedules to the GPU -------------===//
//
// The CUDA mapping of hybrid hexagonal tiling (thesis sec. 5.3.1; hybrid
// paper sec. 4), done on the schedule tree so that code generation stays
// one isl AST (AstToLoops) and later steps (shared-memory promotion) can
// insert their copies between the tiled schedule and the kernel code:
//
//   band [T]                                  host loop over time tiles
//     sequence (phase 0, phase 1)             one launch per phase (split
//                                             tiling: per color)
//       filter (phase p)
//         mark "kernel"
//           context 0 <= tid_d < threads_d    thread ids bounded for isl
//             band [S_hex]                    blocks (grid-stride)
//               band [S_other...]             sequential in the kernel;
//                                             isolate full tiles (split
//                                             tiling, 3D: mark "grid_y_N"
//                                             above it, the first member
//                                             over the grid's y)
//                 band [t']                   sequential
//                   sequence
//                     filter (the statements)
//                       mark "threads"
//                         filter s'_d mod threads_d = tid_d
//                           band [floor(s'_d / threads_d)...]  per-thread
//                                             points, unrolled
//                     filter (barrier)        extension: one barrier
//                                             instance per step
//
// The intra-tile space dimensions are distributed cyclically over the
// threads (the innermost one over x, for coalesced accesses); the thread
// ids are isl parameters constrained by the context, so that isl emits the
// per-thread code knowing their bounds: full tiles get no guards.
//
// Split tiling (SplitTiling.h) builds the same tree with 2^n colors in
// place of the two phases and gets the same mapping: one launch per color,
// its first tile dimension over the blocks, the steps of a band sequential
// with a barrier after each. Its other tile dimensions are parallel too: in
// 3D the second goes over the grid's y (`tile-grid`), since one dimension
// of tiles leaves most of a large GPU idle (384^3: 48 blocks for 132 SMs);
// the last stays a stream within the block, whose tiles reuse what their
// predecessor loaded (promotion step f).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/AstToLoops.h"
#include "Stencil/Poly/GpuDevice.h"
#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"
#include "Stencil/Poly/SharedPromotion.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>
#include <isl/schedule_node.h>

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_POLYTOGPU
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

/// Default threads per block along x, y, z (capped by the tile extent).
constexpr int64_t kDefaultThreads[] = {32, 4, 2};
/// CUDA's largest grid along y.
constexpr int64_t kMaxGridY = 65535;
/// Points per thread and time step up to which the point loops are unrolled.
constexpr int64_t kMaxUnrolledPoints = 64;
/// Operations of a step's statement up to which the GPU isolates full tiles
/// (gpuIsolatesFullTiles): every example (jacobi 2D 8, heat 2D 16), none of
/// Devito's forms (heat 2D at order 2: 24).
constexpr int64_t kMaxIsolatedStepOps = 20;

/// Operations in the bodies of the statements of one step.
int64_t stepOperations(ScopOp scop) {
  int64_t ops = 0;
  scop.walk([&](StmtOp statement) {
    statement.getBody().walk([&](Operation *) { ++ops; });
  });
  return ops;
}

/// Isolation and unrolling of a GPU re-tiling: what the tiling pass was
/// given (`retile`), else the GPU's choice (gpuIsolatesFullTiles). Unrolled
/// steps give straight-line code per step of a full tile, and fewer
/// instructions per update, registers and compile time in 1D-3D (jacobi2d
/// 3072^2: 62 -> 25 modeled instructions per update; docs/performance.md).
LogicalResult gpuRetileDefaults(ScopOp scop, DictionaryAttr retile,
                                bool &isolate, bool &unroll) {
  auto unrollAttr = retile.getAs<BoolAttr>("unroll");
  unroll = unrollAttr ? unrollAttr.getValue() : true;
  if (auto isolateAttr = retile.getAs<BoolAttr>("isolate")) {
    isolate = isolateAttr.getValue();
    return success();
  }
  FailureOr<bool> isolating = gpuIsolatesFullTiles(scop);
  if (failed(isolating))
    return failure();
  isolate = *isolating;
  return success();
}

isl::schedule_node deleteNode(isl::schedule_node node) {
  return isl::manage(isl_schedule_node_delete(node.release()));
}

/// "a0, ..., a{n-1}"
std::string vars(unsigned n) {
  SmallVector<std::string> names;
  for (unsigned i = 0; i < n; ++i)
    names.push_back("a" + std::to_string(i));
  return llvm::join(names, ", ");
}

/// The partial schedule of a band, into an anonymous space.
isl::multi_union_pw_aff anonymousSchedule(isl::schedule_node_band band) {
  isl::multi_union_pw_aff mupa = band.get_partial_schedule();
  return isl::manage(
      isl_multi_union_pw_aff_reset_tuple_id(mupa.release(), isl_dim_out));
}

/// The isolate option of the tiling's tile band (`isolate[[T] -> [S...]]`,
/// see buildHybridSchedule) re-expressed for the band right below [S_hex]:
/// `isolate[[T, S_hex] -> [S_other...]]`, or `isolate[[T, S_hex] -> [t']]`
/// in 1D. Null when the band had none (no tile is full).
isl::set moveIsolateDown(isl::union_set options, unsigned numSpaceDims) {
  isl::set isolate;
  isl::set_list sets = options.get_set_list();
  for (unsigned i = 0; i < sets.size(); ++i)
    if (tupleName(sets.at(i)) == "isolate")
      isolate = sets.at(i);
  if (isolate.is_null())
    return {};
  isl_map *map = isl_set_unwrap(isolate.release());
  map = isl_map_move_dims(map, isl_dim_in, 1, isl_dim_out, 0, 1);
  if (numSpaceDims == 1)
    map = isl_map_add_dims(map, isl_dim_out, 1);
  isl_set *wrapped = isl_map_wrap(map);
  return isl::manage(isl_set_set_tuple_name(wrapped, "isolate"));
}

struct PolyToGpuPass : mlir::stencil::poly::impl::PolyToGpuBase<PolyToGpuPass> {
  using Base::Base;

  std::optional<PromotionMode> promotion;
  bool autoPromotion = false;

  /// The promotion of the kernels of an n-dimensional scop: the option, or
  /// for `auto` interleaved below 3D and none from 3D on. Measured on an
  /// H100 (docs/performance.md, "Tile sizes on the H100" and "Fourth
  /// lease"): in 2D promotion makes the hexagons 2.5-3x faster; in 3D a
  /// tile's few steps use each copied element about twice, and the copies
  /// and their barriers cost more than L1 saves (the headline command's
  /// hexagons 20% slower promoted, split tiles 2x).
  PromotionMode promotionFor(unsigned n) const {
    if (!autoPromotion)
      return *promotion;
    return n >= 3 ? PromotionMode::None : PromotionMode::Interleaved;
  }

  /// Inter-tile reuse (promotion step f) for a scop: the option, or for
  /// `auto` only with one statement per step. With several (fdtd-2d,
  /// Devito's elastic forms) the moves of every array multiply the copy
  /// code: fdtd-2d +34% modeled instructions for -16% L2 sectors and no
  /// DRAM byte saved, 250 instead of 160 registers; elastic 2D at order 8
  /// spills 960 B and compiles 2.5x slower (docs/performance.md, "Compile
  /// time of the headline command").
  bool interTileReuseFor(const ScopModel &model) const {
    if (interTileReuse == "auto")
      return model.statementsPerStep == 1;
    return interTileReuse == "true";
  }

  LogicalResult map(ScopOp scop);
  void fitTilesToBudget(ScopOp scop, HexTileRequest &sizes,
                        HexTileAnalysis &analysis);
  void alignTiles(ScopOp scop, HexTileRequest &sizes,
                  HexTileAnalysis &analysis);
  LogicalResult mapCanonical(ScopOp scop, const ScopModel &model);

  void runOnOperation() override {
    // Option errors are located at the first region they would map (as
    // --hex-tile's are), else at the first op of the module (a module's own
    // location is the file's line 0).
    SmallVector<ScopOp> scops;
    getOperation().walk([&](ScopOp scop) { scops.push_back(scop); });
    Location optionLoc = getOperation().getLoc();
    if (!scops.empty())
      optionLoc = scops.front().getLoc();
    else if (!getOperation().getBody()->empty())
      optionLoc = getOperation().getBody()->front().getLoc();
    if (threads.size() > 3) {
      mlir::emitError(optionLoc, "poly-to-gpu: threads takes at most 3 sizes "
                                 "(x, y, z), got ")
          << threads.size();
      return signalPassFailure();
    }
    if (maxBlocks < 1) {
      mlir::emitError(optionLoc, "poly-to-gpu: max-blocks must be positive");
      return signalPassFailure();
    }
    if (unrollBudget < 0) {
      mlir::emitError(optionLoc,
                      "poly-to-gpu: unroll-budget must not be negative, got ")
          << static_cast<int64_t>(unrollBudget);
      return signalPassFailure();
    }
    promotion = llvm::StringSwitch<std::optional<PromotionMode>>(promote)
                    .Case("none", PromotionMode::None)
                    .Case("copy", PromotionMode::Copy)
                    .Case("interleaved", PromotionMode::Interleaved)
                    .Case("auto", PromotionMode::Interleaved)
                    .Default(std::nullopt);
    autoPromotion = promote == "auto";
    if (!promotion) {
      mlir::emitError(optionLoc, "poly-to-gpu: promote must be none, copy, "
                                 "interleaved or auto, got '")
          << promote << "'";
      return signalPassFailure();
    }
    if (interTileReuse != "auto" && interTileReuse != "true" &&
        interTileReuse != "false") {
      mlir::emitError(optionLoc, "poly-to-gpu: inter-tile-reuse must be true, "
                                 "false or auto, got '")
          << interTileReuse << "'";
      return signalPassFailure();
    }
    if (threadPoints != "blocked" && threadPoints != "cyclic") {
      mlir::emitError(optionLoc, "poly-to-gpu: thread-points must be blocked "
                                 "or cyclic, got '")
          << threadPoints << "'";
      return signalPassFailure();
    }
    if (sharedBudget < 0) {
      mlir::emitError(optionLoc, "poly-to-gpu: shared-budget must not be "
                                 "negative");
      return signalPassFailure();
    }
    // Past the static 48 KiB, kernels use dynamic shared memory
    // (stencil-kernel-dynamic-shared), up to the chip's opt-in maximum.
    if (const stencil::GpuDevice *device = stencil::lookupGpuDevice(chip);
        device && sharedBudget > device->maxSharedPerBlockOptIn) {
      mlir::emitError(optionLoc, "poly-to-gpu: shared-budget ")
          << sharedBudget.getValue() << " exceeds the "
          << device->maxSharedPerBlockOptIn
          << " bytes of shared memory a block of " << chip << " can have";
      return signalPassFailure();
    }
    for (ScopOp scop : scops)
      if (failed(map(scop)))
        signalPassFailure();
  }
};

/// The tile-size side of the device model: default sizes whose tile does
/// not fit in the shared-memory budget are shrunk until it does, halving
/// the widest outer width first (the innermost one keeps the warps'
/// accesses contiguous), as long as the sizes stay valid.
void PolyToGpuPass::fitTilesToBudget(ScopOp scop, HexTileRequest &sizes,
                                     HexTileAnalysis &analysis) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const ScopModel *model = analysis.tiledModel();
    if (!model)
      return;
    int64_t bytes = hybridTileFootprintBytes(scop, *model);
    if (bytes >= 0 && bytes <= sharedBudget)
      return;
    HexTileRequest narrower = sizes;
    SmallVector<int64_t> &w = narrower.widths;
    unsigned widest = w.size() - 1;
    for (unsigned d = 0; d + 1 < w.size(); ++d)
      if (w[d] > 1 && (widest == w.size() - 1 || w[d] > w[widest]))
        widest = d;
    if (w[widest] <= 1)
      return;
    w[widest] /= 2;
    // Invalid sizes end the search with the last valid tiling in place.
    ScopedDiagnosticHandler quiet(scop.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(hexTileScop(scop, narrower, &narrower, &analysis)))
      return;
    sizes = narrower;
  }
}

/// Step (d) of the hybrid paper's Table 4 (sec. 4.2.3): translates the
/// innermost parallelogram tiles so that the loads of the first array start
/// on 128-byte boundaries (of its rows; the rows themselves are aligned
/// when the row length is a multiple of 128 bytes).
void PolyToGpuPass::alignTiles(ScopOp scop, HexTileRequest &sizes,
                               HexTileAnalysis &analysis) {
  const ScopModel *model = analysis.tiledModel();
  if (!model)
    return;
  constexpr int64_t kCacheLineBytes = 128;
  int64_t offset;
  try {
    offset = alignedTileOffset(scop, *model, kCacheLineBytes,
                               interTileReuseFor(*model));
  } catch (const isl::exception &) {
    return;
  }
  if (offset == 0)
    return;
  HexTileRequest translated = sizes;
  translated.offset = offset;
  ScopedDiagnosticHandler quiet(scop.getContext(),
                                [](Diagnostic &) { return success(); });
  if (succeeded(hexTileScop(scop, translated, &translated, &analysis)))
    sizes = translated;
}

LogicalResult PolyToGpuPass::map(ScopOp scop) {
  if (scop.getGpuThreads())
    return success(); // Already mapped.
  // Fused for a target not known then: planned again for the GPU, one
  // kernel per group with the local buffers in shared memory.
  if (auto fuse = scop->getAttrOfType<DictionaryAttr>(kFuseRequestAttr)) {
    FuseRequest request;
    request.gpu = true;
    request.budgetBytes = sharedBudget;
    if (auto tile = fuse.getAs<DenseI64ArrayAttr>("tile"))
      request.tileSizes.assign(tile.asArrayRef().begin(),
                               tile.asArrayRef().end());
    // x along the innermost dimension, y along the next.
    int64_t total = 1;
    for (int64_t t : ArrayRef<int64_t>(threads).take_front(2)) {
      if (t < 1)
        return mlir::emitError(scop.getLoc(),
                               "poly-to-gpu: threads must be positive, got ")
               << t;
      request.threads.push_back(t);
      total *= t;
    }
    if (total > 1024)
      return mlir::emitError(scop.getLoc(), "poly-to-gpu: threads asks for ")
             << total << " threads per block (at most 1024)";
    if (failed(fuseScop(scop, request)))
      return failure();
    scop->removeAttr(kFuseRequestAttr);
    Builder b(scop.getContext());
    scop.setGpuMaxBlocksAttr(b.getI64IntegerAttr(maxBlocks));
    return success();
  }
  // Split-tiled with default sizes for a target not known then: the GPU's
  // now.
  if (auto retile =
          scop->getAttrOfType<DictionaryAttr>(kSplitRetileForGpuAttr)) {
    SplitTileRequest request;
    request.gpuSizes = true;
    if (failed(gpuRetileDefaults(scop, retile, request.isolate,
                                 request.unroll)))
      return failure();
    if (failed(splitTileScop(scop, request)))
      return failure();
    scop->removeAttr(kSplitRetileForGpuAttr);
  }
  // Tiled with default sizes for a target not known then: the GPU's now.
  if (auto retile = scop->getAttrOfType<DictionaryAttr>(kRetileForGpuAttr)) {
    HexTileRequest request;
    request.gpuSizes = true;
    // One block per hexagon of a phase: two per SM of the device.
    if (const stencil::GpuDevice *device = stencil::lookupGpuDevice(chip))
      request.minParallelTiles = 2 * device->sms;
    if (auto dim = retile.getAs<IntegerAttr>("hex_dim"))
      request.hexDim = dim.getInt();
    if (failed(gpuRetileDefaults(scop, retile, request.isolate,
                                 request.unroll)))
      return failure();
    auto offset = retile.getAs<IntegerAttr>("offset");
    if (offset)
      request.offset = offset.getInt();
    HexTileRequest chosen;
    // The model, dependences and cone, once for all the tilings below.
    HexTileAnalysis analysis;
    if (failed(hexTileScop(scop, request, &chosen, &analysis)))
      return failure();
    scop->removeAttr(kRetileForGpuAttr);
    if (!chosen.widths.empty() &&
        promotionFor(chosen.widths.size()) != PromotionMode::None) {
      fitTilesToBudget(scop, chosen, analysis);
      if (alignLoads && !offset)
        alignTiles(scop, chosen, analysis);
    }
  }
  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (!model)
    return scop.emitOpError("cannot read the polyhedral form: ") << error;
  unsigned n = model->numSpaceDims;
  if (n > 0 && isCanonical(model->schedule, n))
    return mapCanonical(scop, *model);
  if (n == 0 || !isTimeTiled(model->schedule, n))
    return success();
  // Thread dimension d (x, y, z) takes intra-tile dimension n - 1 - d.
  unsigned numThreadDims = std::min(n, 3u);
  // Sizes past the mapped dimensions are unused (the documented default,
  // 32,4,2, fits every rank) but must still be valid.
  for (int64_t t : threads)
    if (t < 1)
      return mlir::emitError(scop.getLoc(),
                             "poly-to-gpu: threads must be positive, got ")
             << t;
  for (unsigned d = numThreadDims; d < threads.size(); ++d)
    if (threads[d] != 1 && threads[d] != kDefaultThreads[d])
      return mlir::emitError(scop.getLoc(), "poly-to-gpu: threads has ")
             << threads.size() << " sizes but this " << n
             << "-dimensional region maps " << numThreadDims
             << " dimension(s) to threads (size " << d << " is " << threads[d]
             << "; only 1 or the default may stand there)";
  SmallVector<int64_t, 3> blockThreads;
  try {
    isl::schedule schedule = model->schedule;
    // The extent of each intra-tile dimension: the most of any phase
    // (color).
    SmallVector<int64_t> extent(n, 1);
    unsigned numPhases = schedule.root().child(0).child(0).n_children();
    // The smallest intra-tile coordinate of each dimension in each phase:
    // the phases' coordinates need not start at the same value (one
    // hexagonal phase runs from 5 where the other runs from 0).
    SmallVector<SmallVector<int64_t>> lowest(numPhases,
                                             SmallVector<int64_t>(n, 0));
    for (unsigned p = 0; p < numPhases; ++p) {
      isl::schedule_node filter = schedule.root().child(0).child(0).child(p);
      isl::schedule_node_band spBand = filter.child(0)
                                           .child(0)
                                           .child(0)
                                           .child(0)
                                           .as<isl::schedule_node_band>();
      isl::union_set points =
          isl::union_map::from(anonymousSchedule(spBand))
              .intersect_domain(filter.as<isl::schedule_node_filter>().filter())
              .intersect_domain(model->domain)
              .range();
      if (points.is_empty())
        continue;
      isl::set box = isl::manage(isl_set_from_union_set(points.release()));
      // Parametric sizes (N) only bound the time: the tile is constant.
      for (unsigned d = 0; d < n; ++d) {
        isl::val lo = box.dim_min_val(d), hi = box.dim_max_val(d);
        if (!lo.is_int() || !hi.is_int())
          return scop.emitOpError("intra-tile dimension ")
                 << d << " is unbounded";
        extent[d] =
            std::max<int64_t>(extent[d], hi.get_num_si() - lo.get_num_si() + 1);
        lowest[p][d] = lo.get_num_si();
      }
    }
    int64_t total = 1, perThread = 1;
    for (unsigned d = 0; d < numThreadDims; ++d) {
      int64_t dimExtent = extent[n - 1 - d];
      int64_t t = d < threads.size() ? threads[d]
                                     : std::min(kDefaultThreads[d], dimExtent);
      if (t < 1)
        return mlir::emitError(scop.getLoc(),
                               "poly-to-gpu: threads must be positive, got ")
               << t;
      blockThreads.push_back(t);
      total *= t;
      perThread *= llvm::divideCeil(dimExtent, t);
    }
    if (total > 1024)
      return mlir::emitError(scop.getLoc(), "poly-to-gpu: threads asks for ")
             << total << " threads per block (at most 1024)";
    // Unrolled, a thread's step is perThread copies of every statement's
    // body; past the budget its point loops stay loops, whose overhead is
    // small beside such a body (elastic 3D at order 4, 10 points of 432
    // operations: unrolled, 2-3 times the instructions, spills and 1.5
    // times the compile time; docs/gpu.md).
    int64_t stepOps = stepOperations(scop);
    bool unrollPoints = unroll && perThread <= kMaxUnrolledPoints &&
                        perThread * stepOps <= unrollBudget;

    // threads_d of intra-tile dimension a (0 <= a < n); 0 when not mapped.
    auto threadsOf = [&](unsigned a) -> int64_t {
      unsigned d = n - 1 - a;
      return d < numThreadDims ? blockThreads[d] : 0;
    };
    bool blockedPoints = threadPoints == "blocked";
    std::string tidParams, tidBounds;
    for (unsigned d = 0; d < numThreadDims; ++d) {
      std::string tid = kThreadIdParams[d];
      tidParams += (d ? ", " : "") + tid;
      tidBounds += (d ? " and 0 <= " : "0 <= ") + tid + " < " +
                   std::to_string(blockThreads[d]);
    }
    // The points of phase p each thread runs, and their order in the
    // thread's loops.
    auto threadMapping = [&](unsigned p) {
      std::string threadCond, perThreadExprs;
      for (unsigned a = 0; a < n; ++a) {
        std::string var = "a" + std::to_string(a);
        int64_t t = threadsOf(a);
        perThreadExprs += (a ? ", " : "");
        if (!t) {
          perThreadExprs += var;
          continue;
        }
        std::string tid = kThreadIdParams[n - 1 - a];
        threadCond += std::string(threadCond.empty() ? "" : " and ");
        // x (the innermost dimension) is always cyclic: a warp's threads on
        // consecutive elements. Blocked points of y and z are consecutive
        // rows of one thread, whose shared neighbours its unrolled step
        // loads once (the hybrid paper's Fig. 2).
        if (blockedPoints && a + 1 < n) {
          int64_t rows = llvm::divideCeil(extent[a], t);
          std::string local =
              "(" + var + " - " + std::to_string(lowest[p][a]) + ")";
          threadCond +=
              "floor(" + local + "/" + std::to_string(rows) + ") = " + tid;
          perThreadExprs += local + " mod " + std::to_string(rows);
          continue;
        }
        threadCond += var + " mod " + std::to_string(t) + " = " + tid;
        perThreadExprs += "floor(" + var + "/" + std::to_string(t) + ")";
      }
      return std::make_pair(
          isl::set(ctx, "[" + tidParams + "] -> { [" + vars(n) +
                            "] : " + threadCond + " }"),
          isl::multi_aff(ctx,
                         "{ [" + vars(n) + "] -> [" + perThreadExprs + "] }"));
    };
    isl::set context(ctx, "[" + tidParams + "] -> { [T] : " + tidBounds + " }");

    for (unsigned p = 0; p < numPhases; ++p) {
      auto [threadSet, perThreadPoints] = threadMapping(p);
      // filter -> mark "parallel" -> tile band
      isl::schedule_node node =
          deleteNode(schedule.root().child(0).child(0).child(p).child(0));
      isl::schedule_node_band tile = node.as<isl::schedule_node_band>();
      isl::set isolate = moveIsolateDown(tile.ast_build_options(), n);
      tile = tile.set_ast_build_options(isl::union_set::empty(ctx));
      if (n > 1)
        tile = tile.split(1);
      node = tile.child(0);
      if (!isolate.is_null()) {
        isl::schedule_node_band below = node.as<isl::schedule_node_band>();
        below = below.set_ast_build_options(isl::union_set(isolate));
        // In 1D the isolated band is t': keep its unrolling in full tiles.
        if (n == 1 && isl_schedule_node_band_member_get_ast_loop_type(
                          below.get(), 0) == isl_ast_loop_unroll)
          below = isl::manage(
                      isl_schedule_node_band_member_set_isolate_ast_loop_type(
                          below.release(), 0, isl_ast_loop_unroll))
                      .as<isl::schedule_node_band>();
        node = below;
      }
      // The tiles a block walks in sequence: one loop (atomic), not the
      // disjoint pieces isl splits a domain into by default, which it must
      // then order pairwise and which each repeat the whole step below
      // (elastic 3D at order 8: 33 s of isl and 3.6x the code).
      if (n > 1) {
        isl::schedule_node_band walk = node.as<isl::schedule_node_band>();
        for (unsigned m = 0, e = walk.n_member(); m < e; ++m)
          if (isl_schedule_node_band_member_get_ast_loop_type(walk.get(), m) ==
              isl_ast_loop_default)
            walk = walk.member_set_ast_loop_atomic(m);
        node = walk;
      }
      // Split tiling, 3D: the colors' second tile dimension over the
      // grid's y, as many blocks as it has tiles.
      if (n > 2 && tileGrid &&
          node.as<isl::schedule_node_band>().member_get_coincident(0)) {
        isl::union_set tilesHere =
            isl::union_map::from(
                anonymousSchedule(node.as<isl::schedule_node_band>()))
                .intersect_domain(
                    isl::manage(isl_schedule_node_get_domain(node.get()))
                        .intersect(model->domain))
                .range();
        if (!tilesHere.is_empty()) {
          isl::set box =
              isl::manage(isl_set_from_union_set(tilesHere.release()));
          isl::val lo = box.dim_min_val(0), hi = box.dim_max_val(0);
          // (Parametric sizes: the count is not known, the tiles stay in
          // sequence.)
          if (lo.is_int() && hi.is_int() &&
              hi.get_num_si() > lo.get_num_si()) {
            int64_t count = std::min<int64_t>(
                hi.get_num_si() - lo.get_num_si() + 1, kMaxGridY);
            node = node.insert_mark(isl::id(
                           ctx, kGridYMarkPrefix + std::to_string(count)))
                       .child(0);
          }
        }
      }
      if (n > 1)
        node = node.child(0); // t'
      // The intra-tile band becomes the thread filter and per-thread points.
      isl::schedule_node_band spBand =
          node.child(0).as<isl::schedule_node_band>();
      // Only this phase's instances reach here: simplifying the intra-tile
      // schedule in that context drops the other phase's pieces, which
      // would otherwise multiply through the divisions below.
      isl::union_set reaching =
          isl::manage(isl_schedule_node_get_domain(node.get()))
              .intersect(model->domain)
              .coalesce();
      // (Not an empty phase's: its schedule would lose its space and not
      // print as valid text.)
      isl::multi_union_pw_aff spSchedule = anonymousSchedule(spBand);
      if (!reaching.is_empty())
        spSchedule = spSchedule.gist(reaching);
      isl::union_map sp = isl::union_map::from(spSchedule);
      // (Not simplified in the phase's domain: that gist turns the
      // divisions of the tile coordinates into disjunctions of nested
      // floors over the thread ids, which isl's loop generation then
      // carries through every unrolled step: elastic 3D at order 8 took
      // 2.6 s more and got longer kernels. generateLoops simplifies the
      // filters only where isl would otherwise test thread ids in a guard
      // around a barrier.)
      isl::union_set mine =
          sp.intersect_range(isl::union_set(threadSet)).domain().coalesce();
      isl::multi_union_pw_aff points =
          isl::manage(isl_multi_union_pw_aff_apply_multi_aff(
              spSchedule.release(), perThreadPoints.copy()));
      node = deleteNode(spBand);
      isl::schedule_node_band pointBand =
          node.insert_partial_schedule(points).as<isl::schedule_node_band>();
      if (unrollPoints)
        for (unsigned a = 0; a < n; ++a)
          pointBand = pointBand.member_set_ast_loop_unroll(a);
      node = pointBand.insert_filter(mine).insert_mark("threads");
      // The barrier after each step is a statement instance per prefix
      // (T, S_hex, S_other..., t'), grafted after the step's work (as PPCG
      // does): isl then keeps the guards that test thread ids inside the
      // step, and every thread reaches the barrier.
      isl::union_set prefixes = node.prefix_schedule_union_map()
                                    .intersect_domain(model->domain)
                                    .range();
      // (A phase without instances needs none.)
      if (!prefixes.is_empty()) {
        isl_map *sync =
            isl_set_identity(isl_set_from_union_set(prefixes.release()));
        sync = isl_map_set_tuple_name(sync, isl_dim_out, kBarrierStatement);
        node = node.graft_after(isl::schedule_node::from_extension(
            isl::union_map(isl::manage(sync))));
      }
      // Up to the [S_hex] band: context and the kernel mark above it.
      while (isl_schedule_node_get_type(node.get()) != isl_schedule_node_band ||
             node.as<isl::schedule_node_band>().n_member() != 1 ||
             isl_schedule_node_get_schedule_depth(node.get()) != 1)
        node = node.parent();
      node = node.insert_context(context).insert_mark("kernel");
      schedule = node.schedule();
    }
    // Promotion never makes a program fail: without it, global memory.
    SmallVector<SharedBuffer> buffers;
    try {
      PromotionOptions promoting;
      promoting.mode = promotionFor(n);
      promoting.threads.assign(blockThreads.begin(), blockThreads.end());
      promoting.budgetBytes = sharedBudget;
      promoting.unrollCopies = unroll;
      promoting.interTileReuse = interTileReuseFor(*model);
      schedule = promoteToShared(scop, *model, schedule, promoting, buffers);
    } catch (const isl::exception &e) {
      buffers.clear();
      mlir::emitRemark(scop.getLoc(),
                       "no shared-memory promotion (isl failed: ")
          << e.what() << "); the kernels use global memory";
    }
    setPrintedSchedule(scop, toString(schedule));
    if (!buffers.empty())
      writeSharedBuffers(scop, buffers, promotionFor(n));
  } catch (const isl::exception &e) {
    return scop.emitOpError("isl failed while mapping to the GPU: ")
           << e.what();
  }
  Builder b(scop.getContext());
  scop.setGpuThreadsAttr(b.getDenseI64ArrayAttr(blockThreads));
  scop.setGpuMaxBlocksAttr(b.getI64IntegerAttr(maxBlocks));
  return success();
}

/// An untiled (canonical) scop, e.g. a time loop of one step: one launch
/// per statement and time step, as stencil-parallel-to-gpu maps the
/// reference lowering. Only the x size of `threads` is used.
///
///   band [K*t + k]                          host
///     mark "kernel"
///       context 0 <= tid_x < threads_x
///         band [s_0]                        blocks (1D: floor(s_0 / tx))
///           band [s_1 ... s_{n-2}]          sequential
///             band [floor(s_{n-1} / tx)]    per-thread points
///               mark "threads"
///                 filter s_{n-1} mod tx = tid_x
LogicalResult PolyToGpuPass::mapCanonical(ScopOp scop, const ScopModel &model) {
  unsigned n = model.numSpaceDims;
  int64_t tx;
  try {
    isl::ctx ctx = model.domain.ctx();
    isl::schedule_node mark = model.schedule.root().child(0).child(0);
    isl::schedule_node_band space =
        deleteNode(mark).as<isl::schedule_node_band>();
    isl::multi_union_pw_aff s = anonymousSchedule(space);
    // Extent of the innermost dimension (the threads' share of it).
    isl::union_set range =
        isl::union_map::from(s).intersect_domain(model.domain).range();
    if (range.is_empty())
      return success(); // Nothing to run.
    isl::set box = isl::manage(isl_set_from_union_set(range.release()));
    isl::val lo = box.dim_min_val(n - 1), hi = box.dim_max_val(n - 1);
    int64_t extent = lo.is_int() && hi.is_int()
                         ? hi.get_num_si() - lo.get_num_si() + 1
                         : 128;
    tx = threads.empty() ? std::min<int64_t>(128, extent) : threads[0];
    if (tx < 1 || tx > 1024)
      return mlir::emitError(scop.getLoc(),
                             "poly-to-gpu: threads must be in [1, 1024], got ")
             << tx;
    std::string t = std::to_string(tx), last = "a" + std::to_string(n - 1);
    // Outer bands, then the innermost dimension split over the threads.
    std::string points = "floor(" + last + "/" + t + ")";
    isl::multi_aff split(ctx, "{ [" + vars(n) + "] -> [" + points + "] }");
    isl::set threadSet(ctx, "[tid_x] -> { [" + vars(n) + "] : " + last +
                                " mod " + t + " = tid_x }");
    isl::union_set mine = isl::union_map::from(s)
                              .intersect_range(isl::union_set(threadSet))
                              .domain()
                              .gist(model.domain)
                              .coalesce();
    // Built bottom-up: each insertion goes above the node.
    isl::schedule_node node =
        deleteNode(space).insert_filter(mine).insert_mark("threads");
    node = node.insert_partial_schedule(isl::manage(
        isl_multi_union_pw_aff_apply_multi_aff(s.copy(), split.release())));
    if (n > 1) {
      node = node.insert_partial_schedule(isl::manage(
          isl_multi_union_pw_aff_drop_dims(s.copy(), isl_dim_out, n - 1, 1)));
      if (n > 2)
        node = node.as<isl::schedule_node_band>().split(1);
    }
    node = node.insert_context(
                   isl::set(ctx, "[tid_x] -> { [T] : 0 <= tid_x < " + t + " }"))
               .insert_mark("kernel");
    setPrintedSchedule(scop, toString(node.schedule()));
  } catch (const isl::exception &e) {
    return scop.emitOpError("isl failed while mapping to the GPU: ")
           << e.what();
  }
  Builder b(scop.getContext());
  scop.setGpuThreadsAttr(b.getDenseI64ArrayAttr({tx}));
  scop.setGpuMaxBlocksAttr(b.getI64IntegerAttr(maxBlocks));
  return success();
}

} // namespace

void mlir::stencil::poly::leaveTilingToGpuMapping(OpPassManager &pm) {
  // The last time tiling seen, while only shape inference follows it.
  Pass *tiling = nullptr;
  for (Pass &pass : pm.getPasses()) {
    StringRef name = pass.getArgument();
    if (name == "poly-to-gpu" && tiling) {
      if (!detail::leaveHexTilingToGpuMapping(*tiling))
        detail::leaveSplitTilingToGpuMapping(*tiling);
      tiling = nullptr;
    } else if (name == "hex-tile" || name == "split-tile") {
      tiling = &pass;
    } else if (name != "stencil-shape-inference") {
      tiling = nullptr;
    }
  }
}

FailureOr<bool> mlir::stencil::poly::gpuIsolatesFullTiles(ScopOp scop) {
  // (Counted first: most large programs need no parse of their scop.)
  if (stepOperations(scop) > kMaxIsolatedStepOps)
    return false;
  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (!model)
    return scop.emitOpError("cannot read the polyhedral form: ") << error;
  return model->numSpaceDims < 3 && model->statementsPerStep == 1;
}

bool mlir::stencil::poly::leavesTilingToGpuMapping(ScopOp scop,
                                                   StringRef target,
                                                   int64_t height,
                                                   bool widthsGiven,
                                                   bool ignoreDependences) {
  return target == "auto" && height == -1 && !widthsGiven &&
         !ignoreDependences && !scop->hasAttr(kFuseRequestAttr) &&
         !scop->hasAttr(kFusedLocalAttr);
}

FailureOr<bool> mlir::stencil::poly::tilingIsolatesFullTiles(ScopOp scop,
                                                             bool gpuTarget,
                                                             bool given,
                                                             bool isolate) {
  if (given || !gpuTarget)
    return isolate;
  return gpuIsolatesFullTiles(scop);
}
