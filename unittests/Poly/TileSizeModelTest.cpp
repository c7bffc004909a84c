//===- TileSizeModelTest.cpp - the tile-size model, by enumeration --------===//
//
// Checks the model's counts on one tile against a simulation of the tile
// (its instances in canonical order, each reading then writing; an element
// is loaded when its first access is a read), and that the sizes the model
// chooses honor each tiling's constraints and the budget.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/TileSizeModel.h"

#include "TilingTestSupport.h"

#include <gtest/gtest.h>

#include <isl/set.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace mlir::stencil::poly;

namespace {

struct Ctx {
  isl_ctx *ctx = isl_ctx_alloc();
  ~Ctx() { isl_ctx_free(ctx); }
  isl::ctx get() const { return isl::ctx(ctx); }
};

using Point = tiling_test::Vec;
using tiling_test::enumerate;

/// 1D Jacobi in ping-pong form with `statements` per step: with two, S0
/// computes a temp T from A and S1 the new A from T.
TileModelProgram jacobi(isl::ctx ctx, unsigned statements) {
  TileModelProgram p;
  if (statements == 1) {
    p.canonical = isl::union_pw_multi_aff(
        isl::pw_multi_aff(isl::multi_aff(ctx, "{ S0[t, s] -> [t, s] }")));
    for (const char *read : {"{ S0[t, s] -> A[t mod 2, s - 1] }",
                             "{ S0[t, s] -> A[t mod 2, s] }",
                             "{ S0[t, s] -> A[t mod 2, s + 1] }"})
      p.reads.push_back(isl::map(ctx, read));
    p.writes.push_back(isl::map(ctx, "{ S0[t, s] -> A[(t + 1) mod 2, s] }"));
    return p;
  }
  p.canonical =
      isl::union_pw_multi_aff(isl::pw_multi_aff(
                                  isl::multi_aff(ctx, "{ S0[t, s] -> [2t, s] }")))
          .union_add(isl::union_pw_multi_aff(isl::pw_multi_aff(
              isl::multi_aff(ctx, "{ S1[t, s] -> [2t + 1, s] }"))));
  for (const char *read : {"{ S0[t, s] -> A[t mod 2, s - 1] }",
                           "{ S0[t, s] -> A[t mod 2, s + 1] }",
                           "{ S1[t, s] -> T[s - 1] }", "{ S1[t, s] -> T[s] }",
                           "{ S1[t, s] -> A[t mod 2, s] }"})
    p.reads.push_back(isl::map(ctx, read));
  p.writes.push_back(isl::map(ctx, "{ S0[t, s] -> T[s] }"));
  p.writes.push_back(isl::map(ctx, "{ S1[t, s] -> A[(t + 1) mod 2, s] }"));
  p.elementBytes["T"] = 4;
  return p;
}

/// The simulation: the tile's P points (those of `piece` in the tile of a
/// point far away, as the model picks it) in canonical order.
TileCost simulate(const TileModelProgram &program, const TilePiece &piece,
                  unsigned statements) {
  isl::ctx ctx = piece.points.ctx();
  isl::set far(ctx, "{ [x0, x1] : 10000 <= x0 < 20000 and 10000 <= x1 < 20000 }");
  isl::set point = isl::set(piece.points.intersect(far).sample_point());
  isl::set tile =
      point.apply(isl::manage(isl_map_from_multi_aff(piece.tile.copy())));
  // In canonical order (the set is sorted).
  std::set<Point> tilePoints =
      enumerate(piece.points.intersect(tile.preimage(piece.tile)));
  std::vector<Point> ps(tilePoints.begin(), tilePoints.end());
  // Per element (array, subscripts): the first access is a read?
  std::map<std::pair<std::string, Point>, bool> firstIsRead;
  std::set<std::pair<std::string, Point>> written;
  auto evaluate = [&](const isl::map &access, const std::string &stmt,
                      const Point &instance) {
    std::string text = "{ " + stmt + "[" + std::to_string(instance[0]) + ", " +
                       std::to_string(instance[1]) + "] }";
    isl::set image = isl::set(ctx, text).apply(access);
    Point element = *enumerate(image).begin();
    const char *name = isl_set_get_tuple_name(image.get());
    return std::make_pair(std::string(name), element);
  };
  TileCost cost;
  // All reads at one canonical time before its writes (the model compares
  // times strictly).
  for (size_t i = 0; i < ps.size();) {
    size_t j = i;
    while (j < ps.size() && ps[j][0] == ps[i][0])
      ++j;
    for (int pass = 0; pass < 2; ++pass)
      for (size_t q = i; q < j; ++q) {
        int64_t x0 = ps[q][0];
        unsigned k = unsigned(x0 % statements);
        std::string stmt = "S" + std::to_string(k);
        Point instance = {(x0 - k) / statements, ps[q][1]};
        if (pass == 0)
          ++cost.updates;
        for (const isl::map &access : pass == 0 ? program.reads : program.writes) {
          const char *in = isl_map_get_tuple_name(access.get(), isl_dim_in);
          if (stmt != in)
            continue;
          auto element = evaluate(access, stmt, instance);
          firstIsRead.try_emplace(element, pass == 0);
          if (pass == 1)
            written.insert(element);
        }
      }
    i = j;
  }
  for (const auto &[element, read] : firstIsRead) {
    cost.loads += read;
    auto bytes = program.elementBytes.find(element.first);
    cost.footprintBytes +=
        bytes == program.elementBytes.end() ? 8 : bytes->second;
  }
  cost.stores = int64_t(written.size());
  return cost;
}

void expectSame(const TileCost &model, const TileCost &simulated) {
  EXPECT_EQ(model.updates, simulated.updates);
  EXPECT_EQ(model.loads, simulated.loads);
  EXPECT_EQ(model.stores, simulated.stores);
  EXPECT_EQ(model.footprintBytes, simulated.footprintBytes);
}

/// The same slopes in each of `n` dimensions.
DependenceCone uniformCone(unsigned n, Rational upper, Rational lower) {
  DependenceCone cone;
  cone.upper.assign(n, upper);
  cone.lower.assign(n, lower);
  return cone;
}

DependenceCone unitCone() { return uniformCone(1, {1, 1}, {1, 1}); }

TEST(TileSizeModel, HexagonCountsMatchASimulation) {
  Ctx c;
  isl::ctx ctx = c.get();
  for (unsigned statements : {1u, 2u}) {
    TileModelProgram program = jacobi(ctx, statements);
    DependenceCone cone = unitCone();
    for (auto [h, w0] : {std::pair<int64_t, int64_t>{3, 4}, {5, 7}}) {
      HybridTilingOptions options;
      options.statementsPerStep = statements;
      options.sizes.h = h;
      options.sizes.widths = {w0};
      for (const TilePiece &piece : hybridTilePieces(ctx, cone, options)) {
        std::optional<TileCost> model = interiorTileCost(program, piece, 1);
        ASSERT_TRUE(model);
        expectSame(*model, simulate(program, piece, statements));
        std::optional<TileCost> isl =
            interiorTileCost(program, piece, 1, TileCounting::Isl);
        ASSERT_TRUE(isl);
        expectSame(*isl, simulate(program, piece, statements));
        // A full hexagon: loads and stores far fewer than updates.
        EXPECT_LT(model->loads + model->stores, 2 * model->updates);
      }
    }
  }
}

TEST(TileSizeModel, SplitCountsMatchASimulation) {
  Ctx c;
  isl::ctx ctx = c.get();
  TileModelProgram program = jacobi(ctx, 1);
  SplitTilingOptions options;
  options.sizes.h = 4;
  options.sizes.widths = {16};
  for (const SplitColor &color : splitColors(ctx, unitCone(), options)) {
    TilePiece piece{color.points, color.tile};
    std::optional<TileCost> model = interiorTileCost(program, piece, 1);
    ASSERT_TRUE(model);
    expectSame(*model, simulate(program, piece, 1));
    std::optional<TileCost> isl =
        interiorTileCost(program, piece, 1, TileCounting::Isl);
    ASSERT_TRUE(isl);
    expectSame(*isl, simulate(program, piece, 1));
  }
}

// Accesses whose images are not boxes (a stride, a mirror, a coordinate
// from two space dimensions) are counted by isl, the same as a simulation.
TEST(TileSizeModel, AccessesOtherThanTranslationsMatchASimulation) {
  Ctx c;
  isl::ctx ctx = c.get();
  for (const char *odd : {"{ S0[t, s] -> B[2s + 1] }", "{ S0[t, s] -> B[-s] }",
                          "{ S0[t, s] -> B[s mod 3] }"}) {
    TileModelProgram program = jacobi(ctx, 1);
    program.reads.push_back(isl::map(ctx, odd));
    HybridTilingOptions options;
    options.sizes.h = 3;
    options.sizes.widths = {5};
    for (const TilePiece &piece : hybridTilePieces(ctx, unitCone(), options)) {
      std::optional<TileCost> model = interiorTileCost(program, piece, 1);
      ASSERT_TRUE(model) << odd;
      expectSame(*model, simulate(program, piece, 1));
    }
  }
}

/// A star stencil of radius 2 in `n` space dimensions with `k` statements
/// per step, a chain: S0 reads the old A, each next one what the one before
/// wrote (T1, T2, ...), the last writes the new A and reads a coefficient
/// field C of f32.
TileModelProgram star(isl::ctx ctx, unsigned n, unsigned k) {
  std::string x = "s0";
  for (unsigned d = 1; d < n; ++d)
    x += ", s" + std::to_string(d);
  auto at = [&](unsigned d, int offset) {
    std::string list;
    for (unsigned e = 0; e < n; ++e) {
      std::string coordinate = "s" + std::to_string(e);
      if (e == d)
        coordinate += (offset > 0 ? " + " : " - ") + std::to_string(abs(offset));
      list += (e ? ", " : "") + coordinate;
    }
    return list;
  };
  auto array = [&](unsigned statement, const std::string &subscripts) {
    if (statement == 0)
      return "A[t mod 2, " + subscripts + "]";
    return "T" + std::to_string(statement) + "[" + subscripts + "]";
  };
  TileModelProgram p;
  p.canonical = isl::union_pw_multi_aff(ctx, "{ }");
  for (unsigned i = 0; i < k; ++i) {
    std::string s = "S" + std::to_string(i) + "[t, " + x + "]";
    p.canonical = p.canonical.union_add(isl::union_pw_multi_aff(
        isl::pw_multi_aff(isl::multi_aff(
            ctx, "{ " + s + " -> [" + std::to_string(k) + "t + " +
                     std::to_string(i) + ", " + x + "] }"))));
    for (unsigned d = 0; d < n; ++d)
      for (int offset : {-2, -1, 1, 2})
        p.reads.push_back(
            isl::map(ctx, "{ " + s + " -> " + array(i, at(d, offset)) + " }"));
    std::string written = i + 1 == k ? "A[(t + 1) mod 2, " + x + "]"
                                     : array(i + 1, x);
    p.writes.push_back(isl::map(ctx, "{ " + s + " -> " + written + " }"));
    if (i + 1 == k)
      p.reads.push_back(isl::map(ctx, "{ " + s + " -> C[" + x + "] }"));
  }
  p.elementBytes["C"] = 4;
  return p;
}

// With five statements per step and slopes that are fractions of a
// canonical step (a hexagonal tile then keeps divisions of the time in its
// constraints), hexagons in 2D and split tiles (which isl gives as unions)
// in 2D and 3D, counting in boxes gives isl's figures for every phase and
// color.
TEST(TileSizeModel, BoxCountingMatchesIslInHigherDimensions) {
  Ctx c;
  isl::ctx ctx = c.get();
  for (unsigned n : {2u, 3u}) {
    TileModelProgram program = star(ctx, n, 5);
    DependenceCone cone;
    for (unsigned d = 0; d < n; ++d) {
      cone.upper.push_back(d == 0 ? Rational{1, 2} : Rational{1, 1});
      cone.lower.push_back(Rational{1, 3});
    }
    std::vector<TilePiece> pieces;
    HybridTilingOptions hex;
    hex.statementsPerStep = 5;
    hex.sizes.h = 9;
    hex.sizes.widths.assign(n, 8);
    ASSERT_FALSE(checkTileSizes(cone, hex));
    // (In 3D isl's enumeration of a hexagonal tile takes seconds.)
    if (n == 2)
      for (const TilePiece &piece : hybridTilePieces(ctx, cone, hex))
        pieces.push_back(piece);
    SplitTilingOptions split;
    split.statementsPerStep = 5;
    split.sizes.h = 5;
    split.sizes.widths.assign(n, 13);
    ASSERT_FALSE(checkSplitTileSizes(cone, split));
    for (const SplitColor &color : splitColors(ctx, cone, split))
      pieces.push_back({color.points, color.tile});
    for (const TilePiece &piece : pieces) {
      std::optional<TileCost> boxes =
          interiorTileCost(program, piece, n, TileCounting::BoxesOnly);
      std::optional<TileCost> isl =
          interiorTileCost(program, piece, n, TileCounting::Isl);
      ASSERT_TRUE(boxes && isl);
      expectSame(*boxes, *isl);
      EXPECT_GT(boxes->loads, 0);
    }
  }
}

// The split model's figures come from products of one-dimensional tiles:
// the same as counting each color's tile of the n-dimensional tiling (in
// boxes, which the test above checks against isl), also where a dimension
// without dependences has no inverted trapezoids (half the colors left out).
TEST(TileSizeModel, SplitProductsMatchTheTiling) {
  Ctx c;
  isl::ctx ctx = c.get();
  for (unsigned n : {2u, 3u})
    for (bool flat : {false, true}) {
      TileModelProgram program = star(ctx, n, 5);
      DependenceCone cone;
      for (unsigned d = 0; d < n; ++d) {
        cone.upper.push_back(d == 0 ? Rational{1, 2} : Rational{1, 1});
        cone.lower.push_back(flat && d == 1 ? Rational{0, 1} : Rational{1, 3});
      }
      if (flat)
        cone.upper[1] = Rational{0, 1};
      SplitTilingOptions options;
      options.statementsPerStep = 5;
      options.sizes.h = 10;
      options.sizes.widths.assign(n, 17);
      ASSERT_FALSE(checkSplitTileSizes(cone, options));
      TileCost sum;
      unsigned colors = 0;
      for (const SplitColor &color : splitColors(ctx, cone, options)) {
        std::optional<TileCost> one = interiorTileCost(
            program, {color.points, color.tile}, n, TileCounting::BoxesOnly);
        ASSERT_TRUE(one);
        sum.updates += one->updates;
        sum.loads += one->loads;
        sum.stores += one->stores;
        sum.footprintBytes = std::max(sum.footprintBytes, one->footprintBytes);
        ++colors;
      }
      EXPECT_EQ(colors, flat ? 1u << (n - 1) : 1u << n);
      std::optional<TileCost> product = splitTileCost(program, cone, options);
      ASSERT_TRUE(product);
      expectSame(*product, sum);
    }
}

// Taller tiles move less per update until the footprint binds; the choice
// honors the tiling's constraints and the budget.
TEST(TileSizeModel, ChoiceHonorsConstraintsAndBudget) {
  Ctx c;
  isl::ctx ctx = c.get();
  DependenceCone cone = unitCone();
  for (auto [statements, budgets] :
       {std::pair<unsigned, std::vector<int64_t>>{1, {64 * 1024, 4 * 1024}},
        {2, {16 * 1024}}}) {
    TileModelProgram program = jacobi(ctx, statements);
    double lastTraffic = 0;
    for (int64_t budget : budgets) {
      TileCost cost;
      std::optional<HybridTileSizes> sizes =
          modelHybridTileSizes(program, cone, 0, statements, budget, cost);
      ASSERT_TRUE(sizes);
      EXPECT_EQ((sizes->h + 1) % statements, 0);
      HybridTilingOptions options;
      options.statementsPerStep = statements;
      options.sizes = *sizes;
      EXPECT_FALSE(checkTileSizes(cone, options));
      EXPECT_LE(cost.footprintBytes, budget);
      // A smaller budget never moves less per update.
      EXPECT_GE(cost.trafficPerUpdate(), lastTraffic);
      lastTraffic = cost.trafficPerUpdate();
    }
  }
  // In 3D under a budget no tile meets, the classical widths stay at least
  // the cone's span over the tile's height (the search would take the
  // narrowest otherwise: the smallest footprint).
  {
    TileModelProgram program = star(ctx, 3, 5);
    DependenceCone cone = uniformCone(3, {1, 1}, {1, 2});
    TileCost cost;
    std::optional<HybridTileSizes> sizes =
        modelHybridTileSizes(program, cone, 0, 5, 1024, cost);
    ASSERT_TRUE(sizes);
    for (unsigned d = 1; d < 3; ++d)
      EXPECT_GE(sizes->widths[d], cone.upper[d].ceilTimes(sizes->h + 1) +
                                      cone.lower[d].ceilTimes(sizes->h + 1));
    EXPECT_GT(cost.footprintBytes, 1024);
  }
  // A 3D star whose default tile exceeds the budget: the widths shrink
  // first and the tile still spans several steps (height first, the search
  // took h = 0, no reuse over time, and stayed there). 2 MiB: with rows of
  // at least 256 elements no tile of this radius-2 star over two or more
  // steps fits in less.
  {
    TileModelProgram program = star(ctx, 3, 1);
    DependenceCone cone = uniformCone(3, {2, 1}, {2, 1});
    TileCost cost;
    std::optional<HybridTileSizes> sizes =
        modelHybridTileSizes(program, cone, 0, 1, 2048 * 1024, cost);
    ASSERT_TRUE(sizes);
    EXPECT_GE(sizes->h, 1);
    EXPECT_LE(cost.footprintBytes, 2048 * 1024);
    // Less traffic per update than the same widths over two steps (h = 0).
    HybridTilingOptions options;
    options.sizes = *sizes;
    options.sizes.h = 0;
    std::optional<TileCost> flat = interiorTileCost(
        program, hybridTilePieces(ctx, cone, options).front(), 3);
    ASSERT_TRUE(flat);
    EXPECT_LT(cost.trafficPerUpdate(), 0.75 * flat->trafficPerUpdate());
  }
  TileModelProgram program = jacobi(ctx, 1);
  TileCost cost;
  std::optional<SplitTileSizes> split =
      modelSplitTileSizes(program, cone, 1, 16 * 1024, cost);
  ASSERT_TRUE(split);
  SplitTilingOptions options;
  options.sizes = *split;
  EXPECT_FALSE(checkSplitTileSizes(cone, options));
  EXPECT_LE(cost.footprintBytes, 16 * 1024);
}

} // namespace
