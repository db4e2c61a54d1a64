// simulate_symmetric with hand-made hints on a line of 4 chips (link i: chip i -> chip i+1): the representative
// path where groups are alike and independent, the full simulation whenever the hint or the network breaks one
// of its rules, and in every case the times worked by hand (alpha + S/W alone on a link).
#include "sim/engine/symmetric_simulation.hpp"

#include <gtest/gtest.h>

#include "engine_test_networks.hpp"
#include "models/common/error.hpp"

namespace podsim::engine::testing {
namespace {

constexpr double kW = 1e9;
constexpr double kAlpha = 1e-6;
constexpr std::uint64_t kS = 1000000;  // 1 ms at kW

// Two groups {0, 1} and {2, 3} of one phase, one transfer each: 0 -> 1 (link 0) and 2 -> 3 (link 2).
EventGraph two_pairs() {
  EventGraph graph;
  graph.num_chips = 4;
  graph.add(transfer(0, 1, kS));
  graph.add(transfer(2, 3, kS));
  return graph;
}

GraphSymmetry one_phase(std::vector<std::vector<ChipId>> groups, std::vector<TaskId> begin) {
  return GraphSymmetry{{PhaseGroups{std::move(groups), std::move(begin)}}};
}

TEST(SymmetricSimulation, AlikeGroupsRunOneRepresentative) {
  const NetworkSpec network = line_network(4, kW, kAlpha);
  bool symmetric = false;
  const SimulationResult result =
      simulate_symmetric(network, two_pairs(), one_phase({{0, 1}, {2, 3}}, {0, 1, 2}), &symmetric);
  EXPECT_TRUE(symmetric);
  EXPECT_EQ(result.simulated_tasks, 1u);
  for (const TaskTiming& timing : result.tasks) {
    EXPECT_DOUBLE_EQ(timing.start_s, 0);
    EXPECT_NEAR(timing.end_s, kAlpha + 1e-3, 1e-15);
  }
  EXPECT_EQ(result.links[0].bytes, kS);
  EXPECT_EQ(result.links[1].bytes, 0u);
  EXPECT_EQ(result.links[2].bytes, kS);
  EXPECT_NEAR(result.links[2].busy_s, 1e-3, 1e-15);
}

TEST(SymmetricSimulation, LaterPhaseStartsEachGroupAtItsRelease) {
  // Phase 0: 0 -> 1 of S and 2 -> 3 of S. Phase 1: groups {1} and {3}, each a compute of 1e6 flops (1 us at
  // 1e12 flop/s) after its chip's receive: they start at alpha + 1 ms.
  EventGraph graph = two_pairs();
  graph.add(compute(1, 1e6, {0}));
  graph.add(compute(3, 1e6, {1}));
  GraphSymmetry hint = one_phase({{0, 1}, {2, 3}}, {0, 1, 2});
  hint.phases.push_back(PhaseGroups{{{1}, {3}}, {2, 3, 4}});
  bool symmetric = false;
  const SimulationResult result = simulate_symmetric(line_network(4, kW, kAlpha), graph, hint, &symmetric);
  EXPECT_TRUE(symmetric);
  EXPECT_NEAR(result.tasks[3].start_s, kAlpha + 1e-3, 1e-15);
  EXPECT_NEAR(result.tasks[3].end_s, kAlpha + 1e-3 + 1e-6, 1e-15);
  EXPECT_NEAR(result.makespan_s, kAlpha + 1e-3 + 1e-6, 1e-15);
}

TEST(SymmetricSimulation, FallsBackWhenAHintRuleBreaks) {
  const NetworkSpec network = line_network(4, kW, kAlpha);
  bool symmetric = true;
  // The phases leave task 1 out.
  simulate_symmetric(network, two_pairs(), one_phase({{0, 1}}, {0, 1}), &symmetric);
  EXPECT_FALSE(symmetric);
  // Groups of unequal task counts.
  symmetric = true;
  simulate_symmetric(network, two_pairs(), one_phase({{0, 1}, {2, 3}}, {0, 0, 2}), &symmetric);
  EXPECT_FALSE(symmetric);
  // A chip outside its group.
  symmetric = true;
  simulate_symmetric(network, two_pairs(), one_phase({{0, 2}, {1, 3}}, {0, 1, 2}), &symmetric);
  EXPECT_FALSE(symmetric);
  // A dependency on another group of the same phase.
  EventGraph crossed = two_pairs();
  crossed.tasks[1].src_chip = 1;
  crossed.tasks[1].dst_chip = 2;  // 1 -> 2 after receiving 0 -> 1
  crossed.tasks[1].deps = {0};
  symmetric = true;
  const SimulationResult chained =
      simulate_symmetric(network, crossed, one_phase({{0, 1}, {2, 3}}, {0, 1, 2}), &symmetric);
  EXPECT_FALSE(symmetric);
  EXPECT_NEAR(chained.makespan_s, 2 * (kAlpha + 1e-3), 1e-15);
}

TEST(SymmetricSimulation, FallsBackWhenTwinLinksDiffer) {
  // Link 2 at half the bandwidth: the groups are not alike, 2 -> 3 takes alpha + 2 ms.
  NetworkSpec network = line_network(4, kW, kAlpha);
  network.links[2].bandwidth_Bps = kW / 2;
  bool symmetric = true;
  const SimulationResult result =
      simulate_symmetric(network, two_pairs(), one_phase({{0, 1}, {2, 3}}, {0, 1, 2}), &symmetric);
  EXPECT_FALSE(symmetric);
  EXPECT_NEAR(result.tasks[0].end_s, kAlpha + 1e-3, 1e-15);
  EXPECT_NEAR(result.tasks[1].end_s, kAlpha + 2e-3, 1e-15);
}

TEST(SymmetricSimulation, FallsBackWhenGroupsShareALink) {
  // 0 -> 2 and 1 -> 3 both cross link 1 and share it: each gets W/2, both end at 2 alpha + 2 ms.
  EventGraph graph;
  graph.num_chips = 4;
  graph.add(transfer(0, 2, kS));
  graph.add(transfer(1, 3, kS));
  bool symmetric = true;
  const SimulationResult result =
      simulate_symmetric(line_network(4, kW, kAlpha), graph, one_phase({{0, 2}, {1, 3}}, {0, 1, 2}), &symmetric);
  EXPECT_FALSE(symmetric);
  EXPECT_NEAR(result.makespan_s, 2 * kAlpha + 2e-3, 1e-15);
}

TEST(SymmetricSimulation, ValidatesLikeSimulate) {
  EventGraph graph = two_pairs();
  graph.tasks[0].deps = {0};
  EXPECT_THROW(simulate_symmetric(line_network(4, kW, kAlpha), graph, one_phase({{0, 1}, {2, 3}}, {0, 1, 2})),
               VerifyError);
}

}  // namespace
}  // namespace podsim::engine::testing
