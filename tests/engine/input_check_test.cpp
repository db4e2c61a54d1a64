// simulate() rejects bad input with a VerifyError naming the task or link, before any child process starts.
#include "sim/engine/input_check.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "engine_test_networks.hpp"
#include "models/common/error.hpp"
#include "sim/engine/simulator.hpp"

namespace podsim::engine::testing {
namespace {

std::string verify_message(const NetworkSpec& network, const EventGraph& graph) {
  try {
    simulate(network, graph);
  } catch (const VerifyError& error) {
    return error.what();
  }
  return "no error";
}

EventGraph two_chip_graph() {
  EventGraph graph;
  graph.num_chips = 2;
  return graph;
}

TEST(InputCheck, TaskChipOutOfRange) {
  EventGraph graph = two_chip_graph();
  graph.add(transfer(0, 1, 8));
  graph.add(transfer(0, 2, 8));
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph), "task 1: dst_chip must be in [0, 2), got: 2");
  graph.tasks[1] = compute(-1, 1);
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph), "task 1: src_chip must be in [0, 2), got: -1");
}

TEST(InputCheck, ComputeTaskRules) {
  EventGraph graph = two_chip_graph();
  Task bad = compute(0, 1e9);
  bad.dst_chip = 1;
  graph.add(bad);
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph),
            "task 0: a compute task must have dst_chip == src_chip (0), got: 1");
  graph.tasks[0] = compute(0, -5);
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph),
            "task 0: flops must be finite and non-negative, got: -5");
}

TEST(InputCheck, DependencyOutOfRangeOrOnItself) {
  EventGraph graph = two_chip_graph();
  graph.add(compute(0, 1, {3}));
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph), "task 0: dependency must be in [0, 1), got: 3");
  graph.tasks[0].deps = {0};
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph), "task 0: a task cannot depend on itself");
}

TEST(InputCheck, CyclicDependencies) {
  EventGraph graph = two_chip_graph();
  graph.add(compute(0, 1));          // 0: fine, not on the cycle
  graph.add(compute(0, 1, {0, 3}));  // 1 waits on 3
  graph.add(compute(0, 1, {1}));     // 2 waits on 1
  graph.add(compute(0, 1, {2}));     // 3 waits on 2
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph),
            "event graph: dependencies must be acyclic, got a cycle (each task waits on the next): 1 -> 3 -> 2 -> 1");
}

TEST(InputCheck, DependencyNotObservableOnTheStartingChip) {
  EventGraph graph;
  graph.num_chips = 3;
  graph.add(compute(0, 1));
  graph.add(transfer(0, 1, 8));
  graph.add(compute(2, 1, {1}));
  EXPECT_EQ(verify_message(line_network(3, 1e9, 1e-6), graph),
            "task 2: dependency 1 must be observable on chip 2 (its src_chip), got: a transfer from chip 0 to chip 1");
  graph.tasks[2] = compute(1, 1, {0});
  EXPECT_EQ(verify_message(line_network(3, 1e9, 1e-6), graph),
            "task 2: dependency 0 must be observable on chip 1 (its src_chip), got: a compute on chip 0");
}

TEST(InputCheck, MissingOrBadRoute) {
  EventGraph graph = two_chip_graph();
  graph.add(transfer(1, 0, 8));  // the line only routes in the + direction
  EXPECT_EQ(verify_message(line_network(2, 1e9, 1e-6), graph),
            "task 0: route from chip 1 to chip 0: must cross at least one link, got: an empty route");
  NetworkSpec network = line_network(2, 1e9, 1e-6);
  network.route = nullptr;
  EXPECT_EQ(verify_message(network, graph),
            "task 0: route from chip 1 to chip 0: the network must have a route function, got: none");
  network.route = [](std::int32_t, std::int32_t) { return std::vector<std::int32_t>{0, 4}; };
  EXPECT_EQ(verify_message(network, graph), "task 0: route from chip 1 to chip 0: link ids must be in [0, 1), got: 4");
}

TEST(InputCheck, LinkAndNetworkParameters) {
  EventGraph graph = two_chip_graph();
  NetworkSpec network = line_network(2, 0, 1e-6);
  EXPECT_EQ(verify_message(network, graph), "link 0 (\"x+.0\"): bandwidth_Bps must be finite and positive, got: 0");
  network.links[0].bandwidth_Bps = 1e9;
  network.links[0].latency_s = -1e-6;
  EXPECT_EQ(verify_message(network, graph),
            "link 0 (\"x+.0\"): latency_s must be finite and non-negative, got: -1e-06");
  network.links[0].latency_s = std::numeric_limits<double>::infinity();
  EXPECT_EQ(verify_message(network, graph), "link 0 (\"x+.0\"): latency_s must be finite and non-negative, got: inf");
  network = line_network(2, 1e9, 1e-6);
  network.chip_flops = 0;
  EXPECT_EQ(verify_message(network, graph), "network: chip_flops must be finite and positive, got: 0");
  network.chip_flops = 1e12;
  graph.num_chips = 3;
  EXPECT_EQ(verify_message(network, graph), "event graph: num_chips must not exceed the network's 2, got: 3");
}

TEST(InputCheck, ResolvesEachUsedPairOnce) {
  NetworkSpec network = line_network(4, 1e9, 2e-6);
  int calls = 0;
  auto inner = network.route;
  network.route = [&calls, inner](std::int32_t src, std::int32_t dst) {
    ++calls;
    return inner(src, dst);
  };
  EventGraph graph;
  graph.num_chips = 4;
  graph.add(transfer(0, 3, 8));
  graph.add(transfer(0, 3, 8));
  graph.add(transfer(1, 2, 8));
  graph.add(transfer(2, 2, 8));  // chip-local: no route
  const RouteTable routes = check_simulation_input(network, graph);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(routes.links(0, 3).size(), 3u);
  EXPECT_DOUBLE_EQ(routes.latency_s(0, 3), 6e-6);
  EXPECT_FALSE(routes.contains(2, 2));
}

}  // namespace
}  // namespace podsim::engine::testing
