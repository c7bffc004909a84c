//===- TileSizeModel.cpp - tile sizes of the time tilings by a model ------===//
//
// The model of the thesis's tile-size discussion (sec. 5.3, 7.2): a tile
// should do as many updates per element it moves between memory and cache
// as its footprint allows. Everything is counted with isl on one concrete
// tile (isl_set_count_val), so statements, offsets, time levels and tile
// shapes enter as they are, not through hand-derived formulas:
//
//   updates    statement instances of the tile;
//   loads      array elements whose first access in the tile (in canonical
//              time) is a read: they come from memory;
//   stores     array elements the tile writes: they go back to memory;
//   footprint  bytes of every element the tile touches (must stay in cache
//              for the loads to be loaded once).
//
// The search goes one parameter at a time (h, then w0, then the classical
// widths, repeated while it improves) from the fixed defaults, over the
// values each tiling allows.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/TileSizeModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <fstream>
#include <functional>
#include <map>

using namespace mlir::stencil::poly;
using llvm::SmallVector;

namespace {

int64_t count(const isl::set &set) {
  isl::val v = isl::manage(isl_set_count_val(set.get()));
  return v.is_int() ? v.get_num_si() : -1;
}

/// The number of elements of each set of `sets`, summed with `weight` by
/// tuple name; -1 on failure.
int64_t countWeighted(const isl::union_set &sets,
                      const std::function<int64_t(const std::string &)> &weight) {
  int64_t total = 0;
  isl::set_list list = sets.set_list();
  for (unsigned i = 0; i < unsigned(list.size()); ++i) {
    isl::set set = list.at(i);
    int64_t c = count(set);
    if (c < 0)
      return -1;
    const char *name = isl_set_get_tuple_name(set.get());
    total += c * weight(name ? name : "");
  }
  return total;
}

std::string rangeName(const isl::map &map) {
  const char *name = isl_map_get_tuple_name(map.get(), isl_dim_out);
  return name ? name : "";
}

std::string pointNames(unsigned n) {
  std::string list = "x0";
  for (unsigned i = 1; i <= n; ++i)
    list += ", x" + std::to_string(i);
  return list;
}

} // namespace

std::optional<TileCost>
mlir::stencil::poly::interiorTileCost(const TileModelProgram &program,
                                      const TilePiece &piece,
                                      unsigned numSpaceDims) {
  try {
    isl::ctx ctx = piece.points.ctx();
    std::string x = pointNames(numSpaceDims);
    // A tile far from the origin: the one of some point of the piece there.
    std::string far;
    for (unsigned i = 0; i <= numSpaceDims; ++i)
      far += (i ? " and " : "") + std::string("10000 <= x") +
             std::to_string(i) + " < 20000";
    isl::set around(ctx, "{ [" + x + "] : " + far + " }");
    isl::set some = piece.points.intersect(around);
    if (some.is_empty())
      return std::nullopt;
    isl::set point = isl::set(some.sample_point());
    isl::set tile = point.apply(
        isl::manage(isl_map_from_multi_aff(piece.tile.copy())));
    // Fixing the tile fixes the floors of the tile coordinates: found as
    // equalities, they leave a set without existentials, which halves the
    // cost of counting what it reaches.
    isl::set tilePoints =
        piece.points.intersect(tile.preimage(piece.tile)).detect_equalities();
    isl::union_set instances =
        isl::union_set(tilePoints).preimage(program.canonical);

    TileCost cost;
    cost.updates = countWeighted(instances, [](const std::string &) { return 1; });
    if (cost.updates <= 0)
      return std::nullopt;
    // Per array, the relations from each element to the canonical times
    // the tile reads and writes it. An element is loaded unless every read
    // of it comes after some write: the writes with a read at the same time
    // or before them are removed, and the elements left with a write are
    // the ones written first. Relations and set differences only: isl's
    // comparisons of piecewise minima cost ten times more.
    isl::multi_aff timeOfPoint(ctx, "{ [" + x + "] -> [x0] }");
    isl::space pointSpace =
        isl::manage(isl_multi_aff_get_domain_space(timeOfPoint.get()));
    isl::union_map canonical = isl::manage(
        isl_union_map_from_union_pw_multi_aff(program.canonical.copy()));
    auto timesOf = [&](llvm::ArrayRef<isl::map> accesses) {
      llvm::StringMap<isl::map> times;
      for (const isl::map &access : accesses) {
        isl::space space = access.domain().space();
        isl::set mine = instances.extract_set(space);
        if (mine.is_empty())
          continue;
        isl::map toTime =
            canonical.extract_map(isl::manage(isl_space_map_from_domain_and_range(
                                    space.copy(), pointSpace.copy())))
                .apply_range(isl::manage(
                    isl_map_from_multi_aff(timeOfPoint.copy())));
        isl::map elementToTime =
            access.intersect_domain(mine).reverse().apply_range(toTime);
        std::string name = rangeName(access);
        auto it = times.find(name);
        if (it == times.end())
          times.try_emplace(name, elementToTime);
        else
          it->second = it->second.unite(elementToTime);
      }
      for (auto &entry : times)
        entry.second = entry.second.coalesce();
      return times;
    };
    llvm::StringMap<isl::map> readTimes = timesOf(program.reads);
    llvm::StringMap<isl::map> writeTimes = timesOf(program.writes);
    isl::map notBefore(ctx, "{ [a] -> [b] : b >= a }");
    auto bytesOf = [&](llvm::StringRef name) {
      auto it = program.elementBytes.find(name);
      return it == program.elementBytes.end() ? int64_t(8) : it->second;
    };
    for (auto &entry : readTimes) {
      isl::set read = entry.second.domain().coalesce();
      int64_t elements = count(read), writtenFirst = 0, touched = elements;
      auto w = writeTimes.find(entry.first());
      if (w != writeTimes.end()) {
        isl::map afterARead =
            w->second.intersect(entry.second.apply_range(notBefore));
        writtenFirst =
            count(w->second.subtract(afterARead).domain().intersect(read));
        touched = count(read.unite(w->second.domain()));
      }
      if (elements < 0 || writtenFirst < 0 || touched < 0)
        return std::nullopt;
      cost.loads += elements - writtenFirst;
      cost.footprintBytes += touched * bytesOf(entry.first());
    }
    for (auto &entry : writeTimes) {
      int64_t written = count(entry.second.domain());
      if (written < 0)
        return std::nullopt;
      cost.stores += written;
      if (!readTimes.count(entry.first()))
        cost.footprintBytes += written * bytesOf(entry.first());
    }
    if (cost.loads < 0 || cost.stores < 0 || cost.footprintBytes < 0)
      return std::nullopt;
    return cost;
  } catch (const isl::exception &) {
    return std::nullopt;
  }
}

int64_t mlir::stencil::poly::hostCacheBudgetBytes() {
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index2/size");
  int64_t value = 0;
  std::string unit;
  if (file >> value && value > 0) {
    file >> unit;
    int64_t scale = unit.empty()      ? 1
                    : unit[0] == 'M' ? 1024 * 1024
                    : unit[0] == 'K' ? 1024
                                     : 1;
    return value * scale / 2;
  }
  return 512 * 1024;
}

namespace {

/// The cost of a tiling given by its pieces: the sum over the pieces of one
/// tile each (the phases or colors alternate), the largest footprint.
std::optional<TileCost> tilingCost(const TileModelProgram &program,
                                   llvm::ArrayRef<TilePiece> pieces,
                                   unsigned numSpaceDims) {
  TileCost total;
  for (const TilePiece &piece : pieces) {
    std::optional<TileCost> c = interiorTileCost(program, piece, numSpaceDims);
    if (!c)
      continue; // a color without points
    total.updates += c->updates;
    total.loads += c->loads;
    total.stores += c->stores;
    total.footprintBytes = std::max(total.footprintBytes, c->footprintBytes);
  }
  if (total.updates == 0)
    return std::nullopt;
  return total;
}

/// Coordinate search over `values[p]` for each parameter p, from `start`.
/// `evaluate` gives nothing for an invalid combination.
SmallVector<int64_t> search(
    SmallVector<int64_t> start, llvm::ArrayRef<SmallVector<int64_t>> values,
    const std::function<std::optional<TileCost>(llvm::ArrayRef<int64_t>)>
        &evaluate,
    int64_t budget, TileCost &bestCost) {
  std::map<SmallVector<int64_t>, std::optional<TileCost>> memo;
  auto cost = [&](const SmallVector<int64_t> &sizes) {
    auto it = memo.find(sizes);
    if (it == memo.end())
      it = memo.emplace(sizes, evaluate(sizes)).first;
    return it->second;
  };
  auto volume = [](llvm::ArrayRef<int64_t> sizes) {
    double v = 1;
    for (int64_t s : sizes)
      v *= double(s);
    return v;
  };
  auto better = [&](const TileCost &a, llvm::ArrayRef<int64_t> as,
                    const TileCost &b, llvm::ArrayRef<int64_t> bs) {
    bool aFits = a.footprintBytes <= budget, bFits = b.footprintBytes <= budget;
    if (aFits != bFits)
      return aFits;
    if (!aFits)
      return a.footprintBytes < b.footprintBytes;
    double ta = a.trafficPerUpdate(), tb = b.trafficPerUpdate();
    if (ta < tb * (1 - 1e-9))
      return true;
    if (tb < ta * (1 - 1e-9))
      return false;
    return volume(as) > volume(bs);
  };
  SmallVector<int64_t> best = start;
  std::optional<TileCost> bestSoFar = cost(best);
  for (unsigned round = 0; round < 3; ++round) {
    bool improved = false;
    for (unsigned p = 0; p < values.size(); ++p)
      for (int64_t v : values[p]) {
        SmallVector<int64_t> candidate = best;
        candidate[p] = v;
        std::optional<TileCost> c = cost(candidate);
        if (c && (!bestSoFar || better(*c, candidate, *bestSoFar, best))) {
          best = candidate;
          bestSoFar = c;
          improved = true;
        }
      }
    if (!improved)
      break;
  }
  if (!bestSoFar)
    return {};
  bestCost = *bestSoFar;
  return best;
}

/// Time heights (canonical steps) a multiple of `k` up to 24.
SmallVector<int64_t> heights(unsigned k) {
  SmallVector<int64_t> result;
  for (int64_t h : {1, 2, 4, 6, 8, 12, 16, 24}) {
    int64_t rounded = (h + k - 1) / k * k;
    if (rounded <= 24 && !llvm::is_contained(result, rounded))
      result.push_back(rounded);
  }
  return result;
}

} // namespace

std::optional<HybridTileSizes> mlir::stencil::poly::modelHybridTileSizes(
    const TileModelProgram &program, const DependenceCone &cone,
    unsigned hexDim, unsigned statementsPerStep, int64_t budgetBytes,
    TileCost &cost) {
  unsigned n = cone.upper.size();
  unsigned k = std::max(statementsPerStep, 1u);
  isl::ctx ctx = program.canonical.ctx();
  HybridTileSizes start = defaultTileSizes(cone, hexDim, k, TileTarget::Cpu);
  // Parameters: [h, widths...].
  SmallVector<int64_t> first = {start.h};
  first.append(start.widths.begin(), start.widths.end());
  SmallVector<SmallVector<int64_t>> values(n + 1);
  for (int64_t t : heights(k))
    values[0].push_back(t - 1);
  unsigned inner = innermostClassical(n, hexDim);
  for (unsigned i = 0; i < n; ++i) {
    if (i == hexDim)
      values[1 + i] = n == 1 ? SmallVector<int64_t>{16, 32, 64, 128, 256, 512,
                                                     1024, 2048}
                             : SmallVector<int64_t>{4, 8, 16, 32, 64, 128};
    else if (i == inner)
      values[1 + i] = {32, 64, 128, 256, 512, 1024, 2048};
    else
      values[1 + i] = {4, 8, 16, 32, 64, 128};
  }
  auto evaluate = [&](llvm::ArrayRef<int64_t> p) -> std::optional<TileCost> {
    HybridTilingOptions options;
    options.hexDim = hexDim;
    options.statementsPerStep = k;
    options.sizes.h = p[0];
    options.sizes.widths.assign(p.begin() + 1, p.end());
    // A w0 below the convexity bound of this h takes the bound.
    options.sizes.widths[hexDim] = std::max(
        options.sizes.widths[hexDim], minimalHexWidth(cone, hexDim, p[0]));
    if (checkTileSizes(cone, options))
      return std::nullopt;
    // The two phases tile with the same hexagon (sec. 3.3.3): one counts
    // for both.
    return tilingCost(program, {hybridTilePieces(ctx, cone, options).front()},
                      n);
  };
  SmallVector<int64_t> best = search(first, values, evaluate, budgetBytes, cost);
  if (best.empty())
    return std::nullopt;
  HybridTileSizes sizes;
  sizes.h = best[0];
  sizes.widths.assign(best.begin() + 1, best.end());
  sizes.widths[hexDim] =
      std::max(sizes.widths[hexDim], minimalHexWidth(cone, hexDim, best[0]));
  return sizes;
}

std::optional<SplitTileSizes> mlir::stencil::poly::modelSplitTileSizes(
    const TileModelProgram &program, const DependenceCone &cone,
    unsigned statementsPerStep, int64_t budgetBytes, TileCost &cost) {
  unsigned n = cone.upper.size();
  unsigned k = std::max(statementsPerStep, 1u);
  isl::ctx ctx = program.canonical.ctx();
  SplitTileSizes start = defaultSplitTileSizes(cone, k, TileTarget::Cpu);
  SmallVector<int64_t> first = {start.h};
  first.append(start.widths.begin(), start.widths.end());
  SmallVector<SmallVector<int64_t>> values(n + 1);
  values[0] = heights(k);
  for (unsigned i = 0; i < n; ++i)
    values[1 + i] = i + 1 == n ? SmallVector<int64_t>{32, 64, 128, 256, 512,
                                                       1024, 2048}
                               : SmallVector<int64_t>{8, 16, 32, 64, 128, 256};
  auto evaluate = [&](llvm::ArrayRef<int64_t> p) -> std::optional<TileCost> {
    SplitTilingOptions options;
    options.statementsPerStep = k;
    options.sizes.h = p[0];
    options.sizes.widths.assign(p.begin() + 1, p.end());
    if (checkSplitTileSizes(cone, options))
      return std::nullopt;
    SmallVector<TilePiece> pieces;
    for (const SplitColor &color : splitColors(ctx, cone, options))
      pieces.push_back({color.points, color.tile});
    return tilingCost(program, pieces, n);
  };
  SmallVector<int64_t> best = search(first, values, evaluate, budgetBytes, cost);
  if (best.empty())
    return std::nullopt;
  SplitTileSizes sizes;
  sizes.h = best[0];
  sizes.widths.assign(best.begin() + 1, best.end());
  return sizes;
}
