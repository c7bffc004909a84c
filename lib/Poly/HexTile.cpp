//===- HexTile.cpp - the --hex-tile pass ----------------------------------===//
//
// Applies hybrid hexagonal/parallelogram tiling (HybridTiling.h) to every
// time-loop scop: the slopes come from the dependences, the tile sizes from
// the options or defaultTileSizes(), and the tiled schedule is verified
// against the dependences before it replaces the canonical one.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/HybridTiling.h"
#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"
#include "Stencil/Poly/TileSizeModel.h"

#include "mlir/IR/Threading.h"
#include "mlir/Pass/PassManager.h"

#include <atomic>

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_HEXTILE
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

struct HexTilePass : mlir::stencil::poly::impl::HexTileBase<HexTilePass> {
  using Base::Base;

  LogicalResult tile(ScopOp scop);

  /// Set by leaveTilingToGpuMapping: a poly-to-gpu follows, which tiles
  /// again the scops this pass would tile for a target not yet known.
  bool gpuMappingFollows = false;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (hasUnboundedTemps(module)) {
      OpPassManager pm(ModuleOp::getOperationName());
      addShapeInference(pm);
      if (failed(runPipeline(pm, module)))
        return signalPassFailure();
    }
    extractScops(module, /*sweeps=*/false);
    SmallVector<ScopOp> scops;
    module.walk([&](ScopOp scop) { scops.push_back(scop); });
    for (ScopOp scop : scops)
      if (failed(tile(scop)))
        signalPassFailure();
  }
};

LogicalResult HexTilePass::tile(ScopOp scop) {
  if (target != "cpu" && target != "gpu" && target != "auto")
    return mlir::emitError(scop.getLoc(),
                           "target must be 'cpu', 'gpu' or 'auto', got '")
           << target << "'";
  HexTileRequest request;
  request.height = height;
  request.widths.assign(widths.begin(), widths.end());
  request.hexDim = hexDim;
  request.gpuSizes = target == "gpu";
  FailureOr<bool> isolating = tilingIsolatesFullTiles(
      scop, target == "gpu", isolate.hasValue(), isolate);
  if (failed(isolating))
    return failure();
  request.isolate = *isolating;
  request.isolateSeveralStatements = isolate.hasValue();
  // Unrolled steps are straight-line code in a GPU tile (fewer
  // instructions per update, fewer registers); the CPU keeps its loops.
  request.unroll = unroll.hasValue() ? unroll : target == "gpu";
  request.ignoreDependences = testIgnoreDependences;
  request.offset = offset;
  request.model = sizeModel;
  request.budgetBytes = cacheKiB * 1024;
  request.report = report;
  if (cacheKiB < 0)
    return mlir::emitError(scop.getLoc(), "cache-kib must be at least 0, got ")
           << cacheKiB.getValue();
  if (!(gpuMappingFollows &&
        leavesTilingToGpuMapping(scop, target, height, !widths.empty(),
                                 testIgnoreDependences)) &&
      failed(hexTileScop(scop, request)))
    return failure();
  // Default sizes for a target not yet known: poly-to-gpu tiles again.
  if (target == "auto" && height < 0 && widths.empty()) {
    Builder b(scop.getContext());
    SmallVector<NamedAttribute> carried = {
        b.getNamedAttr("hex_dim", b.getI64IntegerAttr(hexDim))};
    // Isolation and unrolling only when asked for: otherwise the GPU
    // chooses (ScopToGpu).
    if (isolate.hasValue())
      carried.push_back(b.getNamedAttr("isolate", b.getBoolAttr(isolate)));
    if (unroll.hasValue())
      carried.push_back(b.getNamedAttr("unroll", b.getBoolAttr(unroll)));
    if (offset.hasValue())
      carried.push_back(b.getNamedAttr("offset", b.getI64IntegerAttr(offset)));
    scop->setAttr(kRetileForGpuAttr, b.getDictionaryAttr(carried));
  }
  return success();
}

} // namespace

/// Shrinks w0 so that the hexagonal tiles of one phase number at least
/// `minTiles` along s_hexDim: their period is W = 2 w0 + 2 + floor(delta0 h)
/// + floor(delta1 h) (sec. 3.3.3), so a domain of extent E has
/// ceil(E / W) of them. Keeps w0 when E is not a constant, and never goes
/// below the smallest valid w0 (a phase then has fewer tiles).
static void narrowHexagons(const ScopModel &model, const DependenceCone &cone,
                           int64_t minTiles, HybridTilingOptions &options) {
  unsigned hexDim = options.hexDim;
  isl::union_set points = model.domain.apply(model.canonical);
  if (isl_union_set_n_set(points.get()) != 1)
    return;
  isl::set box = isl::manage(isl_set_from_union_set(points.release()));
  isl::val lo = box.dim_min_val(1 + hexDim), hi = box.dim_max_val(1 + hexDim);
  if (!lo.is_int() || !hi.is_int())
    return;
  int64_t extent = hi.get_num_si() - lo.get_num_si() + 1;
  int64_t h = options.sizes.h;
  int64_t slopes =
      cone.upper[hexDim].floorTimes(h) + cone.lower[hexDim].floorTimes(h);
  int64_t &w0 = options.sizes.widths[hexDim];
  int64_t period = std::max<int64_t>(extent / minTiles, 1);
  int64_t wanted = std::max<int64_t>((period - 2 - slopes) / 2, 1);
  for (int64_t candidate = wanted; candidate < w0; ++candidate) {
    HybridTilingOptions narrower = options;
    narrower.sizes.widths[hexDim] = candidate;
    if (!checkTileSizes(cone, narrower)) {
      w0 = candidate;
      return;
    }
  }
}

/// hybridTilingIsLegal, with the tests of the two hexagonal phases in
/// parallel (each in an isl context of its own) where `context` allows
/// threads: a tenth of a second on Devito's elastic 3D forms.
static bool provedLegal(MLIRContext *context,
                        const std::optional<isl::set> &distanceBoxes,
                        const DependenceCone &cone,
                        const HybridTilingOptions &options) {
  if (!context->isMultithreadingEnabled() || !distanceBoxes ||
      distanceBoxes->is_empty() || checkTileSizes(cone, options))
    return hybridTilingIsLegal(distanceBoxes, cone, options);
  std::string text = toString(*distanceBoxes);
  std::atomic<bool> legal = true;
  parallelFor(context, 0, 2, [&](size_t phase) {
    IslContext local;
    std::string error;
    std::optional<isl::set> boxes = parseIsl<isl::set>(local, text, error);
    if (!boxes || !hybridTilingIsLegalFrom(*boxes, cone, options, phase))
      legal = false;
  });
  return legal;
}

struct HexTileAnalysis::Impl {
  IslContext ctx; // first: outlives the isl objects below
  TimeLoopAnalysis loop;
  std::optional<isl::set> distanceBoxes; // for hybridTilingIsLegal
  bool tiled = false; // loop.model->schedule is the scop's current one
};

HexTileAnalysis::HexTileAnalysis() = default;
HexTileAnalysis::~HexTileAnalysis() = default;

const ScopModel *HexTileAnalysis::tiledModel() const {
  return impl && impl->tiled ? &*impl->loop.model : nullptr;
}

LogicalResult mlir::stencil::poly::hexTileScop(ScopOp scop,
                                               const HexTileRequest &request,
                                               HexTileRequest *chosen,
                                               HexTileAnalysis *cached) {
  HexTileAnalysis local;
  HexTileAnalysis &analysis = cached ? *cached : local;
  if (!analysis.impl) {
    auto impl = std::make_unique<HexTileAnalysis::Impl>();
    TimeLoopAnalysis &loop = impl->loop;
    if (failed(analyzeTimeLoop(impl->ctx, scop, "hex-tile", loop)))
      return failure();
    if (loop.timeToTile)
      impl->distanceBoxes = dependenceDistanceBoxes(
          loop.model->canonical, loop.model->numSpaceDims, loop.deps);
    analysis.impl = std::move(impl);
  }
  if (!analysis.impl->loop.timeToTile)
    return success();
  const ScopModel *model = &*analysis.impl->loop.model;
  isl::union_map all = analysis.impl->loop.deps;
  std::optional<DependenceCone> cone = analysis.impl->loop.cone;
  std::string error;
  try {
    unsigned n = model->numSpaceDims;
    if (request.ignoreDependences)
      for (unsigned i = 0; i < n; ++i)
        cone->upper[i] = cone->lower[i] = Rational{0, 1};
    HybridTilingOptions options;
    options.hexDim = request.hexDim;
    options.statementsPerStep = model->statementsPerStep;
    options.isolateFullTiles =
        request.isolate &&
        (request.isolateSeveralStatements || model->statementsPerStep == 1);
    options.unrollTime = request.unroll;
    options.offset = request.offset;
    if (request.hexDim >= n)
      return mlir::emitError(scop.getLoc(), "hex-dim ")
             << request.hexDim << " is not a space dimension of this " << n
             << "-dimensional region";
    if (request.offset != 0 && innermostClassical(n, request.hexDim) >= n)
      return mlir::emitError(scop.getLoc(), "offset translates parallelogram "
                                            "tiles, which a ")
             << n << "-dimensional region does not have";
    // (A translation by whole tiles changes nothing; beyond 32 bits the
    // tile coordinates would overflow the generated index arithmetic.)
    if (std::abs(request.offset) > (int64_t(1) << 31))
      return mlir::emitError(scop.getLoc(), "offset must be at most 2^31 in "
                                            "magnitude, got ")
             << request.offset;
    if (request.height < -1)
      return mlir::emitError(scop.getLoc(), "h must be at least 0 (or -1 for "
                                            "the default), got ")
             << request.height;
    options.sizes =
        defaultTileSizes(*cone, request.hexDim, model->statementsPerStep,
                         request.gpuSizes ? TileTarget::Gpu : TileTarget::Cpu);
    if (request.model && !request.gpuSizes && request.height < 0 &&
        request.widths.empty())
      if (std::optional<HybridTileSizes> sizes =
              modelTileSizes<HybridTileSizes>(
                  scop, *model, "hex-tile", request.budgetBytes,
                  request.report,
                  [&](const TileModelProgram &program, int64_t budget,
                      TileCost &cost) {
                    return modelHybridTileSizes(program, *cone, request.hexDim,
                                                model->statementsPerStep,
                                                budget, cost);
                  }))
        options.sizes = *sizes;
    if (request.height >= 0)
      options.sizes.h = request.height;
    if (request.minParallelTiles > 0 && request.widths.empty())
      narrowHexagons(*model, *cone, request.minParallelTiles, options);
    if (!request.widths.empty()) {
      if (request.widths.size() != n)
        return mlir::emitError(scop.getLoc(), "widths needs ")
               << n << " values (one per space dimension), got "
               << request.widths.size();
      options.sizes.widths.assign(request.widths.begin(), request.widths.end());
    }
    if (std::optional<std::string> bad = checkTileSizes(*cone, options))
      return mlir::emitError(scop.getLoc(), "invalid tile sizes: ") << *bad;
    std::optional<isl::schedule> schedule = buildHybridSchedule(
        model->domain, model->canonical, *cone, options, error);
    if (!schedule)
      return mlir::emitError(scop.getLoc(), "hex-tile failed: ") << error;
    // The cheap proof first; the tree check decides, and names the
    // violated dependence, only when the proof does not go through.
    std::optional<std::string> violated;
    if (!provedLegal(scop->getContext(), analysis.impl->distanceBoxes, *cone,
                     options))
      violated = verifySchedule(*schedule, all);
    if (violated)
      return mlir::emitError(scop.getLoc(),
                             "the tiled schedule violates a dependence, not "
                             "applied: ")
             << *violated;
    setPrintedSchedule(scop, toString(*schedule));
    // Time tiling replaces a fusion of the steps (--fuse first).
    scop->removeAttr(kFusedLocalAttr);
    scop->removeAttr(kFuseRequestAttr);
    analysis.impl->loop.model->schedule = *schedule;
    analysis.impl->tiled = true;
    if (chosen) {
      *chosen = request;
      chosen->height = options.sizes.h;
      chosen->widths.assign(options.sizes.widths.begin(),
                            options.sizes.widths.end());
    }
  } catch (const isl::exception &e) {
    return mlir::emitError(scop.getLoc(), "isl failed while tiling: ")
           << e.what();
  }
  return success();
}

bool mlir::stencil::poly::detail::leaveHexTilingToGpuMapping(Pass &pass) {
  auto *hexTile = dyn_cast<HexTilePass>(&pass);
  if (hexTile)
    hexTile->gpuMappingFollows = true;
  return hexTile;
}
