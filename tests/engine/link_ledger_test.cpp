// fill_ledger() on hand-made timings: busy time is the union of the bandwidth phases on each link (overlaps
// counted once, gaps not counted), bytes and messages count each transfer once per link it crosses.
#include "sim/engine/link_ledger.hpp"

#include <gtest/gtest.h>

#include "engine_test_networks.hpp"
#include "sim/engine/input_check.hpp"

namespace podsim::engine::testing {
namespace {

TEST(LinkLedger, BusyTimeIsTheUnionOfBandwidthPhases) {
  const NetworkSpec network = line_network(3, 1e9, 1.0);  // 1 s per hop keeps the arithmetic readable
  EventGraph graph;
  graph.num_chips = 3;
  graph.add(transfer(0, 1, 100));  // link 0, phase [0 + 1, 4]
  graph.add(transfer(0, 1, 200));  // link 0, phase [2 + 1, 6]: overlaps the first, union [1, 6]
  graph.add(transfer(0, 1, 300));  // link 0, phase [8 + 1, 10]: after a gap
  graph.add(transfer(0, 2, 400));  // links 0 and 1, route latency 2: phase [10 + 2, 13]
  graph.add(compute(2, 1));        // not traffic
  const RouteTable routes = check_simulation_input(network, graph);
  SimulationResult result;
  result.tasks = {{0, 4}, {2, 6}, {8, 10}, {10, 13}, {0, 20}};
  publish_routes(graph, routes, result);
  fill_ledger(network, graph, result);
  EXPECT_DOUBLE_EQ(result.links[0].busy_s, 5 + 1 + 1);  // [1, 6] + [9, 10] + [12, 13]
  EXPECT_DOUBLE_EQ(result.links[1].busy_s, 1);
  EXPECT_EQ(result.links[0].bytes, 1000u);
  EXPECT_EQ(result.links[1].bytes, 400u);
  EXPECT_EQ(result.links[0].messages, 4u);
  EXPECT_EQ(result.messages, 4u);
  EXPECT_DOUBLE_EQ(result.makespan_s, 20);
  EXPECT_DOUBLE_EQ(result.max_link_utilisation(), 7.0 / 20.0);
  EXPECT_EQ(result.chip_bytes_sent[0], 1000u);
  EXPECT_EQ(result.chip_bytes_received[1], 600u);
  EXPECT_EQ(result.chip_bytes_received[2], 400u);
}

// Transfers whose ids are not in the order of their times on one link (as a concurrent multi-axis collective's parts
// cross one axis at different times): that link's spans are sorted before the union; a link whose spans come in
// order is merged as they come. Worked by hand (1 s per hop).
TEST(LinkLedger, SpansOutOfIdOrderAreSortedPerLink) {
  const NetworkSpec network = line_network(3, 1e9, 1.0);
  EventGraph graph;
  graph.num_chips = 3;
  graph.add(transfer(0, 1, 100));  // link 0, phase [9, 10]
  graph.add(transfer(1, 2, 100));  // link 1, phase [1, 3]
  graph.add(transfer(0, 1, 100));  // link 0, phase [1, 4]: before [9, 10], so link 0 is sorted
  graph.add(transfer(0, 1, 100));  // link 0, phase [3, 6]
  graph.add(transfer(0, 2, 100));  // links 0 and 1, route latency 2: phase [6, 12]
  graph.add(transfer(1, 2, 100));  // link 1, phase [13, 14]
  const RouteTable routes = check_simulation_input(network, graph);
  SimulationResult result;
  result.tasks = {{8, 10}, {0, 3}, {0, 4}, {2, 6}, {4, 12}, {12, 14}};
  publish_routes(graph, routes, result);
  fill_ledger(network, graph, result);
  EXPECT_DOUBLE_EQ(result.links[0].busy_s, 11);         // [1, 4] u [3, 6] u [6, 12] u [9, 10] = [1, 12]
  EXPECT_DOUBLE_EQ(result.links[1].busy_s, 2 + 6 + 1);  // [1, 3] + [6, 12] + [13, 14]
  EXPECT_EQ(result.links[0].messages, 4u);
  EXPECT_EQ(result.links[1].messages, 3u);
  EXPECT_DOUBLE_EQ(result.makespan_s, 14);
}

}  // namespace
}  // namespace podsim::engine::testing
