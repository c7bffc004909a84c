//===- SplitTile.cpp - the --split-tile pass ------------------------------===//
//
// Applies split tiling (SplitTiling.h) to every time-loop scop: the slopes
// come from the dependences, the sizes from the options or
// defaultSplitTileSizes(), and the tiled schedule is verified against the
// dependences (exactly, with isl) before it replaces the canonical one.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"
#include "Stencil/Poly/SplitTiling.h"
#include "Stencil/Poly/TileSizeModel.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_SPLITTILE
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

struct SplitTilePass : mlir::stencil::poly::impl::SplitTileBase<SplitTilePass> {
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

LogicalResult SplitTilePass::tile(ScopOp scop) {
  if (target != "cpu" && target != "gpu" && target != "auto")
    return mlir::emitError(scop.getLoc(),
                           "target must be 'cpu', 'gpu' or 'auto', got '")
           << target << "'";
  SplitTileRequest request;
  request.height = height;
  request.widths.assign(widths.begin(), widths.end());
  request.gpuSizes = target == "gpu";
  FailureOr<bool> isolating = tilingIsolatesFullTiles(
      scop, target == "gpu", isolate.hasValue(), isolate);
  if (failed(isolating))
    return failure();
  request.isolate = *isolating;
  request.isolateSeveralStatements = isolate.hasValue();
  request.unroll = unroll.hasValue() ? unroll : target == "gpu";
  request.ignoreDependences = testIgnoreDependences;
  request.model = sizeModel;
  request.budgetBytes = cacheKiB * 1024;
  request.report = report;
  if (cacheKiB < 0)
    return mlir::emitError(scop.getLoc(), "cache-kib must be at least 0, got ")
           << cacheKiB.getValue();
  if (!(gpuMappingFollows &&
        leavesTilingToGpuMapping(scop, target, height, !widths.empty(),
                                 testIgnoreDependences)) &&
      failed(splitTileScop(scop, request)))
    return failure();
  // Default sizes for a target not yet known: poly-to-gpu tiles again.
  if (target == "auto" && height < 0 && widths.empty()) {
    Builder b(scop.getContext());
    SmallVector<NamedAttribute> carried;
    if (isolate.hasValue())
      carried.push_back(b.getNamedAttr("isolate", b.getBoolAttr(isolate)));
    if (unroll.hasValue())
      carried.push_back(b.getNamedAttr("unroll", b.getBoolAttr(unroll)));
    scop->setAttr(kSplitRetileForGpuAttr, b.getDictionaryAttr(carried));
  }
  return success();
}

} // namespace

LogicalResult
mlir::stencil::poly::splitTileScop(ScopOp scop,
                                   const SplitTileRequest &request) {
  IslContext ctx;
  TimeLoopAnalysis loop;
  if (failed(analyzeTimeLoop(ctx, scop, "split-tile", loop)))
    return failure();
  if (!loop.timeToTile)
    return success();
  const ScopModel &model = *loop.model;
  DependenceCone cone = *loop.cone;
  unsigned n = model.numSpaceDims;
  if (request.ignoreDependences)
    for (unsigned i = 0; i < n; ++i)
      cone.upper[i] = cone.lower[i] = Rational{0, 1};
  if (request.height < -1)
    return mlir::emitError(scop.getLoc(), "h must be at least 1 (or -1 for "
                                          "the default), got ")
           << request.height;
  SplitTilingOptions options;
  options.statementsPerStep = model.statementsPerStep;
  options.isolateFullTiles =
      request.isolate &&
      (request.isolateSeveralStatements || model.statementsPerStep == 1);
  options.unrollTime = request.unroll;
  options.sizes = defaultSplitTileSizes(cone, model.statementsPerStep,
                                        request.gpuSizes ? TileTarget::Gpu
                                                         : TileTarget::Cpu);
  if (request.model && !request.gpuSizes && request.height < 0 &&
      request.widths.empty())
    if (std::optional<SplitTileSizes> sizes = modelTileSizes<SplitTileSizes>(
            scop, model, "split-tile", request.budgetBytes, request.report,
            [&](const TileModelProgram &program, int64_t budget,
                TileCost &cost) {
              return modelSplitTileSizes(program, cone,
                                         model.statementsPerStep, budget, cost);
            }))
      options.sizes = *sizes;
  if (request.height >= 0)
    options.sizes.h = request.height;
  if (!request.widths.empty())
    options.sizes.widths.assign(request.widths.begin(), request.widths.end());
  if (std::optional<std::string> bad = checkSplitTileSizes(cone, options))
    return mlir::emitError(scop.getLoc(), "invalid tile sizes: ") << *bad;
  std::string error;
  std::optional<isl::schedule> schedule =
      buildSplitSchedule(model.domain, model.canonical, cone, options, error);
  if (!schedule)
    return mlir::emitError(scop.getLoc(), "split-tile failed: ") << error;
  // The cheap proof first; the tree check decides, and names the violated
  // dependence, only when the proof does not go through.
  std::optional<std::string> violated;
  if (!splitTilingIsLegal(
          dependenceDistanceBoxes(model.canonical, n, loop.deps), cone,
          options))
    violated = verifySchedule(*schedule, loop.deps);
  if (violated)
    return mlir::emitError(scop.getLoc(),
                           "the tiled schedule violates a dependence, not "
                           "applied: ")
           << *violated;
  setPrintedSchedule(scop, toString(*schedule));
  // Time tiling replaces a fusion of the steps (--fuse first).
  scop->removeAttr(kFusedLocalAttr);
  scop->removeAttr(kFuseRequestAttr);
  return success();
}

bool mlir::stencil::poly::detail::leaveSplitTilingToGpuMapping(Pass &pass) {
  auto *splitTile = dyn_cast<SplitTilePass>(&pass);
  if (splitTile)
    splitTile->gpuMappingFollows = true;
  return splitTile;
}
