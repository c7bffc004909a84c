//===- Dependences.cpp - the isl view of a poly.scop and its dependences --===//

#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Poly/ScopModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <array>
#include <mutex>

namespace mlir::stencil::poly {
#define GEN_PASS_DEF_POLYPRINTDEPENDENCES
#include "Stencil/Poly/Passes.h.inc"
} // namespace mlir::stencil::poly

using namespace mlir;
using namespace mlir::stencil::poly;

std::optional<ScopModel> mlir::stencil::poly::readScop(isl::ctx ctx,
                                                       ScopOp scop,
                                                       std::string &error) {
  ScopModel model;
  // The extraction reads the statements before there is a schedule.
  if (!scop.getSchedule().empty()) {
    auto schedule = parseIsl<isl::schedule>(ctx, scop.getSchedule(), error);
    if (!schedule)
      return std::nullopt;
    model.schedule = *schedule;
  }
  model.domain = isl::union_set::empty(ctx);
  model.writes = isl::union_map::empty(ctx);
  model.reads = isl::union_map::empty(ctx);
  model.canonical = isl::union_map::empty(ctx);
  unsigned k = 0;
  int rank = -1;
  auto stmts = llvm::to_vector(scop.getStatements());
  model.statementsPerStep = stmts.size();
  for (StmtOp stmt : stmts) {
    auto domain = parseIsl<isl::set>(ctx, stmt.getDomain(), error);
    auto writes = parseIsl<isl::map>(ctx, stmt.getWrites(), error);
    if (!domain || !writes)
      return std::nullopt;
    int dims = int(domain->tuple_dim());
    if (rank >= 0 && dims != rank) {
      error = "statements of different ranks";
      return std::nullopt;
    }
    rank = dims;
    model.domain = model.domain.unite(*domain);
    model.writes = model.writes.unite(writes->intersect_domain(*domain));
    for (Attribute read : stmt.getReads()) {
      auto map = parseIsl<isl::map>(ctx, cast<StringAttr>(read).getValue(),
                                    error);
      if (!map)
        return std::nullopt;
      model.reads = model.reads.unite(map->intersect_domain(*domain));
    }
    // S[t, s...] -> [K*t + k, s...]
    std::string vars, out;
    for (int d = 1; d < dims; ++d) {
      vars += ", s" + std::to_string(d);
      out += ", s" + std::to_string(d);
    }
    std::string text = "{ " + stmt.getSymName().str() + "[t" + vars +
                       "] -> [(" + std::to_string(stmts.size()) + "t + " +
                       std::to_string(k) + ")" + out + "] }";
    model.canonical = model.canonical.unite(isl::union_map(ctx, text));
    ++k;
  }
  model.numSpaceDims = rank > 0 ? unsigned(rank - 1) : 0;
  // (isl objects cannot be copied while null.)
  if (scop.getSchedule().empty())
    model.schedule = isl::schedule::from_domain(model.domain);
  return model;
}

isl::schedule mlir::stencil::poly::canonicalSchedule(isl::union_set domain,
                                                     isl::union_map canonical,
                                                     unsigned numSpaceDims) {
  isl::ctx ctx = domain.ctx();
  // Nothing to schedule (a time loop without steps): no bands, whose
  // partial schedules would have no space.
  if (domain.is_empty())
    return isl::schedule::from_domain(domain);
  // The members [first, first + count) of the canonical schedule.
  auto members = [&](unsigned first, unsigned count) {
    std::string in, out;
    for (unsigned d = 0; d <= numSpaceDims; ++d) {
      in += (d ? ", x" : "x") + std::to_string(d);
      if (d >= first && d < first + count)
        out += (out.empty() ? "x" : ", x") + std::to_string(d);
    }
    isl::union_map projection(ctx, "{ [" + in + "] -> [" + out + "] }");
    isl::union_pw_multi_aff members =
        canonical.intersect_domain(domain).apply_range(projection)
            .as_union_pw_multi_aff();
    return isl::manage(
        isl_multi_union_pw_aff_from_union_pw_multi_aff(members.release()));
  };
  isl::schedule schedule = isl::schedule::from_domain(domain);
  isl::schedule_node node = schedule.root().child(0);
  node = node.insert_partial_schedule(members(0, 1));
  if (numSpaceDims > 0) {
    node = node.child(0);
    node = node.insert_mark(isl::id(ctx, "parallel")).child(0);
    node = node.insert_partial_schedule(members(1, numSpaceDims));
    node = node.as<isl::schedule_node_band>().member_set_coincident(0, true);
  }
  return node.schedule();
}

namespace {

/// The dependences of the program order depend on the domains and accesses
/// only, not on the scop's current schedule, and one compilation computes
/// them for the same statements in several passes (--hex-tile, then
/// poly-to-gpu's re-tiling for the GPU). They are remembered by the text of
/// the statements, as text (isl objects belong to one pass's context).
class DependenceMemo {
public:
  using Key = std::pair<uint64_t, size_t>;
  static Key key(const ScopModel &model) {
    std::string text = toString(model.domain) + "|" + toString(model.reads) +
                       "|" + toString(model.writes) + "|" +
                       toString(model.canonical);
    return {llvm::xxh3_64bits(text), text.size()};
  }
  std::optional<Dependences> find(const Key &key, isl::ctx ctx) {
    std::array<std::string, 3> texts;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = known.find(key);
      if (it == known.end())
        return std::nullopt;
      texts = it->second;
    }
    Dependences deps;
    deps.flow = isl::union_map(ctx, texts[0]);
    deps.anti = isl::union_map(ctx, texts[1]);
    deps.output = isl::union_map(ctx, texts[2]);
    return deps;
  }
  void insert(const Key &key, const Dependences &deps) {
    std::array<std::string, 3> texts = {
        toString(deps.flow), toString(deps.anti), toString(deps.output)};
    std::lock_guard<std::mutex> lock(mutex);
    if (known.size() >= 256)
      known.clear();
    known[key] = std::move(texts);
  }

private:
  std::mutex mutex;
  llvm::DenseMap<Key, std::array<std::string, 3>> known;
};

DependenceMemo &dependenceMemo() {
  static DependenceMemo memo;
  return memo;
}

} // namespace

Dependences mlir::stencil::poly::computeDependences(const ScopModel &model) {
  DependenceMemo::Key key = DependenceMemo::key(model);
  if (std::optional<Dependences> known =
          dependenceMemo().find(key, model.domain.ctx()))
    return *known;
  isl::schedule schedule =
      canonicalSchedule(model.domain, model.canonical, model.numSpaceDims);
  // Many reads of one array merge into few pieces (a stencil's neighbours
  // form a box), which makes the flow computation much cheaper.
  ScopModel m = model;
  m.reads = m.reads.coalesce();
  m.writes = m.writes.coalesce();
  Dependences deps;
  deps.flow = isl::union_access_info(m.reads)
                  .set_must_source(m.writes)
                  .set_schedule(schedule)
                  .compute_flow()
                  .may_dependence();
  deps.output = isl::union_access_info(m.writes)
                    .set_must_source(m.writes)
                    .set_schedule(schedule)
                    .compute_flow()
                    .may_dependence();
  // Anti dependences: each read to the first write of its location after
  // it (a later write depends on that one through the output dependences).
  // That is the last write before the read in the reversed order, a flow
  // computation with must sources: cheaper than asking, for each write,
  // which reads no intermediate write kills (the same pairs; elastic 3D at
  // order 8: 0.38 -> 0.2 s).
  isl_space *scheduleSpace =
      isl_space_set_alloc(model.domain.ctx().get(), 0, model.numSpaceDims + 1);
  isl::union_map negate(isl::manage(
      isl_union_map_from_map(isl_map_from_multi_aff(isl_multi_aff_neg(
          isl_multi_aff_identity(isl_space_map_from_set(scheduleSpace)))))));
  isl::schedule backwards = canonicalSchedule(
      model.domain, model.canonical.apply_range(negate), model.numSpaceDims);
  deps.anti = isl::union_access_info(m.reads)
                  .set_must_source(m.writes)
                  .set_schedule(backwards)
                  .compute_flow()
                  .may_dependence()
                  .reverse();
  deps.flow = deps.flow.coalesce();
  deps.anti = deps.anti.coalesce();
  deps.output = deps.output.coalesce();
  dependenceMemo().insert(key, deps);
  return deps;
}

namespace {

struct PolyPrintDependencesPass
    : mlir::stencil::poly::impl::PolyPrintDependencesBase<
          PolyPrintDependencesPass> {
  void runOnOperation() override {
    getOperation().walk([&](ScopOp scop) {
      IslContext ctx;
      std::string error;
      std::optional<ScopModel> model = readScop(ctx, scop, error);
      if (!model) {
        scop.emitError("cannot read the polyhedral form: ") << error;
        return signalPassFailure();
      }
      try {
        Dependences deps = computeDependences(*model);
        // On stderr, so that the IR on stdout stays parseable.
        llvm::raw_ostream &os = llvm::errs();
        os << "scop at " << scop.getLoc() << "\n";
        auto print = [&](StringRef kind, isl::union_map map) {
          os << "  " << kind << ": " << toString(map.coalesce()) << "\n";
          isl::union_map distances =
              map.apply_domain(model->canonical).apply_range(model->canonical);
          os << "  " << kind << " distances: "
             << toString(distances.deltas().coalesce()) << "\n";
        };
        print("flow", deps.flow);
        print("anti", deps.anti);
        print("output", deps.output);
      } catch (const isl::exception &e) {
        scop.emitError("dependence analysis failed: ") << e.what();
        signalPassFailure();
      }
    });
  }
};

} // namespace

LogicalResult mlir::stencil::poly::analyzeTimeLoop(isl::ctx ctx, ScopOp scop,
                                                   StringRef tiling,
                                                   TimeLoopAnalysis &analysis) {
  std::string error;
  analysis.model = readScop(ctx, scop, error);
  try {
    if (!analysis.model)
      return mlir::emitError(scop.getLoc(), "cannot read the polyhedral form: ")
             << error;
    const ScopModel &model = *analysis.model;
    unsigned n = model.numSpaceDims;
    if (n == 0)
      return mlir::emitError(scop.getLoc(), "cannot ")
             << tiling << " a region without space dimensions";
    // A single sweep (only t = 0) has no time to tile.
    std::string space;
    for (unsigned d = 1; d <= n; ++d)
      space += ", x" + std::to_string(d);
    isl::union_set later =
        model.domain.apply(model.canonical)
            .intersect(isl::union_set(isl::set(
                ctx, "{ [x0" + space + "] : x0 >= " +
                         std::to_string(model.statementsPerStep) + " }")));
    analysis.timeToTile = !later.is_empty();
    if (!analysis.timeToTile)
      return success();
    analysis.deps = computeDependences(model).all();
    analysis.cone =
        computeDependenceCone(analysis.deps, model.canonical, n, error);
    if (!analysis.cone)
      return mlir::emitError(scop.getLoc(), "cannot ")
             << tiling << ": " << error;
  } catch (const isl::exception &e) {
    return mlir::emitError(scop.getLoc(), "isl failed while tiling: ")
           << e.what();
  }
  return success();
}

bool mlir::stencil::poly::isCanonical(isl::schedule schedule, unsigned numSpaceDims) {
  isl::schedule_node t = schedule.root().child(0);
  if (isl_schedule_node_get_type(t.get()) != isl_schedule_node_band ||
      t.as<isl::schedule_node_band>().n_member() != 1)
    return false;
  isl::schedule_node mark = t.child(0);
  if (isl_schedule_node_get_type(mark.get()) != isl_schedule_node_mark)
    return false;
  isl::schedule_node space = mark.child(0);
  return isl_schedule_node_get_type(space.get()) == isl_schedule_node_band &&
         space.as<isl::schedule_node_band>().n_member() == numSpaceDims &&
         isl_schedule_node_get_type(space.child(0).get()) ==
             isl_schedule_node_leaf;
}

bool mlir::stencil::poly::isTimeTiled(isl::schedule schedule,
                                      unsigned numSpaceDims) {
  isl::schedule_node t = schedule.root().child(0);
  if (isl_schedule_node_get_type(t.get()) != isl_schedule_node_band ||
      t.as<isl::schedule_node_band>().n_member() != 1)
    return false;
  isl::schedule_node seq = t.child(0);
  if (isl_schedule_node_get_type(seq.get()) != isl_schedule_node_sequence)
    return false;
  for (int p = 0; p < int(seq.n_children()); ++p) {
    isl::schedule_node mark = seq.child(p).child(0);
    if (isl_schedule_node_get_type(mark.get()) != isl_schedule_node_mark)
      return false;
    isl_id *id = isl_schedule_node_mark_get_id(mark.get());
    bool parallel = StringRef(isl_id_get_name(id)) == "parallel";
    isl_id_free(id);
    if (!parallel)
      return false;
    isl::schedule_node tile = mark.child(0);
    unsigned sizes[] = {numSpaceDims, 1, numSpaceDims};
    for (unsigned size : sizes) {
      if (isl_schedule_node_get_type(tile.get()) != isl_schedule_node_band ||
          tile.as<isl::schedule_node_band>().n_member() != size)
        return false;
      tile = tile.child(0);
    }
  }
  return true;
}

std::optional<TileModelProgram>
mlir::stencil::poly::tileModelProgram(ScopOp scop, const ScopModel &model,
                                      std::string &error) {
  isl::ctx ctx = model.domain.ctx();
  std::optional<isl::union_pw_multi_aff> canonical =
      affineCanonical(model.canonical, model.numSpaceDims, error);
  if (!canonical)
    return std::nullopt;
  TileModelProgram program;
  program.canonical = *canonical;
  for (StmtOp stmt : scop.getStatements()) {
    auto write = parseIsl<isl::map>(ctx, stmt.getWrites(), error);
    if (!write)
      return std::nullopt;
    program.writes.push_back(*write);
    for (Attribute read : stmt.getReads()) {
      auto map = parseIsl<isl::map>(ctx, cast<StringAttr>(read).getValue(),
                                    error);
      if (!map)
        return std::nullopt;
      program.reads.push_back(*map);
    }
  }
  for (ArrayOp array : scop.getArrays())
    program.elementBytes[array.getSymName()] = array.getElementBytes();
  return program;
}

void mlir::stencil::poly::reportModel(ScopOp scop, StringRef tiling, int64_t h,
                                      ArrayRef<int64_t> widths,
                                      const TileCost &cost,
                                      int64_t budgetBytes) {
  if (h < 0) {
    mlir::emitRemark(scop.getLoc())
        << tiling << ": the tile-size model found no sizes; the defaults";
    return;
  }
  std::string list;
  for (int64_t w : widths)
    list += (list.empty() ? "" : ",") + std::to_string(w);
  char figures[160];
  snprintf(figures, sizeof(figures),
           "%.4f loads+stores per update (%lld loads, %lld stores, %lld "
           "updates per tile), footprint %lld KiB (budget %lld KiB)",
           cost.trafficPerUpdate(), (long long)cost.loads,
           (long long)cost.stores, (long long)cost.updates,
           (long long)llvm::divideCeil(cost.footprintBytes, 1024),
           (long long)(budgetBytes / 1024));
  if (cost.footprintBytes > budgetBytes) {
    mlir::emitRemark(scop.getLoc())
        << tiling << ": no tile within the budget (the smallest the model "
        << "found: h=" << h << " widths=" << list << ", " << figures
        << "); the defaults";
    return;
  }
  mlir::emitRemark(scop.getLoc())
      << tiling << ": sizes h=" << h << " widths=" << list << " (model): "
      << figures;
}
