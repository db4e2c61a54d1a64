// The symmetry path of simulate_collective: on shapes small enough to simulate fully it gives the same task
// times, makespan and per-link ledger as the full simulation, the same doubles bit for bit, it is taken where groups
// are alike, and it falls back to the full simulation where groups share links or phases overlap on a link. The
// phase-by-phase cases run the axes one after another (multi_axis sequential); concurrent multi-axis collectives,
// whose parts overlap in time, take the translation quotient on tori, also bit for bit.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "sim/engine/translation_quotient.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;

CollectiveRequest request_on(const Slice& slice, CollectiveKind op, const std::vector<std::string>& axes,
                             std::uint64_t bytes, Algorithm algorithm, double flops_per_byte = 0,
                             MultiAxis multi = MultiAxis::sequential) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.multi_axis = multi;
  request.op = op;
  request.axes = axes_groups(mapping, slice, axes);
  request.array_bytes = bytes;
  request.algorithm = algorithm;
  request.reduce_flops_per_byte = flops_per_byte;
  return request;
}

// Every figure of `fast` equals that of `full`, exactly: the symmetry path computes the same doubles.
void expect_same(const SimulatedCollective& fast, const SimulatedCollective& full, const std::string& what) {
  EXPECT_EQ(fast.result.makespan_s, full.result.makespan_s) << what;
  ASSERT_EQ(fast.result.tasks.size(), full.result.tasks.size()) << what;
  for (std::size_t i = 0; i < full.result.tasks.size(); ++i) {
    ASSERT_EQ(fast.result.tasks[i].start_s, full.result.tasks[i].start_s) << what << " task " << i;
    ASSERT_EQ(fast.result.tasks[i].end_s, full.result.tasks[i].end_s) << what << " task " << i;
  }
  ASSERT_EQ(fast.result.links.size(), full.result.links.size()) << what;
  for (std::size_t l = 0; l < full.result.links.size(); ++l) {
    EXPECT_EQ(fast.result.links[l].bytes, full.result.links[l].bytes) << what << " link " << l;
    EXPECT_EQ(fast.result.links[l].messages, full.result.links[l].messages) << what << " link " << l;
    EXPECT_EQ(fast.result.links[l].busy_s, full.result.links[l].busy_s) << what << " link " << l;
  }
  EXPECT_EQ(fast.result.chip_bytes_sent, full.result.chip_bytes_sent) << what;
  EXPECT_EQ(fast.result.chip_bytes_received, full.result.chip_bytes_received) << what;
  EXPECT_EQ(fast.result.messages, full.result.messages) << what;
}

struct Pair {
  SimulatedCollective fast, full;
};

Pair both(const Slice& slice, const std::vector<CollectiveRequest>& requests,
          const std::optional<TransferCalibration>& calibration = std::nullopt) {
  NetworkSpec network = slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  if (calibration) network.transfer = *calibration;
  const auto chips = static_cast<std::int32_t>(slice.num_chips());
  return {simulate_collectives(network, chips, requests, SymmetryUse::automatic),
          simulate_collectives(network, chips, requests, SymmetryUse::never)};
}

TEST(CollectiveSymmetry, TorusAllReduceMatchesTheFullSimulation) {
  // 4x4x4, 64 MiB: the worked 3D formula gives 1486.006 us (collective_des_test); 6 phases of 16 rings each.
  const Slice slice({4, 4, 4}, {true, true, true});
  Pair run =
      both(slice, {request_on(slice, CollectiveKind::all_reduce, {"X", "Y", "Z"}, 64ull << 20, Algorithm::automatic)});
  EXPECT_TRUE(run.fast.symmetric);
  EXPECT_FALSE(run.full.symmetric);
  EXPECT_NEAR(run.fast.result.makespan_s, 1486.006e-6, 1e-9);
  expect_same(run.fast, run.full, "4x4x4 all-reduce");
  // One representative ring of 4 per phase: 2 directions x 3 steps x 4 chips = 24 transfers, 6 phases, and in
  // the 5 later phases a release timer for each chip's first transfer in each direction (8).
  EXPECT_EQ(run.fast.result.simulated_tasks, 6u * 24u + 5u * 8u);
  EXPECT_EQ(run.full.result.simulated_tasks, 2304u);
}

TEST(CollectiveSymmetry, OtherAlgorithmsAndShapesMatch) {
  const Slice torus({4, 6}, {true, true});
  for (const Algorithm algorithm :
       {Algorithm::unidirectional, Algorithm::bidirectional, Algorithm::bidirectional_split}) {
    for (const CollectiveKind op :
         {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce}) {
      const std::string what = std::string(algorithm_name(algorithm)) + " " + std::string(collective_kind_name(op));
      Pair run = both(torus, {request_on(torus, op, {"X", "Y"}, 3 << 20, algorithm, 0.5)});
      EXPECT_TRUE(run.fast.symmetric) << what;
      expect_same(run.fast, run.full, what);
    }
  }
  // Lines (no wraparound): chips leave a phase at different times, so groups of the next phase start unevenly
  // and releases are simulated. Pop quiz 2 of the book: 3 (alpha + 8388608 / W) for the Y lines of 8x4.
  const Slice mesh({8, 4}, {false, false});
  Pair quiz = both(mesh, {request_on(mesh, CollectiveKind::all_gather, {"Y"}, 33554432, Algorithm::automatic)});
  EXPECT_TRUE(quiz.fast.symmetric);
  EXPECT_NEAR(quiz.fast.result.makespan_s, 3 * (kAlpha + 8388608 / kW), 1e-9 * quiz.fast.result.makespan_s);
  expect_same(quiz.fast, quiz.full, "8x4 line all-gather");
  const Slice box({4, 4, 2}, {false, false, false});
  Pair lines = both(
      box, {request_on(box, CollectiveKind::all_reduce, {"X", "Y", "Z"}, 64ull << 20, Algorithm::automatic, 0.25)});
  EXPECT_TRUE(lines.fast.symmetric);
  expect_same(lines.fast, lines.full, "4x4x2 mesh all-reduce");
  Pair a2a = both(torus, {request_on(torus, CollectiveKind::all_to_all, {"X", "Y"}, 6 << 20, Algorithm::automatic)});
  EXPECT_TRUE(a2a.fast.symmetric);
  expect_same(a2a.fast, a2a.full, "4x6 all-to-all");
}

TEST(CollectiveSymmetry, FallsBackWhenTwoCollectivesShareLinks) {
  // Two unidirectional all-gathers at once on one 4-ring: each phase alone is symmetric, but both use every +
  // link at the same time, so representatives simulated alone would miss the sharing: each step takes
  // alpha + 2 S / W with both (collective_des_test), not alpha + S / W.
  const Slice ring({4}, {true});
  const std::uint64_t shard = 1 << 20;
  CollectiveRequest first = request_on(ring, CollectiveKind::all_gather, {"X"}, 4 * shard, Algorithm::unidirectional);
  CollectiveRequest second = first;
  second.op_id = 1;
  Pair run = both(ring, {first, second});
  EXPECT_FALSE(run.fast.symmetric);
  EXPECT_NEAR(run.fast.result.makespan_s, 3 * (kAlpha + 2.0 * shard / kW), 1e-9 * run.fast.result.makespan_s);
  expect_same(run.fast, run.full, "shared ring");
}

TEST(CollectiveSymmetry, FallsBackWhenGroupsOfAPhaseShareLinks) {
  // A line of 4 without wraparound and rings over the chips {0, 2} and {1, 3}: the route 0 -> 2 crosses the
  // link 1 -> 2, and so does 1 -> 3, so the two groups are not independent.
  const Slice line({4}, {false});
  CollectiveRequest request;
  request.op = CollectiveKind::all_gather;
  request.axes = {AxisGroups{{{0, 2}, {1, 3}}, false}};
  request.array_bytes = 2 << 20;
  request.algorithm = Algorithm::unidirectional;
  Pair run = both(line, {request});
  EXPECT_FALSE(run.fast.symmetric);
  expect_same(run.fast, run.full, "overlapping groups");
  // The link 1 -> 2 carries both 0 -> 2 and 1 -> 3, 1 MiB each, at once: both end at 2 alpha + 2 MiB / W.
  EXPECT_NEAR(run.fast.result.makespan_s, 2 * kAlpha + 2.0 * (1 << 20) / kW, 1e-9 * run.fast.result.makespan_s);
}

// Concurrent multi-axis collectives (the default) on wrapped tori: the group path holds where the parts keep to
// their own axes in lockstep and declines where they meet (on a chip's processor, with reductions), the same doubles
// either way; the whole-graph translation quotient gives the full simulation's doubles for every task, link and
// chip, its ledger merging links whose spans come out of id order (each axis is crossed by the parts at different
// times).
TEST(CollectiveSymmetry, ConcurrentCollectivesOnToriTakeTheTranslationQuotientBitForBit) {
  struct Case {
    Slice slice;
    CollectiveKind op;
    std::vector<std::string> axes;
    std::uint64_t bytes;
    double flops_per_byte;
  };
  const std::vector<Case> cases = {
      {Slice({4, 4, 4}, {true, true, true}), CollectiveKind::all_gather, {"X", "Y", "Z"}, 201326592, 0},
      {Slice({4, 4, 4}, {true, true, true}), CollectiveKind::reduce_scatter, {"X", "Y", "Z"}, 67108864, 0.5},
      {Slice({3, 5, 4}, {true, true, true}), CollectiveKind::all_reduce, {"Z", "X", "Y"}, 9999991, 1},
      {Slice({4, 6}, {true, true}), CollectiveKind::all_reduce, {"X", "Y"}, 3 << 20, 0.25},
  };
  for (const Case& c : cases) {
    const std::string what = std::string(collective_kind_name(c.op)) + " on " + std::to_string(c.slice.num_chips());
    const CollectiveRequest request =
        request_on(c.slice, c.op, c.axes, c.bytes, Algorithm::automatic, c.flops_per_byte, MultiAxis::concurrent);
    Pair run = both(c.slice, {request});
    expect_same(run.fast, run.full, what);
    const NetworkSpec network = slice_network(c.slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
    const EventGraph graph = build_collective(static_cast<std::int32_t>(c.slice.num_chips()), request);
    QuotientDecline why = QuotientDecline::task_not_translated;
    const auto quotient = simulate_translation_quotient(c.slice, network, graph, &why);
    ASSERT_TRUE(quotient.has_value()) << what << ": " << quotient_decline_name(why);
    EXPECT_LT(quotient->simulated_tasks, run.full.result.simulated_tasks) << what;
    expect_same(SimulatedCollective{graph, *quotient, true}, run.full, what + " (translation quotient)");
  }
}

TEST(CollectiveSymmetry, SequentialCollectivesOnMeshesAreBitForBitTheFullSimulation) {
  // Lines without wraparound: groups of a later phase start when their chips left the earlier one, which differs
  // along a line, so classes are many but each group's timings are the full simulation's doubles.
  struct Case {
    Slice slice;
    CollectiveKind op;
    std::vector<std::string> axes;
    std::uint64_t bytes;
    Algorithm algorithm;
    double flops_per_byte;
  };
  const auto mesh = [](std::vector<std::int64_t> dims) { return Slice(dims, std::vector<bool>(dims.size(), false)); };
  const std::vector<Case> cases = {
      {mesh({4, 6}), CollectiveKind::reduce_scatter, {"X", "Y"}, 33554432, Algorithm::automatic, 0.5},
      {mesh({3, 5, 7}), CollectiveKind::all_reduce, {"X", "Y", "Z"}, 67108864, Algorithm::automatic, 1},
      {mesh({2, 4, 3}), CollectiveKind::all_reduce, {"Z", "X"}, 1000003, Algorithm::automatic, 0},
      {mesh({6, 5}), CollectiveKind::all_reduce, {"Y", "X"}, 12345678, Algorithm::line, 0.25},
      {mesh({4, 4, 4}), CollectiveKind::all_to_all, {"X", "Y", "Z"}, 16777216, Algorithm::automatic, 0},
      {mesh({8, 8}), CollectiveKind::all_reduce, {"X", "Y"}, 777777, Algorithm::automatic, 2},
  };
  for (const Case& c : cases) {
    const std::string what = std::string(collective_kind_name(c.op)) + " on " + std::to_string(c.slice.num_chips());
    Pair run = both(c.slice, {request_on(c.slice, c.op, c.axes, c.bytes, c.algorithm, c.flops_per_byte)});
    EXPECT_TRUE(run.fast.symmetric) << what;
    EXPECT_LT(run.fast.result.simulated_tasks, run.full.result.simulated_tasks) << what;
    expect_same(run.fast, run.full, what);
  }
  // Under a calibration: a fixed cost per transfer and an efficiency curve over message size.
  const TransferCalibration calibration{7.88e-7, {{1e4, 0.5}, {8388608, 0.829}}};
  for (const Case& c : {Case{mesh({4, 6}), CollectiveKind::all_gather, {"X", "Y"}, 3145728, Algorithm::automatic, 0},
                        Case{mesh({5, 3}), CollectiveKind::all_reduce, {"Y", "X"}, 9999999, Algorithm::automatic, 1}}) {
    Pair run = both(c.slice, {request_on(c.slice, c.op, c.axes, c.bytes, c.algorithm, c.flops_per_byte)}, calibration);
    EXPECT_TRUE(run.fast.symmetric);
    expect_same(run.fast, run.full, "calibrated " + std::string(collective_kind_name(c.op)));
  }
}

}  // namespace
}  // namespace podsim
