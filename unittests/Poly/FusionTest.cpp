//===- FusionTest.cpp - fusion by overlapped tiling, by enumeration -------===//
//
// Plans the fusion of small statement chains and checks the plans by
// enumerating the points of every tile: the statements that write fields
// compute each instance of their domain in exactly one tile, and everything
// a statement reads from a local buffer was computed by the same tile
// before it (the OverTile condition, ICS'12 sec. 3.3). Also the grouping
// (a field read at a distance splits a group, an intermediate read across
// groups gets full storage), the buffers, the model, the GPU tree, and that
// verifyFusion refuses wrong plans.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/Fusion.h"

#include "TilingTestSupport.h"

#include <gtest/gtest.h>

#include <isl/schedule.h>
#include <isl/set.h>

#include <map>
#include <set>
#include <vector>

using namespace mlir::stencil::poly;

namespace {

struct Ctx {
  isl_ctx *ctx = isl_ctx_alloc();
  ~Ctx() { isl_ctx_free(ctx); }
  isl::ctx get() const { return isl::ctx(ctx); }
};

FusionStatement statement(isl::ctx ctx, const std::string &name,
                          const std::string &domain, const std::string &write,
                          std::vector<std::string> reads) {
  FusionStatement s;
  s.name = name;
  s.domain = isl::set(ctx, "{ " + name + domain + " }");
  s.write = isl::map(ctx, "{ " + name + write + " }");
  for (const std::string &read : reads)
    s.reads.push_back(isl::map(ctx, "{ " + name + read + " }"));
  return s;
}

std::string treeText(const isl::schedule &schedule) {
  char *text = isl_schedule_to_str(schedule.get());
  std::string result = text ? text : "";
  free(text);
  return result;
}

using Point = tiling_test::Vec;
using tiling_test::enumerate;

/// Per statement, per tile [t, T...], the instances it computes [t, s...].
using Computed = std::map<unsigned, std::map<Point, std::set<Point>>>;

Computed tileInstances(const FusionPlan &plan, unsigned n) {
  Computed computed;
  for (unsigned k = 0; k < plan.instances.size(); ++k) {
    if (!plan.instances[k])
      continue;
    for (const Point &p : enumerate(plan.instances[k]->wrap())) {
      Point tile(p.begin(), p.begin() + 1 + n), inst(p.begin() + 1 + n, p.end());
      computed[k][tile].insert(inst);
    }
  }
  return computed;
}

/// Every instance of `s`'s domain computed by exactly one tile.
void expectPartition(const Computed &computed, unsigned k,
                     const FusionStatement &s) {
  std::map<Point, int> count;
  for (const auto &[tile, instances] : computed.at(k))
    for (const Point &i : instances)
      ++count[i];
  std::set<Point> domain = enumerate(s.domain);
  EXPECT_EQ(count.size(), domain.size()) << s.name;
  for (const Point &i : domain)
    EXPECT_EQ(count[i], 1) << s.name;
}

/// Every read by `consumer` (through `read`, of what `producer` writes
/// through the identity) is of an instance the same tile computed.
void expectLocalReadsCovered(const Computed &computed, unsigned consumer,
                             unsigned producer, const std::vector<Point> &offsets) {
  for (const auto &[tile, instances] : computed.at(consumer)) {
    auto produced = computed.at(producer).find(tile);
    ASSERT_NE(produced, computed.at(producer).end());
    for (const Point &i : instances)
      for (const Point &off : offsets) {
        Point read = i;
        for (size_t d = 0; d < off.size(); ++d)
          read[1 + d] += off[d];
        EXPECT_TRUE(produced->second.count(read))
            << "tile " << tile[1] << " reads an element it did not compute";
      }
  }
}

// laplap in 1D: an intermediate with radius 1 feeding a consumer with
// radius 1; tiles of 8 over 30 points (a partial last tile).
TEST(Fusion, ChainOneDimension) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i] : t = 0 and -1 <= i <= 30", "[t, i] -> T[i]",
                {"[t, i] -> A[i - 1]", "[t, i] -> A[i + 1]"}),
      statement(ctx, "S1", "[t, i] : t = 0 and 0 <= i <= 29", "[t, i] -> B[i]",
                {"[t, i] -> T[i - 1]", "[t, i] -> T[i + 1]"})};
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"B", false, 8}, {"T", true, 8}};
  FusionOptions options;
  options.tileSizes = {8};
  std::string error;
  std::optional<FusionPlan> plan = planFusion(s, arrays, 1, options, error);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->groups.size(), 1u);
  EXPECT_EQ(plan->groups[0].size(), 2u);
  // The producer's halo is the consumer's radius; the buffer 8 + 2.
  EXPECT_EQ(plan->halos[0][0], std::make_pair(int64_t(1), int64_t(1)));
  EXPECT_EQ(plan->halos[1][0], std::make_pair(int64_t(0), int64_t(0)));
  ASSERT_EQ(plan->buffers.size(), 1u);
  EXPECT_EQ(plan->buffers[0].array, "T");
  EXPECT_EQ(plan->buffers[0].shape, llvm::SmallVector<int64_t>({10}));
  EXPECT_TRUE(plan->buffers[0].offset.plain_is_equal(
      isl::multi_aff(ctx, "{ [t, T0] -> T[8T0 - 1] }")));
  Computed computed = tileInstances(*plan, 1);
  expectPartition(computed, 1, s[1]);
  expectLocalReadsCovered(computed, 1, 0, {{-1}, {1}});
  // Interior tiles compute 10 producer instances for 8 consumers.
  EXPECT_EQ(computed[0][Point({0, 1})].size(), 10u);
  EXPECT_FALSE(verifyFusion(s, *plan));
  // The tree: a parallel mark over the tiles, the fused mark, S0 then S1.
  std::string tree = treeText(plan->schedule);
  EXPECT_NE(tree.find("mark: \"parallel\""), std::string::npos) << tree;
  EXPECT_NE(tree.find("mark: \"fused\""), std::string::npos) << tree;
  EXPECT_LT(tree.find("S0_fused"), tree.find("S1_fused")) << tree;
}

// A three-stage chain in 2D with asymmetric offsets: halos add up.
TEST(Fusion, HalosAddUpTwoDimensions) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i, j] : t = 0 and -3 <= i <= 20 and -1 <= j <= 17",
                "[t, i, j] -> P[i, j]", {"[t, i, j] -> A[i, j]"}),
      statement(ctx, "S1", "[t, i, j] : t = 0 and -1 <= i <= 19 and 0 <= j <= 16",
                "[t, i, j] -> Q[i, j]",
                {"[t, i, j] -> P[i - 2, j]", "[t, i, j] -> P[i, j - 1]"}),
      statement(ctx, "S2", "[t, i, j] : t = 0 and 0 <= i <= 18 and 0 <= j <= 15",
                "[t, i, j] -> B[i, j]",
                {"[t, i, j] -> Q[i - 1, j]", "[t, i, j] -> Q[i + 1, j + 1]"})};
  std::vector<FusionArray> arrays = {
      {"A", false, 8}, {"B", false, 8}, {"P", true, 4}, {"Q", true, 4}};
  FusionOptions options;
  options.tileSizes = {5, 4};
  std::string error;
  std::optional<FusionPlan> plan = planFusion(s, arrays, 2, options, error);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->groups.size(), 1u);
  // Q: 1 below and 1 above in i, 1 above in j; P: 3 below in i, 1 below
  // and 1 above in j (Q's halo plus S1's offsets).
  EXPECT_EQ(plan->halos[1][0], std::make_pair(int64_t(1), int64_t(1)));
  EXPECT_EQ(plan->halos[1][1], std::make_pair(int64_t(0), int64_t(1)));
  EXPECT_EQ(plan->halos[0][0], std::make_pair(int64_t(3), int64_t(1)));
  EXPECT_EQ(plan->halos[0][1], std::make_pair(int64_t(1), int64_t(1)));
  Computed computed = tileInstances(*plan, 2);
  expectPartition(computed, 2, s[2]);
  expectLocalReadsCovered(computed, 2, 1, {{-1, 0}, {1, 1}});
  expectLocalReadsCovered(computed, 1, 0, {{-2, 0}, {0, -1}});
  EXPECT_FALSE(verifyFusion(s, *plan));
}

// A field written by S0 and read by S1 at a distance: the tiles would
// exchange values through memory, so S1 starts a new group; read at the
// same point it stays in the group.
TEST(Fusion, FieldReadAtADistanceSplitsTheGroup) {
  Ctx c;
  isl::ctx ctx = c.get();
  auto make = [&](const std::string &read) {
    return std::vector<FusionStatement>{
        statement(ctx, "S0", "[t, i] : 0 <= t <= 3 and 0 <= i <= 20",
                  "[t, i] -> F[i]", {"[t, i] -> A[i]"}),
        statement(ctx, "S1", "[t, i] : 0 <= t <= 3 and 1 <= i <= 19",
                  "[t, i] -> G[i]", {read})};
  };
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"F", false, 8}, {"G", false, 8}};
  FusionOptions options;
  options.tileSizes = {4};
  std::string error;
  // Read at i + 1: two groups, nothing to fuse.
  EXPECT_FALSE(planFusion(make("[t, i] -> F[i + 1]"), arrays, 1, options, error));
  EXPECT_TRUE(error.empty()) << error;
  // Read at i: one group.
  std::vector<FusionStatement> same = make("[t, i] -> F[i]");
  std::optional<FusionPlan> plan = planFusion(same, arrays, 1, options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->groups.size(), 1u);
  EXPECT_TRUE(plan->buffers.empty());
  EXPECT_FALSE(verifyFusion(same, *plan));
  // The check refuses the same plan for the program that reads at i + 1.
  std::vector<FusionStatement> apart = make("[t, i] -> F[i + 1]");
  std::optional<std::string> refused = verifyFusion(apart, *plan);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("@F"), std::string::npos) << *refused;
}

// An intermediate read by a statement that a field dependence puts in a
// later group keeps full-size storage (and its readers in the group read it
// at the point they compute, so the group stays).
TEST(Fusion, IntermediateAcrossGroupsIsDemoted) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i] : t = 0 and -1 <= i <= 20", "[t, i] -> T[i]",
                {"[t, i] -> A[i]"}),
      statement(ctx, "S1", "[t, i] : t = 0 and 0 <= i <= 20", "[t, i] -> F[i]",
                {"[t, i] -> T[i]"}),
      statement(ctx, "S2", "[t, i] : t = 0 and 0 <= i <= 19", "[t, i] -> G[i]",
                {"[t, i] -> F[i + 1]", "[t, i] -> T[i]"})};
  std::vector<FusionArray> arrays = {
      {"A", false, 8}, {"F", false, 8}, {"G", false, 8}, {"T", true, 8}};
  FusionOptions options;
  options.tileSizes = {6};
  std::string error;
  std::optional<FusionPlan> plan = planFusion(s, arrays, 1, options, error);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->groups.size(), 2u);
  EXPECT_EQ(plan->groups[0].size(), 2u);
  EXPECT_EQ(plan->groups[1].size(), 1u);
  EXPECT_TRUE(plan->buffers.empty());
  EXPECT_FALSE(verifyFusion(s, *plan));
  Computed computed = tileInstances(*plan, 1);
  for (unsigned k = 0; k < 3; ++k)
    expectPartition(computed, k, s[k]);
}

// An intermediate read at a fixed index over a parametric domain (a
// distance that grows with the point) has no bounded halo: it keeps its full-size array, and the reader
// starts a new group (it reads the array where other tiles write it).
TEST(Fusion, UnboundedHaloKeepsFullStorage) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i] : t = 0 and 0 <= i", "[t, i] -> T[i]",
                {"[t, i] -> A[i]"}),
      statement(ctx, "S1", "[t, i] : t = 0 and 0 <= i", "[t, i] -> B[i]",
                {"[t, i] -> T[i]", "[t, i] -> T[0]"})};
  for (FusionStatement &st : s)
    st.domain = isl::set(ctx, "[N] -> { " + st.name + "[t, i] : t = 0 and "
                                                      "0 <= i <= N }");
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"B", false, 8}, {"T", true, 8}};
  FusionOptions options;
  options.tileSizes = {4};
  std::string error;
  EXPECT_FALSE(planFusion(s, arrays, 1, options, error));
  EXPECT_TRUE(error.empty()) << error;
}

// A producer computed only on its own tile (no halo) leaves the consumer
// reading what no one computed: verifyFusion names the buffer.
TEST(Fusion, VerificationRefusesAMissingHalo) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i] : t = 0 and -1 <= i <= 30", "[t, i] -> T[i]",
                {"[t, i] -> A[i]"}),
      statement(ctx, "S1", "[t, i] : t = 0 and 0 <= i <= 29", "[t, i] -> B[i]",
                {"[t, i] -> T[i - 1]", "[t, i] -> T[i + 1]"})};
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"B", false, 8}, {"T", true, 8}};
  FusionOptions options;
  options.tileSizes = {8};
  std::string error;
  std::optional<FusionPlan> plan = planFusion(s, arrays, 1, options, error);
  ASSERT_TRUE(plan) << error;
  plan->instances[0] =
      isl::map(ctx, "{ [t, T0] -> S0[t, i] : 8T0 <= i < 8T0 + 8 }")
          .intersect_range(s[0].domain);
  std::optional<std::string> refused = verifyFusion(s, *plan);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("@T"), std::string::npos) << *refused;
}

// The model: rows of at least 32 points, local buffers and fields within
// the budget, the least recomputation among those; a smaller budget gives
// smaller tiles and more recomputation.
TEST(Fusion, ModelChoosesSizesWithinTheBudget) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i, j] : t = 0 and -1 <= i <= 1024 and -1 <= j <= 1024",
                "[t, i, j] -> T[i, j]", {"[t, i, j] -> A[i, j]"}),
      statement(ctx, "S1", "[t, i, j] : t = 0 and 0 <= i <= 1023 and 0 <= j <= 1023",
                "[t, i, j] -> B[i, j]",
                {"[t, i, j] -> T[i - 1, j]", "[t, i, j] -> T[i + 1, j]",
                 "[t, i, j] -> T[i, j - 1]", "[t, i, j] -> T[i, j + 1]"})};
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"B", false, 8}, {"T", true, 8}};
  std::string error;
  double lastRecomputation = 0;
  for (int64_t budget : {1024 * 1024, 64 * 1024, 16 * 1024}) {
    FusionOptions options;
    options.budgetBytes = budget;
    std::optional<FusionPlan> plan = planFusion(s, arrays, 2, options, error);
    ASSERT_TRUE(plan) << error;
    EXPECT_GE(plan->tileSizes[1], 32);
    EXPECT_LE(plan->footprintBytes, budget);
    EXPECT_GE(plan->recomputation, 1.0);
    // 8 or more tiles along dimension 0 (they run in parallel).
    EXPECT_LE(plan->tileSizes[0], 1026 / 8);
    EXPECT_GE(plan->recomputation, lastRecomputation);
    lastRecomputation = plan->recomputation;
    // The figures are those of the sizes: (B0 + 2)(B1 + 2) / (B0 B1) for
    // the producer, 1 for the consumer.
    double b0 = double(plan->tileSizes[0]), b1 = double(plan->tileSizes[1]);
    EXPECT_NEAR(plan->recomputation, ((b0 + 2) * (b1 + 2) / (b0 * b1) + 1) / 2,
                1e-9);
  }
}

// On a GPU: a kernel mark per group, the points over the threads (x along
// the innermost dimension), a barrier after the producer and at the end of
// the tile.
TEST(Fusion, GpuTree) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i, j] : t = 0 and -1 <= i <= 40 and -1 <= j <= 70",
                "[t, i, j] -> T[i, j]", {"[t, i, j] -> A[i, j]"}),
      statement(ctx, "S1", "[t, i, j] : t = 0 and 0 <= i <= 39 and 0 <= j <= 69",
                "[t, i, j] -> B[i, j]",
                {"[t, i, j] -> T[i - 1, j]", "[t, i, j] -> T[i, j + 1]"})};
  std::vector<FusionArray> arrays = {{"A", false, 8}, {"B", false, 8}, {"T", true, 8}};
  FusionOptions options;
  options.gpu = true;
  options.tileSizes = {8, 32};
  std::string error;
  std::optional<FusionPlan> plan = planFusion(s, arrays, 2, options, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->threads, llvm::SmallVector<int64_t>({32, 8}));
  std::string tree = treeText(plan->schedule);
  EXPECT_NE(tree.find("mark: \"kernel\""), std::string::npos) << tree;
  EXPECT_NE(tree.find("0 <= tid_x <= 31 and 0 <= tid_y <= 7"), std::string::npos)
      << tree;
  EXPECT_NE(tree.find("barrier_fused0_0"), std::string::npos) << tree;
  EXPECT_NE(tree.find("barrier_fused0_end"), std::string::npos) << tree;
  EXPECT_EQ(tree.find("mark: \"parallel\""), std::string::npos) << tree;
  size_t sequence = tree.find("sequence");
  EXPECT_LT(tree.find("S0_fused", sequence),
            tree.find("barrier_fused0_0", sequence))
      << tree;
  EXPECT_LT(tree.find("barrier_fused0_0", sequence),
            tree.find("S1_fused", sequence))
      << tree;
  Computed computed = tileInstances(*plan, 2);
  expectPartition(computed, 1, s[1]);
  expectLocalReadsCovered(computed, 1, 0, {{-1, 0}, {0, 1}});
}

// Invalid sizes are refused with a message.
TEST(Fusion, InvalidSizes) {
  Ctx c;
  isl::ctx ctx = c.get();
  std::vector<FusionStatement> s = {
      statement(ctx, "S0", "[t, i] : t = 0 and 0 <= i <= 9", "[t, i] -> T[i]", {}),
      statement(ctx, "S1", "[t, i] : t = 0 and 0 <= i <= 9", "[t, i] -> B[i]",
                {"[t, i] -> T[i]"})};
  std::vector<FusionArray> arrays = {{"B", false, 8}, {"T", true, 8}};
  std::string error;
  FusionOptions options;
  options.tileSizes = {4, 4};
  EXPECT_FALSE(planFusion(s, arrays, 1, options, error));
  EXPECT_NE(error.find("tile needs 1 sizes"), std::string::npos) << error;
  options.tileSizes = {0};
  EXPECT_FALSE(planFusion(s, arrays, 1, options, error));
  EXPECT_NE(error.find("positive"), std::string::npos) << error;
}

} // namespace
