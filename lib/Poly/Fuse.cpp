//===- Fuse.cpp - the --fuse pass -----------------------------------------===//
//
// Fuses the statements of each step of every untiled scop by overlapped
// tiling (Fusion.h): the plan replaces the canonical schedule, and the
// tile-local buffers of the intermediates are recorded on the scop
// (kFusedLocalAttr) for the code generation.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/Fusion.h"
#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"
#include "Stencil/Poly/TileSizeModel.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_FUSE
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  return llvm::join(llvm::map_range(shape,
                                    [](int64_t s) { return std::to_string(s); }),
                    "x");
}

struct FusePass : mlir::stencil::poly::impl::FuseBase<FusePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (hasUnboundedTemps(module)) {
      OpPassManager pm(ModuleOp::getOperationName());
      addShapeInference(pm);
      if (failed(runPipeline(pm, module)))
        return signalPassFailure();
    }
    extractScops(module, /*sweeps=*/true);
    FuseRequest request;
    request.tileSizes.assign(tile.begin(), tile.end());
    request.budgetBytes = cacheKiB * 1024;
    request.report = report;
    Builder b(module.getContext());
    SmallVector<NamedAttribute> given;
    if (!tile.empty())
      given.push_back(
          b.getNamedAttr("tile", b.getDenseI64ArrayAttr(request.tileSizes)));
    SmallVector<ScopOp> scops;
    module.walk([&](ScopOp scop) { scops.push_back(scop); });
    for (ScopOp scop : scops) {
      if (cacheKiB < 0) {
        mlir::emitError(scop.getLoc(), "fuse: cache-kib must be at least 0, got ")
            << cacheKiB.getValue();
        signalPassFailure();
        continue;
      }
      if (failed(fuseScop(scop, request)))
        signalPassFailure();
      // poly-to-gpu plans again for a GPU, with these sizes if given.
      else if (scop->hasAttr(kFusedLocalAttr))
        scop->setAttr(kFuseRequestAttr, b.getDictionaryAttr(given));
    }
  }
};

} // namespace

LogicalResult mlir::stencil::poly::fuseScop(ScopOp scop,
                                            const FuseRequest &request) {
  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (!model)
    return scop.emitOpError("cannot read the polyhedral form: ") << error;
  unsigned n = model->numSpaceDims;
  // Time-tiled or mapped scops keep their schedule; a fused one is planned
  // again (for a GPU).
  if (n == 0 || (!isCanonical(model->schedule, n) &&
                 !scop->hasAttr(kFusedLocalAttr)))
    return success();
  SmallVector<FusionStatement> statements;
  SmallVector<FusionArray> arrays;
  try {
    for (StmtOp stmt : scop.getStatements()) {
      FusionStatement &s = statements.emplace_back();
      s.name = stmt.getSymName().str();
      s.domain = isl::set(ctx, stmt.getDomain().str());
      s.write = isl::map(ctx, stmt.getWrites().str());
      for (Attribute read : stmt.getReads())
        s.reads.push_back(
            isl::map(ctx, cast<StringAttr>(read).getValue().str()));
    }
  } catch (const isl::exception &e) {
    return scop.emitOpError("invalid statement: ") << e.what();
  }
  for (ArrayOp array : scop.getArrays())
    arrays.push_back(
        {array.getSymName().str(), array.isTemp(), array.getElementBytes()});
  FusionOptions options;
  options.tileSizes = request.tileSizes;
  options.gpu = request.gpu;
  options.threads = request.threads;
  options.budgetBytes = request.budgetBytes > 0 ? request.budgetBytes
                        : request.gpu          ? 48 * 1024
                                               : hostL2CacheBytes() / 2;
  std::optional<FusionPlan> plan =
      planFusion(statements, arrays, n, options, error);
  if (!plan) {
    if (!error.empty())
      return mlir::emitError(scop.getLoc(), "fuse: ") << error;
    if (request.report)
      mlir::emitRemark(scop.getLoc(),
                       "fuse: nothing to fuse (no two statements of a step "
                       "can share a tile)");
    return success();
  }
  setPrintedSchedule(scop, toString(plan->schedule));
  Builder b(scop.getContext());
  SmallVector<Attribute> entries;
  for (const LocalBuffer &buffer : plan->buffers)
    entries.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("array", FlatSymbolRefAttr::get(scop.getContext(),
                                                        buffer.array)),
         b.getNamedAttr("offset", b.getStringAttr(toString(buffer.offset))),
         b.getNamedAttr("shape", b.getDenseI64ArrayAttr(buffer.shape))}));
  scop->setAttr(kFusedLocalAttr, b.getArrayAttr(entries));
  if (request.gpu)
    scop.setGpuThreadsAttr(b.getDenseI64ArrayAttr(plan->threads));
  if (request.report) {
    SmallVector<std::string> groups, buffers;
    for (ArrayRef<unsigned> group : plan->groups)
      groups.push_back(
          "(" +
          llvm::join(llvm::map_range(
                         group, [&](unsigned k) { return statements[k].name; }),
                     " ") +
          ")");
    for (const LocalBuffer &buffer : plan->buffers)
      buffers.push_back("@" + buffer.array + " " + shapeText(buffer.shape));
    char figures[128];
    snprintf(figures, sizeof(figures),
             "recomputation %.3f, footprint %lld KiB (budget %lld KiB)",
             plan->recomputation,
             (long long)llvm::divideCeil(plan->footprintBytes, 1024),
             (long long)(options.budgetBytes / 1024));
    mlir::emitRemark(scop.getLoc(), "fuse: groups ")
        << llvm::join(groups, " ") << ", tiles " << shapeText(plan->tileSizes)
        << (request.tileSizes.empty() ? " (model)" : " (given)")
        << (request.gpu ? ", threads " + shapeText(plan->threads) : "")
        << ", local buffers "
        << (buffers.empty() ? std::string("none") : llvm::join(buffers, ", "))
        << "; model: " << figures;
  }
  return success();
}

LogicalResult mlir::stencil::poly::readFusedLocalBuffers(
    isl::ctx ctx, ScopOp scop, SmallVectorImpl<LocalBuffer> &buffers,
    std::string &error) {
  auto entries = scop->getAttrOfType<ArrayAttr>(kFusedLocalAttr);
  if (!entries)
    return success();
  for (Attribute entry : entries) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto array = dict ? dict.getAs<FlatSymbolRefAttr>("array") : nullptr;
    auto offset = dict ? dict.getAs<StringAttr>("offset") : nullptr;
    auto shape = dict ? dict.getAs<DenseI64ArrayAttr>("shape") : nullptr;
    if (!array || !offset || !shape) {
      error = std::string(kFusedLocalAttr) +
              " entries need array, offset and shape";
      return failure();
    }
    LocalBuffer &buffer = buffers.emplace_back();
    buffer.array = array.getValue().str();
    buffer.shape.assign(shape.asArrayRef().begin(), shape.asArrayRef().end());
    std::optional<isl::multi_aff> parsed =
        parseIsl<isl::multi_aff>(ctx, offset.getValue(), error);
    if (!parsed)
      return failure();
    buffer.offset = *parsed;
    if (buffer.offset.range_tuple_id().name() != buffer.array ||
        unsigned(buffer.offset.size()) != buffer.shape.size() ||
        llvm::any_of(buffer.shape, [](int64_t s) { return s < 1; })) {
      error = std::string(kFusedLocalAttr) + " offset of @" + buffer.array +
              " must map into the array with one value per dimension of a "
              "positive shape";
      return failure();
    }
  }
  return success();
}
