// Collectives across slices over the DCN (docs/overlap-pipeline-dcn.md), simulated hop by hop: the hierarchical
// all-reduce (reduce-scatter in the slice over ICI, all-reduce across slices over DCN, all-gather in the slice) takes
// the time worked here by hand phase by phase, and every host NIC carries the bytes counted by hand, axis after axis
// and with the in-slice axes at once (the default). Also the axis order the builder takes and its refusals.
#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;
constexpr double kDcn = 6.25e9;                       // DCN egress per chip
constexpr double kDcnLat = 1e-5;                      // DCN per transfer
constexpr std::uint64_t kV = std::uint64_t{1} << 24;  // 16 MiB: every shard below divides exactly

struct DcnRun {
  NetworkSpec network;
  EventGraph graph;
  SimulationResult result;
};

// `op` over the in-slice `axes` (default mesh of `slice`, X, Y, Z) then the slice axis, on `slices` slices.
DcnRun simulate_across(const Slice& slice, std::int32_t slices, std::int64_t chips_per_host, CollectiveKind op,
                       const std::vector<std::string>& axes, MultiAxis multi = MultiAxis::sequential) {
  const MeshMapping mapping(default_mesh(slice), slice);
  const std::int64_t per_slice = slice.num_chips();
  CollectiveRequest request;
  request.op = op;
  request.array_bytes = kV;
  request.multi_axis = multi;
  for (const auto& axis : axes)
    request.axes.push_back(repeat_over_slices(axis_groups(mapping, slice, axis), per_slice, slices));
  request.axes.push_back(slice_axis_groups(per_slice, slices));
  DcnRun run;
  run.network =
      multi_slice_network(slice, slices, IciModel{4, kW, kW, kW, kAlpha}, {kDcn, kDcnLat, chips_per_host}, 1e12);
  run.graph = build_collective(static_cast<std::int32_t>(per_slice * slices), request);
  run.result = simulate(run.network, run.graph);
  return run;
}

void expect_time(double simulated, double expected) {
  EXPECT_NEAR(simulated, expected, 1e-9 * expected);
}

// Every DCN link (NIC up and down) carried `bytes` in `messages` transfers; the ICI links none of them.
void expect_nics(const DcnRun& run, std::uint64_t bytes, std::uint32_t messages, std::size_t expected_links) {
  std::size_t nics = 0;
  for (std::size_t id = 0; id < run.network.links.size(); ++id) {
    if (!run.network.is_dcn(static_cast<std::int32_t>(id))) continue;
    ++nics;
    EXPECT_EQ(run.result.links[id].bytes, bytes) << run.network.links[id].name;
    EXPECT_EQ(run.result.links[id].messages, messages) << run.network.links[id].name;
  }
  EXPECT_EQ(nics, expected_links);
}

// 2 slices of 2x2 (no wraparound: lines of 2), 2 chips per host. All-reduce of V over X, Y and the slices:
//   reduce-scatter X: V/2 each way over one link         alpha + V/(2W)
//   reduce-scatter Y: V/4                                alpha + V/(4W)
//   reduce-scatter slices (ring of 2, halves of V/8): each chip sends 2 x V/16; a host's NIC (2 x W_dcn) carries
//     4 x V/16 = V/4 for its 2 chips                       L + V/(8 W_dcn)
//   all-gather slices, Y, X: the same three in reverse.
TEST(HierarchicalDes, AllReduceTwoSlicesOf2x2MatchesTheHandSchedule) {
  const Slice slice({2, 2}, std::vector<bool>{false, false});
  const DcnRun run = simulate_across(slice, 2, 2, CollectiveKind::all_reduce, {"X", "Y"});
  const double v = static_cast<double>(kV);
  const double expected = 2 * (kAlpha + v / (2 * kW)) + 2 * (kAlpha + v / (4 * kW)) + 2 * (kDcnLat + v / (8 * kDcn));
  expect_time(run.result.makespan_s, expected);
  // Each up link: 4 transfers of V/16 per phase, two phases; each down link the same from the peer host.
  expect_nics(run, kV / 2, 8, 2 * 2 * 2);
}

// 4 slices of 4x4 with wraparound (rings of 4), 4 chips per host. All-reduce of V over X, Y and the slices:
//   reduce-scatter X (ring of 4, split halves): 3 steps of V/8 per direction    3 (alpha + V/(8W))
//   reduce-scatter Y: data V/4, shard V/16: 3 steps of V/32                      3 (alpha + V/(32W))
//   reduce-scatter slices: shard V/64, halves V/128 each way, 3 steps; a host's up link (4 x W_dcn) carries
//     4 chips x 2 halves x V/128 = V/16 per step                                  3 (L + V/(64 W_dcn))
//   then the all-gathers in reverse, the same times.
TEST(HierarchicalDes, AllReduceFourSlicesOf4x4MatchesTheHandSchedule) {
  const Slice slice({4, 4}, std::vector<bool>{true, true});
  const DcnRun run = simulate_across(slice, 4, 4, CollectiveKind::all_reduce, {"X", "Y"});
  const double v = static_cast<double>(kV);
  const double expected =
      2 * (3 * (kAlpha + v / (8 * kW)) + 3 * (kAlpha + v / (32 * kW)) + 3 * (kDcnLat + v / (64 * kDcn)));
  expect_time(run.result.makespan_s, expected);
  // Per up (and down) link: 8 transfers of V/128 per step, 3 steps, 2 phases = 3V/8 in 48 transfers.
  expect_nics(run, 3 * kV / 8, 48, 4 * 4 * 2);
}

// An all-gather over X (a ring of 4) and 2 slices gathers across the slices first, where the shard is smallest:
// each chip sends its shard V/8 over the DCN (halves of V/16 each way), then the slice gathers V over ICI.
TEST(HierarchicalDes, AllGatherCrossesTheDcnFirst) {
  const Slice slice({4}, std::vector<bool>{true});
  const DcnRun run = simulate_across(slice, 2, 4, CollectiveKind::all_gather, {"X"});
  const double v = static_cast<double>(kV);
  // DCN: shard V/8, halves V/16 each way, 1 step; a host of 4 chips sends 8 x V/16 = V/2 at 4 W_dcn.
  // ICI: ring of 4, shard V/4 (gathered over the slices), 3 steps of V/8 per direction.
  const double expected = (kDcnLat + v / (8 * kDcn)) + 3 * (kAlpha + v / (8 * kW));
  expect_time(run.result.makespan_s, expected);
  expect_nics(run, kV / 2, 8, 2 * 1 * 2);
}

TEST(HierarchicalDes, AxisOrderPutsTheDcnWhereTheDataIsSmallest) {
  CollectiveRequest request;
  request.axes = {slice_axis_groups(2, 2), AxisGroups{{{0, 1}, {2, 3}}, false}};
  request.op = CollectiveKind::all_gather;
  EXPECT_EQ(hierarchical_axis_order(request), (std::vector<std::size_t>{0, 1}));
  request.op = CollectiveKind::all_reduce;
  EXPECT_EQ(hierarchical_axis_order(request), (std::vector<std::size_t>{1, 0}));
  request.op = CollectiveKind::reduce_scatter;
  EXPECT_EQ(hierarchical_axis_order(request), (std::vector<std::size_t>{1, 0}));
}

TEST(HierarchicalDes, SliceGroupsHoldOneChipPerSlice) {
  const AxisGroups axis = slice_axis_groups(3, 2);
  EXPECT_TRUE(axis.dcn);
  EXPECT_EQ(axis.groups, (std::vector<std::vector<ChipId>>{{0, 3}, {1, 4}, {2, 5}}));
  const AxisGroups repeated = repeat_over_slices(AxisGroups{{{0, 1}, {2}}, true}, 3, 2);
  EXPECT_FALSE(repeated.dcn);
  EXPECT_EQ(repeated.groups, (std::vector<std::vector<ChipId>>{{0, 1}, {2}, {3, 4}, {5}}));
  EXPECT_THROW(slice_axis_groups(0, 2), VerifyError);
}

// The same 4 slices of 4x4, the in-slice axes at once (the default): V in 2 parts, part 0 visiting X then Y, part 1
// Y then X, both crossing the DCN between the reduce-scatters and the all-gathers:
//   reduce-scatter on the first axis (data V/2, one part per axis): 3 steps of V/16 per direction  3 (alpha + V/(16W))
//   reduce-scatter on the second axis: data V/8, halves V/64                                     3 (alpha + V/(64W))
//   reduce-scatter slices: each part's shard V/128, halves V/256 each way; a host's up link carries 4 chips x 2 parts
//     x 2 halves x V/256 = V/16 per step, as axis after axis                                    3 (L + V/(64 W_dcn))
//   then the all-gathers in reverse, the same times. Only V / 16 per chip crosses the DCN either way.
TEST(HierarchicalDes, ConcurrentAllReduceFourSlicesOf4x4MatchesTheHandSchedule) {
  const Slice slice({4, 4}, std::vector<bool>{true, true});
  const DcnRun run = simulate_across(slice, 4, 4, CollectiveKind::all_reduce, {"X", "Y"}, MultiAxis::concurrent);
  const double v = static_cast<double>(kV);
  const double expected =
      2 * (3 * (kAlpha + v / (16 * kW)) + 3 * (kAlpha + v / (64 * kW)) + 3 * (kDcnLat + v / (64 * kDcn)));
  expect_time(run.result.makespan_s, expected);
  // Per up (and down) link: 16 transfers of V/256 per step, 3 steps, 2 phases = 3V/8 (as axis after axis) in 96.
  expect_nics(run, 3 * kV / 8, 96, 4 * 4 * 2);
  // The default is concurrent.
  EXPECT_EQ(CollectiveRequest{}.multi_axis, MultiAxis::concurrent);
}

// An all-gather over X, Y (rings of 4) and 2 slices, the in-slice axes at once: each part (V/2) crosses the DCN first
// with its shard V/64 (halves of V/128 each way; a host sends 4 chips x 2 parts x 2 halves x V/128 = V/8 at 4 W_dcn),
// then gathers over its first axis (shard V/32: 3 steps of V/64) and its second (shard V/8: 3 steps of V/16).
TEST(HierarchicalDes, ConcurrentAllGatherCrossesTheDcnFirst) {
  const Slice slice({4, 4}, std::vector<bool>{true, true});
  const DcnRun run = simulate_across(slice, 2, 4, CollectiveKind::all_gather, {"X", "Y"}, MultiAxis::concurrent);
  const double v = static_cast<double>(kV);
  const double expected = (kDcnLat + v / (32 * kDcn)) + 3 * (kAlpha + v / (64 * kW)) + 3 * (kAlpha + v / (16 * kW));
  expect_time(run.result.makespan_s, expected);
  expect_nics(run, kV / 8, 16, 2 * 4 * 2);
}

TEST(HierarchicalDes, RefusesAllToAllAcrossSlices) {
  CollectiveRequest request;
  request.axes = {slice_axis_groups(2, 2), AxisGroups{{{0, 1}, {2, 3}}, false}};
  request.array_bytes = 64;
  request.op = CollectiveKind::all_to_all;
  try {
    verify_collective(request, 4);
    ADD_FAILURE() << "an all-to-all across slices was accepted";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(),
                 "an all-to-all across slices (over the DCN) is not supported, got: an all-to-all over a slice axis");
  }
  request.op = CollectiveKind::all_reduce;
  for (const auto multi : {MultiAxis::concurrent, MultiAxis::sequential}) {
    request.multi_axis = multi;
    EXPECT_NO_THROW(verify_collective(request, 4));
  }
}

// The symmetry path is never taken across slices: simulate_collective runs the whole graph.
TEST(HierarchicalDes, CollectiveSimulationSkipsTheSymmetryPath) {
  const Slice slice({4}, std::vector<bool>{true});
  CollectiveRequest request;
  request.op = CollectiveKind::all_reduce;
  request.array_bytes = kV;
  request.axes = {slice_axis_groups(4, 2)};
  const NetworkSpec network = multi_slice_network(slice, 2, IciModel{4, kW, kW, kW, kAlpha}, {kDcn, kDcnLat, 4}, 1e12);
  const SimulatedCollective run = simulate_collective(network, 8, request);
  EXPECT_FALSE(run.symmetric);
  // Ring of 2 slices, shard V/2, halves V/4 each way, twice (reduce-scatter, all-gather): a host of 4 chips sends
  // 4 x 2 x V/4 = 2V at 4 W_dcn per phase.
  const double v = static_cast<double>(kV);
  expect_time(run.result.makespan_s, 2 * (kDcnLat + v / (2 * kDcn)));
}

}  // namespace
}  // namespace podsim
