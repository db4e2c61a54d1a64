// The book collective model against problems worked by hand: Pop Quiz 2 (v5e 8x4 mesh) and Question 2
// (v4 4x4x4 torus) of the seed notes, plus the AllToAll forms and podsim's rules for mixed axes.
#include "models/cost/collective_cost.hpp"

#include <functional>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim {
namespace {

constexpr double kWUni = 4.5e10;  // v4 / v5e one-way ICI bandwidth per link, B/s
constexpr double kAlpha = 1e-6;   // the book's per-hop latency, s

// Pop Quiz 2: AllGather_Y([E_Y, F]) -> [E, F], v5e mesh {X: 8, Y: 4} on an 8x4 slice. Neither dim is 16,
// so no wraparound. E = 2048, F = 8192, bf16: V = 2048 * 8192 * 2 = 33,554,432 B, shard V/4 = 512 * 8192
// * 2 = 8,388,608 B. A line of 4: 3 hops, bandwidth 3 * 8,388,608 / 4.5e10 = 25,165,824 / 4.5e10
// = 559.2405333 us, latency 3 * 1 us = 3 us; total max = 559.24 us, bandwidth-bound.
TEST(BookCollective, PopQuiz2AllGatherOnV5eMesh) {
  const Slice slice({8, 4}, WrapRule::full_pod_axis, {16, 16});
  const MeshMapping mapping(make_mesh({{"X", 8}, {"Y", 4}}), slice);
  const std::vector<CollectiveAxis> axes = collective_axes(slice, mapping, {"Y"});
  ASSERT_EQ(axes.size(), 1u);
  EXPECT_EQ(axes[0].size, 4);
  EXPECT_FALSE(axes[0].wraparound);

  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_gather, axes, 33554432, kWUni, kAlpha);
  test::expect_close(cost.bandwidth_s, 559.2405333e-6);
  test::expect_close(cost.latency_s, 3e-6);
  test::expect_close(cost.time_s, 559.2405333e-6);
  EXPECT_EQ(cost.hops, 3);
  EXPECT_EQ(cost.bound, Bound::bandwidth);
  EXPECT_EQ(cost.formula, "max((N-1) * (V/N) / W_uni, (N-1) * alpha)");
}

// Same with E = F = 256: V = 256 * 256 * 2 = 131,072 B, shard 32,768 B; bandwidth 3 * 32,768 / 4.5e10
// = 98,304 / 4.5e10 = 2.184533333 us < latency 3 us, so latency-bound at 3 us.
TEST(BookCollective, PopQuiz2SmallArrayIsLatencyBound) {
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_gather, {{4, false}}, 131072, kWUni, kAlpha);
  test::expect_close(cost.bandwidth_s, 2.184533333e-6);
  test::expect_close(cost.latency_s, 3e-6);
  test::expect_close(cost.time_s, 3e-6);
  EXPECT_EQ(cost.bound, Bound::latency);
}

// With a wraparound (a full ring of 4) the same 33,554,432 B take V / W_bidi = 33,554,432 / 9e10
// = 372.8270222 us, over floor(4/2) = 2 hops.
TEST(BookCollective, PopQuiz2WithWraparound) {
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_gather, {{4, true}}, 33554432, kWUni, kAlpha);
  test::expect_close(cost.time_s, 372.8270222e-6);
  EXPECT_EQ(cost.hops, 2);
  test::expect_close(cost.latency_s, 2e-6);
  EXPECT_EQ(cost.formula, "max(V / W_bidi, floor(N/2) * alpha)");
}

// Question 2, v4 4x4x4 (a full torus), mesh {X: 4, Y: 4, Z: 4}, B = 1024, D = 4096, bf16.
class Question2 : public ::testing::Test {
 protected:
  Slice slice_{{4, 4, 4}, WrapRule::whole_cubes};
  MeshMapping mapping_{make_mesh({{"X", 4}, {"Y", 4}, {"Z", 4}}), slice_};
};

// (a) AllGather_X([B_X, D_Y]): each X group gathers [B, D/|Y|]: V = 2 * 1024 * 4096 / 4 = 2,097,152 B;
// V / W_bidi = 2,097,152 / 9e10 = 23.30168889 us; latency 2 hops = 2 us; bandwidth-bound.
TEST_F(Question2, AllGatherX) {
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_gather, collective_axes(slice_, mapping_, {"X"}),
                                                  2097152, kWUni, kAlpha);
  test::expect_close(cost.time_s, 23.30168889e-6);
  EXPECT_EQ(cost.hops, 2);
  EXPECT_EQ(cost.bound, Bound::bandwidth);
}

// (b) AllGather_XY([B_X, D_Y]) -> [B, D]: V = 2 * 1024 * 4096 = 8,388,608 B over two axes:
// V / (W_bidi * 2) = 8,388,608 / 1.8e11 = 46.60337778 us; latency (4/2 + 4/2) hops = 4 us.
TEST_F(Question2, AllGatherXY) {
  const std::vector<CollectiveAxis> axes = collective_axes(slice_, mapping_, {"X", "Y"});
  ASSERT_EQ(axes.size(), 2u);
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_gather, axes, 8388608, kWUni, kAlpha);
  test::expect_close(cost.bandwidth_s, 46.60337778e-6);
  test::expect_close(cost.latency_s, 4e-6);
  test::expect_close(cost.time_s, 46.60337778e-6);
  EXPECT_EQ(cost.hops, 4);
}

// (c) AllReduce_Z([B_X, D_Y]{U_Z}): V is the per-device shard 2BD / (|X||Y|) = 8,388,608 / 16 = 524,288 B.
// AllGather would take 524,288 / 9e10 = 5.825422222 us; AllReduce is twice: 11.65084444 us. Latency
// 2 x 2 hops = 4 us.
TEST_F(Question2, AllReduceZ) {
  const CostBreakdown cost =
      book_collective_cost(CollectiveKind::all_reduce, collective_axes(slice_, mapping_, {"Z"}), 524288, kWUni, kAlpha);
  test::expect_close(cost.bandwidth_s, 11.65084444e-6);
  test::expect_close(cost.latency_s, 4e-6);
  test::expect_close(cost.time_s, 11.65084444e-6);
  EXPECT_EQ(cost.hops, 4);
  EXPECT_EQ(cost.bound, Bound::bandwidth);
}

TEST(BookCollective, ReduceScatterCostsTheSameAsAllGather) {
  for (const std::vector<CollectiveAxis>& axes :
       {std::vector<CollectiveAxis>{{4, true}}, {{8, false}}, {{4, true}, {4, true}}, {{4, true}, {8, false}}}) {
    const CostBreakdown ag = book_collective_cost(CollectiveKind::all_gather, axes, 1 << 20, kWUni, kAlpha);
    const CostBreakdown rs = book_collective_cost(CollectiveKind::reduce_scatter, axes, 1 << 20, kWUni, kAlpha);
    EXPECT_EQ(ag.time_s, rs.time_s);
    EXPECT_EQ(ag.hops, rs.hops);
  }
}

// Three wrapped axes (4x4x4): 8,388,608 / (9e10 * 3) = 31.06891852 us, hops 2 + 2 + 2 = 6.
TEST(BookCollective, AllGatherOverThreeWrappedAxes) {
  const CostBreakdown cost =
      book_collective_cost(CollectiveKind::all_gather, {{4, true}, {4, true}, {4, true}}, 8388608, kWUni, kAlpha);
  test::expect_close(cost.time_s, 31.06891852e-6);
  EXPECT_EQ(cost.hops, 6);
}

// podsim's rule for a mixed group: each axis adds its own bandwidth, W_bidi = 9e10 for the ring of 4 and
// W_uni * 4/3 = 6e10 for the line of 4; V = 8,388,608 over 1.5e11 = 55.92405333 us; hops 2 + 3 = 5.
TEST(BookCollective, AllGatherOverAWrappedAndAnUnwrappedAxis) {
  const CostBreakdown cost =
      book_collective_cost(CollectiveKind::all_gather, {{4, true}, {4, false}}, 8388608, kWUni, kAlpha);
  test::expect_close(cost.bandwidth_s, 55.92405333e-6);
  EXPECT_EQ(cost.hops, 5);
  test::expect_close(cost.latency_s, 5e-6);
}

// A size-2 axis: one link per direction, so with or without a wrap flag the cost is the same:
// wrap V / W_bidi; line (2-1) * (V/2) / W_uni = V / (2 W_uni). Both 1 hop.
TEST(BookCollective, SizeTwoAxisIsTheSameWithOrWithoutWrap) {
  const CostBreakdown ring = book_collective_cost(CollectiveKind::all_gather, {{2, true}}, 9000000, kWUni, 0);
  const CostBreakdown line = book_collective_cost(CollectiveKind::all_gather, {{2, false}}, 9000000, kWUni, 0);
  test::expect_close(ring.time_s, 100e-6);  // 9e6 / 9e10
  test::expect_close(line.time_s, 100e-6);
  EXPECT_EQ(ring.hops, 1);
  EXPECT_EQ(line.hops, 1);
}

TEST(BookCollective, SizeOneAxesAreIgnored) {
  const CostBreakdown with_one =
      book_collective_cost(CollectiveKind::all_gather, {{1, false}, {4, true}}, 2097152, kWUni, kAlpha);
  test::expect_close(with_one.time_s, 23.30168889e-6);
  EXPECT_EQ(with_one.hops, 2);
  const CostBreakdown none = book_collective_cost(CollectiveKind::all_reduce, {{1, true}}, 2097152, kWUni, kAlpha);
  EXPECT_EQ(none.time_s, 0);
  EXPECT_EQ(none.hops, 0);
}

// AllToAll on a ring of 8, V = 64 MiB = 67,108,864 B: V / (4 W_bidi) = 67,108,864 / 3.6e11
// = 186.4135111 us; latency floor(8/2) = 4 hops.
TEST(BookCollective, AllToAllOnOneRing) {
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_to_all, {{8, true}}, 67108864, kWUni, kAlpha);
  test::expect_close(cost.time_s, 186.4135111e-6);
  EXPECT_EQ(cost.hops, 4);
  EXPECT_EQ(cost.formula, "max(V / (4 * W_bidi), floor(N/2) * alpha)");
}

// ND AllToAll, V the total over all devices: 4x4x4 torus, V * 4 / (4 * 64 * 9e10) = 67,108,864 / 5.76e12
// = 11.65084444 us; 4x8 torus: V * 8 / (4 * 32 * 9e10) = 67,108,864 / 1.44e12 = 46.60337778 us.
TEST(BookCollective, AllToAllNd) {
  test::expect_close(
      book_collective_cost(CollectiveKind::all_to_all, {{4, true}, {4, true}, {4, true}}, 67108864, kWUni, kAlpha)
          .time_s,
      11.65084444e-6);
  test::expect_close(
      book_collective_cost(CollectiveKind::all_to_all, {{4, true}, {8, true}}, 67108864, kWUni, kAlpha).time_s,
      46.60337778e-6);
}

// AllToAll on a line of 4 (podsim's extension from the bisection): the middle cut has 2 x 2 chip pairs
// each sending V/16 one way, V/4 over one link at W_uni: 67,108,864 / (4 * 4.5e10) = 372.8270222 us.
TEST(BookCollective, AllToAllWithoutWraparoundHalvesTheBisection) {
  const CostBreakdown cost = book_collective_cost(CollectiveKind::all_to_all, {{4, false}}, 67108864, kWUni, kAlpha);
  test::expect_close(cost.time_s, 372.8270222e-6);
  EXPECT_EQ(cost.hops, 3);
}

TEST(BookCollective, KindNamesRoundTrip) {
  for (CollectiveKind kind : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce,
                              CollectiveKind::all_to_all})
    EXPECT_EQ(parse_collective_kind(collective_kind_name(kind)), kind);
  EXPECT_EQ(test::verify_error([] { parse_collective_kind("broadcast"); }),
            "unknown collective, got: broadcast (expected one of all-gather, reduce-scatter, all-reduce, all-to-all)");
}

TEST(BookCollective, RejectsBadInputs) {
  EXPECT_EQ(test::verify_error([] {
              book_collective_cost(CollectiveKind::all_gather, {{0, true}}, 1, kWUni, kAlpha);
            }),
            "book all-gather cost: axis 0 size must be >= 1, got: 0");
  EXPECT_EQ(test::verify_error([] {
              book_collective_cost(CollectiveKind::all_reduce, {{4, true}}, 1, 0, kAlpha);
            }),
            "book all-reduce cost: link bandwidth must be > 0 B/s, got: 0");
  EXPECT_EQ(test::verify_error([] {
              book_collective_cost(CollectiveKind::all_to_all, {{4, true}}, 1, kWUni, -1);
            }),
            "book all-to-all cost: per-hop latency must be >= 0 s, got: -1");
}

}  // namespace
}  // namespace podsim
