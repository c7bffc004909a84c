//===- HybridTilingTest.cpp - hybrid hexagonal tiling, by enumeration -----===//
//
// Builds hybrid tiled schedules for small stencil programs and checks them by
// enumerating every statement instance and every dependence: each instance
// runs exactly once, dependences go forward, the tiles of one wavefront are
// independent, full tiles have the paper's shape and size, and the isolated
// (full) tiles are exactly the tiles that are full.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/HybridTiling.h"
#include "TilingTestSupport.h"

#include <isl/ast_build.h>
#include <isl/cpp.h>
#include <isl/point.h>
#include <isl/schedule_node.h>
#include <isl/set.h>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace mlir::stencil::poly;
using namespace tiling_test;

namespace {

/// The nodes of the tree of buildHybridSchedule (layout of HybridTiling.h).
isl::schedule_node tileBand(const isl::schedule &s, unsigned phase) {
  return s.root().child(0).child(0).child(phase).child(0).child(0);
}
isl::schedule_node timeBand(const isl::schedule &s, unsigned phase) {
  return tileBand(s, phase).child(0);
}
isl::schedule_node pointBand(const isl::schedule &s, unsigned phase) {
  return timeBand(s, phase).child(0);
}

/// Points of one hexagon, counted from the constraints (6)-(13) of the
/// paper in local coordinates (a, b), multiplied by the denominators.
int64_t hexagonPoints(Rational delta0, Rational delta1, int64_t h, int64_t w0) {
  int64_t fl0 = delta0.floorTimes(h), fl1 = delta1.floorTimes(h);
  int64_t n0 = delta0.num, d0 = delta0.den, n1 = delta1.num, d1 = delta1.den;
  int64_t W = 2 * w0 + 2 + fl0 + fl1, count = 0;
  for (int64_t a = 0; a <= 2 * h + 1; ++a)
    for (int64_t b = 0; b < W; ++b)
      count += n0 * a - d0 * b <= (2 * h + 1) * n0 - d0 * fl0 &&
               n1 * a + d1 * b <= (2 * h + 1) * n1 + d1 * (fl0 + w0) &&
               n1 * a + d1 * b >= h * n1 - (d1 - 1) &&
               n0 * a - d0 * b >= h * n0 - d0 * (fl0 + w0 + fl1) - (d0 - 1);
  return count;
}

class HybridTilingTest : public TilingTest {
protected:
  isl::schedule build(const Program &prog, const DependenceCone &c,
                      const HybridTilingOptions &options) {
    std::string error;
    std::optional<isl::schedule> s =
        buildHybridSchedule(prog.domain, prog.canonical, c, options, error);
    EXPECT_TRUE(s.has_value()) << error;
    if (!s)
      return isl::schedule();
    // The cheap proof agrees with the check of the tree, both ways, on
    // every tiling the tests build (legal ones and mis-skewed ones).
    EXPECT_EQ(hybridTilingIsLegal(prog.canonical, c, options, prog.deps),
              !verifySchedule(*s, prog.deps).has_value());
    return *s;
  }

  /// Enumerates the tiled schedule for N steps and checks that
  ///  - every instance of the domain runs exactly once (total, injective),
  ///  - every dependence goes lexicographically forward in
  ///    [T, p, S..., t', s'...],
  ///  - within one (T, p), dependences stay in one hexagonal tile (the
  ///    wavefront is parallel) and never go back in a parallelogram tile,
  ///  - verifySchedule accepts the tree.
  /// Returns the [T, p, S...] tile of every instance.
  std::map<Instance, Vec> checkTiling(const Program &prog,
                                      const isl::schedule &s, int64_t N) {
    std::map<Instance, Vec> full, tile;
    isl::union_set domain = fixN(prog.domain, N);
    for (unsigned p = 0; p < 2; ++p) {
      isl::union_map leaf =
          fixN(pointBand(s, p).child(0).get_prefix_schedule_union_map(), N);
      for (auto &[inst, v] : enumerate(leaf)) {
        Vec withPhase = v;
        withPhase.insert(withPhase.begin() + 1, p);
        EXPECT_TRUE(full.emplace(inst, withPhase).second)
            << inst.first << " runs in both phases";
        tile[inst] = Vec(withPhase.begin(), withPhase.begin() + 2 + prog.n);
      }
    }
    // Total and injective.
    size_t numInstances = 0;
    domain.foreach_point([&](isl::point) { ++numInstances; });
    EXPECT_EQ(full.size(), numInstances) << "some instance does not run";
    std::set<Vec> images;
    for (auto &[inst, v] : full)
      images.insert(v);
    EXPECT_EQ(images.size(), full.size()) << "two instances share a point";

    unsigned numDeps = 0;
    // Dependences, with the target's statement name.
    prog.deps.foreach_map([&](isl::map m) {
      std::string to = isl_map_get_tuple_name(m.get(), isl_dim_out);
      for (auto &[src, dstCoords] : enumerate(fixN(isl::union_map(m), N))) {
        Instance dst{to, dstCoords};
        ++numDeps;
        ASSERT_TRUE(full.count(src) && full.count(dst));
        const Vec &a = full[src], &b = full[dst];
        EXPECT_LT(a, b) << "dependence goes backward";
        const Vec &ta = tile[src], &tb = tile[dst];
        if (ta[0] == tb[0] && ta[1] == tb[1]) {
          EXPECT_EQ(ta[2], tb[2]) << "dependence between parallel tiles";
          for (unsigned i = 3; i < ta.size(); ++i)
            EXPECT_LE(ta[i], tb[i]) << "dependence back to an earlier tile";
        }
      }
    });
    EXPECT_GT(numDeps, 0u);
    std::optional<std::string> failure = verifySchedule(s, prog.deps);
    EXPECT_FALSE(failure.has_value()) << failure.value_or("");
    return tile;
  }

  /// Checks for N steps that every tile holds at most `idealPoints`
  /// instances, that the tiles holding exactly that many are exactly the
  /// isolated (full) tiles, and that each phase has some full tile.
  void checkFullTiles(const isl::schedule &s, int64_t N,
                      const std::map<Instance, Vec> &tileOf,
                      int64_t idealPoints) {
    for (unsigned p = 0; p < 2; ++p) {
      std::map<Vec, int64_t> count;
      for (auto &[inst, t] : tileOf)
        if (t[1] == int64_t(p)) {
          Vec key = t;
          key.erase(key.begin() + 1); // [T, S...] as in the isolate option
          ++count[key];
        }
      std::set<Vec> isolated;
      tileBand(s, p)
          .as<isl::schedule_node_band>()
          .get_ast_build_options()
          .foreach_set([&](isl::set set) {
            const char *name = isl_set_get_tuple_name(set.get());
            if (name && std::string(name) == "isolate")
              isolated = enumerate(
                  fixN(isl::union_set(set), N).extract_set(set.get_space()));
          });
      unsigned numFull = 0;
      for (auto &[t, c] : count) {
        EXPECT_LE(c, idealPoints);
        bool isFull = c == idealPoints;
        numFull += isFull;
        EXPECT_EQ(isFull, isolated.count(t) == 1)
            << "phase " << p << " tile T = " << t[0] << ", S = " << t[1]
            << " holds " << c << " of " << idealPoints << " points";
      }
      for (const Vec &t : isolated)
        EXPECT_TRUE(count.count(t)) << "an isolated tile is empty";
      EXPECT_GT(numFull, 0u) << "phase " << p << " has no full tile";
    }
  }

};

HybridTilingOptions options(int64_t h, Vec widths, unsigned K = 1,
                            unsigned hexDim = 0) {
  HybridTilingOptions o;
  o.sizes.h = h;
  o.sizes.widths.assign(widths.begin(), widths.end());
  o.statementsPerStep = K;
  o.hexDim = hexDim;
  return o;
}

} // namespace

//===----------------------------------------------------------------------===//
// Rational
//===----------------------------------------------------------------------===//

TEST(RationalTest, FloorTimesAndStr) {
  Rational r{3, 2};
  EXPECT_EQ(r.floorTimes(3), 4);
  EXPECT_EQ(r.floorTimes(-3), -5);
  EXPECT_EQ(r.str(), "3/2");
  EXPECT_EQ((Rational{1, 1}).str(), "1");
  EXPECT_EQ((Rational{0, 1}).floorTimes(7), 0);
}

//===----------------------------------------------------------------------===//
// Dependence cone
//===----------------------------------------------------------------------===//

TEST_F(HybridTilingTest, ConeOfJacobi) {
  DependenceCone c = cone(makeProgram(1, {10, 10}, jacobi(2)));
  for (unsigned i = 0; i < 2; ++i) {
    EXPECT_EQ(c.upper[i].str(), "1");
    EXPECT_EQ(c.lower[i].str(), "1");
  }
}

// Sec. 3.3.2: distances (1,-2) and (2,2) give delta0 = 1 (ds <= delta0 dt)
// and delta1 = 2 (ds >= -delta1 dt).
TEST_F(HybridTilingTest, ConeOfPaperExample) {
  DependenceCone c =
      cone(makeProgram(1, {30}, {{0, 0, 1, {-2}}, {0, 0, 2, {2}}}));
  EXPECT_EQ(c.upper[0].str(), "1");
  EXPECT_EQ(c.lower[0].str(), "2");
}

TEST_F(HybridTilingTest, ConeRationalAndClamped) {
  // (2, 1) alone: upper 1/2, and lower clamped at 0.
  DependenceCone c = cone(makeProgram(1, {30}, {{0, 0, 2, {1}}}));
  EXPECT_EQ(c.upper[0].str(), "1/2");
  EXPECT_EQ(c.lower[0].str(), "0");
  c = cone(makeProgram(1, {30, 30}, {{0, 0, 3, {1, -2}}, {0, 0, 1, {0, 0}}}));
  EXPECT_EQ(c.upper[0].str(), "1/3");
  EXPECT_EQ(c.lower[1].str(), "2/3");
  EXPECT_EQ(c.upper[1].str(), "0");
}

// With K statements the cone is taken in folded time K*t + k.
TEST_F(HybridTilingTest, ConeInFoldedTime) {
  DependenceCone c = cone(
      makeProgram(2, {30}, {{0, 1, 0, {1}}, {1, 0, 1, {3}}, {0, 0, 1, {0}}}));
  EXPECT_EQ(c.upper[0].str(), "3");
  EXPECT_EQ(c.lower[0].str(), "0");
}

TEST_F(HybridTilingTest, ConeOfEmptyDependences) {
  Program prog = makeProgram(1, {10}, {});
  DependenceCone c = cone(prog);
  ASSERT_EQ(c.upper.size(), 1u);
  EXPECT_EQ(c.upper[0].num, 0);
  EXPECT_EQ(c.lower[0].num, 0);
}

// Parametric dependences with existentials (a stencil on even points).
TEST_F(HybridTilingTest, ConeWithParametersAndModulo) {
  isl::union_map canonical(ctx, "{ S0[t, i] -> [t, i] }");
  isl::union_map deps(ctx, "[N] -> { S0[t, i] -> S0[t + 1, i + 2] : "
                           "i mod 2 = 0 and 0 <= t < N - 1 and 0 <= i < N }");
  std::string error;
  std::optional<DependenceCone> c =
      computeDependenceCone(deps, canonical, 1, error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->upper[0].str(), "2");
  EXPECT_EQ(c->lower[0].str(), "0");
}

TEST_F(HybridTilingTest, ConeRejectsUncarriedDependence) {
  Program prog = makeProgram(1, {10}, {{0, 0, 0, {1}}});
  std::string error;
  EXPECT_FALSE(computeDependenceCone(prog.deps, prog.canonical, prog.n, error));
  EXPECT_NE(error.find("not carried by time"), std::string::npos) << error;
  EXPECT_NE(error.find("S0["), std::string::npos) << error;

  // S1 runs after S0 in a step, so S1 -> S0 in the same step goes back.
  prog = makeProgram(2, {10}, {{1, 0, 0, {0}}});
  error.clear();
  EXPECT_FALSE(computeDependenceCone(prog.deps, prog.canonical, prog.n, error));
  EXPECT_NE(error.find("not carried by time"), std::string::npos) << error;
}

TEST_F(HybridTilingTest, ConeRejectsUnboundedDistances) {
  isl::union_map canonical(ctx, "{ S0[t, i] -> [t, i] }");
  isl::union_map deps(ctx, "{ S0[t, i] -> S0[t + 1, j] : j > i }");
  std::string error;
  EXPECT_FALSE(computeDependenceCone(deps, canonical, 1, error));
  EXPECT_NE(error.find("not bounded"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Tile sizes
//===----------------------------------------------------------------------===//

namespace {
DependenceCone makeCone(std::vector<std::pair<Rational, Rational>> slopes) {
  DependenceCone c;
  for (auto &[up, low] : slopes) {
    c.upper.push_back(up);
    c.lower.push_back(low);
  }
  return c;
}
} // namespace

TEST(TileSizesTest, AcceptsValidSizes) {
  DependenceCone c = makeCone({{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}});
  EXPECT_FALSE(checkTileSizes(c, options(3, {4, 8})));
  EXPECT_FALSE(checkTileSizes(c, options(3, {1, 1}, 2)));
}

TEST(TileSizesTest, RejectsConvexityViolation) {
  // delta0 = 3: w0 >= 3 + 0 - 1 = 2.
  DependenceCone c = makeCone({{{3, 1}, {1, 1}}});
  std::optional<std::string> error = checkTileSizes(c, options(2, {1}));
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("convexity"), std::string::npos) << *error;
  EXPECT_NE(error->find("minimum is w0 = 2"), std::string::npos) << *error;
  EXPECT_FALSE(checkTileSizes(c, options(2, {2})));

  // delta1 = 5/2, h = 1: w0 >= 5/2 + {5/2} - 1 = 2.
  c = makeCone({{{1, 1}, {5, 2}}});
  error = checkTileSizes(c, options(1, {1}));
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("minimum is w0 = 2"), std::string::npos) << *error;
  // h = 2: 5/2 + {5} - 1 = 3/2, so w0 >= 2 still.
  EXPECT_TRUE(checkTileSizes(c, options(2, {1})));
  EXPECT_FALSE(checkTileSizes(c, options(2, {2})));
}

TEST(TileSizesTest, RejectsBadHeightAndWidths) {
  DependenceCone c = makeCone({{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}});
  std::optional<std::string> error = checkTileSizes(c, options(-1, {4, 4}));
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("non-negative"), std::string::npos) << *error;

  error = checkTileSizes(c, options(2, {4, 4}, 2));
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("h+1 must be a multiple of the number of statements "
                        "per step (K = 2)"),
            std::string::npos)
      << *error;

  EXPECT_TRUE(checkTileSizes(c, options(1, {4, 0})));
  EXPECT_TRUE(checkTileSizes(c, options(1, {4})));
  EXPECT_TRUE(checkTileSizes(c, options(1, {4, 4}, 1, 2)));
}

TEST(TileSizesTest, DefaultsAreValid) {
  for (unsigned n = 1; n <= 3; ++n)
    for (unsigned K = 1; K <= 3; ++K)
      for (Rational slope : {Rational{1, 1}, Rational{5, 2}, Rational{9, 1}})
        for (TileTarget target : {TileTarget::Cpu, TileTarget::Gpu}) {
          DependenceCone c;
          c.upper.assign(n, slope);
          c.lower.assign(n, Rational{1, 1});
          HybridTilingOptions o;
          o.statementsPerStep = K;
          o.sizes = defaultTileSizes(c, 0, K, target);
          EXPECT_FALSE(checkTileSizes(c, o))
              << *checkTileSizes(c, o) << " (n = " << n << ", K = " << K
              << ")";
          EXPECT_EQ((o.sizes.h + 1) % K, 0);
        }
  DependenceCone c = makeCone({{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}});
  HybridTileSizes s = defaultTileSizes(c, 0, 1);
  EXPECT_EQ(s.h, 7);
  EXPECT_EQ(s.widths, (llvm::SmallVector<int64_t>{32, 512}));
  // GPU: 8 time steps per tile in 2D (h = 3), a warp-multiple inner width.
  s = defaultTileSizes(c, 0, 1, TileTarget::Gpu);
  EXPECT_EQ(s.h, 3);
  EXPECT_EQ(s.widths, (llvm::SmallVector<int64_t>{16, 64}));
}

//===----------------------------------------------------------------------===//
// The tiled schedule
//===----------------------------------------------------------------------===//

// The tree has the layout documented in HybridTiling.h.
TEST_F(HybridTilingTest, TreeLayout) {
  Program prog = makeProgram(1, {40, 20}, jacobi(2));
  HybridTilingOptions o = options(2, {3, 5});
  o.unrollTime = true;
  isl::schedule s = build(prog, cone(prog), o);
  isl::schedule_node top = s.root().child(0);
  ASSERT_TRUE(top.isa<isl::schedule_node_band>());
  EXPECT_EQ(top.as<isl::schedule_node_band>().n_member(), 1u);
  ASSERT_TRUE(top.child(0).isa<isl::schedule_node_sequence>());
  ASSERT_EQ(top.child(0).n_children(), 2u);
  for (unsigned p = 0; p < 2; ++p) {
    isl::schedule_node mark = top.child(0).child(p).child(0);
    ASSERT_TRUE(mark.isa<isl::schedule_node_mark>());
    isl_id *id = isl_schedule_node_mark_get_id(mark.get());
    EXPECT_STREQ(isl_id_get_name(id), "parallel");
    isl_id_free(id);
    auto tiles = tileBand(s, p).as<isl::schedule_node_band>();
    EXPECT_EQ(tiles.n_member(), 2u);
    EXPECT_TRUE(tiles.member_get_coincident(0));
    EXPECT_FALSE(tiles.member_get_coincident(1));
    EXPECT_TRUE(tiles.permutable());
    auto time = timeBand(s, p).as<isl::schedule_node_band>();
    EXPECT_EQ(time.n_member(), 1u);
    EXPECT_EQ(isl_schedule_node_band_member_get_ast_loop_type(time.get(), 0),
              isl_ast_loop_unroll);
    auto points = pointBand(s, p).as<isl::schedule_node_band>();
    EXPECT_EQ(points.n_member(), 2u);
    EXPECT_TRUE(pointBand(s, p).child(0).isa<isl::schedule_node_leaf>());
  }
}

// Figure 6: the phase-0 part of the tiling for +-1 distances, literally.
TEST_F(HybridTilingTest, MatchesFigure6) {
  const int64_t h = 2, w0 = 3, w1 = 5;
  Program prog = makeProgram(1, {37, 23}, jacobi(2));
  isl::schedule s = build(prog, cone(prog), options(h, {w0, w1}));
  // The constants of Figure 6 for these sizes.
  auto num = [](int64_t v) { return std::to_string(v); };
  std::string period = num(2 * h + 2), width = num(2 * h + 2 + 2 * w0);
  std::string a = "((t + " + num(h + 1) + ") mod " + period + ")";
  std::string b = "((s0 + " + num(h + 1 + w0) + ") mod " + width + ")";
  isl::union_map figure6(
      ctx, "{ S0[t, s0, s1] -> [T, 0, S0, S1, tp, sp0, sp1] : " + a + " - " +
               b + " <= " + num(h + 1) + " and " + a + " + " + b +
               " <= " + num(3 * h + 1 + w0) + " and " + a + " + " + b +
               " >= " + num(h) + " and " + a + " - " + b +
               " >= " + num(-w0 - h) + " and T = floor((t + " + num(h + 1) +
               ")/" + period + ") and S0 = floor((s0 + " + num(h + 1 + w0) +
               ")/" + width + ") and S1 = floor((s1 + " + a + ")/" + num(w1) +
               ") and tp = " + a + " and sp0 = " + b + " and sp1 = (s1 + " + a +
               ") mod " + num(w1) + " }");
  isl::union_map ours =
      pointBand(s, 0).child(0).get_prefix_schedule_union_map().apply_range(
          isl::union_map(ctx, "{ [T, S0, S1, tp, sp0, sp1] -> "
                              "[T, 0, S0, S1, tp, sp0, sp1] }"));
  isl::union_map expected = figure6.intersect_domain(prog.domain);
  EXPECT_TRUE(ours.is_equal(expected))
      << "ours: " << str(ours) << "\nfigure 6: " << str(expected);
}

// A full hexagon with delta = 1 holds 2(h+1)(h+1+w0) points (sec. 3.7).
TEST(HexagonTest, PointCountForUnitSlopes) {
  for (int64_t h = 0; h < 6; ++h)
    for (int64_t w0 = 1; w0 < 6; ++w0)
      EXPECT_EQ(hexagonPoints({1, 1}, {1, 1}, h, w0),
                2 * (h + 1) * (h + 1 + w0));
}

TEST_F(HybridTilingTest, Jacobi1D) {
  const int64_t h = 2, w0 = 3;
  Program prog = makeProgram(1, {41}, jacobi(1));
  isl::schedule s = build(prog, cone(prog), options(h, {w0}));
  auto tiles = checkTiling(prog, s, 13);
  checkFullTiles(s, 13, tiles, 2 * (h + 1) * (h + 1 + w0));
}

// The example of sec. 3.3.2 (Figures 3-5): delta0 = 1, delta1 = 2, w0 = 3,
// h = 2. The literal offset of equation (3) fails here (see the next test).
TEST_F(HybridTilingTest, PaperExampleAsymmetric) {
  Program prog = makeProgram(1, {50}, {{0, 0, 1, {-2}}, {0, 0, 2, {2}}});
  DependenceCone c = cone(prog);
  // "In the example, we have w0 >= 1."
  EXPECT_TRUE(checkTileSizes(c, options(2, {0})));
  for (int64_t w0 : {1, 3}) {
    isl::schedule s = build(prog, c, options(2, {w0}));
    auto tiles = checkTiling(prog, s, 14);
    checkFullTiles(s, 14, tiles, hexagonPoints(c.upper[0], c.lower[0], 2, w0));
  }
}

// Documents the deviation from the paper: with the phase-0 offset
// floor(delta1 h) + w0 + 1 printed in (3), the two phases of the Figure 4
// example overlap and leave holes; with floor(delta0 h) + w0 + 1 (the offset
// of the truncated cone in sec. 3.3.2, used by the implementation) they
// partition the plane.
TEST_F(HybridTilingTest, PaperEquation3OffsetDoesNotPartition) {
  const int64_t h = 2, w0 = 3, fl0 = 2, fl1 = 4, W = 2 * w0 + 2 + fl0 + fl1;
  // (6)-(13) for delta0 = 1, delta1 = 2: a - b <= (2h+1) - fl0,
  // 2a + b <= 2(2h+1) + fl0 + w0, 2a + b >= 2h, a - b >= h - fl0 - w0 - fl1.
  isl::set hexagon(ctx, "{ [a, b] : 0 <= a <= 5 and a - b <= 3 and "
                        "2a + b <= 15 and 2a + b >= 4 and a - b >= -7 }");
  auto phase = [&](int64_t offset, int64_t shift) {
    std::string T = "floor((t + " + std::to_string(shift) + ")/6)";
    std::string num = "s + " + std::to_string(offset) + " + " +
                      std::to_string(fl1 - fl0) + "*" + T;
    return hexagon.preimage(isl::multi_aff(
        ctx, "{ [t, s] -> [((t + " + std::to_string(shift) + ") mod 6), ((" +
                 num + ") mod " + std::to_string(W) + ")] }"));
  };
  isl::set box(ctx, "{ [t, s] : 0 <= t < 24 and 0 <= s < 60 }");
  isl::set phase1 = phase(0, 0).intersect(box);
  isl::set literal = phase(w0 + 1 + fl1, h + 1).intersect(box);
  isl::set fixed = phase(w0 + 1 + fl0, h + 1).intersect(box);
  EXPECT_FALSE(literal.intersect(phase1).is_empty());
  EXPECT_FALSE(box.subtract(literal.unite(phase1)).is_empty());
  EXPECT_TRUE(fixed.intersect(phase1).is_empty());
  EXPECT_TRUE(box.subtract(fixed.unite(phase1)).is_empty());
}

// Rational slopes 1/2 on both sides (distances (2, 1), (2, -1)).
TEST_F(HybridTilingTest, RationalSlopes1D) {
  Program prog =
      makeProgram(1, {37}, {{0, 0, 2, {1}}, {0, 0, 2, {-1}}, {0, 0, 1, {0}}});
  DependenceCone c = cone(prog);
  EXPECT_EQ(c.upper[0].str(), "1/2");
  EXPECT_EQ(c.lower[0].str(), "1/2");
  for (int64_t h : {2, 3, 4})
    for (int64_t w0 : {1, 2}) {
      isl::schedule s = build(prog, c, options(h, {w0}));
      auto tiles = checkTiling(prog, s, 17);
      checkFullTiles(s, 17, tiles,
                     hexagonPoints(c.upper[0], c.lower[0], h, w0));
    }
}

// Two statements per step (folded time), h+1 a multiple of 2.
TEST_F(HybridTilingTest, TwoStatements1D) {
  Program prog = makeProgram(2, {33},
                             {{0, 1, 0, {-1}},
                              {0, 1, 0, {0}},
                              {0, 1, 0, {1}},
                              {1, 0, 1, {-1}},
                              {1, 0, 1, {1}},
                              {1, 1, 1, {0}},
                              {0, 0, 1, {0}}});
  DependenceCone c = cone(prog);
  EXPECT_EQ(c.upper[0].str(), "1");
  const int64_t h = 3, w0 = 2;
  isl::schedule s = build(prog, c, options(h, {w0}, 2));
  auto tiles = checkTiling(prog, s, 11);
  checkFullTiles(s, 11, tiles, 2 * (h + 1) * (h + 1 + w0));
}

TEST_F(HybridTilingTest, Jacobi2D) {
  const int64_t h = 1, w0 = 2, w1 = 4;
  Program prog = makeProgram(1, {21, 13}, jacobi(2));
  isl::schedule s = build(prog, cone(prog), options(h, {w0, w1}));
  auto tiles = checkTiling(prog, s, 7);
  checkFullTiles(s, 7, tiles, 2 * (h + 1) * (h + 1 + w0) * w1);
}

// A grid narrower than every row of the tiles along some dimension (w1 for
// a parallelogram, w0 + 1 for a hexagon) has no full tile: tilesWiderThanPoints
// says so (and buildHybridSchedule skips the subtraction), the tree carries
// no isolate option, and enumeration agrees that no tile holds a full
// tile's points. The sizes of Jacobi2D
// below keep their isolation.
TEST_F(HybridTilingTest, NoIsolationWhenTilesAreWiderThanTheGrid) {
  const int64_t h = 1, N = 7;
  Program prog = makeProgram(1, {21, 13}, jacobi(2));
  isl::set points = isl::manage(
      isl_set_from_union_set(prog.domain.apply(prog.canonical).release()));
  int64_t extent[2];
  for (unsigned d = 0; d < 2; ++d)
    extent[d] = points.dim_max_val(1 + d).get_num_si() -
                points.dim_min_val(1 + d).get_num_si() + 1;
  auto isolated = [&](const isl::schedule &s) {
    bool any = false;
    for (unsigned p = 0; p < 2; ++p)
      tileBand(s, p)
          .as<isl::schedule_node_band>()
          .get_ast_build_options()
          .foreach_set([&](isl::set set) {
            const char *name = isl_set_get_tuple_name(set.get());
            any |= name && std::string(name) == "isolate";
          });
    return any;
  };
  struct Case {
    int64_t w0, w1;
    bool wider;
  } cases[] = {{2, extent[1] + 1, true}, {extent[0], 3, true}, {2, 4, false}};
  for (const Case &c : cases) {
    HybridTilingOptions o = options(h, {c.w0, c.w1});
    EXPECT_EQ(tilesWiderThanPoints(prog.domain.apply(prog.canonical), o),
              c.wider)
        << "w0 = " << c.w0 << ", w1 = " << c.w1;
    isl::schedule s = build(prog, cone(prog), o);
    auto tiles = checkTiling(prog, s, N);
    EXPECT_EQ(isolated(s), !c.wider) << "w0 = " << c.w0 << ", w1 = " << c.w1;
    if (!c.wider)
      continue;
    std::map<Vec, int64_t> count;
    for (auto &[inst, t] : tiles)
      ++count[t];
    for (auto &[t, points] : count)
      EXPECT_LT(points, 2 * (h + 1) * (h + 1 + c.w0) * c.w1)
          << "a full tile on a grid narrower than the tiles";
  }
}

// Asymmetric slopes in both dimensions, hexagonal tiling on either one.
TEST_F(HybridTilingTest, Asymmetric2D) {
  Program prog = makeProgram(1, {23, 25},
                             {{0, 0, 1, {-1, 0}},
                              {0, 0, 1, {2, 1}},
                              {0, 0, 1, {0, -2}},
                              {0, 0, 2, {1, 1}}});
  DependenceCone c = cone(prog);
  EXPECT_EQ(c.upper[0].str(), "2");
  EXPECT_EQ(c.lower[0].str(), "1");
  EXPECT_EQ(c.lower[1].str(), "2");
  for (unsigned hexDim : {0u, 1u}) {
    HybridTilingOptions o =
        hexDim == 0 ? options(2, {2, 3}, 1, 0) : options(2, {3, 3}, 1, 1);
    isl::schedule s = build(prog, c, o);
    auto tiles = checkTiling(prog, s, 10);
    int64_t other = o.sizes.widths[1 - hexDim];
    checkFullTiles(s, 10, tiles,
                   hexagonPoints(c.upper[hexDim], c.lower[hexDim], 2,
                                 o.sizes.widths[hexDim]) *
                       other);
  }
}

// Two statements with a rational slope 1/2 in folded time.
TEST_F(HybridTilingTest, TwoStatementsRational2D) {
  Program prog = makeProgram(2, {17, 11},
                             {{0, 1, 0, {0, 0}},
                              {1, 0, 1, {0, 0}},
                              {0, 0, 1, {1, -1}},
                              {1, 1, 1, {-1, 0}}});
  DependenceCone c = cone(prog);
  EXPECT_EQ(c.upper[0].str(), "1/2");
  EXPECT_EQ(c.lower[0].str(), "1/2");
  EXPECT_EQ(c.lower[1].str(), "1/2");
  isl::schedule s = build(prog, c, options(3, {2, 3}, 2));
  auto tiles = checkTiling(prog, s, 9);
  checkFullTiles(s, 9, tiles, hexagonPoints(c.upper[0], c.lower[0], 3, 2) * 3);
}

TEST_F(HybridTilingTest, Jacobi3D) {
  const int64_t h = 1, w0 = 2, w1 = 3, w2 = 4;
  Program prog = makeProgram(1, {13, 9, 10}, jacobi(3));
  isl::schedule s = build(prog, cone(prog), options(h, {w0, w1, w2}));
  auto tiles = checkTiling(prog, s, 6);
  checkFullTiles(s, 6, tiles, 2 * (h + 1) * (h + 1 + w0) * w1 * w2);
}

// Three statements per step, each reading its predecessor's neighbours.
TEST_F(HybridTilingTest, ThreeStatements3D) {
  std::vector<Dep> deps;
  for (unsigned k = 0; k < 3; ++k)
    for (int64_t d = -1; d <= 1; ++d) {
      unsigned next = (k + 1) % 3;
      int64_t dt = next == 0 ? 1 : 0;
      deps.push_back({k, next, dt, {d, 0, 0}});
      deps.push_back({k, next, dt, {0, d, 0}});
      deps.push_back({k, next, dt, {0, 0, d}});
    }
  Program prog = makeProgram(3, {17, 8, 9}, deps);
  const int64_t h = 2, w0 = 2;
  isl::schedule s = build(prog, cone(prog), options(h, {w0, 2, 3}, 3));
  auto tiles = checkTiling(prog, s, 4);
  checkFullTiles(s, 4, tiles, 2 * (h + 1) * (h + 1 + w0) * 2 * 3);
}

// The schedule on a parametric domain is valid for every N, and isl's AST
// generator accepts the tree with its options.
TEST_F(HybridTilingTest, ParametricDomainAndAst) {
  Program prog = makeProgram(1, {29}, jacobi(1));
  HybridTilingOptions o = options(3, {4});
  o.unrollTime = true;
  isl::schedule s = build(prog, cone(prog), o);
  EXPECT_FALSE(verifySchedule(s, prog.deps));
  isl::union_map m = s.get_map().intersect_domain(prog.domain);
  EXPECT_TRUE(m.is_injective());
  EXPECT_TRUE(m.is_single_valued());
  EXPECT_TRUE(m.domain().is_equal(prog.domain));

  isl_ast_build *astBuild = isl_ast_build_from_context(
      isl_set_read_from_str(rawCtx, "[N] -> { : N >= 0 }"));
  isl_ast_node *ast = isl_ast_build_node_from_schedule(astBuild, s.copy());
  EXPECT_NE(ast, nullptr);
  isl_ast_node_free(ast);
  isl_ast_build_free(astBuild);
}

// Without dependences all slopes are 0 and the hexagons are rectangles of
// (2h+2) x (w0+1) points.
TEST_F(HybridTilingTest, NoDependences) {
  Program prog = makeProgram(1, {30, 9}, {});
  DependenceCone c = cone(prog);
  EXPECT_EQ(hexagonPoints(c.upper[0], c.lower[0], 2, 3), 6 * 4);
  isl::schedule s = build(prog, c, options(2, {3, 4}));
  isl::union_map m = s.get_map().intersect_domain(prog.domain);
  EXPECT_TRUE(m.is_injective());
  EXPECT_TRUE(m.is_single_valued());
  EXPECT_TRUE(m.domain().is_equal(prog.domain));
  std::map<Instance, Vec> tiles;
  for (unsigned p = 0; p < 2; ++p)
    for (auto &[inst, v] :
         enumerate(fixN(timeBand(s, p).get_prefix_schedule_union_map(), 12))) {
      Vec t = v;
      t.insert(t.begin() + 1, p);
      tiles[inst] = t;
    }
  checkFullTiles(s, 12, tiles, 6 * 4 * 4);
}

TEST_F(HybridTilingTest, BuildRejectsBadInput) {
  Program prog = makeProgram(1, {20}, jacobi(1));
  std::string error;
  EXPECT_FALSE(buildHybridSchedule(prog.domain, prog.canonical, cone(prog),
                                   options(2, {1}, 2), error));
  EXPECT_NE(error.find("multiple"), std::string::npos) << error;
  DependenceCone twoDims = makeCone({{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}});
  error.clear();
  EXPECT_FALSE(buildHybridSchedule(prog.domain, prog.canonical, twoDims,
                                   options(1, {2, 2}), error));
  EXPECT_FALSE(error.empty());
}

//===----------------------------------------------------------------------===//
// verifySchedule
//===----------------------------------------------------------------------===//

// A tiling built for a cone that is too narrow (slope 1 where the stencil
// reaches 2 cells per step) is rejected.
TEST_F(HybridTilingTest, VerifyRejectsMisSkewedTiling) {
  Program prog = makeProgram(1, {40}, {{0, 0, 1, {-2}}, {0, 0, 1, {2}}});
  DependenceCone narrow = makeCone({{{1, 1}, {1, 1}}});
  isl::schedule s = build(prog, narrow, options(2, {3}));
  EXPECT_FALSE(
      hybridTilingIsLegal(prog.canonical, narrow, options(2, {3}), prog.deps));
  EXPECT_TRUE(hybridTilingIsLegal(prog.canonical, cone(prog), options(2, {3}),
                                  prog.deps));
  std::optional<std::string> failure = verifySchedule(s, prog.deps);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("dependence S0["), std::string::npos) << *failure;
  EXPECT_FALSE(
      verifySchedule(build(prog, cone(prog), options(2, {3})), prog.deps));

  // Skewing the classical dimension too little: S1 tiles go backwards.
  prog = makeProgram(1, {20, 20}, {{0, 0, 1, {0, -2}}, {0, 0, 1, {1, 1}}});
  DependenceCone c = cone(prog);
  EXPECT_FALSE(verifySchedule(build(prog, c, options(1, {2, 4})), prog.deps));
  c.lower[1] = Rational{1, 1};
  failure = verifySchedule(build(prog, c, options(1, {2, 4})), prog.deps);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("not respected"), std::string::npos) << *failure;
}

TEST_F(HybridTilingTest, VerifyRejectsBackwardSchedule) {
  Program prog = makeProgram(1, {10}, jacobi(1));
  isl::schedule reversed = isl::schedule::from_domain(prog.domain);
  isl::multi_union_pw_aff minusT(ctx, "[{ S0[t, s0] -> [(-t)] }, "
                                      "{ S0[t, s0] -> [(s0)] }]");
  reversed =
      reversed.root().child(0).insert_partial_schedule(minusT).schedule();
  std::optional<std::string> failure = verifySchedule(reversed, prog.deps);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("not respected"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("S0["), std::string::npos) << *failure;
}

TEST_F(HybridTilingTest, VerifyRejectsFalseParallelMark) {
  Program prog = makeProgram(1, {10}, jacobi(1));
  isl::multi_union_pw_aff ts(ctx, "[{ S0[t, s0] -> [(t)] }, "
                                  "{ S0[t, s0] -> [(s0)] }]");
  // The canonical schedule with "parallel" on the space loop is fine ...
  isl::schedule_node node = isl::schedule::from_domain(prog.domain).root();
  node = node.child(0)
             .insert_partial_schedule(
                 isl::multi_union_pw_aff(ctx, "[{ S0[t, s0] -> [(t)] }]"))
             .child(0)
             .insert_partial_schedule(
                 isl::multi_union_pw_aff(ctx, "[{ S0[t, s0] -> [(s0)] }]"))
             .insert_mark(isl::id(ctx, "parallel"));
  EXPECT_FALSE(verifySchedule(node.schedule(), prog.deps));

  // ... on the time loop it is not.
  node = isl::schedule::from_domain(prog.domain)
             .root()
             .child(0)
             .insert_partial_schedule(ts)
             .insert_mark(isl::id(ctx, "parallel"));
  std::optional<std::string> failure =
      verifySchedule(node.schedule(), prog.deps);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("parallel"), std::string::npos) << *failure;
  EXPECT_NE(failure->find("S0["), std::string::npos) << *failure;
}
