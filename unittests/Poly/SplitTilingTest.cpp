//===- SplitTilingTest.cpp - split tiling, by enumeration -----------------===//
//
// Builds split-tiled schedules for small stencil programs and checks them by
// enumerating every statement instance and every dependence: each instance
// runs exactly once, dependences go forward, colors run in order and two
// tiles of one color share no dependence, the tiles have the trapezoids of
// the split-tiling paper (GPGPU'13 sec. 4.2), and the isolated tiles are
// exactly the full ones.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/SplitTiling.h"
#include "TilingTestSupport.h"

#include <isl/schedule_node.h>

using namespace mlir::stencil::poly;
using namespace tiling_test;

namespace {

SplitTilingOptions options(int64_t h, Vec widths, unsigned K = 1) {
  SplitTilingOptions o;
  o.sizes.h = h;
  o.sizes.widths.assign(widths.begin(), widths.end());
  o.statementsPerStep = K;
  return o;
}

/// The nodes of the tree of buildSplitSchedule (layout of SplitTiling.h).
isl::schedule_node colors(const isl::schedule &s) {
  return s.root().child(0).child(0);
}
isl::schedule_node tileBand(const isl::schedule &s, unsigned color) {
  return colors(s).child(color).child(0).child(0);
}

/// Where an instance runs: [T, color, K..., t', s'...].
struct Placement {
  Vec tile;  // [T, color, K...]
  Vec local; // [t', s'...]
  Vec all() const {
    Vec v = tile;
    v.insert(v.end(), local.begin(), local.end());
    return v;
  }
};

class SplitTilingTest : public TilingTest {
protected:
  isl::schedule build(const Program &prog, const DependenceCone &c,
                      const SplitTilingOptions &o) {
    std::string error;
    std::optional<isl::schedule> s =
        buildSplitSchedule(prog.domain, prog.canonical, c, o, error);
    EXPECT_TRUE(s.has_value()) << error;
    if (!s)
      return isl::schedule();
    // The cheap proof agrees with the check of the tree, both ways, on
    // every tiling the tests build (legal ones and ones with wrong slopes).
    EXPECT_EQ(
        splitTilingIsLegal(
            dependenceDistanceBoxes(prog.canonical, prog.n, prog.deps), c, o),
        !verifySchedule(*s, prog.deps).has_value());
    return *s;
  }

  /// Enumerates the tiled schedule for N steps and checks that
  ///  - every instance of the domain runs exactly once,
  ///  - local coordinates lie in [0, h) and [0, W_i + what the inverted
  ///    trapezoids reach past W_i),
  ///  - every dependence goes lexicographically forward in
  ///    [T, color, K..., t', s'...] (bands, then colors in order),
  ///  - within one (T, color), source and target share the tile,
  ///  - the legality proof (and so verifySchedule) accepts the tiling.
  std::map<Instance, Placement> check(const Program &prog,
                                      const DependenceCone &c,
                                      const SplitTilingOptions &o,
                                      const isl::schedule &s, int64_t N) {
    std::map<Instance, Placement> where;
    unsigned numColors = colors(s).n_children();
    for (unsigned color = 0; color < numColors; ++color) {
      isl::schedule_node leaf = tileBand(s, color).child(0).child(0).child(0);
      EXPECT_TRUE(leaf.isa<isl::schedule_node_leaf>());
      for (auto &[inst, v] :
           enumerate(fixN(leaf.get_prefix_schedule_union_map(), N))) {
        Placement p;
        p.tile = {v[0], int64_t(color)};
        p.tile.insert(p.tile.end(), v.begin() + 1, v.begin() + 1 + prog.n);
        p.local.assign(v.begin() + 1 + prog.n, v.end());
        EXPECT_TRUE(where.emplace(inst, p).second)
            << inst.first << " runs in two colors";
        EXPECT_GE(p.local[0], 0);
        EXPECT_LT(p.local[0], o.sizes.h);
        for (unsigned i = 0; i < prog.n; ++i) {
          EXPECT_GE(p.local[1 + i], 0);
          EXPECT_LT(p.local[1 + i],
                    o.sizes.widths[i] + c.lower[i].ceilTimes(o.sizes.h - 1));
        }
      }
    }
    size_t numInstances = 0;
    fixN(prog.domain, N).foreach_point([&](isl::point) { ++numInstances; });
    EXPECT_EQ(where.size(), numInstances) << "some instance does not run";
    std::set<Vec> images;
    for (auto &[inst, p] : where)
      images.insert(p.all());
    EXPECT_EQ(images.size(), where.size()) << "two instances share a point";

    unsigned numDeps = 0;
    prog.deps.foreach_map([&](isl::map m) {
      std::string to = isl_map_get_tuple_name(m.get(), isl_dim_out);
      for (auto &[src, dstCoords] : enumerate(fixN(isl::union_map(m), N))) {
        Instance dst{to, dstCoords};
        ++numDeps;
        ASSERT_TRUE(where.count(src) && where.count(dst));
        const Placement &a = where[src], &b = where[dst];
        EXPECT_LT(a.all(), b.all()) << "dependence goes backward";
        if (a.tile[0] == b.tile[0] && a.tile[1] == b.tile[1]) {
          EXPECT_EQ(a.tile, b.tile)
              << "dependence between two tiles of a color";
        }
      }
    });
    EXPECT_GT(numDeps, 0u);
    // (build() checked that verifySchedule agrees with the proof.)
    EXPECT_TRUE(splitTilingIsLegal(
        dependenceDistanceBoxes(prog.canonical, prog.n, prog.deps), c, o));
    return where;
  }

  /// Checks for N steps that the tiles holding as many instances as the
  /// tile of their color on an unbounded domain (`ideal[color]`) are
  /// exactly the isolated ones, none holds more, and some tile is full.
  void checkFullTiles(const isl::schedule &s, int64_t N,
                      const std::map<Instance, Placement> &where,
                      const std::vector<int64_t> &ideal) {
    unsigned numFull = 0;
    for (unsigned color = 0; color < ideal.size(); ++color) {
      std::map<Vec, int64_t> count;
      for (auto &[inst, p] : where)
        if (p.tile[1] == int64_t(color)) {
          Vec key = p.tile;
          key.erase(key.begin() + 1); // [T, K...] as in the isolate option
          ++count[key];
        }
      std::set<Vec> isolated;
      tileBand(s, color)
          .as<isl::schedule_node_band>()
          .get_ast_build_options()
          .foreach_set([&](isl::set set) {
            isolated = enumerate(
                fixN(isl::union_set(set), N).extract_set(set.get_space()));
          });
      for (auto &[t, n] : count) {
        EXPECT_LE(n, ideal[color]);
        numFull += n == ideal[color];
        EXPECT_EQ(n == ideal[color], isolated.count(t) == 1)
            << "color " << color << ": a tile holds " << n << " of "
            << ideal[color] << " points";
      }
    }
    EXPECT_GT(numFull, 0u);
  }
};

} // namespace

// The tree: band [T], a sequence of 2^n colors, each a parallel mark over
// a permutable, all-coincident tile band, then t', then the points.
TEST_F(SplitTilingTest, TreeLayout) {
  Program prog = makeProgram(1, {40, 20}, jacobi(2));
  isl::schedule s = build(prog, cone(prog), options(4, {10, 12}));
  isl::schedule_node top = s.root().child(0);
  ASSERT_TRUE(top.isa<isl::schedule_node_band>());
  EXPECT_EQ(top.as<isl::schedule_node_band>().n_member(), 1u);
  ASSERT_TRUE(colors(s).isa<isl::schedule_node_sequence>());
  ASSERT_EQ(colors(s).n_children(), 4u);
  for (unsigned c = 0; c < 4; ++c) {
    isl::schedule_node mark = colors(s).child(c).child(0);
    ASSERT_TRUE(mark.isa<isl::schedule_node_mark>());
    isl_id *id = isl_schedule_node_mark_get_id(mark.get());
    EXPECT_STREQ(isl_id_get_name(id), "parallel");
    isl_id_free(id);
    auto tiles = tileBand(s, c).as<isl::schedule_node_band>();
    EXPECT_EQ(tiles.n_member(), 2u);
    EXPECT_TRUE(tiles.permutable());
    EXPECT_TRUE(tiles.member_get_coincident(0));
    EXPECT_TRUE(tiles.member_get_coincident(1));
    EXPECT_EQ(tiles.child(0).as<isl::schedule_node_band>().n_member(), 1u);
    EXPECT_EQ(tiles.child(0).child(0).as<isl::schedule_node_band>().n_member(),
              2u);
  }
}

// The paper's Figure 3 / Listing 2 shape in 1D (3-point Jacobi, slopes 1):
// in a band of h steps the upright trapezoid of tile k holds s in
// [kW + t', kW + W - 1 - t'] (W - 2t' points) and the inverted one between
// tiles k-1 and k holds the other 2t' points of the period.
TEST_F(SplitTilingTest, Jacobi1DTrapezoids) {
  const int64_t h = 8, W = 20;
  Program prog = makeProgram(1, {100}, jacobi(1));
  DependenceCone c = cone(prog);
  isl::schedule s = build(prog, c, options(h, {W}));
  ASSERT_EQ(colors(s).n_children(), 2u);
  auto where = check(prog, c, options(h, {W}), s, 17);
  // Points per (T, color, K, t'), on tiles away from the boundary.
  std::map<Vec, int64_t> rows;
  for (auto &[inst, p] : where) {
    int64_t s0 = inst.second[1], t = inst.second[0];
    int64_t tl = t % h;
    EXPECT_EQ(p.local[0], tl);
    if (p.tile[1] == 0) {
      EXPECT_EQ(p.tile[2], s0 / W);
      EXPECT_GE(s0 - p.tile[2] * W, tl);
      EXPECT_LE(s0 - p.tile[2] * W, W - 1 - tl);
    }
    ++rows[{p.tile[0], p.tile[1], p.tile[2], tl}];
  }
  for (int64_t k = 1; k <= 3; ++k)
    for (int64_t tl = 0; tl < h; ++tl) {
      EXPECT_EQ((rows[{0, 0, k, tl}]), W - 2 * tl);
      EXPECT_EQ((rows[{0, 1, k, tl}]), 2 * tl);
    }
  checkFullTiles(s, 17, where, {h * W - h * (h - 1), h * (h - 1)});
}

// Asymmetric slopes (upwind: every source two points to the right of its
// target): the upright trapezoid loses 2 points per step on its right only.
TEST_F(SplitTilingTest, Asymmetric1D) {
  Program prog = makeProgram(1, {60}, {{0, 0, 1, {-2}}, {0, 0, 1, {0}}});
  DependenceCone c = cone(prog);
  ASSERT_EQ(c.upper[0].num, 0);
  ASSERT_EQ(c.lower[0].num, 2);
  SplitTilingOptions o = options(4, {8});
  isl::schedule s = build(prog, c, o);
  auto where = check(prog, c, o, s, 9);
  checkFullTiles(s, 9, where, {4 * 8 - 2 * (0 + 1 + 2 + 3), 2 * 6});
}

// Rational slopes: distance 1 every second step.
TEST_F(SplitTilingTest, RationalSlopes1D) {
  Program prog =
      makeProgram(1, {50}, {{0, 0, 2, {1}}, {0, 0, 2, {-1}}, {0, 0, 1, {0}}});
  DependenceCone c = cone(prog);
  ASSERT_EQ(c.upper[0].den, 2);
  SplitTilingOptions o = options(6, {9});
  check(prog, c, o, build(prog, c, o), 13);
}

// Two statements per step, folded into time (sec. 4.3): S1 reads S0 of the
// same step, S0 reads S1 of the previous one.
TEST_F(SplitTilingTest, TwoStatements2D) {
  Program prog = makeProgram(2, {19, 15},
                             {{0, 1, 0, {1, 0}},
                              {0, 1, 0, {-1, 0}},
                              {1, 0, 1, {0, 1}},
                              {1, 0, 1, {0, -1}},
                              {0, 0, 1, {0, 0}},
                              {1, 1, 1, {0, 0}}});
  DependenceCone c = cone(prog);
  SplitTilingOptions o = options(4, {7, 6}, 2);
  isl::schedule s = build(prog, c, o);
  check(prog, c, o, s, 7);
}

TEST_F(SplitTilingTest, Jacobi2D) {
  Program prog = makeProgram(1, {23, 19}, jacobi(2));
  DependenceCone c = cone(prog);
  SplitTilingOptions o = options(3, {9, 7});
  isl::schedule s = build(prog, c, o);
  ASSERT_EQ(colors(s).n_children(), 4u);
  auto where = check(prog, c, o, s, 7);
  // A color's tile is the product of the 1D trapezoids: per step, upright
  // W - 2t' and inverted 2t' points along each dimension.
  std::vector<int64_t> ideal(4, 0);
  for (int64_t tl = 0; tl < 3; ++tl)
    for (unsigned bits = 0; bits < 4; ++bits)
      ideal[bits] += ((bits & 1) ? 2 * tl : 9 - 2 * tl) *
                     ((bits & 2) ? 2 * tl : 7 - 2 * tl);
  checkFullTiles(s, 7, where, ideal);
}

TEST_F(SplitTilingTest, Jacobi3D) {
  Program prog = makeProgram(1, {7, 6, 5}, jacobi(3));
  DependenceCone c = cone(prog);
  SplitTilingOptions o = options(2, {4, 3, 5});
  isl::schedule s = build(prog, c, o);
  EXPECT_EQ(colors(s).n_children(), 8u);
  check(prog, c, o, s, 4);
}

// A dimension without dependences has no inverted trapezoids: its colors
// are left out (2 colors in 2D).
TEST_F(SplitTilingTest, DimensionWithoutDependences) {
  Program prog = makeProgram(
      1, {17, 11}, {{0, 0, 1, {1, 0}}, {0, 0, 1, {-1, 0}}, {0, 0, 1, {0, 0}}});
  DependenceCone c = cone(prog);
  SplitTilingOptions o = options(4, {8, 4});
  isl::schedule s = build(prog, c, o);
  EXPECT_EQ(colors(s).n_children(), 2u);
  check(prog, c, o, s, 9);
}

// A parametric number of steps: the tree holds for every N.
TEST_F(SplitTilingTest, ParametricSteps) {
  Program prog = makeProgram(1, {30}, jacobi(1));
  DependenceCone c = cone(prog);
  SplitTilingOptions o = options(5, {12});
  isl::schedule s = build(prog, c, o);
  for (int64_t N : {2, 4, 5, 6, 11})
    check(prog, c, o, s, N);
}

TEST(SplitTileSizesTest, ChecksAndDefaults) {
  DependenceCone c;
  c.upper = {Rational{1, 1}, Rational{2, 1}};
  c.lower = {Rational{1, 1}, Rational{1, 2}};
  EXPECT_FALSE(checkSplitTileSizes(c, options(4, {6, 8})));
  // ceil(2*3) + ceil(3/2) = 8 along dimension 1.
  std::optional<std::string> narrow =
      checkSplitTileSizes(c, options(4, {6, 7}));
  ASSERT_TRUE(narrow);
  EXPECT_NE(narrow->find("width 1 must be at least"), std::string::npos)
      << *narrow;
  EXPECT_NE(narrow->find("= 8"), std::string::npos) << *narrow;
  EXPECT_TRUE(checkSplitTileSizes(c, options(0, {6, 8})));
  EXPECT_TRUE(checkSplitTileSizes(c, options(4, {6})));
  std::optional<std::string> steps =
      checkSplitTileSizes(c, options(3, {6, 8}, 2));
  ASSERT_TRUE(steps);
  EXPECT_NE(steps->find("multiple of the 2 statements"), std::string::npos);
  for (unsigned K : {1u, 2u, 3u, 5u}) {
    SplitTilingOptions o;
    o.statementsPerStep = K;
    o.sizes = defaultSplitTileSizes(c, K);
    EXPECT_FALSE(checkSplitTileSizes(c, o)) << "K = " << K;
    EXPECT_EQ(o.sizes.h % K, 0);
  }
}

// Slopes that ignore the dependences give a tiling that verifySchedule
// refuses, naming a dependence.
TEST_F(SplitTilingTest, VerifyRefusesWrongSlopes) {
  Program prog = makeProgram(1, {30, 12}, jacobi(2));
  DependenceCone flat = cone(prog);
  for (Rational &r : flat.upper)
    r = Rational{0, 1};
  for (Rational &r : flat.lower)
    r = Rational{0, 1};
  isl::schedule s = build(prog, flat, options(4, {8, 6}));
  std::optional<std::string> failure = verifySchedule(s, prog.deps);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->find("dependence"), std::string::npos) << *failure;
}
