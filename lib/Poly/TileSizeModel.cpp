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
// isl gives the tile (its points, with the tile coordinates fixed). For
// stencils everything else is boxes: the tile's slice at one canonical time
// is a box read off its constraints (each involves the time and at most one
// space coordinate), a statement's instances are that box (its canonical
// schedule a stretch of the time), an access's elements its image (a
// translation, the time level fixed by the step). The elements of each
// array are then counted by rows, as intervals with the steps that read
// and write them. Anything else is counted by isl's own enumeration
// (isl_set_count_val over the elements' relations): the same figures,
// slower.
//
// The search goes one parameter at a time (the widths, then h, repeated
// while it improves) from the fixed defaults, over the
// values each tiling allows.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/TileSizeModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <isl/constraint.h>

#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <utility>
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
  bool meets(const Box &other) const {
    for (unsigned d = 0; d < lo.size(); ++d)
      if (lo[d] > other.hi[d] || other.lo[d] > hi[d])
        return false;
    return true;
  }
};

/// Merges, among `group`, any two boxes that agree in all dimensions but
/// one and overlap or touch in that one: their union is a box. A star
/// stencil's boxes become one per axis, a full cube's one.
void mergeBoxes(SmallVector<Box> &group) {
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
}

/// Adds one more tile of a tiling (a phase or a color) to `total`: the
/// tiles alternate, so counts add up and the footprint is the largest.
void addTile(TileCost &total, const TileCost &tile) {
  total.updates += tile.updates;
  total.loads += tile.loads;
  total.stores += tile.stores;
  total.footprintBytes = std::max(total.footprintBytes, tile.footprintBytes);
}

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// A tile as its slices: per canonical time from `first`, disjoint boxes
/// of space points.
struct TileSlices {
  int64_t first = 0;
  SmallVector<SmallVector<Box>> at;
};

/// The slices of a tile when every constraint of the tile involves besides
/// the time at most one space coordinate: a hexagon's or a split tile's
/// constraints after detect_equalities. The bounds are read off the
/// constraints, so no slice costs isl a linear program.
std::optional<TileSlices> tileSlices(const isl::set &tile) {
  isl::val first = isl::manage(isl_set_dim_min_val(tile.copy(), 0));
  isl::val last = isl::manage(isl_set_dim_max_val(tile.copy(), 0));
  if (first.is_null() || last.is_null() || !first.is_int() || !last.is_int())
    return std::nullopt;
  unsigned n = isl_set_dim(tile.get(), isl_dim_set);
  // Per basic set, the constraints `a t + b x_d + sum_k q_k div_k + c >= 0`
  // (d = 0 for the time alone) and its divisions, functions of the time
  // (the canonical step's place in a folded step, e.g. floor((t - 1)/3)).
  struct Bound {
    unsigned dim;
    int64_t a, b, c;
    SmallVector<int64_t> q;
  };
  struct Piece {
    SmallVector<Bound> bounds;
    SmallVector<isl::aff> divs;
  };
  SmallVector<Piece> pieces;
  auto valueOf = [](isl_val *v) {
    int64_t result = isl_val_get_num_si(v);
    isl_val_free(v);
    return result;
  };
  auto ofTimeOnly = [&](const isl::aff &aff) {
    if (isl_aff_involves_dims(aff.get(), isl_dim_in, 1, n - 1))
      return false;
    for (int k = 0; k < isl_aff_dim(aff.get(), isl_dim_div); ++k) {
      isl::aff div = isl::manage(isl_aff_get_div(aff.get(), k));
      if (isl_aff_involves_dims(div.get(), isl_dim_in, 1, n - 1))
        return false;
    }
    return true;
  };
  // isl_stat_error for a piece not in the form.
  auto collect = [&](isl_basic_set *bset) {
    Piece piece;
    unsigned numDivs = isl_basic_set_dim(bset, isl_dim_div);
    bool ok = true;
    for (unsigned k = 0; ok && k < numDivs; ++k) {
      // isl gives the division's quotient e/d, not its floor.
      piece.divs.push_back(
          isl::manage(isl_aff_floor(isl_basic_set_get_div(bset, int(k)))));
      ok = !piece.divs.back().is_null() && ofTimeOnly(piece.divs.back());
    }
    isl_constraint_list *list = isl_basic_set_get_constraint_list(bset);
    for (int i = 0; ok && i < isl_constraint_list_size(list); ++i) {
      isl_constraint *constraint = isl_constraint_list_get_at(list, i);
      auto coefficient = [&](isl_dim_type type, unsigned d) {
        return valueOf(
            isl_constraint_get_coefficient_val(constraint, type, int(d)));
      };
      Bound bound{0,
                  coefficient(isl_dim_set, 0),
                  0,
                  valueOf(isl_constraint_get_constant_val(constraint)),
                  {}};
      for (unsigned d = 1; ok && d < n; ++d) {
        int64_t b = coefficient(isl_dim_set, d);
        if (!b)
          continue;
        ok = bound.dim == 0; // one space coordinate at most
        bound.dim = d;
        bound.b = b;
      }
      for (unsigned k = 0; k < numDivs; ++k)
        bound.q.push_back(coefficient(isl_dim_div, k));
      if (isl_constraint_is_equality(constraint)) {
        Bound opposite{bound.dim, -bound.a, -bound.b, -bound.c, {}};
        for (int64_t q : bound.q)
          opposite.q.push_back(-q);
        piece.bounds.push_back(std::move(opposite));
      }
      piece.bounds.push_back(std::move(bound));
      isl_constraint_free(constraint);
    }
    isl_constraint_list_free(list);
    isl_basic_set_free(bset);
    if (!ok)
      return isl_stat_error;
    pieces.push_back(std::move(piece));
    return isl_stat_ok;
  };
  if (isl_set_foreach_basic_set(
          tile.get(),
          [](isl_basic_set *bset, void *user) {
            return (*static_cast<decltype(collect) *>(user))(bset);
          },
          &collect) < 0)
    return std::nullopt;

  int64_t t0 = first.get_num_si(), t1 = last.get_num_si();
  SmallVector<SmallVector<Box>> slices;
  isl::space space = tile.space();
  for (int64_t t = t0; t <= t1; ++t) {
    SmallVector<Box> boxes;
    for (const Piece &piece : pieces) {
      SmallVector<int64_t> divs;
      for (const isl::aff &div : piece.divs) {
        isl_point *at = isl_point_zero(space.copy());
        at = isl_point_set_coordinate_val(
            at, isl_dim_set, 0, isl_val_int_from_si(space.ctx().get(), t));
        isl::val v = isl::manage(isl_aff_eval(div.copy(), at));
        if (v.is_null() || !v.is_int())
          return std::nullopt;
        divs.push_back(v.get_num_si());
      }
      constexpr int64_t unbounded = std::numeric_limits<int64_t>::max();
      Box box;
      box.lo.assign(n - 1, -unbounded);
      box.hi.assign(n - 1, unbounded);
      bool empty = false;
      for (const Bound &bound : piece.bounds) {
        int64_t rest = bound.a * t + bound.c; // b x + rest >= 0
        for (auto [q, value] : llvm::zip(bound.q, divs))
          rest += q * value;
        if (bound.dim == 0) {
          empty |= rest < 0;
        } else if (bound.b > 0) {
          int64_t &lo = box.lo[bound.dim - 1];
          lo = std::max(lo, -floorDiv(rest, bound.b));
        } else {
          int64_t &hi = box.hi[bound.dim - 1];
          hi = std::min(hi, floorDiv(rest, -bound.b));
        }
      }
      for (unsigned d = 0; d + 1 < n && !empty; ++d) {
        if (box.lo[d] == -unbounded || box.hi[d] == unbounded)
          return std::nullopt;
        empty = box.lo[d] > box.hi[d];
      }
      if (!empty)
        boxes.push_back(std::move(box));
    }
    // isl's pieces of one tile may overlap; the union of overlapping ones
    // must be a box.
    mergeBoxes(boxes);
    for (size_t a = 0; a < boxes.size(); ++a)
      for (size_t b = a + 1; b < boxes.size(); ++b)
        if (boxes[a].meets(boxes[b]))
          return std::nullopt;
    slices.push_back(std::move(boxes));
  }
  return TileSlices{t0, std::move(slices)};
}

/// The tile whose slice at each time is the product of the slices of
/// `factors` (one per space dimension, one-dimensional boxes) at that time.
TileSlices product(llvm::ArrayRef<const TileSlices *> factors) {
  TileSlices result;
  int64_t last = std::numeric_limits<int64_t>::max();
  result.first = std::numeric_limits<int64_t>::min();
  for (const TileSlices *f : factors) {
    result.first = std::max(result.first, f->first);
    last = std::min(last, f->first + int64_t(f->at.size()) - 1);
  }
  for (int64_t t = result.first; t <= last; ++t) {
    SmallVector<Box> boxes = {Box()};
    for (const TileSlices *f : factors) {
      SmallVector<Box> longer;
      for (const Box &prefix : boxes)
        for (const Box &interval : f->at[t - f->first]) {
          Box box = prefix;
          box.lo.push_back(interval.lo[0]);
          box.hi.push_back(interval.hi[0]);
          longer.push_back(std::move(box));
        }
      boxes = std::move(longer);
    }
    result.at.push_back(std::move(boxes));
  }
  return result;
}

/// An access whose every element coordinate is, at a fixed time t of the
/// statement, g(t) + c(t) x_d for at most one space coordinate x_d with
/// c(t) = 1 or -1 (time levels may split it into pieces by t): the image of
/// a box is the box of the images of its two corners. g and c are
/// evaluated once per time.
struct SeparableAccess {
  std::string array;
  bool write;
  isl::space domain;
  SmallVector<isl::pw_aff> coordinates;
  SmallVector<unsigned> spaceDim; // per coordinate, 0: the time alone
  SmallVector<llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>>> atTime;

  /// The box of elements the instances `box` (space coordinates) of time
  /// `t` reach; nothing when isl cannot evaluate.
  std::optional<Box> image(int64_t t, const Box &box) {
    Box result;
    for (unsigned j = 0; j < coordinates.size(); ++j) {
      auto [it, inserted] = atTime[j].try_emplace(t);
      if (inserted) {
        std::optional<int64_t> g = evaluate(j, t, 0);
        std::optional<int64_t> g1 =
            spaceDim[j] ? evaluate(j, t, spaceDim[j]) : g;
        if (!g || !g1)
          return std::nullopt;
        it->second = {*g, *g1 - *g};
      }
      auto [g, c] = it->second;
      if (!spaceDim[j]) {
        result.lo.push_back(g);
        result.hi.push_back(g);
        continue;
      }
      int64_t a = g + c * box.lo[spaceDim[j] - 1];
      int64_t b = g + c * box.hi[spaceDim[j] - 1];
      result.lo.push_back(std::min(a, b));
      result.hi.push_back(std::max(a, b));
    }
    return result;
  }

private:
  /// Coordinate j at time t, space coordinates 0 but x_unit = 1.
  std::optional<int64_t> evaluate(unsigned j, int64_t t, unsigned unit) {
    isl_ctx *ctx = domain.ctx().get();
    isl_point *point = isl_point_zero(domain.copy());
    point = isl_point_set_coordinate_val(point, isl_dim_set, 0,
                                         isl_val_int_from_si(ctx, t));
    if (unit)
      point = isl_point_set_coordinate_val(point, isl_dim_set, unit,
                                           isl_val_one(ctx));
    isl::val v = isl::manage(isl_pw_aff_eval(coordinates[j].copy(), point));
    if (v.is_null() || !v.is_int())
      return std::nullopt;
    return v.get_num_si();
  }
};

std::optional<SeparableAccess> separable(const isl::map &access, bool write) {
  isl::pw_multi_aff f = isl::manage(isl_map_as_pw_multi_aff(access.copy()));
  if (f.is_null())
    return std::nullopt;
  unsigned inputs = isl_pw_multi_aff_dim(f.get(), isl_dim_in);
  unsigned outputs = isl_pw_multi_aff_dim(f.get(), isl_dim_out);
  // Pieces may split on the time only (time levels); no coordinate may
  // involve a space dimension inside a division (a modulo is not monotone)
  // nor two of them, and each involves the same one in every piece.
  struct Check {
    unsigned inputs;
    SmallVector<int> dims; // -1 until a piece has been seen
  } check{inputs, SmallVector<int>(outputs, -1)};
  auto piece = [](isl_set *set, isl_multi_aff *ma, void *user) -> isl_stat {
    Check &check = *static_cast<Check *>(user);
    unsigned n = check.inputs;
    bool ok = !isl_set_involves_dims(set, isl_dim_set, 1, n - 1);
    for (int j = 0; ok && j < int(isl_multi_aff_size(ma)); ++j) {
      isl_aff *aff = isl_multi_aff_get_at(ma, j);
      // A space coordinate enters with coefficient 1 or -1 (a stride would
      // leave holes in the image of a box).
      int dim = 0;
      for (unsigned i = 1; i < n; ++i) {
        if (isl_aff_involves_dims(aff, isl_dim_in, i, 1) != isl_bool_true)
          continue;
        ok = ok && dim == 0;
        dim = int(i);
        isl_val *c = isl_aff_get_coefficient_val(aff, isl_dim_in, i);
        ok = ok && (isl_val_is_one(c) || isl_val_is_negone(c));
        isl_val_free(c);
      }
      for (int k = 0; ok && k < isl_aff_dim(aff, isl_dim_div); ++k) {
        isl_aff *div = isl_aff_get_div(aff, k);
        ok = !isl_aff_involves_dims(div, isl_dim_in, 1, n - 1);
        isl_aff_free(div);
      }
      ok = ok && (check.dims[j] < 0 || check.dims[j] == dim);
      check.dims[j] = dim;
      isl_aff_free(aff);
    }
    isl_set_free(set);
    isl_multi_aff_free(ma);
    return ok ? isl_stat_ok : isl_stat_error;
  };
  if (isl_pw_multi_aff_foreach_piece(f.get(), piece, &check) < 0)
    return std::nullopt;
  SeparableAccess result{
      rangeName(access), write, access.domain().space(), {}, {}, {}};
  for (unsigned j = 0; j < outputs; ++j) {
    result.coordinates.push_back(
        isl::manage(isl_pw_multi_aff_get_pw_aff(f.get(), int(j))));
    result.spaceDim.push_back(unsigned(std::max(check.dims[j], 0)));
  }
  result.atTime.resize(outputs);
  return result;
}

/// The elements of one array a tile reads and writes, given as boxes per
/// canonical time step of the tile.
struct ArrayCounts {
  int64_t read = 0, written = 0, touched = 0;
  int64_t writtenFirst = 0; // read, but written at an earlier step
};

/// Counts by rows along the last dimension: each box is an interval on
/// each of its rows, and a sweep over a row's interval ends keeps the set
/// of steps reading and writing the current points (a bit per step), so
/// the cost is in intervals, not elements. Nothing for a tile of more than
/// 64 steps or an array reached on too many rows.
std::optional<ArrayCounts>
countElements(llvm::ArrayRef<SmallVector<Box>> reads,
              llvm::ArrayRef<SmallVector<Box>> writes) {
  if (std::max(reads.size(), writes.size()) > 64)
    return std::nullopt;
  // The bounding box of the rows (all dimensions but the last).
  Box rows;
  bool firstBox = true;
  for (auto list : {reads, writes})
    for (const SmallVector<Box> &group : list)
      for (const Box &box : group) {
        if (box.lo.empty())
          return std::nullopt; // a scalar: left to isl
        if (std::exchange(firstBox, false)) {
          rows.lo.assign(box.lo.begin(), box.lo.end() - 1);
          rows.hi.assign(box.hi.begin(), box.hi.end() - 1);
          continue;
        }
        for (unsigned d = 0; d + 1 < box.lo.size(); ++d) {
          rows.lo[d] = std::min(rows.lo[d], box.lo[d]);
          rows.hi[d] = std::max(rows.hi[d], box.hi[d]);
        }
      }
  ArrayCounts counts;
  int64_t numRows = rows.volume();
  if (numRows > (int64_t(1) << 24))
    return std::nullopt;
  // An interval end: at `x` the step `step` starts (or stops) reading or
  // writing.
  struct Event {
    int64_t x;
    uint8_t step;
    bool write, start;
  };
  // Per row, its events (rows in a flat array, offsets by a first count).
  std::vector<int64_t> first(numRows + 1, 0);
  auto forEachRow = [&](const Box &box, auto &&visit) {
    unsigned n = box.lo.size();
    SmallVector<int64_t> at(box.lo.begin(), box.lo.end() - 1);
    while (true) {
      int64_t row = 0;
      for (unsigned d = 0; d + 1 < n; ++d)
        row = row * (rows.hi[d] - rows.lo[d] + 1) + (at[d] - rows.lo[d]);
      visit(row);
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
  for (auto list : {reads, writes})
    for (const SmallVector<Box> &group : list)
      for (const Box &box : group)
        forEachRow(box, [&](int64_t row) { first[row + 1] += 2; });
  for (int64_t r = 0; r < numRows; ++r)
    first[r + 1] += first[r];
  std::vector<Event> events(first[numRows]);
  std::vector<int64_t> next(first.begin(), first.end() - 1);
  for (auto [list, write] :
       {std::make_pair(reads, false), std::make_pair(writes, true)})
    for (auto [step, group] : llvm::enumerate(list))
      for (const Box &box : group)
        forEachRow(box, [&](int64_t row) {
          events[next[row]++] = {box.lo.back(), uint8_t(step), write, true};
          events[next[row]++] = {box.hi.back() + 1, uint8_t(step), write,
                                 false};
        });
  // The sweep: per step, how many of its intervals cover the point.
  uint16_t active[2][64] = {};
  for (int64_t r = 0; r < numRows; ++r) {
    auto begin = events.begin() + first[r], end = events.begin() + first[r + 1];
    std::sort(begin, end,
              [](const Event &a, const Event &b) { return a.x < b.x; });
    uint64_t steps[2] = {0, 0}; // read, write: a bit per covering step
    for (auto e = begin; e != end;) {
      int64_t x = e->x;
      for (; e != end && e->x == x; ++e) {
        uint16_t &c = active[e->write][e->step];
        c += e->start ? 1 : -1;
        if (c)
          steps[e->write] |= uint64_t(1) << e->step;
        else
          steps[e->write] &= ~(uint64_t(1) << e->step);
      }
      if (e == end)
        break;
      int64_t length = e->x - x;
      bool r = steps[0], w = steps[1];
      counts.read += r * length;
      counts.written += w * length;
      counts.touched += (r || w) * length;
      if (r && w && llvm::countr_zero(steps[1]) < llvm::countr_zero(steps[0]))
        counts.writtenFirst += length;
    }
  }
  return counts;
}

/// Counting in boxes (see the file comment) for the programs where it
/// applies: every statement's canonical schedule is [a t + b, x_1 + e_1,
/// ...] and every access is separable. Holds what it learns about the
/// accesses for all the tiles of a search.
class BoxCounter {
public:
  static std::optional<BoxCounter> of(const TileModelProgram &program) try {
    BoxCounter counter;
    counter.elementBytes = &program.elementBytes;
    bool ok = true;
    isl_union_pw_multi_aff_foreach_pw_multi_aff(
        program.canonical.get(),
        [](isl_pw_multi_aff *f, void *user) {
          auto &statements = *static_cast<SmallVector<Statement> *>(user);
          std::optional<Statement> s = stretched(isl::manage(f));
          if (!s)
            return isl_stat_error;
          statements.push_back(std::move(*s));
          return isl_stat_ok;
        },
        &counter.statements);
    ok = unsigned(isl_union_pw_multi_aff_n_pw_multi_aff(
             program.canonical.get())) == counter.statements.size();
    for (auto [list, write] : {std::make_pair(&program.reads, false),
                               std::make_pair(&program.writes, true)})
      for (const isl::map &access : *list) {
        std::optional<SeparableAccess> a = separable(access, write);
        Statement *s = nullptr;
        for (Statement &candidate : counter.statements)
          if (a && candidate.space.is_equal(a->domain))
            s = &candidate;
        if (!s) {
          ok = false;
          continue;
        }
        s->accesses.push_back(counter.accesses.size());
        counter.accesses.push_back(std::move(*a));
      }
    if (!ok)
      return std::nullopt;
    return counter;
  } catch (const isl::exception &) {
    return std::nullopt;
  }

  /// The figures of the tile `tilePoints`; nothing when its slices are not
  /// boxes or an array's bounding box is too large to hold.
  std::optional<TileCost> cost(const isl::set &tilePoints) {
    std::optional<TileSlices> slices = tileSlices(tilePoints);
    return slices ? cost(*slices) : std::nullopt;
  }
  std::optional<TileCost> cost(const TileSlices &slices);

private:
  struct Statement {
    isl::space space;
    int64_t a, b;               // canonical time a t + b
    SmallVector<int64_t> shift; // point x_d = statement x_d + shift
    SmallVector<size_t> accesses;
  };

  static std::optional<Statement> stretched(const isl::pw_multi_aff &f) {
    if (isl_pw_multi_aff_n_piece(f.get()) != 1)
      return std::nullopt;
    isl::multi_aff ma = isl::manage(isl_pw_multi_aff_as_multi_aff(f.copy()));
    if (ma.is_null())
      return std::nullopt;
    isl::set domain = f.domain();
    if (!domain.is_equal(isl::set::universe(domain.space())))
      return std::nullopt;
    unsigned n = unsigned(ma.size());
    if (isl_multi_aff_dim(ma.get(), isl_dim_in) != int(n))
      return std::nullopt;
    Statement s{domain.space(), 0, 0, {}, {}};
    for (unsigned j = 0; j < n; ++j) {
      isl::aff aff = ma.at(int(j));
      if (isl_aff_dim(aff.get(), isl_dim_div) != 0)
        return std::nullopt;
      for (unsigned i = 0; i < n; ++i) {
        int64_t c = isl::manage(isl_aff_get_coefficient_val(aff.get(),
                                                            isl_dim_in, int(i)))
                        .get_num_si();
        bool expected =
            j == 0 ? (i == 0 ? c > 0 : c == 0) : (i == j ? c == 1 : c == 0);
        if (!expected)
          return std::nullopt;
        if (j == 0 && i == 0)
          s.a = c;
      }
      int64_t constant = aff.constant_val().get_num_si();
      if (j == 0)
        s.b = constant;
      else
        s.shift.push_back(constant);
    }
    return s;
  }

  SmallVector<Statement> statements;
  SmallVector<SeparableAccess> accesses;
  const llvm::StringMap<int64_t> *elementBytes = nullptr;
};

std::optional<TileCost> BoxCounter::cost(const TileSlices &slices) {
  int64_t first = slices.first;
  const SmallVector<SmallVector<Box>> &boxesAt = slices.at;
  /// What one array of a tile is accessed on: boxes of elements by the
  /// canonical time of the access (from the tile's first).
  struct ArrayBoxes {
    SmallVector<SmallVector<Box>> reads, writes;
  };
  llvm::StringMap<ArrayBoxes> arrays;
  TileCost cost;
  for (auto [step, boxes] : llvm::enumerate(boxesAt)) {
    int64_t time = first + int64_t(step);
    for (Statement &s : statements) {
      int64_t offset = time - s.b;
      if (offset % s.a != 0)
        continue;
      int64_t t = offset / s.a;
      for (const Box &points : boxes) {
        Box instances = points;
        for (unsigned d = 0; d < s.shift.size(); ++d) {
          instances.lo[d] -= s.shift[d];
          instances.hi[d] -= s.shift[d];
        }
        cost.updates += instances.volume();
        for (size_t index : s.accesses) {
          SeparableAccess &access = accesses[index];
          std::optional<Box> elements = access.image(t, instances);
          if (!elements)
            return std::nullopt;
          ArrayBoxes &a = arrays[access.array];
          auto &list = access.write ? a.writes : a.reads;
          if (list.size() <= step)
            list.resize(boxesAt.size());
          list[step].push_back(std::move(*elements));
        }
      }
    }
  }
  for (auto &entry : arrays) {
    ArrayBoxes &a = entry.second;
    for (auto *list : {&a.reads, &a.writes})
      for (SmallVector<Box> &group : *list)
        mergeBoxes(group);
    std::optional<ArrayCounts> counts = countElements(a.reads, a.writes);
    if (!counts)
      return std::nullopt;
    auto bytes = elementBytes->find(entry.first());
    int64_t elementBytes =
        bytes == this->elementBytes->end() ? int64_t(8) : bytes->second;
    cost.loads += counts->read - counts->writtenFirst;
    cost.stores += counts->written;
    cost.footprintBytes +=
        (counts->read ? counts->touched : counts->written) * elementBytes;
  }
  if (cost.updates <= 0)
    return std::nullopt;
  return cost;
}

/// The points of one tile of `piece` far from the origin (the tiling is
/// periodic: any tile there is full). Fixing the tile fixes the floors of
/// the tile coordinates: found as equalities, they leave a set without
/// existentials.
isl::set farTile(const TilePiece &piece, unsigned numSpaceDims,
                 bool sampleIfEmpty = true) {
  auto tileOf = [&](isl::set point) {
    isl::set tile =
        point.apply(isl::manage(isl_map_from_multi_aff(piece.tile.copy())));
    return piece.points.intersect(tile.preimage(piece.tile))
        .detect_equalities();
  };
  // The tile of one point there, when the piece has points in it (a
  // color's or a phase's tile function gives every point a tile)...
  isl::ctx ctx = piece.points.ctx();
  isl_point *far = isl_point_zero(piece.points.space().release());
  for (unsigned i = 0; i <= numSpaceDims; ++i)
    far = isl_point_set_coordinate_val(far, isl_dim_set, int(i),
                                       isl_val_int_from_si(ctx.get(), 15000));
  isl::set tile = tileOf(isl::set(isl::manage(far)));
  if (!tile.is_empty() || !sampleIfEmpty)
    return tile;
  // ... else the tile of some point of the piece around it.
  std::string x = pointNames(numSpaceDims), around;
  for (unsigned i = 0; i <= numSpaceDims; ++i)
    around += (i ? " and " : "") + std::string("10000 <= x") +
              std::to_string(i) + " < 20000";
  isl::set some =
      piece.points.intersect(isl::set(ctx, "{ [" + x + "] : " + around + " }"));
  if (some.is_empty())
    return some;
  return tileOf(isl::set(some.sample_point()));
}

std::optional<TileCost> tileCost(const TileModelProgram &program,
                                 BoxCounter *boxes, const TilePiece &piece,
                                 unsigned numSpaceDims, bool boxesOnly = false) {
  try {
    isl::ctx ctx = piece.points.ctx();
    std::string x = pointNames(numSpaceDims);
    isl::set tilePoints = farTile(piece, numSpaceDims);
    if (tilePoints.is_empty())
      return std::nullopt;
    if (boxes)
      if (std::optional<TileCost> cost = boxes->cost(tilePoints))
        return cost;
    if (boxesOnly)
      return std::nullopt;
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

/// The figures of a split tiling from one-dimensional tiles. With
/// rectangular bases (thesis sec. 4.3.2) a color's tile is the product of
/// one trapezoid per dimension, each bounded by the time and its own
/// coordinate, within the same band: the tile far away is the product of
/// the one-dimensional tiles of the same far point. Each dimension is
/// tiled alone with isl once per height and width, so a search changing
/// one width tiles one dimension again, in two dimensions instead of n+1.
class SplitProducts {
public:
  SplitProducts(isl::ctx ctx, const DependenceCone &cone, BoxCounter &boxes)
      : ctx(ctx), cone(cone), boxes(boxes) {}

  /// One tile of each color (the sum of their figures, the largest
  /// footprint); nothing when some tile is not in boxes' form.
  std::optional<TileCost> cost(const SplitTilingOptions &options) {
    unsigned n = cone.upper.size();
    SmallVector<const SmallVector<TileSlices> *> colorsOf;
    for (unsigned d = 0; d < n; ++d) {
      const std::optional<SmallVector<TileSlices>> &colors =
          dimension(d, options.sizes.h, options.sizes.widths[d],
                    options.statementsPerStep);
      if (!colors)
        return std::nullopt;
      colorsOf.push_back(&*colors);
    }
    TileCost total;
    SmallVector<unsigned> bit(n, 0);
    while (true) {
      SmallVector<const TileSlices *> factors;
      for (unsigned d = 0; d < n; ++d)
        factors.push_back(&(*colorsOf[d])[bit[d]]);
      TileSlices tile = product(factors);
      bool empty = llvm::all_of(
          tile.at, [](const SmallVector<Box> &boxes) { return boxes.empty(); });
      if (!empty) {
        std::optional<TileCost> c = boxes.cost(tile);
        if (!c)
          return std::nullopt;
        addTile(total, *c);
      }
      unsigned d = 0;
      for (; d < n; ++d) {
        if (++bit[d] < colorsOf[d]->size())
          break;
        bit[d] = 0;
      }
      if (d == n)
        break;
    }
    if (total.updates == 0)
      return std::nullopt;
    return total;
  }

private:
  /// The far tiles of dimension `d` alone, one per color.
  const std::optional<SmallVector<TileSlices>> &
  dimension(unsigned d, int64_t h, int64_t width, unsigned k) {
    auto [it, inserted] = tiles.try_emplace(std::make_tuple(d, h, width, k));
    if (!inserted)
      return it->second;
    try {
      DependenceCone line;
      line.upper = {cone.upper[d]};
      line.lower = {cone.lower[d]};
      SplitTilingOptions options;
      options.statementsPerStep = k;
      options.sizes.h = h;
      options.sizes.widths = {width};
      SmallVector<TileSlices> colors;
      for (const SplitColor &color : splitColors(ctx, line, options)) {
        std::optional<TileSlices> slices =
            tileSlices(farTile({color.points, color.tile}, 1, false));
        if (!slices)
          return it->second;
        colors.push_back(std::move(*slices));
      }
      if (!colors.empty())
        it->second = std::move(colors);
    } catch (const isl::exception &) {
    }
    return it->second;
  }

  isl::ctx ctx;
  const DependenceCone &cone;
  BoxCounter &boxes;
  std::map<std::tuple<unsigned, int64_t, int64_t, unsigned>,
           std::optional<SmallVector<TileSlices>>>
      tiles;
};

} // namespace

std::optional<TileCost> mlir::stencil::poly::interiorTileCost(
    const TileModelProgram &program, const TilePiece &piece,
    unsigned numSpaceDims, TileCounting counting) {
  std::optional<BoxCounter> boxes;
  if (counting != TileCounting::Isl)
    boxes = BoxCounter::of(program);
  return tileCost(program, boxes ? &*boxes : nullptr, piece, numSpaceDims,
                  counting == TileCounting::BoxesOnly);
}

std::optional<TileCost>
mlir::stencil::poly::splitTileCost(const TileModelProgram &program,
                                   const DependenceCone &cone,
                                   const SplitTilingOptions &options) {
  std::optional<BoxCounter> boxes = BoxCounter::of(program);
  if (!boxes)
    return std::nullopt;
  return SplitProducts(program.canonical.ctx(), cone, *boxes).cost(options);
}

int64_t mlir::stencil::poly::hostL2CacheBytes() {
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index2/size");
  int64_t value = 0;
  std::string unit;
  if (file >> value && value > 0) {
    file >> unit;
    int64_t scale = unit.empty()      ? 1
                    : unit[0] == 'M' ? 1024 * 1024
                    : unit[0] == 'K' ? 1024
                                     : 1;
    return value * scale;
  }
  return 1024 * 1024;
}

namespace {

/// The cost of a tiling given by its pieces: the sum over the pieces of one
/// tile each (the phases or colors alternate), the largest footprint.
std::optional<TileCost> tilingCost(const TileModelProgram &program,
                                   std::optional<BoxCounter> &boxes,
                                   llvm::ArrayRef<TilePiece> pieces,
                                   unsigned numSpaceDims) {
  TileCost total;
  for (const TilePiece &piece : pieces) {
    std::optional<TileCost> c =
        tileCost(program, boxes ? &*boxes : nullptr, piece, numSpaceDims);
    if (!c)
      continue; // a color without points
    addTile(total, *c);
  }
  if (total.updates == 0)
    return std::nullopt;
  return total;
}

/// Coordinate search over `values[p]` for each parameter p, from `start`,
/// the height (p = 0) after the widths: the widths first fit the tile into
/// the budget at the start's height, then the height grows within it.
/// Height first, a start over the budget would take the least height that
/// fits (no reuse over time, h = 0) and never leave it.
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
    for (unsigned q = 1; q <= values.size(); ++q) {
      unsigned p = q % values.size();
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
    }
    if (!improved)
      break;
  }
  if (!bestSoFar)
    return {};
  bestCost = *bestSoFar;
  return best;
}

/// The innermost rows' lengths a CPU tile may have (2D and 3D): at least
/// 256 elements. Shorter rows cost loop overhead, vector remainders and
/// prefetch restarts that the traffic count does not see: elastic 3D at
/// order 4 on 160^3 points ran at 0.54x the untiled code with the
/// traffic-optimal widths 4, 16, 32, at 1.33x with the fixed 8, 32, 256
/// (docs/performance.md). No example's choice had shorter rows.
constexpr int64_t kInnerRowLengths[] = {256, 512, 1024, 2048};

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
      values[1 + i].assign(std::begin(kInnerRowLengths),
                           std::end(kInnerRowLengths));
    else
      values[1 + i] = {4, 8, 16, 32, 64, 128};
  }
  std::optional<BoxCounter> boxes = BoxCounter::of(program);
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
    // A parallelogram at least as wide as the dependence cone over the
    // tile's height (as split tiling asks of its trapezoids): narrower
    // ones reach back over several tiles, and their loops split into many
    // cases (elastic 3D at order 8 with widths 4, 4, 32: 9x the code and
    // 4x the compile time of 8, 32, 256).
    for (unsigned i = 0; i < n; ++i)
      if (i != hexDim &&
          options.sizes.widths[i] < cone.upper[i].ceilTimes(p[0] + 1) +
                                        cone.lower[i].ceilTimes(p[0] + 1))
        return std::nullopt;
    // The two phases tile with the same hexagon (sec. 3.3.3): one counts
    // for both.
    return tilingCost(program, boxes,
                      {hybridTilePieces(ctx, cone, options).front()}, n);
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
  SmallVector<int64_t> innerRows(std::begin(kInnerRowLengths),
                                 std::end(kInnerRowLengths));
  if (n == 1)
    innerRows = {32, 64, 128, 256, 512, 1024, 2048};
  for (unsigned i = 0; i < n; ++i)
    values[1 + i] =
        i + 1 == n ? innerRows : SmallVector<int64_t>{8, 16, 32, 64, 128, 256};
  std::optional<BoxCounter> boxes = BoxCounter::of(program);
  std::optional<SplitProducts> products;
  if (boxes)
    products.emplace(ctx, cone, *boxes);
  auto evaluate = [&](llvm::ArrayRef<int64_t> p) -> std::optional<TileCost> {
    SplitTilingOptions options;
    options.statementsPerStep = k;
    options.sizes.h = p[0];
    options.sizes.widths.assign(p.begin() + 1, p.end());
    if (checkSplitTileSizes(cone, options))
      return std::nullopt;
    if (products)
      if (std::optional<TileCost> cost = products->cost(options))
        return cost;
    SmallVector<TilePiece> pieces;
    for (const SplitColor &color : splitColors(ctx, cone, options))
      pieces.push_back({color.points, color.tile});
    return tilingCost(program, boxes, pieces, n);
  };
  SmallVector<int64_t> best = search(first, values, evaluate, budgetBytes, cost);
  if (best.empty())
    return std::nullopt;
  SplitTileSizes sizes;
  sizes.h = best[0];
  sizes.widths.assign(best.begin() + 1, best.end());
  return sizes;
}
