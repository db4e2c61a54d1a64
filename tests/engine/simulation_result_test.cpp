// The routes and bandwidth phases a simulation publishes: each transfer's route is the slice's dimension-order route
// (models/topology/routing.hpp, computed here independently of the engine's route table) on a torus and on a mesh,
// in the full simulation and in the symmetric one (where every group gets its own routes, not its representative's);
// its bandwidth phase starts hops x alpha after it. Every result here crossed the child -> parent pipe.
#include "sim/engine/simulation_result.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_networks.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {
namespace {

using engine::testing::compute;
using engine::testing::transfer;

constexpr double kAlpha = 1e-6;
constexpr double kW = 4.5e10;

// Every task of `graph` against the slice: a transfer between two chips publishes dor_route and a bandwidth phase
// from start + hops x alpha; a compute or a chip-local transfer publishes no route and its phase from its start.
// Returns the number of transfers that crossed links.
std::size_t expect_dor_routes(const Slice& slice, const EventGraph& graph, const SimulationResult& result,
                              const std::string& what) {
  EXPECT_EQ(result.task_route.size(), graph.tasks.size()) << what;
  std::size_t crossing = 0;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const auto id = static_cast<TaskId>(i);
    const Task& task = graph.tasks[i];
    const TaskTiming& timing = result.tasks[i];
    const auto route = result.route_of(id);
    if (task.kind == TaskKind::compute || task.src_chip == task.dst_chip) {
      EXPECT_TRUE(route.empty()) << what << " task " << i;
      EXPECT_EQ(result.task_route[i], -1) << what << " task " << i;
      EXPECT_EQ(result.bandwidth_start_s(id), timing.start_s) << what << " task " << i;
      continue;
    }
    ++crossing;
    const std::vector<LinkId> expected = dor_route(slice, task.src_chip, task.dst_chip);
    EXPECT_EQ(std::vector<LinkId>(route.begin(), route.end()), expected)
        << what << " task " << i << ": " << task.src_chip << " -> " << task.dst_chip;
    const double hops = static_cast<double>(expected.size());
    EXPECT_NEAR(result.bandwidth_start_s(id), std::min(timing.start_s + hops * kAlpha, timing.end_s), 1e-15)
        << what << " task " << i;
    EXPECT_LE(timing.start_s + hops * kAlpha, timing.end_s + 1e-15) << what << " task " << i;
  }
  return crossing;
}

// The distinct (src, dst) pairs of the graph's transfers between two chips.
std::size_t distinct_pairs(const EventGraph& graph) {
  std::set<std::pair<ChipId, ChipId>> pairs;
  for (const Task& task : graph.tasks)
    if (task.kind == TaskKind::transfer && task.src_chip != task.dst_chip) pairs.emplace(task.src_chip, task.dst_chip);
  return pairs.size();
}

TEST(SimulationResult, FullSimulationPublishesDorRoutesOnATorus) {
  // 4x4 with wraparound on both dims (chip = 4 x + y): 0 -> 5 one hop on each dim; 0 -> 15 both the short way
  // round (x- then y-); 0 -> 10 a tie at distance 2 on both dims (+ wins); 6 -> 9; a repeated pair; a chip-local
  // transfer and a compute.
  const Slice slice({4, 4}, {true, true});
  EventGraph graph;
  graph.num_chips = 16;
  graph.add(transfer(0, 5, 1 << 20));
  graph.add(transfer(0, 15, 1 << 20));
  graph.add(compute(1, 1e9));
  graph.add(transfer(0, 10, 1 << 20));
  graph.add(transfer(6, 9, 1 << 19, {}));
  graph.add(transfer(2, 2, 1 << 20));
  graph.add(transfer(0, 5, 1 << 18, {0}));
  const SimulationResult result = simulate(slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12), graph);
  EXPECT_EQ(expect_dor_routes(slice, graph, result, "4x4 torus"), 5u);
  EXPECT_EQ(result.routes.size(), distinct_pairs(graph));
  EXPECT_EQ(result.task_route[6], result.task_route[0]);  // one route per pair, shared by its transfers
  EXPECT_EQ(result.route_of(1).size(), 2u);
  EXPECT_EQ(result.route_of(3).size(), 4u);
  // Alone on its links and started at 0: 0 -> 15 begins its bandwidth phase after its two hops.
  EXPECT_NEAR(result.bandwidth_start_s(1), 2 * kAlpha, 1e-15);
}

TEST(SimulationResult, FullSimulationPublishesDorRoutesOnAMesh) {
  // 3x4 without wraparound (chip = 4 x + y): corner to corner both ways, a row, a column, and a chain.
  const Slice slice({3, 4}, {false, false});
  EventGraph graph;
  graph.num_chips = 12;
  const TaskId first = graph.add(transfer(0, 11, 1 << 20));
  graph.add(transfer(11, 0, 1 << 20));
  graph.add(transfer(4, 7, 1 << 19));
  graph.add(transfer(1, 9, 1 << 19));
  graph.add(transfer(11, 3, 1 << 18, {first}));
  graph.add(compute(11, 1e9, {first}));
  const SimulationResult result = simulate(slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12), graph);
  EXPECT_EQ(expect_dor_routes(slice, graph, result, "3x4 mesh"), 5u);
  EXPECT_EQ(result.routes.size(), distinct_pairs(graph));
  EXPECT_EQ(result.route_of(first).size(), 5u);  // 2 hops on x, 3 on y
}

TEST(SimulationResult, SimulateAllPublishesEachRunsRoutes) {
  const Slice torus({4, 4}, {true, true});
  const Slice mesh({4, 4}, {false, false});
  EventGraph graph;
  graph.num_chips = 16;
  graph.add(transfer(0, 15, 1 << 20));
  graph.add(transfer(3, 12, 1 << 20));
  const NetworkSpec on_torus = slice_network(torus, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  const NetworkSpec on_mesh = slice_network(mesh, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  const std::vector<SimulationResult> results = simulate_all({{&on_torus, &graph}, {&on_mesh, &graph}});
  ASSERT_EQ(results.size(), 2u);
  expect_dor_routes(torus, graph, results[0], "torus");
  expect_dor_routes(mesh, graph, results[1], "mesh");
  EXPECT_EQ(results[0].route_of(0).size(), 2u);  // wraparound: one hop on each dim
  EXPECT_EQ(results[1].route_of(0).size(), 6u);  // no wraparound: three on each
}

CollectiveRequest request_on(const Slice& slice, CollectiveKind op, const std::vector<std::string>& axes,
                             std::uint64_t bytes) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = op;
  request.axes = axes_groups(mapping, slice, axes);
  request.array_bytes = bytes;
  return request;
}

TEST(SimulationResult, SymmetricSimulationPublishesEveryGroupsOwnRoutes) {
  // One representative group per phase is simulated, but each of the other groups crosses its own links.
  const struct {
    Slice slice;
    CollectiveKind op;
    std::vector<std::string> axes;
    const char* what;
  } cases[] = {
      {Slice({4, 4}, {true, true}), CollectiveKind::all_to_all, {"X"}, "4x4 torus all-to-all over X"},
      {Slice({4, 4}, {true, true}), CollectiveKind::all_reduce, {"X", "Y"}, "4x4 torus all-reduce over X, Y"},
      {Slice({4, 3}, {false, false}), CollectiveKind::all_to_all, {"X"}, "4x3 mesh all-to-all over X"},
      {Slice({4, 3}, {false, false}), CollectiveKind::all_gather, {"Y"}, "4x3 mesh all-gather over Y"},
  };
  for (const auto& c : cases) {
    const NetworkSpec network = slice_network(c.slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
    const auto chips = static_cast<std::int32_t>(c.slice.num_chips());
    const SimulatedCollective run = simulate_collective(network, chips, request_on(c.slice, c.op, c.axes, 3 << 20));
    EXPECT_TRUE(run.symmetric) << c.what;
    EXPECT_GT(expect_dor_routes(c.slice, run.graph, run.result, c.what), 0u);
    EXPECT_EQ(run.result.routes.size(), distinct_pairs(run.graph)) << c.what;
  }
}

}  // namespace
}  // namespace podsim
