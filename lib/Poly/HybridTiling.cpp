//===- HybridTiling.cpp - hybrid hexagonal/parallelogram tiling -----------===//
//
// Hybrid hexagonal/classical tiling, following section 3 of Grosser et al.,
// "Hybrid Hexagonal/Classical Tiling for GPUs", CGO'14 (equation numbers
// below refer to that paper; the thesis numbers them differently):
//
//   sec. 3.3.2  the opposite dependence cone (delta0, delta1) and the
//               convexity condition (1) on w0;
//   sec. 3.3.3  the two phases of hexagonal tiles: tile coordinates (2)-(5),
//               local coordinates (a, b) and the hexagon (6)-(13);
//   sec. 3.4    parallelogram tiles in the other space dimensions (14)-(16);
//   sec. 3.5    intra-tile coordinates (17);
//   sec. 3.6    the combination, as an isl schedule tree.
//
// Everything is built in the canonical schedule space P = [t, s_0, ...,
// s_{n-1}] (t is the folded time K*t + k) from isl strings holding the
// computed integers, then pulled back to the statements through the
// canonical schedule.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/HybridTiling.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <sstream>

using namespace mlir::stencil::poly;

//===----------------------------------------------------------------------===//
// Rational
//===----------------------------------------------------------------------===//

/// floor(a / b) for b > 0.
static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// ceil(a / b) for b > 0.
static int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

int64_t Rational::floorTimes(int64_t k) const { return floorDiv(num * k, den); }
int64_t Rational::ceilTimes(int64_t k) const { return ceilDiv(num * k, den); }

std::string Rational::str() const {
  if (den == 1)
    return std::to_string(num);
  return std::to_string(num) + "/" + std::to_string(den);
}

static Rational makeRational(int64_t num, int64_t den) {
  if (den < 0) {
    num = -num;
    den = -den;
  }
  int64_t g = std::gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return {num, den};
}

/// a < b for rationals with positive denominators.
static bool lessThan(Rational a, Rational b) {
  return a.num * b.den < b.num * a.den;
}

//===----------------------------------------------------------------------===//
// Small isl helpers
//===----------------------------------------------------------------------===//

template <typename T> static std::string toString(const T &obj) {
  std::ostringstream os;
  os << obj;
  return os.str();
}

/// The sets of a union_set, the maps of a union_map.
static llvm::SmallVector<isl::set> setsOf(const isl::union_set &uset) {
  llvm::SmallVector<isl::set> sets;
  uset.foreach_set([&](isl::set set) { sets.push_back(set); });
  return sets;
}
static llvm::SmallVector<isl::map> mapsOf(const isl::union_map &umap) {
  llvm::SmallVector<isl::map> maps;
  umap.foreach_map([&](isl::map map) { maps.push_back(map); });
  return maps;
}

/// Number of dimensions of `type`.
static unsigned dims(const isl::set &set, isl_dim_type type) {
  return isl_set_dim(set.get(), type);
}
static unsigned dims(const isl::map &map, isl_dim_type type) {
  return isl_map_dim(map.get(), type);
}

namespace {
/// Renders `c0*x0 + c1*x1 + ... + constant` for isl's parser, which accepts
/// floor/mod sub-expressions as terms.
class Expr {
public:
  Expr &add(int64_t coeff, const std::string &term) {
    if (coeff == 0)
      return *this;
    if (!text.empty())
      text += coeff < 0 ? " - " : " + ";
    else if (coeff < 0)
      text += "-";
    if (std::llabs(coeff) != 1)
      text += std::to_string(std::llabs(coeff)) + "*";
    text += term;
    return *this;
  }
  Expr &add(int64_t constant) {
    if (constant == 0)
      return *this;
    if (text.empty())
      text = std::to_string(constant);
    else
      text +=
          (constant < 0 ? " - " : " + ") + std::to_string(std::llabs(constant));
    return *this;
  }
  std::string str() const { return text.empty() ? "0" : text; }

private:
  std::string text;
};
} // namespace

static std::string floorOf(const std::string &e, int64_t d) {
  return d == 1 ? "(" + e + ")"
                : "floor((" + e + ")/" + std::to_string(d) + ")";
}

static std::string modOf(const std::string &e, int64_t d) {
  return "((" + e + ") mod " + std::to_string(d) + ")";
}

/// The tuple of P: "[t, s0, ..., s{n-1}]" (other names for a second copy).
static std::string pTuple(unsigned n, const std::string &t = "t",
                          const std::string &s = "s") {
  std::string tuple = "[" + t;
  for (unsigned i = 0; i < n; ++i)
    tuple += ", " + s + std::to_string(i);
  return tuple + "]";
}

/// `{ P -> [e0, e1, ...] }`.
static isl::multi_aff pFunction(isl::ctx ctx, unsigned n,
                                llvm::ArrayRef<std::string> exprs) {
  std::string range;
  for (const std::string &e : exprs)
    range += (range.empty() ? "(" : ", (") + e + ")";
  return isl::multi_aff(ctx, "{ " + pTuple(n) + " -> [" + range + "] }");
}

static int64_t coordinate(const isl::point &p, isl_dim_type type,
                          unsigned pos) {
  isl_val *v = isl_point_get_coordinate_val(p.get(), type, pos);
  int64_t result = isl_val_get_num_si(v);
  isl_val_free(v);
  return result;
}

/// One pair of `rel` (non-empty) as "S0[3, 5] -> S1[4, 6]", followed by the
/// parameter values of that sample if there are parameters.
static std::string describeSamplePair(isl::union_map rel) {
  isl::map map = mapsOf(rel).front();
  isl::point p = map.wrap().sample_point();
  isl_map *m = map.get();
  unsigned nIn = dims(map, isl_dim_in), nOut = dims(map, isl_dim_out);
  auto tuple = [&](isl_dim_type type, unsigned first, unsigned count) {
    const char *name = isl_map_get_tuple_name(m, type);
    std::string s = std::string(name ? name : "") + "[";
    for (unsigned i = 0; i < count; ++i)
      s += (i ? ", " : "") +
           std::to_string(coordinate(p, isl_dim_set, first + i));
    return s + "]";
  };
  std::string s =
      tuple(isl_dim_in, 0, nIn) + " -> " + tuple(isl_dim_out, nIn, nOut);
  unsigned nParam = dims(map, isl_dim_param);
  for (unsigned i = 0; i < nParam; ++i)
    s += std::string(i ? ", " : " (with ") +
         isl_map_get_dim_name(m, isl_dim_param, i) + " = " +
         std::to_string(coordinate(p, isl_dim_param, i)) +
         (i + 1 == nParam ? ")" : "");
  return s;
}

std::optional<isl::union_pw_multi_aff>
mlir::stencil::poly::affineCanonical(isl::union_map canonical,
                                     unsigned numSpaceDims,
                                     std::string &error) {
  isl::union_pw_multi_aff result(canonical.ctx(), "{ }");
  for (isl::map map : mapsOf(canonical)) {
    if (dims(map, isl_dim_out) != numSpaceDims + 1) {
      error = "the canonical schedule must map to " +
              std::to_string(numSpaceDims + 1) + " dimensions [t, s...]";
      return std::nullopt;
    }
    std::optional<isl::multi_aff> affine;
    bool nonAffine = false;
    map.as_pw_multi_aff().foreach_piece([&](isl::set, isl::multi_aff ma) {
      if (affine && !affine->plain_is_equal(ma))
        nonAffine = true;
      affine = ma;
    });
    if (!affine || nonAffine) {
      error = "the canonical schedule of a statement is not one affine "
              "function: " +
              toString(map);
      return std::nullopt;
    }
    result = result.union_add(isl::union_pw_multi_aff(*affine));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Dependence cone (sec. 3.3.2)
//===----------------------------------------------------------------------===//

std::optional<DependenceCone> mlir::stencil::poly::computeDependenceCone(
    isl::union_map deps, isl::union_map canonical, unsigned numSpaceDims,
    std::string &error) {
  try {
    DependenceCone cone;
    cone.upper.assign(numSpaceDims, Rational{0, 1});
    cone.lower.assign(numSpaceDims, Rational{0, 1});

    // The dependence distance vectors (dt, ds) in P.
    isl::union_map inP = deps.apply_domain(canonical).apply_range(canonical);
    if (inP.is_empty())
      return cone;
    std::string p = pTuple(numSpaceDims), q = pTuple(numSpaceDims, "t2", "x");
    for (isl::set d : setsOf(inP.deltas())) {
      if (dims(d, isl_dim_set) != numSpaceDims + 1) {
        error = "the canonical schedule must map to " +
                std::to_string(numSpaceDims + 1) + " dimensions [t, s...]";
        return std::nullopt;
      }
      // Sec. 3.3.1: t carries every dependence, i.e., dt >= 1.
      isl::set uncarried =
          d.intersect(isl::set(d.ctx(), "{ " + p + " : t <= 0 }"));
      if (!uncarried.is_empty()) {
        isl::union_map badInP = inP.intersect(
            isl::union_map(d.ctx(), "{ " + p + " -> " + q + " : t2 <= t }"));
        isl::union_map bad = deps.intersect(
            canonical.apply_range(badInP).apply_range(canonical.reverse()));
        error = "dependence not carried by time: " + describeSamplePair(bad);
        return std::nullopt;
      }

      // The distances of a stencil form a finite set. Parameters (such as
      // the number of steps N) only select which distances occur: without
      // them the slopes hold for every parameter value.
      isl::set distances = isl::manage(isl_set_project_out(
          d.copy(), isl_dim_param, 0, dims(d, isl_dim_param)));
      // Existentially quantified variables (from the buffer rotation's
      // `mod`) hide the bounds from isl_set_is_bounded: test their hull.
      isl_basic_set *hull = isl_set_polyhedral_hull(distances.copy());
      isl_bool bounded = isl_basic_set_is_bounded(hull);
      isl_basic_set_free(hull);
      if (bounded != isl_bool_true) {
        error = "space dependence distances are not bounded by a multiple "
                "of the time distance: the distance set " +
                toString(distances) + " is unbounded";
        return std::nullopt;
      }
      // The slopes are the largest ratios: ds <= upper * dt and
      // ds >= -lower * dt (the LP of sec. 3.3.2, solved by enumeration).
      distances.foreach_point([&](isl::point pt) {
        int64_t dt = coordinate(pt, isl_dim_set, 0);
        for (unsigned i = 0; i < numSpaceDims; ++i) {
          int64_t ds = coordinate(pt, isl_dim_set, i + 1);
          Rational up = makeRational(ds, dt), low = makeRational(-ds, dt);
          if (lessThan(cone.upper[i], up))
            cone.upper[i] = up;
          if (lessThan(cone.lower[i], low))
            cone.lower[i] = low;
        }
      });
    }
    return cone;
  } catch (const isl::exception &e) {
    error = std::string("isl error while computing the dependence cone: ") +
            e.what();
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Tile sizes (sec. 3.3.2, 3.7)
//===----------------------------------------------------------------------===//

/// The least w0 satisfying the convexity condition (1),
///   w0 >= max(delta0 + {delta0 h}, delta1 + {delta1 h}) - 1,
/// with {x} = x - floor(x). Without it, subtracting the neighbouring
/// truncated cones leaves an extra component next to the hexagon.
static int64_t minimalW0(Rational delta0, Rational delta1, int64_t h) {
  auto bound = [h](Rational d) {
    // ceil(d + d h - floor(d h) - 1), over the common denominator.
    return ceilDiv(d.num + d.num * h - d.den * d.floorTimes(h) - d.den, d.den);
  };
  return std::max(bound(delta0), bound(delta1));
}

/// Sizes beyond this are rejected so that products such as delta * h stay
/// far from overflowing int64_t.
static constexpr int64_t kMaxSize = int64_t(1) << 24;

std::optional<std::string>
mlir::stencil::poly::checkTileSizes(const DependenceCone &cone,
                                    const HybridTilingOptions &options) {
  const HybridTileSizes &sizes = options.sizes;
  size_t n = cone.upper.size();
  if (cone.lower.size() != n)
    return std::string("malformed dependence cone");
  if (n == 0)
    return std::string("hybrid tiling needs at least one space dimension");
  if (options.hexDim >= n)
    return "the hexagonal dimension " + std::to_string(options.hexDim) +
           " does not exist (there are " + std::to_string(n) +
           " space dimensions)";
  if (sizes.widths.size() != n)
    return "expected " + std::to_string(n) +
           " tile widths (one per space dimension), got " +
           std::to_string(sizes.widths.size());
  if (options.statementsPerStep == 0)
    return std::string("the number of statements per step must be positive");
  if (sizes.h < 0)
    return "h must be non-negative, got h = " + std::to_string(sizes.h);
  for (const Rational &r : llvm::concat<const Rational>(cone.upper, cone.lower))
    if (r.num < 0 || r.den <= 0 || r.num > kMaxSize || r.den > kMaxSize)
      return "dependence slope " + r.str() + " is not supported";
  if (sizes.h > kMaxSize)
    return "h = " + std::to_string(sizes.h) + " is too large";
  // Sec. 3.3.2: every tile then starts with the same statement.
  std::string k = std::to_string(options.statementsPerStep);
  if ((sizes.h + 1) % options.statementsPerStep != 0)
    return "h+1 must be a multiple of the number of statements per step "
           "(K = " +
           k + "), got h = " + std::to_string(sizes.h);
  for (auto [i, w] : llvm::enumerate(sizes.widths)) {
    if (w < 1)
      return "tile width w" + std::to_string(i) + " must be at least 1, got " +
             std::to_string(w);
    if (w > kMaxSize)
      return "tile width w" + std::to_string(i) + " = " + std::to_string(w) +
             " is too large";
  }
  const Rational &delta0 = cone.upper[options.hexDim];
  const Rational &delta1 = cone.lower[options.hexDim];
  int64_t w0 = sizes.widths[options.hexDim];
  int64_t minW0 = minimalW0(delta0, delta1, sizes.h);
  if (w0 < minW0)
    return "w0 = " + std::to_string(w0) +
           " violates the convexity condition (1) w0 >= max(delta0 + "
           "{delta0*h}, delta1 + {delta1*h}) - 1 for delta0 = " +
           delta0.str() + ", delta1 = " + delta1.str() +
           ", h = " + std::to_string(sizes.h) +
           ": the minimum is w0 = " + std::to_string(minW0);
  return std::nullopt;
}

HybridTileSizes mlir::stencil::poly::defaultTileSizes(
    const DependenceCone &cone, unsigned hexDim, unsigned statementsPerStep,
    TileTarget target) {
  // CPU: a tile's data footprint should stay within the L2 cache and the
  // innermost (stride-one) classical width should be long enough to
  // vectorize and stream. GPU: one tile per thread block, whose footprint
  // should stay in the SM's L1/shared memory, with a multiple of a warp as
  // the innermost width; the hybrid paper's tiles span 8 time steps in 2D
  // and 4 in 3D (sec. 5; thesis sec. 7.2.1). Time height h+1 counts folded
  // steps.
  struct Defaults {
    int64_t timeHeight, w0, middleWidth, innerWidth;
  };
  // Indexed by [target][rank - 1] (rank 3 and above share the last row).
  static constexpr Defaults table[2][3] = {
      {{16, 512, 512, 512}, {8, 32, 512, 512}, {4, 8, 32, 256}}, // CPU
      {{8, 128, 128, 128}, {4, 16, 64, 64}, {2, 8, 8, 32}},      // GPU
  };
  size_t n = cone.upper.size();
  auto [timeHeight, w0, middleWidth, innerWidth] =
      table[target == TileTarget::Gpu][std::clamp<size_t>(n, 1, 3) - 1];
  int64_t k = std::max(statementsPerStep, 1u);
  HybridTileSizes sizes;
  sizes.h = ceilDiv(timeHeight, k) * k - 1;

  // The last classical dimension is the innermost loop: give it the long
  // width, the other classical dimensions the middle one.
  int64_t lastClassical = -1;
  for (size_t i = 0; i < n; ++i)
    if (i != hexDim)
      lastClassical = i;
  for (size_t i = 0; i < n; ++i)
    sizes.widths.push_back(int64_t(i) == lastClassical ? innerWidth
                                                       : middleWidth);
  if (hexDim < n && cone.lower.size() == n)
    sizes.widths[hexDim] = std::max<int64_t>(
        {w0, minimalW0(cone.upper[hexDim], cone.lower[hexDim], sizes.h), 1});
  return sizes;
}

//===----------------------------------------------------------------------===//
// The hybrid tiling in P (sec. 3.3.3 - 3.5)
//===----------------------------------------------------------------------===//

unsigned mlir::stencil::poly::innermostClassical(unsigned n, unsigned hexDim) {
  if (n < 2)
    return n; // none
  return hexDim == n - 1 ? n - 2 : n - 1;
}

namespace {
/// The hexagonal tiling of (t, s_hexDim) and the parallelogram tiling of the
/// other space dimensions for fixed sizes, as isl objects on P. Phase 0 are
/// the tiles of a time tile T that run first (blue in Figure 5), phase 1
/// those that run second (green).
class HybridTiler {
public:
  HybridTiler(isl::ctx ctx, const DependenceCone &cone,
              const HybridTilingOptions &options)
      : ctx(ctx), n(cone.upper.size()), hexDim(options.hexDim),
        h(options.sizes.h), w0(options.sizes.widths[options.hexDim]),
        delta0(cone.upper[hexDim]), delta1(cone.lower[hexDim]),
        fl0(delta0.floorTimes(h)), fl1(delta1.floorTimes(h)),
        W(2 * w0 + 2 + fl0 + fl1), lower(cone.lower),
        widths(options.sizes.widths), offset(options.offset),
        translated(innermostClassical(n, hexDim)) {}

  /// The points of P executed in phase `p`: those whose local coordinates
  /// lie in the hexagon (sec. 3.6).
  isl::set phase(unsigned p) const {
    isl::multi_aff local = pFunction(ctx, n, {localTime(p), localSpace(p)});
    return hexagon().preimage(local);
  }

  /// [T]: eq. (2) for phase 0, eq. (4) for phase 1.
  isl::multi_aff timeTile(unsigned p) const {
    return pFunction(ctx, n, {timeTileExpr(p)});
  }

  /// [S_hexDim, S_i for i != hexDim in increasing order]: the hexagonal tile
  /// by eq. (3)/(5), the parallelogram tiles by eq. (14).
  isl::multi_aff spaceTiles(unsigned p) const {
    llvm::SmallVector<std::string> exprs = {floorOf(hexNumerator(p), W)};
    for (unsigned i = 0; i < n; ++i)
      if (i != hexDim)
        exprs.push_back(floorOf(skewed(i, p), widths[i]));
    return pFunction(ctx, n, exprs);
  }

  /// [t'] = [a] = [u]: eq. (15) for phase 0, eq. (16) for phase 1.
  isl::multi_aff intraTileTime(unsigned p) const {
    return pFunction(ctx, n, {localTime(p)});
  }

  /// [s'_0, ..., s'_{n-1}] in the original order: b for the hexagonal
  /// dimension, eq. (17) for the others.
  isl::multi_aff intraTileSpace(unsigned p) const {
    llvm::SmallVector<std::string> exprs;
    for (unsigned i = 0; i < n; ++i)
      exprs.push_back(i == hexDim ? localSpace(p)
                                  : modOf(skewed(i, p), widths[i]));
    return pFunction(ctx, n, exprs);
  }

private:
  std::string space(unsigned i) const { return "s" + std::to_string(i); }

  /// The numerators of (2) and (4); the phase-0 boxes start h+1 steps
  /// earlier, so that a time tile runs its phase-0 tiles before the phase-1
  /// tiles with the same and greater t.
  std::string timeNumerator(unsigned p) const {
    return p == 0 ? Expr().add(1, "t").add(h + 1).str() : "t";
  }
  std::string timeTileExpr(unsigned p) const {
    return floorOf(timeNumerator(p), 2 * h + 2);
  }

  /// The local time a in the box of (T, p), 0 <= a <= 2h+1.
  std::string localTime(unsigned p) const {
    return modOf(timeNumerator(p), 2 * h + 2);
  }

  /// The numerator of S_hexDim in (3) and (5); b is its remainder modulo W.
  /// The term T*(floor(delta1 h) - floor(delta0 h)) moves the boxes of
  /// consecutive time tiles by the offset of the bottom truncated cone,
  /// (-2h-2, floor(delta1 h) - floor(delta0 h)).
  ///
  /// Deviation from the paper: (3) prints the phase-0 offset as
  /// floor(delta1 h) + w0 + 1, but the geometry of sec. 3.3.2 needs
  /// floor(delta0 h) + w0 + 1. The phase-0 box left of a phase-1 box is the
  /// one at offset (-h-1, -w0-1-floor(delta0 h)), in which a phase-1 point
  /// (a, b) with a <= h has coordinates a' = a+h+1, b' = b+w0+1+floor(delta0
  /// h) (the derivation of (9)/(10)); both boxes have the same T there, so
  /// the numerators must differ by w0+1+floor(delta0 h). With
  /// floor(delta1 h) the phases overlap and leave holes whenever the two
  /// floors differ, e.g. for the paper's own Figure 4 example (delta0 = 1,
  /// delta1 = 2, h = 2); the two agree for symmetric cones such as Figure 6.
  /// PPCG's hybrid.c shifts the phases by the same w0+1+floor(delta0 h).
  std::string hexNumerator(unsigned p) const {
    Expr e;
    e.add(1, space(hexDim));
    if (p == 0)
      e.add(w0 + 1 + fl0);
    e.add(fl1 - fl0, timeTileExpr(p));
    return e.str();
  }
  std::string localSpace(unsigned p) const { return modOf(hexNumerator(p), W); }

  /// s_i + delta1_i u of (14)/(17), with u the local time of (15)/(16).
  /// For a rational delta1_i, floor((s_i + delta1_i u)/w_i) equals
  /// floor((s_i + floor(delta1_i u))/w_i) because s_i is an integer, so the
  /// integer skew floor(delta1_i u) gives exactly the paper's tiles, and (17)
  /// becomes (s_i + floor(delta1_i u)) mod w_i. It is valid: for a
  /// dependence of distance (dt, ds_i) inside a box, ds_i >= -delta1_i dt
  /// implies ds_i >= -floor(delta1_i dt) and floor(delta1_i (u + dt)) >=
  /// floor(delta1_i u) + floor(delta1_i dt), so the skewed value never
  /// decreases.
  std::string skewed(unsigned i, unsigned p) const {
    const Rational &d = lower[i];
    Expr e;
    e.add(1, space(i));
    if (i == translated)
      e.add(offset); // sec. 4.2.3: the translation offset
    if (d.num != 0)
      e.add(1, floorOf(Expr().add(d.num, localTime(p)).str(), d.den));
    return e.str();
  }

  /// The hexagon in local coordinates [a, b] (sec. 3.3.3), each constraint
  /// multiplied by the denominators d0 of delta0 and d1 of delta1.
  isl::set hexagon() const {
    int64_t n0 = delta0.num, d0 = delta0.den, n1 = delta1.num, d1 = delta1.den;
    auto leq = [](Expr lhs, int64_t rhs) {
      return lhs.str() + " <= " + std::to_string(rhs);
    };
    auto geq = [](Expr lhs, int64_t rhs) {
      return lhs.str() + " >= " + std::to_string(rhs);
    };
    llvm::SmallVector<std::string> constraints = {
        // (6) delta0 a - b <= (2h+1) delta0 - floor(delta0 h): the top left
        // side, the opposite dependence cone of the w0+1 top points.
        leq(Expr().add(n0, "a").add(-d0, "b"), (2 * h + 1) * n0 - d0 * fl0),
        // (7) a <= 2h+1.
        "a <= " + std::to_string(2 * h + 1),
        // (8) delta1 a + b <= (2h+1) delta1 + floor(delta0 h) + w0: the top
        // right side.
        leq(Expr().add(n1, "a").add(d1, "b"),
            (2 * h + 1) * n1 + d1 * (fl0 + w0)),
        // (10) delta1 a + b >= h delta1 - (d1-1)/d1: minus the truncated cone
        // of the box at (-h-1, -w0-1-floor(delta0 h)).
        geq(Expr().add(n1, "a").add(d1, "b"), h * n1 - (d1 - 1)),
        // (12) delta0 a - b >= delta0 h - floor(delta0 h) - w0 -
        // floor(delta1 h) - (d0-1)/d0: minus the truncated cone of the box
        // at (-h-1, w0+1+floor(delta1 h)).
        geq(Expr().add(n0, "a").add(-d0, "b"),
            h * n0 - d0 * (fl0 + w0 + fl1) - (d0 - 1)),
        // (13) a >= 0: minus the box at (-2h-2, floor(delta1 h) -
        // floor(delta0 h)).
        "a >= 0",
    };
    std::string text;
    for (const std::string &c : constraints)
      text += (text.empty() ? "" : " and ") + c;
    return isl::set(ctx, "{ [a, b] : " + text + " }");
  }

  isl::ctx ctx;
  unsigned n, hexDim;
  int64_t h, w0;
  Rational delta0, delta1;
  /// floor(delta0 h), floor(delta1 h) and the period of the hexagonal tiles
  /// along s_hexDim, W = 2 w0 + 2 + floor(delta0 h) + floor(delta1 h).
  int64_t fl0, fl1, W;
  llvm::SmallVector<Rational> lower;
  llvm::SmallVector<int64_t> widths;
  /// The translation of the tiles of space dimension `translated`.
  int64_t offset;
  unsigned translated;
};
} // namespace

llvm::SmallVector<TilePiece>
mlir::stencil::poly::hybridTilePieces(isl::ctx ctx, const DependenceCone &cone,
                                      const HybridTilingOptions &options) {
  HybridTiler tiler(ctx, cone, options);
  llvm::SmallVector<TilePiece> pieces;
  for (unsigned p = 0; p < 2; ++p)
    pieces.push_back(
        {tiler.phase(p), tiler.timeTile(p).flat_range_product(tiler.spaceTiles(p))});
  return pieces;
}

int64_t mlir::stencil::poly::minimalHexWidth(const DependenceCone &cone,
                                             unsigned hexDim, int64_t h) {
  return std::max<int64_t>(
      1, minimalW0(cone.upper[hexDim], cone.lower[hexDim], h));
}

//===----------------------------------------------------------------------===//
// The schedule tree (sec. 3.6)
//===----------------------------------------------------------------------===//

isl::set mlir::stencil::poly::fullTiles(
    isl::map tileOf, isl::union_set domain,
    const isl::union_pw_multi_aff &canonical) {
  isl::union_map ideal =
      isl::manage(isl_union_map_from_union_pw_multi_aff(canonical.copy()))
          .intersect_domain(domain.universe())
          .apply_range(isl::union_map(tileOf));
  isl::union_set nonEmpty = ideal.intersect_domain(domain).range();
  // The instances outside the domain, as the complement of the domain's
  // few boxes: much cheaper than subtracting the domain from the ideal
  // tiles' piecewise map.
  isl::union_set partial =
      ideal.intersect_domain(domain.universe().subtract(domain)).range();
  isl::union_set full = nonEmpty.subtract(partial);
  isl::set result = full.extract_set(tileOf.range().get_space());
  return isl::manage(isl_set_set_tuple_name(result.release(), "isolate"));
}

/// The tiles of phase `p` (as `isolate[[T] -> [S...]]`) that are full.
static isl::set fullPhaseTiles(const HybridTiler &tiler, unsigned p, unsigned n,
                          isl::union_set domain,
                          const isl::union_pw_multi_aff &canonical) {
  isl::ctx ctx = domain.ctx();
  // P -> [[T] -> [S...]], the isolate option's space: the outer schedule
  // dimension (the T band) and the members of the tile band.
  std::string flat = "[T", nested = "[[T] -> [";
  for (unsigned i = 0; i < n; ++i) {
    flat += ", S" + std::to_string(i);
    nested += (i ? ", S" : "S") + std::to_string(i);
  }
  isl::map nest(ctx, "{ " + flat + "] -> " + nested + "]] }");
  isl::map tileOf = isl::manage(isl_map_from_multi_aff(
                                    tiler.timeTile(p)
                                        .flat_range_product(tiler.spaceTiles(p))
                                        .release()))
                        .intersect_domain(tiler.phase(p))
                        .apply_range(nest);
  return mlir::stencil::poly::fullTiles(tileOf, domain, canonical);
}

bool mlir::stencil::poly::tilesWiderThanPoints(
    isl::union_set points, const HybridTilingOptions &options) {
  if (isl_union_set_n_set(points.get()) != 1)
    return false;
  isl::set box = isl::manage(isl_set_from_union_set(points.release()));
  for (unsigned d = 0; d < options.sizes.widths.size(); ++d) {
    isl::val lo = box.dim_min_val(1 + d), hi = box.dim_max_val(1 + d);
    if (!lo.is_int() || !hi.is_int())
      continue;
    int64_t narrowestRow =
        options.sizes.widths[d] + (d == options.hexDim ? 1 : 0);
    if (hi.get_num_si() - lo.get_num_si() + 1 < narrowestRow)
      return true;
  }
  return false;
}

std::optional<isl::schedule> mlir::stencil::poly::buildHybridSchedule(
    isl::union_set domain, isl::union_map canonical, const DependenceCone &cone,
    const HybridTilingOptions &options, std::string &error) {
  if (std::optional<std::string> message = checkTileSizes(cone, options)) {
    error = *message;
    return std::nullopt;
  }
  try {
    isl::ctx ctx = domain.ctx();
    unsigned n = cone.upper.size();
    for (isl::set set : setsOf(domain))
      if (dims(set, isl_dim_set) != n + 1) {
        error = "statement " + toString(set) + " does not have " +
                std::to_string(n + 1) + " dimensions [t, s...]";
        return std::nullopt;
      }
    std::optional<isl::union_pw_multi_aff> canon =
        affineCanonical(canonical, n, error);
    if (!canon)
      return std::nullopt;
    if (!domain.is_subset(canon->domain())) {
      error = "the canonical schedule does not cover every statement";
      return std::nullopt;
    }

    HybridTiler tiler(ctx, cone, options);
    bool isolate =
        options.isolateFullTiles &&
        !tilesWiderThanPoints(
            domain.apply(isl::manage(
                isl_union_map_from_union_pw_multi_aff(canon->copy()))),
            options);
    // From P to the statements: f o canonical.
    auto band = [&](isl::pw_multi_aff f) {
      isl::union_pw_multi_aff onStatements =
          isl::union_pw_multi_aff(f).pullback(*canon);
      return isl::manage(isl_multi_union_pw_aff_from_union_pw_multi_aff(
          onStatements.release()));
    };
    isl::union_set phaseInstances[2];
    isl::pw_multi_aff timeTile;
    for (unsigned p = 0; p < 2; ++p) {
      phaseInstances[p] =
          domain.intersect(isl::union_set(tiler.phase(p)).preimage(*canon));
      isl::pw_multi_aff t =
          isl::pw_multi_aff(tiler.timeTile(p)).intersect_domain(tiler.phase(p));
      timeTile = p == 0 ? t : timeTile.union_add(t);
    }

    // domain -> band [T] -> sequence(phase 0, phase 1).
    isl::schedule_node node =
        isl::schedule::from_domain(domain).root().child(0);
    node = node.insert_partial_schedule(band(timeTile)).child(0);
    node = node.insert_sequence(isl::union_set_list(ctx, 2)
                                    .add(phaseInstances[0])
                                    .add(phaseInstances[1]));
    for (unsigned p = 0; p < 2; ++p) {
      // Built bottom-up: each insertion goes above the current node.
      node = node.child(p).child(0);

      // [s'_0, ..., s'_{n-1}]: all instances at one t' have the same folded
      // time, so no dependence joins them.
      isl::schedule_node_band points =
          node.insert_partial_schedule(band(tiler.intraTileSpace(p)))
              .as<isl::schedule_node_band>();
      for (unsigned i = 0; i < n; ++i)
        points = points.member_set_coincident(i, 1);

      isl::schedule_node_band time =
          points.insert_partial_schedule(band(tiler.intraTileTime(p)))
              .as<isl::schedule_node_band>();
      // With several statements per step and no unrolling, the steps stay
      // one loop (atomic): isl would otherwise copy the point loops for
      // every piece of the hexagon's bounds and of each statement's domain
      // (elastic 2D at order 8 compiles in 2.8 s instead of 6.9 s). With one
      // statement the copies are few and a few percent faster.
      if (options.unrollTime)
        time = time.member_set_ast_loop_unroll(0);
      else if (options.statementsPerStep > 1)
        time = time.member_set_ast_loop_atomic(0);

      // [S_hex, S_others]: the hexagonal tiles of one (T, p) are independent
      // (sec. 3.3.3), the parallelogram tiles run in order.
      isl::schedule_node_band tiles =
          time.insert_partial_schedule(band(tiler.spaceTiles(p)))
              .as<isl::schedule_node_band>()
              .set_permutable(1)
              .member_set_coincident(0, 1);
      if (isolate) {
        isl::set full = fullPhaseTiles(tiler, p, n, domain, *canon);
        if (!full.is_empty())
          tiles = tiles.set_ast_build_options(isl::union_set(full));
      }
      node = tiles.insert_mark(isl::id(ctx, "parallel"));
      node = node.parent().parent(); // the sequence
    }
    return node.schedule();
  } catch (const isl::exception &e) {
    error = std::string("isl error while building the hybrid schedule: ") +
            e.what();
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// The pairs of `deps` whose images under `f` (an instance-to-vector
/// function) are related by `order(space)`, a relation on f's range space;
/// nothing if two related instances map to different spaces.
static std::optional<isl::union_map>
pairsWhereImages(isl::union_map deps, isl::union_map f,
                 llvm::function_ref<isl::map(isl::space)> order) {
  isl::union_map result = isl::union_map(deps.ctx(), "{ }");
  // Only the statement pairs that have dependences: the product of f with
  // itself over all pairs grows with the square of the statements.
  isl::union_map images = isl::union_map(deps.ctx(), "{ }");
  for (isl::map dep : mapsOf(deps)) {
    isl::union_map from = f.intersect_domain(
        isl::union_set(isl::set::universe(dep.get_space().domain())));
    isl::union_map to = f.intersect_domain(
        isl::union_set(isl::set::universe(dep.get_space().range())));
    images = images.unite(
        from.product(to).intersect_domain(isl::union_map(dep).wrap()));
  }
  for (isl::map m : mapsOf(images)) {
    isl::space pair = m.get_space().range().unwrap();
    isl::space from = pair.domain(), to = pair.range();
    if (!from.is_equal(to))
      return std::nullopt;
    isl::map bad = m.intersect_range(order(from).wrap());
    result = result.unite(isl::union_map(bad.domain().unwrap()));
  }
  return result;
}

static const char *kSpaceMismatch =
    "the schedule maps dependent instances to different spaces";

/// { [o, x] -> [o', x'] : o = o' and x != x' } on `space` (x the last
/// dimension).
static isl::map sameOuterDifferentLast(isl::space space) {
  unsigned last = isl_space_dim(space.get(), isl_dim_set) - 1;
  isl_map *same = isl_map_universe(isl_space_map_from_set(space.release()));
  for (unsigned i = 0; i < last; ++i)
    same = isl_map_equate(same, isl_dim_in, i, isl_dim_out, i);
  isl_map *lt =
      isl_map_order_lt(isl_map_copy(same), isl_dim_in, last, isl_dim_out, last);
  isl_map *gt = isl_map_order_gt(same, isl_dim_in, last, isl_dim_out, last);
  return isl::manage(isl_map_union(lt, gt));
}

/// `P -> [T, p, S_hex, S_others..., t']` for the points of phase `p`: the
/// order in which the schedule tree runs tiles, and steps within a tile.
static isl::multi_aff tileOrderKey(const HybridTiler &tiler, isl::ctx ctx,
                                   unsigned n, unsigned p) {
  return tiler.timeTile(p)
      .flat_range_product(pFunction(ctx, n, {std::to_string(p)}))
      .flat_range_product(tiler.spaceTiles(p))
      .flat_range_product(tiler.intraTileTime(p));
}

std::optional<isl::set>
mlir::stencil::poly::dependenceDistanceBoxes(isl::union_map canonical,
                                             unsigned numSpaceDims,
                                             isl::union_map deps) {
  try {
    std::string error;
    std::optional<isl::union_pw_multi_aff> canon =
        affineCanonical(canonical, numSpaceDims, error);
    if (!canon)
      return std::nullopt;
    isl::union_map toP =
        isl::manage(isl_union_map_from_union_pw_multi_aff(canon->release()));
    isl::union_map onP = deps.apply_domain(toP).apply_range(toP);
    if (onP.is_empty()) {
      isl::space space = isl::manage(isl_space_set_alloc(
          canonical.ctx().get(), 0, 1 + numSpaceDims));
      return isl::set::empty(space);
    }
    if (isl_union_map_n_map(onP.get()) != 1)
      return std::nullopt;
    // Every distance of a dependence, for any parameter values, widened to
    // a box per time distance: the tiles are shaped by a cone that bounds
    // each space dimension separately, so a legal tiling stays legal for
    // the box, whose few constraints keep the tests below cheap.
    isl::set distances = isl::manage(isl_set_project_out_all_params(
        isl_map_deltas(isl_map_from_union_map(onP.release()))));
    isl::val lo = distances.dim_min_val(0), hi = distances.dim_max_val(0);
    if (!lo.is_int() || !hi.is_int() || hi.sub(lo).get_num_si() > 64)
      return std::nullopt;
    isl::set boxes = isl::set::empty(distances.get_space());
    for (int64_t d0 = lo.get_num_si(); d0 <= hi.get_num_si(); ++d0) {
      isl::set atD0 =
          isl::manage(isl_set_fix_si(distances.copy(), isl_dim_set, 0, d0));
      if (atD0.is_empty())
        continue;
      isl::set box = isl::manage(
          isl_set_fix_si(isl_set_universe(distances.get_space().release()),
                         isl_dim_set, 0, d0));
      for (unsigned i = 1; i <= numSpaceDims; ++i) {
        isl::val min = atD0.dim_min_val(i), max = atD0.dim_max_val(i);
        if (!min.is_int() || !max.is_int())
          return std::nullopt;
        box = isl::manage(isl_set_lower_bound_si(box.release(), isl_dim_set, i,
                                                 min.get_num_si()));
        box = isl::manage(isl_set_upper_bound_si(box.release(), isl_dim_set, i,
                                                 max.get_num_si()));
      }
      boxes = boxes.unite(box);
    }
    return boxes;
  } catch (const isl::exception &) {
    return std::nullopt;
  }
}

bool mlir::stencil::poly::hybridTilingIsLegalFrom(
    const isl::set &distanceBoxes, const DependenceCone &cone,
    const HybridTilingOptions &options, unsigned a) {
  try {
    isl::ctx ctx = distanceBoxes.ctx();
    unsigned n = cone.upper.size();
    isl::map shift = distanceBoxes.translation();
    HybridTiler tiler(ctx, cone, options);
    // Pairs (x, x + d) as points of the wrapped space [P -> P]: the tile
    // keys are evaluated on each side by pullback, never composed with the
    // dependences, so no key space is projected out.
    isl::space pairSpace = shift.get_space();
    isl::multi_aff source =
        isl::manage(isl_multi_aff_domain_map(isl_space_copy(pairSpace.get())));
    isl::multi_aff target =
        isl::manage(isl_multi_aff_range_map(pairSpace.release()));
    auto pullback = [](isl::multi_aff f, const isl::multi_aff &side) {
      return isl::manage(
          isl_multi_aff_pullback_multi_aff(f.release(), side.copy()));
    };
    isl::set phase[2] = {tiler.phase(0), tiler.phase(1)};
    for (unsigned b = 0; b < 2; ++b) {
      isl::set pairs =
          shift.intersect_domain(phase[a]).intersect_range(phase[b]).wrap();
      // The target must come strictly later: no pair whose target's key
      // is lexicographically at most its source's.
      isl::set late = isl::manage(isl_multi_aff_lex_le_set(
          pullback(tileOrderKey(tiler, ctx, n, b), target).release(),
          pullback(tileOrderKey(tiler, ctx, n, a), source).release()));
      if (!pairs.intersect(late).is_empty())
        return false;
    }
    // The hexagonal tiles of one (T, phase) run in parallel: a dependence
    // stays within one of them.
    isl::set pairs =
        shift.intersect_domain(phase[a]).intersect_range(phase[a]).wrap();
    auto onSide = [](isl::aff f, const isl::multi_aff &side) {
      return isl::manage(isl_aff_pullback_multi_aff(f.release(), side.copy()));
    };
    isl::aff time = tiler.timeTile(a).get_at(0);
    isl::aff hex = tiler.spaceTiles(a).get_at(0);
    isl::set sameTime = isl::manage(isl_aff_eq_set(
        onSide(time, source).release(), onSide(time, target).release()));
    isl::set otherHex = isl::manage(isl_aff_ne_set(
        onSide(hex, source).release(), onSide(hex, target).release()));
    return pairs.intersect(sameTime).intersect(otherHex).is_empty();
  } catch (const isl::exception &) {
    return false;
  }
}

bool mlir::stencil::poly::hybridTilingIsLegal(
    const std::optional<isl::set> &distanceBoxes, const DependenceCone &cone,
    const HybridTilingOptions &options) {
  if (!distanceBoxes || checkTileSizes(cone, options))
    return false;
  if (distanceBoxes->is_empty())
    return true;
  return hybridTilingIsLegalFrom(*distanceBoxes, cone, options, 0) &&
         hybridTilingIsLegalFrom(*distanceBoxes, cone, options, 1);
}

bool mlir::stencil::poly::hybridTilingIsLegal(
    isl::union_map canonical, const DependenceCone &cone,
    const HybridTilingOptions &options, isl::union_map deps) {
  return hybridTilingIsLegal(
      dependenceDistanceBoxes(canonical, cone.upper.size(), deps), cone,
      options);
}

std::optional<std::string>
mlir::stencil::poly::verifySchedule(isl::schedule schedule,
                                    isl::union_map deps) {
  try {
    isl::union_set domain = schedule.get_domain();
    deps = deps.intersect_domain(domain).intersect_range(domain);

    // Every dependence goes forward: its target is scheduled strictly after
    // its source. isl_schedule_get_map encodes sequence positions as
    // schedule dimensions, so one flat space compares all instances.
    isl::union_map sched = schedule.get_map();
    // Cheap exact test first: the dependences as pairs of schedule vectors.
    // Only a violation needs the pairs of instances (for the message).
    bool forward = true;
    for (isl::map images :
         mapsOf(deps.apply_domain(sched).apply_range(sched))) {
      isl::space range = images.get_space().range();
      if (!images.get_space().domain().is_equal(range) ||
          !images.intersect(isl::manage(isl_map_lex_ge(range.release())))
               .is_empty()) {
        forward = false;
        break;
      }
    }
    std::optional<isl::union_map> backward =
        forward ? std::optional<isl::union_map>(isl::union_map(deps.ctx(), "{ }"))
                : pairsWhereImages(deps, sched, [](isl::space s) {
                    return isl::manage(isl_map_lex_ge(s.release()));
                  });
    if (!backward)
      return std::string(kSpaceMismatch);
    if (!backward->is_empty())
      return "dependence " + describeSamplePair(*backward) +
             " is not respected: its target is not scheduled after its source";

    // Below a "parallel" mark, two instances with the same outer schedule
    // that lie in different iterations of the band's first member must be
    // independent.
    std::optional<std::string> failure;
    schedule.root().foreach_descendant_top_down([&](isl::schedule_node node) {
      if (failure || !node.isa<isl::schedule_node_mark>())
        return !failure;
      isl_id *id = isl_schedule_node_mark_get_id(node.get());
      const char *name = isl_id_get_name(id);
      bool isParallel = name && std::string(name) == "parallel";
      isl_id_free(id);
      if (!isParallel || node.n_children() == 0 ||
          !node.child(0).isa<isl::schedule_node_band>())
        return true;
      isl::schedule_node_band band =
          node.child(0).as<isl::schedule_node_band>();
      if (band.n_member() == 0)
        return true;
      isl::union_set instances =
          isl::manage(isl_schedule_node_get_domain(node.get()));
      isl::union_map outer = node.get_prefix_schedule_union_map();
      isl::union_map first = isl::manage(isl_union_map_from_union_pw_aff(
          band.get_partial_schedule().at(0).release()));
      isl::union_map key = isl::manage(isl_union_map_flat_range_product(
          outer.copy(), first.intersect_domain(instances).release()));
      isl::union_map inside =
          deps.intersect_domain(instances).intersect_range(instances);
      // Cheap exact test first, as for the forward check above.
      bool independent = true;
      for (isl::map images :
           mapsOf(inside.apply_domain(key).apply_range(key))) {
        isl::space range = images.get_space().range();
        if (!images.get_space().domain().is_equal(range) ||
            !images.intersect(sameOuterDifferentLast(range)).is_empty()) {
          independent = false;
          break;
        }
      }
      if (independent)
        return true;
      std::optional<isl::union_map> crossing =
          pairsWhereImages(inside, key, sameOuterDifferentLast);
      if (!crossing)
        failure = kSpaceMismatch;
      else if (!crossing->is_empty())
        failure = "dependence " + describeSamplePair(*crossing) +
                  " connects two different iterations of the first member "
                  "of the band under a \"parallel\" mark within one "
                  "iteration of the outer schedule";
      return !failure;
    });
    return failure;
  } catch (const isl::exception &e) {
    return std::string("isl error while verifying the schedule: ") + e.what();
  }
}
