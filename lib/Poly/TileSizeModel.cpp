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
// isl gives the tile and, per canonical time step, the instances of each
// statement and the elements each access reaches. For stencils these are
// boxes (a tile's slice at one time is a box, an access a translation, a
// time level fixed by the step), and the elements are counted in dense
// arrays of first read and first write times; anything else is counted by
// isl's own enumeration (isl_set_count_val over the elements' relations),
// which gives the same figures, slower.
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
#include <limits>
#include <map>
#include <vector>

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

/// A box of integer points, bounds inclusive.
struct Box {
  SmallVector<int64_t> lo, hi;
  int64_t volume() const {
    int64_t v = 1;
    for (auto [l, h] : llvm::zip(lo, hi))
      v *= h - l + 1;
    return v;
  }
};

/// `set` as a box, when it is one (and not empty).
std::optional<Box> asBox(const isl::set &set) {
  unsigned n = isl_set_dim(set.get(), isl_dim_set);
  Box box;
  isl::set hull = isl::manage(isl_set_universe(isl_set_get_space(set.get())));
  for (unsigned d = 0; d < n; ++d) {
    isl::val lo = isl::manage(isl_set_dim_min_val(set.copy(), d));
    isl::val hi = isl::manage(isl_set_dim_max_val(set.copy(), d));
    if (lo.is_null() || hi.is_null() || !lo.is_int() || !hi.is_int())
      return std::nullopt;
    box.lo.push_back(lo.get_num_si());
    box.hi.push_back(hi.get_num_si());
    if (box.lo.back() > box.hi.back())
      return std::nullopt;
    hull = isl::manage(
        isl_set_lower_bound_si(hull.release(), isl_dim_set, d, box.lo.back()));
    hull = isl::manage(
        isl_set_upper_bound_si(hull.release(), isl_dim_set, d, box.hi.back()));
  }
  if (!hull.is_subset(set))
    return std::nullopt;
  return box;
}

/// An access whose every element coordinate depends, besides the time
/// (fixed in a slice), on at most one space coordinate, with coefficient 1
/// or -1: the image of a box is the box of the images of its two corners.
struct SeparableAccess {
  isl::space domain;
  SmallVector<isl::pw_aff> coordinates;
  std::string array;
  bool write;
};

std::optional<SeparableAccess> separable(const isl::map &access, bool write) {
  isl::pw_multi_aff f = isl::manage(isl_map_as_pw_multi_aff(access.copy()));
  if (f.is_null())
    return std::nullopt;
  unsigned inputs = isl_pw_multi_aff_dim(f.get(), isl_dim_in);
  // Pieces may split on the time only (time levels); no coordinate may
  // involve a space dimension inside a division (a modulo is not monotone)
  // nor two of them.
  auto piece = [](isl_set *set, isl_multi_aff *ma, void *user) -> isl_stat {
    unsigned n = *static_cast<unsigned *>(user);
    bool ok = !isl_set_involves_dims(set, isl_dim_set, 1, n - 1);
    for (int j = 0; ok && j < int(isl_multi_aff_size(ma)); ++j) {
      isl_aff *aff = isl_multi_aff_get_at(ma, j);
      // A space coordinate enters with coefficient 1 or -1 (a stride would
      // leave holes in the image of a box).
      unsigned involved = 0;
      for (unsigned i = 1; i < n; ++i) {
        if (isl_aff_involves_dims(aff, isl_dim_in, i, 1) != isl_bool_true)
          continue;
        ++involved;
        isl_val *c = isl_aff_get_coefficient_val(aff, isl_dim_in, i);
        ok = ok && (isl_val_is_one(c) || isl_val_is_negone(c));
        isl_val_free(c);
      }
      for (int k = 0; ok && k < isl_aff_dim(aff, isl_dim_div); ++k) {
        isl_aff *div = isl_aff_get_div(aff, k);
        ok = !isl_aff_involves_dims(div, isl_dim_in, 1, n - 1);
        isl_aff_free(div);
      }
      ok = ok && involved <= 1;
      isl_aff_free(aff);
    }
    isl_set_free(set);
    isl_multi_aff_free(ma);
    return ok ? isl_stat_ok : isl_stat_error;
  };
  if (isl_pw_multi_aff_foreach_piece(f.get(), piece, &inputs) < 0)
    return std::nullopt;
  SeparableAccess result{access.domain().space(), {}, rangeName(access), write};
  for (int j = 0; j < isl_pw_multi_aff_dim(f.get(), isl_dim_out); ++j)
    result.coordinates.push_back(
        isl::manage(isl_pw_multi_aff_get_pw_aff(f.get(), j)));
  return result;
}

/// The box of elements `access` reaches from the instances in `box`.
std::optional<Box> image(const SeparableAccess &access, const Box &box) {
  auto corner = [&](llvm::ArrayRef<int64_t> at) {
    isl_point *point = isl_point_zero(access.domain.copy());
    for (auto [d, v] : llvm::enumerate(at))
      point = isl_point_set_coordinate_val(
          point, isl_dim_set, d,
          isl_val_int_from_si(isl_point_get_ctx(point), v));
    return isl::manage(point);
  };
  isl::point lo = corner(box.lo), hi = corner(box.hi);
  Box result;
  for (const isl::pw_aff &c : access.coordinates) {
    isl::val a = isl::manage(isl_pw_aff_eval(c.copy(), lo.copy()));
    isl::val b = isl::manage(isl_pw_aff_eval(c.copy(), hi.copy()));
    if (a.is_null() || b.is_null() || !a.is_int() || !b.is_int())
      return std::nullopt;
    result.lo.push_back(std::min(a.get_num_si(), b.get_num_si()));
    result.hi.push_back(std::max(a.get_num_si(), b.get_num_si()));
  }
  return result;
}

/// What one array of a tile is accessed on: boxes of elements, each with
/// the canonical time of the access.
struct ArrayBoxes {
  SmallVector<std::pair<int64_t, Box>> reads, writes;
};

/// Merges, among the boxes of each time step (the list is in time order),
/// any two that agree in all dimensions but one and overlap or touch in
/// that one: their union is a box. A star stencil's boxes become one per
/// axis, a full cube's one.
void mergeBoxes(SmallVector<std::pair<int64_t, Box>> &list) {
  auto mergeable = [](const Box &a, const Box &b) {
    unsigned differ = 0;
    for (unsigned d = 0; d < a.lo.size(); ++d) {
      if (a.lo[d] == b.lo[d] && a.hi[d] == b.hi[d])
        continue;
      if (++differ > 1 || a.lo[d] > b.hi[d] + 1 || b.lo[d] > a.hi[d] + 1)
        return false;
    }
    return true;
  };
  SmallVector<std::pair<int64_t, Box>> merged;
  for (size_t i = 0; i < list.size();) {
    int64_t time = list[i].first;
    SmallVector<Box> group;
    for (; i < list.size() && list[i].first == time; ++i)
      group.push_back(list[i].second);
    for (bool again = true; again;) {
      again = false;
      for (size_t a = 0; a < group.size() && !again; ++a)
        for (size_t b = a + 1; b < group.size() && !again; ++b) {
          if (!mergeable(group[a], group[b]))
            continue;
          for (unsigned d = 0; d < group[a].lo.size(); ++d) {
            group[a].lo[d] = std::min(group[a].lo[d], group[b].lo[d]);
            group[a].hi[d] = std::max(group[a].hi[d], group[b].hi[d]);
          }
          group.erase(group.begin() + b);
          again = true;
        }
    }
    for (Box &box : group)
      merged.push_back({time, std::move(box)});
  }
  list = std::move(merged);
}

/// The tile's figures from the boxes each access reaches per canonical
/// time step (see the file comment); nothing when some set is not a box or
/// an array's bounding box is too large to hold.
std::optional<TileCost> boxTileCost(const TileModelProgram &program,
                                    const isl::set &tilePoints) {
  isl::val first = isl::manage(isl_set_dim_min_val(tilePoints.copy(), 0));
  isl::val last = isl::manage(isl_set_dim_max_val(tilePoints.copy(), 0));
  if (first.is_null() || last.is_null() || !first.is_int() || !last.is_int())
    return std::nullopt;
  SmallVector<SeparableAccess> accesses;
  for (auto [list, write] : {std::make_pair(&program.reads, false),
                             std::make_pair(&program.writes, true)})
    for (const isl::map &access : *list) {
      std::optional<SeparableAccess> a = separable(access, write);
      if (!a)
        return std::nullopt;
      accesses.push_back(std::move(*a));
    }
  TileCost cost;
  llvm::StringMap<ArrayBoxes> arrays;
  for (int64_t time = first.get_num_si(); time <= last.get_num_si(); ++time) {
    isl::set slice =
        isl::manage(isl_set_fix_si(tilePoints.copy(), isl_dim_set, 0, time));
    isl::union_set instances =
        isl::union_set(slice).preimage(program.canonical);
    isl::set_list list = instances.set_list();
    for (unsigned i = 0; i < unsigned(list.size()); ++i) {
      isl::set mine = list.at(i).detect_equalities();
      if (mine.is_empty())
        continue;
      std::optional<Box> box = asBox(mine);
      if (!box)
        return std::nullopt;
      cost.updates += box->volume();
      isl::space space = mine.space();
      for (const SeparableAccess &access : accesses) {
        if (!access.domain.is_equal(space))
          continue;
        std::optional<Box> elements = image(access, *box);
        if (!elements)
          return std::nullopt;
        ArrayBoxes &a = arrays[access.array];
        (access.write ? a.writes : a.reads).push_back({time, *elements});
      }
    }
  }
  for (auto &entry : arrays) {
    ArrayBoxes &a = entry.second;
    mergeBoxes(a.reads);
    mergeBoxes(a.writes);
    // The arrays of first read and first write times over the bounding box
    // of everything the tile touches of the array.
    Box all;
    for (auto *list : {&a.reads, &a.writes})
      for (auto &[time, box] : *list) {
        if (all.lo.empty()) {
          all = box;
          continue;
        }
        for (unsigned d = 0; d < box.lo.size(); ++d) {
          all.lo[d] = std::min(all.lo[d], box.lo[d]);
          all.hi[d] = std::max(all.hi[d], box.hi[d]);
        }
      }
    int64_t size = all.volume();
    if (size > (int64_t(1) << 26))
      return std::nullopt;
    // Times relative to the tile's first (a tile spans few steps).
    constexpr int32_t never = std::numeric_limits<int32_t>::max();
    std::vector<int32_t> firstRead(size, never), firstWrite(size, never);
    unsigned n = all.lo.size();
    auto mark = [&](std::vector<int32_t> &firsts, int64_t absolute,
                    const Box &box) {
      int32_t time = int32_t(absolute - first.get_num_si());
      // Row by row along the last dimension (contiguous).
      SmallVector<int64_t> at(box.lo);
      int64_t row = box.hi[n - 1] - box.lo[n - 1] + 1;
      while (true) {
        int64_t offset = 0;
        for (unsigned d = 0; d < n; ++d)
          offset = offset * (all.hi[d] - all.lo[d] + 1) + (at[d] - all.lo[d]);
        int32_t *p = firsts.data() + offset;
        for (int64_t j = 0; j < row; ++j)
          p[j] = std::min(p[j], time);
        int d = int(n) - 2;
        for (; d >= 0; --d) {
          if (++at[d] <= box.hi[d])
            break;
          at[d] = box.lo[d];
        }
        if (d < 0)
          return;
      }
    };
    for (auto &[time, box] : a.reads)
      mark(firstRead, time, box);
    for (auto &[time, box] : a.writes)
      mark(firstWrite, time, box);
    int64_t read = 0, written = 0, writtenFirst = 0, touched = 0;
    for (int64_t e = 0; e < size; ++e) {
      bool r = firstRead[e] != never, w = firstWrite[e] != never;
      read += r;
      written += w;
      touched += r || w;
      writtenFirst += r && firstWrite[e] < firstRead[e];
    }
    auto bytes = program.elementBytes.find(entry.first());
    int64_t elementBytes =
        bytes == program.elementBytes.end() ? int64_t(8) : bytes->second;
    cost.loads += read - writtenFirst;
    cost.stores += written;
    cost.footprintBytes += (read ? touched : written) * elementBytes;
  }
  if (cost.updates <= 0)
    return std::nullopt;
  return cost;
}

} // namespace

std::optional<TileCost> mlir::stencil::poly::interiorTileCost(
    const TileModelProgram &program, const TilePiece &piece,
    unsigned numSpaceDims, TileCounting counting) {
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
    if (counting == TileCounting::Boxes)
      if (std::optional<TileCost> cost = boxTileCost(program, tilePoints))
        return cost;
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
