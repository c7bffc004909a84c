//===- Fusion.cpp - fusion of the statements of a step by scheduling ------===//
//
// Overlapped tiling of the statements of one step (OverTile, ICS'12 sec.
// 3.2-3.3: the tile's halo grows backwards through the producers by the
// consumers' stencil offsets; STENCILGEN, Proc. IEEE 2018 sec. III-B: the
// intermediates of a fused stencil DAG live in on-chip buffers).
//
// 1. Arrays. A temp written by one statement may become local: each tile
//    keeps the part of it that its own statements read, in a small buffer.
// 2. Groups. Statements join the current group in program order while the
//    group stays free of communication between its tiles: a field array the
//    group writes is touched by its statements only at the point being
//    written (distance 0) and only by statements computed on the tile itself
//    (no halo). Otherwise the statement starts a new group. A local array
//    read outside its writer's group is demoted to a full-size array, and
//    the grouping runs again (it only ever splits more).
// 3. Halos. Backwards through a group, a producer of a local array is
//    computed on the union of what its consumers read, as boxes of
//    dependence distances (computed with isl) around the tile; statements
//    that write fields are computed on the tile only.
// 4. Sizes. Given, or chosen by a small model: the least recomputation
//    (instances computed per instance of the program in an interior tile)
//    whose local buffers and (on the CPU) field working set fit the
//    budget, with rows of at least 32 points along the innermost dimension
//    and at least 8 tiles along dimension 0, whose tiles run in parallel.
// 5. Instances and buffers, with isl: per tile [t, T...] the instances of
//    each statement (the tile grown by its halo box, within its domain: a
//    box keeps the loops rectangular at the price of a few points nobody
//    reads), and per local array the box `B*T - halo_below` of size
//    `B + halo_below + halo_above`, checked to hold what the tile writes.
//    verifyFusion then checks the whole plan exactly; a local array whose
//    reads it does not cover (a read outside its writer's domain) is
//    demoted and the plan made again.
// 6. The tree: `band [t] -> sequence(groups) -> filter(field writers) ->
//    mark "parallel" -> band [T...] -> mark "fused" -> extension(every
//    statement's instances per tile, as S_fused[t, T..., s...]) ->
//    filter(those) -> sequence(statements) -> band [s...]`; on a GPU a
//    kernel mark and thread filters instead of the parallel mark, and
//    barriers.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/Fusion.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <limits>
#include <sstream>

using namespace mlir::stencil::poly;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

using Box = SmallVector<std::pair<int64_t, int64_t>>; // per dim: below, above
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;

template <typename T> std::string str(const T &object) {
  std::ostringstream os;
  os << object;
  return os.str();
}

/// "prefix0, ..., prefix{n-1}"
std::string names(llvm::StringRef prefix, unsigned n) {
  SmallVector<std::string> list;
  for (unsigned i = 0; i < n; ++i)
    list.push_back(prefix.str() + std::to_string(i));
  return llvm::join(list, ", ");
}

std::string rangeName(const isl::map &map) {
  const char *name = isl_map_get_tuple_name(map.get(), isl_dim_out);
  return name ? name : "";
}

/// The distances j - i (space dimensions only) from instances S_a[t, i] to
/// the instances S_b[t, j] of the same step that touch the same element:
/// `access_a` and `access_b` map them to one array. Per dimension the
/// smallest and largest distance; nothing when no pair exists, kUnbounded
/// entries when a distance is unbounded.
std::optional<Box> distanceBox(const FusionStatement &a, const isl::map &accessA,
                               const FusionStatement &b,
                               const isl::map &accessB, unsigned n) {
  isl::map pairs = accessA.intersect_domain(a.domain).apply_range(
      accessB.intersect_domain(b.domain).reverse());
  // Same step: equal first coordinates.
  pairs = isl::manage(
      isl_map_equate(pairs.release(), isl_dim_in, 0, isl_dim_out, 0));
  if (pairs.is_empty())
    return std::nullopt;
  pairs = isl::manage(isl_map_reset_tuple_id(pairs.release(), isl_dim_in));
  pairs = isl::manage(isl_map_reset_tuple_id(pairs.release(), isl_dim_out));
  isl::set deltas = pairs.deltas();
  Box box;
  for (unsigned d = 1; d <= n; ++d) {
    isl::val lo = deltas.dim_min_val(d), hi = deltas.dim_max_val(d);
    box.push_back({lo.is_int() ? lo.get_num_si() : -kUnbounded,
                   hi.is_int() ? hi.get_num_si() : kUnbounded});
  }
  return box;
}

bool isZero(const Box &box) {
  return llvm::all_of(box, [](auto p) { return p.first == 0 && p.second == 0; });
}

/// What grouping needs, computed once: per statement the array it writes,
/// and per (reader, access, writer) the distance box.
struct Analysis {
  ArrayRef<FusionStatement> statements;
  unsigned n = 0;
  SmallVector<std::string> written;
  /// writersOf[array]: the statements writing it.
  llvm::StringMap<SmallVector<unsigned>> writersOf;
  /// dist[r][a][w]: from access a of statement r (0 the write, then the
  /// reads) to the write of statement w of the same array.
  SmallVector<SmallVector<SmallVector<std::optional<Box>>>> dist;

  isl::map access(unsigned r, unsigned a) const {
    return a == 0 ? statements[r].write : statements[r].reads[a - 1];
  }
  unsigned numAccesses(unsigned r) const {
    return 1 + statements[r].reads.size();
  }
  std::string arrayOf(unsigned r, unsigned a) const {
    return rangeName(access(r, a));
  }
};

Analysis analyze(ArrayRef<FusionStatement> statements, unsigned n) {
  Analysis an;
  an.statements = statements;
  an.n = n;
  for (auto [k, s] : llvm::enumerate(statements)) {
    an.written.push_back(rangeName(s.write));
    an.writersOf[an.written.back()].push_back(k);
  }
  an.dist.resize(statements.size());
  for (unsigned r = 0; r < statements.size(); ++r) {
    an.dist[r].resize(an.numAccesses(r));
    for (unsigned a = 0; a < an.numAccesses(r); ++a) {
      an.dist[r][a].resize(statements.size());
      std::string array = an.arrayOf(r, a);
      for (unsigned w : an.writersOf.lookup(array))
        an.dist[r][a][w] = distanceBox(statements[r], an.access(r, a),
                                       statements[w], statements[w].write, n);
    }
  }
  return an;
}

/// Halos of the statements of `group` (positions in program order): zero
/// for field writers, the union of the consumers' reads for producers of
/// local arrays; nothing for a producer no statement of the group reads.
SmallVector<std::optional<Box>> groupHalos(const Analysis &an,
                                           ArrayRef<unsigned> group,
                                           const llvm::StringMap<bool> &local) {
  SmallVector<std::optional<Box>> halo(an.statements.size());
  for (unsigned gi = group.size(); gi-- > 0;) {
    unsigned k = group[gi];
    if (!local.lookup(an.written[k])) {
      halo[k] = Box(an.n, {0, 0});
      continue;
    }
    for (unsigned ci = gi + 1; ci < group.size(); ++ci) {
      unsigned c = group[ci];
      if (!halo[c])
        continue;
      for (unsigned a = 1; a < an.numAccesses(c); ++a) {
        const std::optional<Box> &d = an.dist[c][a][k];
        if (!d)
          continue;
        if (!halo[k])
          halo[k] = Box(an.n, {-kUnbounded, -kUnbounded});
        for (unsigned i = 0; i < an.n; ++i) {
          auto &[below, above] = (*halo[k])[i];
          below = std::max(below, (*halo[c])[i].first - (*d)[i].first);
          above = std::max(above, (*halo[c])[i].second + (*d)[i].second);
        }
      }
    }
  }
  return halo;
}

/// Whether the tiles of `group` would communicate through a field array it
/// writes (see the file comment, step 2).
bool communicates(const Analysis &an, ArrayRef<unsigned> group,
                  const llvm::StringMap<bool> &local) {
  SmallVector<std::optional<Box>> halo = groupHalos(an, group, local);
  for (unsigned w : group) {
    if (local.lookup(an.written[w]))
      continue;
    for (unsigned r : group) {
      if (!halo[r])
        continue;
      for (unsigned a = 0; a < an.numAccesses(r); ++a) {
        if (r == w && a == 0)
          continue;
        const std::optional<Box> &d = an.dist[r][a][w];
        if (d && (!isZero(*d) || !isZero(*halo[r])))
          return true;
      }
    }
  }
  return false;
}

SmallVector<SmallVector<unsigned>> formGroups(const Analysis &an,
                                              const llvm::StringMap<bool> &local) {
  SmallVector<SmallVector<unsigned>> groups;
  for (unsigned k = 0; k < an.statements.size(); ++k) {
    if (!groups.empty()) {
      SmallVector<unsigned> candidate = groups.back();
      candidate.push_back(k);
      if (!communicates(an, candidate, local)) {
        groups.back() = std::move(candidate);
        continue;
      }
    }
    groups.push_back({k});
  }
  return groups;
}

/// The extent of each space dimension over the statements' domains
/// (kUnbounded when it depends on a parameter).
SmallVector<int64_t> extents(ArrayRef<FusionStatement> statements, unsigned n) {
  SmallVector<int64_t> result(n, 0);
  for (const FusionStatement &s : statements) {
    if (s.domain.is_empty())
      continue;
    for (unsigned d = 0; d < n; ++d) {
      isl::val lo = s.domain.dim_min_val(d + 1), hi = s.domain.dim_max_val(d + 1);
      int64_t e = lo.is_int() && hi.is_int()
                      ? hi.get_num_si() - lo.get_num_si() + 1
                      : kUnbounded;
      result[d] = std::max(result[d], e);
    }
  }
  return result;
}

struct ModelFigures {
  double recomputation = 1;
  int64_t footprintBytes = 0;
};

/// The model of step 4 for sizes `b`.
ModelFigures evaluate(const Analysis &an, ArrayRef<FusionArray> arrays,
                      ArrayRef<SmallVector<unsigned>> groups,
                      ArrayRef<std::optional<Box>> halo,
                      const llvm::StringMap<bool> &local,
                      ArrayRef<int64_t> b, bool countFields) {
  auto volume = [&](const Box &box) {
    double v = 1;
    for (unsigned d = 0; d < an.n; ++d)
      v *= double(std::max<int64_t>(0, b[d] + box[d].first + box[d].second));
    return v;
  };
  auto bytesOf = [&](llvm::StringRef name) -> int64_t {
    for (const FusionArray &a : arrays)
      if (a.name == name)
        return a.elementBytes;
    return 8;
  };
  ModelFigures f;
  double computed = 0, own = 0, footprint = 0;
  for (ArrayRef<unsigned> group : groups) {
    Box widest(an.n, {0, 0});
    llvm::StringMap<int64_t> fields;
    double locals = 0;
    for (unsigned k : group) {
      if (!halo[k])
        continue;
      computed += volume(*halo[k]);
      own += volume(Box(an.n, {0, 0}));
      for (unsigned d = 0; d < an.n; ++d) {
        widest[d].first = std::max(widest[d].first, (*halo[k])[d].first);
        widest[d].second = std::max(widest[d].second, (*halo[k])[d].second);
      }
      if (local.lookup(an.written[k]))
        locals += volume(*halo[k]) * double(bytesOf(an.written[k]));
      for (unsigned a = 0; a < an.numAccesses(k); ++a)
        if (!local.lookup(an.arrayOf(k, a)))
          fields[an.arrayOf(k, a)] = bytesOf(an.arrayOf(k, a));
    }
    // The fields a tile touches, over its widest halo and one point more
    // (a model: their stencil offsets are not counted exactly).
    for (unsigned d = 0; d < an.n; ++d) {
      widest[d].first += 1;
      widest[d].second += 1;
    }
    double fieldFootprint = 0;
    if (countFields)
      for (const auto &field : fields)
        fieldFootprint += volume(widest) * double(field.second);
    footprint = std::max(footprint, locals + fieldFootprint);
  }
  f.recomputation = own > 0 ? computed / own : 1;
  f.footprintBytes = int64_t(footprint);
  return f;
}

SmallVector<int64_t> chooseSizes(const Analysis &an,
                                 ArrayRef<FusionArray> arrays,
                                 ArrayRef<SmallVector<unsigned>> groups,
                                 ArrayRef<std::optional<Box>> halo,
                                 const llvm::StringMap<bool> &local,
                                 ArrayRef<int64_t> extent, int64_t budget,
                                 bool countFields) {
  unsigned n = an.n;
  SmallVector<SmallVector<int64_t>> candidates(n);
  for (unsigned d = 0; d < n; ++d) {
    // The tiles along dimension 0 run in parallel: at least 8 of them where
    // the extent allows tiles of 4.
    int64_t most = d == 0 && extent[0] >= 32 ? extent[0] / 8 : extent[d];
    for (int64_t c = 4; c <= 512; c *= 2)
      if (c < extent[d] && c <= most)
        candidates[d].push_back(c);
    if (extent[d] <= std::min<int64_t>(512, most))
      candidates[d].push_back(std::max<int64_t>(1, extent[d]));
    if (candidates[d].empty())
      candidates[d].push_back(1);
  }
  SmallVector<int64_t> best, sizes(n);
  ModelFigures bestFigures;
  bool bestFits = false;
  std::function<void(unsigned)> search = [&](unsigned d) {
    if (d < n) {
      for (int64_t c : candidates[d]) {
        sizes[d] = c;
        search(d + 1);
      }
      return;
    }
    // Rows long enough to vectorize (in 1D the parallel tiles come first).
    if (n > 1 && sizes[n - 1] < std::min<int64_t>(32, extent[n - 1]))
      return;
    ModelFigures f =
        evaluate(an, arrays, groups, halo, local, sizes, countFields);
    bool fits = f.footprintBytes <= budget;
    auto better = [&] {
      if (best.empty() || fits != bestFits)
        return best.empty() || fits;
      if (!fits)
        return f.footprintBytes < bestFigures.footprintBytes;
      if (f.recomputation != bestFigures.recomputation)
        return f.recomputation < bestFigures.recomputation;
      if (sizes[n - 1] != best[n - 1])
        return sizes[n - 1] > best[n - 1];
      return f.footprintBytes < bestFigures.footprintBytes;
    };
    if (better()) {
      best = sizes;
      bestFigures = f;
      bestFits = fits;
    }
  };
  search(0);
  return best;
}

} // namespace

std::optional<FusionPlan>
mlir::stencil::poly::planFusion(ArrayRef<FusionStatement> statements,
                                ArrayRef<FusionArray> arrays,
                                unsigned numSpaceDims,
                                const FusionOptions &options,
                                std::string &error) {
  unsigned n = numSpaceDims;
  error.clear();
  if (n == 0)
    return std::nullopt;
  // The sizes are checked also where there is nothing to fuse: an option
  // error does not depend on the program's statements.
  if (!options.tileSizes.empty()) {
    if (options.tileSizes.size() != n) {
      error = "tile needs " + std::to_string(n) +
              " sizes (one per space dimension), got " +
              std::to_string(options.tileSizes.size());
      return std::nullopt;
    }
    for (int64_t b : options.tileSizes)
      if (b < 1) {
        error = "tile sizes must be positive, got " + std::to_string(b);
        return std::nullopt;
      }
  }
  if (statements.size() < 2)
    return std::nullopt;
  try {
    isl::ctx ctx = statements.front().domain.ctx();
    Analysis an = analyze(statements, n);

    // Step 1: temps with one writer may be local.
    llvm::StringMap<bool> local;
    for (const FusionArray &a : arrays)
      if (a.temp && an.writersOf.lookup(a.name).size() == 1)
        local[a.name] = true;

    FusionPlan plan;
    std::string p = "t, " + names("T", n), i = names("i", n);
    for (;;) {
      // Step 2: groups; demote what crosses them.
      plan.groups = formGroups(an, local);
      SmallVector<unsigned> groupOf(statements.size());
      for (auto [g, group] : llvm::enumerate(plan.groups))
        for (unsigned k : group)
          groupOf[k] = g;
      bool demoted = false;
      for (unsigned r = 0; r < statements.size(); ++r)
        for (unsigned a = 1; a < an.numAccesses(r); ++a) {
          std::string array = an.arrayOf(r, a);
          if (!local.lookup(array))
            continue;
          unsigned w = an.writersOf.lookup(array).front();
          if (groupOf[w] != groupOf[r] || w >= r) {
            local[array] = false;
            demoted = true;
          }
        }
      if (demoted)
        continue;
      if (llvm::all_of(plan.groups, [](auto &g) { return g.size() < 2; }))
        return std::nullopt; // nothing to fuse

      // Step 3: halos.
      SmallVector<std::optional<Box>> halo(statements.size());
      for (ArrayRef<unsigned> group : plan.groups) {
        SmallVector<std::optional<Box>> h = groupHalos(an, group, local);
        for (unsigned k : group)
          halo[k] = h[k];
      }
      // A producer read at distances that grow with the point (a fixed
      // index, say) has no bounded halo: its array keeps full storage.
      for (unsigned k = 0; k < statements.size(); ++k)
        if (halo[k] && llvm::any_of(*halo[k], [](auto b) {
              return b.first >= kUnbounded / 2 || b.second >= kUnbounded / 2;
            })) {
          local[an.written[k]] = false;
          demoted = true;
        }
      if (demoted)
        continue;

      // Step 4: sizes.
      SmallVector<int64_t> extent = extents(statements, n);
      plan.tileSizes = options.tileSizes.empty()
                           ? chooseSizes(an, arrays, plan.groups, halo, local,
                                         extent, options.budgetBytes,
                                         !options.gpu)
                           : options.tileSizes;
      ModelFigures figures = evaluate(an, arrays, plan.groups, halo, local,
                                      plan.tileSizes, !options.gpu);
      plan.recomputation = figures.recomputation;
      plan.footprintBytes = figures.footprintBytes;
      plan.halos.clear();
      for (const std::optional<Box> &h : halo)
        plan.halos.push_back(h ? *h : Box());

      // Step 5: instances per tile: the tile grown by the statement's halo
      // (a box: rectangular loops, at the price of a few points no consumer
      // reads), within the statement's domain.
      plan.instances.assign(statements.size(), std::nullopt);
      for (unsigned k = 0; k < statements.size(); ++k) {
        if (!halo[k])
          continue; // read by nobody: not computed
        SmallVector<std::string> bounds;
        for (unsigned d = 0; d < n; ++d) {
          std::string b = std::to_string(plan.tileSizes[d]);
          std::string T = "T" + std::to_string(d), x = "i" + std::to_string(d);
          bounds.push_back(b + T + " - (" + std::to_string((*halo[k])[d].first) +
                           ") <= " + x + " < " + b + T + " + " + b + " + (" +
                           std::to_string((*halo[k])[d].second) + ")");
        }
        plan.instances[k] =
            isl::map(ctx, "{ [" + p + "] -> " + statements[k].name + "[t, " +
                              i + "] : " + llvm::join(bounds, " and ") + " }")
                .intersect_range(statements[k].domain);
      }
      bool uncovered = false;

      // Local buffers: the writer's halo box around the tile.
      plan.buffers.clear();
      for (unsigned k = 0; k < statements.size(); ++k) {
        if (!local.lookup(an.written[k]) || !plan.instances[k])
          continue;
        const FusionStatement &s = statements[k];
        isl::map footprint = plan.instances[k]->apply_range(s.write);
        unsigned rank = unsigned(footprint.range_tuple_dim());
        LocalBuffer buffer;
        buffer.array = an.written[k];
        SmallVector<std::string> offsets, within;
        bool identity = rank == n;
        for (unsigned d = 0; identity && d < n; ++d) {
          int64_t below = (*halo[k])[d].first;
          std::string o = std::to_string(plan.tileSizes[d]) + "T" +
                          std::to_string(d) + " - (" + std::to_string(below) +
                          ")";
          int64_t size =
              plan.tileSizes[d] + below + (*halo[k])[d].second;
          if (size < 1)
            identity = false;
          offsets.push_back(o);
          buffer.shape.push_back(size);
          within.push_back(o + " <= x" + std::to_string(d) + " < " + o +
                           " + " + std::to_string(size));
        }
        std::string x = names("x", rank);
        if (identity) {
          buffer.offset = isl::multi_aff(
              ctx, "{ [" + p + "] -> " + buffer.array + "[" +
                       llvm::join(offsets, ", ") + "] }");
          identity = footprint.is_subset(isl::map(
              ctx, "{ [" + p + "] -> " + buffer.array + "[" + x + "] : " +
                       llvm::join(within, " and ") + " }"));
        }
        if (!identity) {
          isl::fixed_box box = footprint.get_range_simple_fixed_box_hull();
          if (!box.is_valid()) {
            local[buffer.array] = false;
            uncovered = true;
            continue;
          }
          buffer.offset = box.offset();
          buffer.shape.clear();
          isl::multi_val size = box.size();
          for (unsigned d = 0; d < rank; ++d)
            buffer.shape.push_back(size.at(d).get_num_si());
        }
        plan.buffers.push_back(std::move(buffer));
      }
      if (uncovered)
        continue;
      // A local array read where its writer wrote nothing in the tile (a
      // read outside the writer's domain) stays a full-size array.
      if (std::optional<std::string> bad = verifyFusion(statements, plan)) {
        bool changed = false;
        for (const LocalBuffer &buffer : plan.buffers)
          if (bad->find("@" + buffer.array + " ") != std::string::npos) {
            local[buffer.array] = false;
            changed = true;
          }
        if (changed)
          continue;
        error = "fusion would be wrong: " + *bad;
        return std::nullopt;
      }
      break;
    }

    // Step 6: the tree, in isl's YAML form. Below the tile band every
    // statement runs as its tiled instances `S_fused[t, T..., s...]`
    // (extension), which name their tile; the instances of the domain only
    // make the tile loops and are filtered out right below the extension.
    // (Not by the sequence: isl takes a sequence's filters to partition what
    // reaches it, and its gist, e.g. in isl_schedule_intersect_domain when
    // AstToLoops generates one kernel alone, drops a one-child sequence
    // with its filter, leaving the domain's instances to the point band.)
    auto quoted = [](const std::string &text) { return "\"" + text + "\""; };
    std::string tiled = "t, " + names("T", n) + ", " + i;
    // On a GPU (thesis sec. 5.3.1, as poly-to-gpu maps untiled code): the
    // tiles of dimension 0 over the blocks, the others in sequence in a
    // block; the points of every statement cyclically over the threads (x
    // along the innermost dimension); a barrier after each producer of a
    // local buffer and at the end of the tile, whose buffers the block's
    // next tile reuses.
    bool gpu = options.gpu;
    unsigned threadDims = gpu ? std::min<unsigned>(n, 2) : 0;
    if (gpu) {
      plan.threads.assign(options.threads.begin(), options.threads.end());
      if (plan.threads.empty()) {
        plan.threads.push_back(std::min<int64_t>(plan.tileSizes[n - 1], 64));
        if (n > 1)
          plan.threads.push_back(std::min<int64_t>(
              plan.tileSizes[n - 2], std::max<int64_t>(1, 256 / plan.threads[0])));
      }
      plan.threads.resize(threadDims, 1);
    }
    // (dimension, threads) of thread dimension x, y.
    auto threadOf = [&](unsigned x) {
      return std::make_pair(n - 1 - x, plan.threads[x]);
    };
    std::string tids = threadDims == 2 ? "tid_x, tid_y" : "tid_x";
    SmallVector<std::string> groupTrees;
    for (auto [g, group] : llvm::enumerate(plan.groups)) {
      SmallVector<std::string> writers, children, tileMembers, own;
      isl::union_map extension;
      auto extend = [&](isl::map e) {
        extension = extension.is_null() ? isl::union_map(e)
                                        : extension.unite(isl::union_map(e));
      };
      bool anyLocal = false;
      for (unsigned k : group) {
        if (!plan.instances[k])
          continue;
        const std::string &name = statements[k].name;
        std::string fused = fusedInstanceName(name);
        SmallVector<std::string> members, onThread;
        for (unsigned d = 0; d < n; ++d) {
          std::string x = "i" + std::to_string(d);
          for (unsigned t = 0; t < threadDims; ++t)
            if (threadOf(t).first == d) {
              std::string size = std::to_string(threadOf(t).second);
              onThread.push_back(x + " mod " + size + " = tid_" +
                                 (t ? "y" : "x"));
              x = "floor(" + x + "/" + size + ")";
            }
          members.push_back("{ " + fused + "[" + tiled + "] -> [(" + x +
                            ")] }");
        }
        std::string points = "schedule: " +
                              quoted("[" + llvm::join(members, ", ") + "]");
        if (gpu)
          points += ", child: { mark: \"threads\", child: { filter: " +
                    quoted("[" + tids + "] -> { " + fused + "[" + tiled +
                           "] : " + llvm::join(onThread, " and ") + " }") +
                    " } }";
        own.push_back(fused + "[" + tiled + "]");
        children.push_back("{ filter: " + quoted("{ " + own.back() + " }") +
                           ", child: { " + points + " } }");
        isl::map lift(ctx, "{ [" + p + "] -> " + fused + "[" + tiled +
                               "] }");
        extend(lift.intersect_range(plan.instances[k]->wrap().apply(isl::map(
            ctx, "{ [[" + p + "] -> " + name + "[t2, " + i + "]] -> " + fused +
                     "[" + tiled + "] : t2 = t }"))));
        bool producesLocal = local.lookup(an.written[k]);
        anyLocal |= producesLocal;
        if (!producesLocal)
          writers.push_back(name + "[t, " + i + "]");
        if (gpu && producesLocal) {
          std::string barrier = "barrier_fused" + std::to_string(g) + "_" +
                                std::to_string(k) + "[" + p + "]";
          extend(isl::map(ctx, "{ [" + p + "] -> " + barrier + " }"));
          own.push_back(barrier);
          children.push_back("{ filter: " + quoted("{ " + barrier + " }") +
                             " }");
        }
      }
      if (writers.empty())
        continue; // nothing of the group is needed
      if (gpu && anyLocal) {
        std::string barrier =
            "barrier_fused" + std::to_string(g) + "_end[" + p + "]";
        extend(isl::map(ctx, "{ [" + p + "] -> " + barrier + " }"));
        own.push_back(barrier);
        children.push_back("{ filter: " + quoted("{ " + barrier + " }") + " }");
      }
      for (unsigned d = 0; d < n; ++d) {
        SmallVector<std::string> pieces;
        for (unsigned k : group)
          if (!local.lookup(an.written[k]))
            pieces.push_back(statements[k].name + "[t, " + i + "] -> [(floor(i" +
                             std::to_string(d) + "/" +
                             std::to_string(plan.tileSizes[d]) + "))]");
        tileMembers.push_back("{ " + llvm::join(pieces, "; ") + " }");
      }
      SmallVector<std::string> coincident(n, "1"), bounds;
      for (unsigned t = 0; t < threadDims; ++t)
        bounds.push_back("0 <= tid_" + std::string(t ? "y" : "x") + " < " +
                         std::to_string(plan.threads[t]));
      std::string tiles =
          "schedule: " + quoted("[" + llvm::join(tileMembers, ", ") + "]") +
          ", permutable: 1, coincident: [ " + llvm::join(coincident, ", ") +
          " ], child: { mark: " + quoted(kFusedMark) +
          ", child: { extension: " + quoted(str(extension)) +
          ", child: { filter: " + quoted("{ " + llvm::join(own, "; ") + " }") +
          ", child: { sequence: [ " + llvm::join(children, ", ") + " ] } } } }";
      std::string mapped =
          gpu ? "mark: \"kernel\", child: { context: " +
                    quoted("[" + tids + "] -> { [t] : " +
                           llvm::join(bounds, " and ") + " }") +
                    ", child: { " + tiles + " } }"
              : "mark: \"parallel\", child: { " + tiles + " }";
      groupTrees.push_back("{ filter: " +
                           quoted("{ " + llvm::join(writers, "; ") + " }") +
                           ", child: { " + mapped + " } }");
    }
    if (groupTrees.empty())
      return std::nullopt; // nothing any field needs
    SmallVector<std::string> timePieces;
    isl::union_set domain;
    for (const FusionStatement &s : statements) {
      timePieces.push_back(s.name + "[t, " + i + "] -> [(t)]");
      domain = domain.is_null() ? isl::union_set(s.domain)
                                : domain.unite(isl::union_set(s.domain));
    }
    std::string below =
        groupTrees.size() == 1
            ? groupTrees.front()
            : "{ sequence: [ " + llvm::join(groupTrees, ", ") + " ] }";
    std::string tree = "{ domain: " + quoted(str(domain)) +
                       ", child: { schedule: " +
                       quoted("[{ " + llvm::join(timePieces, "; ") + " }]") +
                       ", child: " + below + " } }";
    plan.schedule = isl::schedule(ctx, tree);
    return plan;
  } catch (const isl::exception &e) {
    error = std::string("isl failed while planning the fusion: ") + e.what();
    return std::nullopt;
  }
}

std::optional<std::string>
mlir::stencil::poly::verifyFusion(ArrayRef<FusionStatement> statements,
                                  const FusionPlan &plan) {
  llvm::StringMap<bool> local;
  for (const LocalBuffer &buffer : plan.buffers)
    local[buffer.array] = true;
  auto accessesOf = [&](unsigned k) {
    SmallVector<isl::map> all{statements[k].write};
    all.append(statements[k].reads.begin(), statements[k].reads.end());
    return all;
  };
  for (ArrayRef<unsigned> group : plan.groups) {
    // What the tiles write, by array: [t, T...] -> element.
    llvm::StringMap<isl::map> writes;
    for (unsigned k : group) {
      if (!plan.instances[k])
        continue;
      isl::map w = plan.instances[k]->apply_range(statements[k].write);
      std::string array = rangeName(statements[k].write);
      auto [it, inserted] = writes.try_emplace(array, w);
      if (!inserted)
        it->second = it->second.unite(w);
    }
    for (unsigned k : group) {
      if (!plan.instances[k])
        continue;
      for (const isl::map &access : accessesOf(k)) {
        std::string array = rangeName(access);
        auto it = writes.find(array);
        if (it == writes.end())
          continue;
        isl::map touched = plan.instances[k]->apply_range(access);
        if (local.lookup(array)) {
          // Every element read must have been written by the same tile.
          if (!touched.is_subset(it->second))
            return "statement " + statements[k].name + " reads @" + array +
                   " where the tile does not compute it";
          continue;
        }
        // A field: no other tile of the same step writes what this one
        // touches.
        isl::map others = touched.apply_range(it->second.reverse());
        others = isl::manage(isl_map_equate(others.release(), isl_dim_in, 0,
                                            isl_dim_out, 0));
        isl::map same = isl::manage(isl_map_identity(isl_space_map_from_set(
            isl_space_domain(others.space().release()))));
        if (!others.is_subset(same))
          return "statement " + statements[k].name + " touches @" + array +
                 " where another tile of its group writes it";
      }
    }
  }
  return std::nullopt;
}
