// Transfers split over link-disjoint minimal routes (options.routing split_minimal, NetworkSpec::split_routes),
// against hand-worked alpha-beta figures: the parts flow at once and the transfer ends with the last; the destination
// sees it then; parts of two transfers share their links max-min; the ledger counts each part on its own links; a
// transfer between slices keeps its DCN route; split routes that share a link are refused.
#include <set>

#include <gtest/gtest.h>

#include "engine_test_networks.hpp"
#include "models/common/error.hpp"
#include "models/topology/routing.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::engine::testing {
namespace {

constexpr double kSplitW = 5e10, kSplitAlpha = 5e-7;
constexpr std::uint64_t kSplitBytes = 16777216;  // the book's Question 5: bf16[8, 128, 8192]

NetworkSpec split_mesh_4x4(RoutePolicy routing) {
  return slice_network(Slice({4, 4}, {false, false}), IciModel{4, kSplitW, kSplitW, kSplitW, kSplitAlpha}, 1e12,
                       routing);
}

// TPU{0,0} to TPU{3,3}: 6 hops; split, each half crosses its own 6 links: 6 alpha + (S / 2) / W = 170.77216 us; one
// route: 6 alpha + S / W = 338.54432 us. A compute on the destination waiting for it starts when the last part ends.
TEST(SplitRoutes, CornerToCornerTakesHalfTheBandwidthTermOverTwoRoutes) {
  EventGraph graph;
  graph.num_chips = 16;
  graph.add(transfer(0, 15, kSplitBytes));
  graph.add(compute(15, 1e6, {0}));
  const SimulationResult split = simulate(split_mesh_4x4(RoutePolicy::split_minimal), graph);
  test::expect_close(split.tasks[0].end_s, 6 * kSplitAlpha + 8388608 / kSplitW);
  EXPECT_EQ(split.tasks[1].start_s, split.tasks[0].end_s);
  const SimulationResult one = simulate(split_mesh_4x4(RoutePolicy::dimension_order), graph);
  test::expect_close(one.tasks[0].end_s, 6 * kSplitAlpha + kSplitBytes / kSplitW);

  // The ledger: the 12 links of the two routes carry half the bytes each, no other link any; the chips the whole.
  ASSERT_EQ(split.parts_of(0).size(), 2u);
  EXPECT_TRUE(one.parts_of(0).empty());
  std::set<LinkId> used;
  for (const std::int32_t part : split.parts_of(0))
    for (const LinkId link : split.routes.links(part))
      used.insert(link);
  EXPECT_EQ(used.size(), 12u);
  for (std::size_t link = 0; link < split.links.size(); ++link) {
    EXPECT_EQ(split.links[link].bytes, used.count(static_cast<LinkId>(link)) ? 8388608u : 0u) << link;
    if (used.count(static_cast<LinkId>(link))) test::expect_close(split.links[link].busy_s, 8388608 / kSplitW);
  }
  EXPECT_EQ(split.total_link_bytes(), 6 * kSplitBytes);
  EXPECT_EQ(split.chip_bytes_sent[0], kSplitBytes);
  EXPECT_EQ(split.chip_bytes_received[15], kSplitBytes);
}

// Two such transfers at once: each route's links carry two halves, max-min shares them: 6 alpha + S / W for both.
// A bytes count that does not divide: 3,000,001 bytes over 2 routes, 1,500,001 and 1,500,000.
TEST(SplitRoutes, PartsOfTwoTransfersShareTheirLinks) {
  EventGraph graph;
  graph.num_chips = 16;
  graph.add(transfer(0, 15, kSplitBytes));
  graph.add(transfer(0, 15, kSplitBytes));
  const SimulationResult result = simulate(split_mesh_4x4(RoutePolicy::split_minimal), graph);
  test::expect_close(result.tasks[0].end_s, 6 * kSplitAlpha + kSplitBytes / kSplitW);
  test::expect_close(result.tasks[1].end_s, 6 * kSplitAlpha + kSplitBytes / kSplitW);
  EventGraph odd;
  odd.num_chips = 16;
  odd.add(transfer(0, 5, 3000001));  // (0,0) to (1,1): 2 hops each way
  const SimulationResult small = simulate(split_mesh_4x4(RoutePolicy::split_minimal), odd);
  // The parts end 1 / W = 20 ps apart, below SimGrid's timing precision (1e-9 s): one event ends both.
  EXPECT_NEAR(small.tasks[0].end_s, 2 * kSplitAlpha + 1500001 / kSplitW, 1e-9);
  std::uint64_t most = 0;
  for (const LinkUsage& link : small.links)
    most = std::max(most, link.bytes);
  EXPECT_EQ(most, 1500001u);
  EXPECT_EQ(small.total_link_bytes(), 2 * 1500001u + 2 * 1500000u);
}

// Two 2x2 slices over the DCN: within a slice a transfer splits, between slices it keeps its two NIC links.
TEST(SplitRoutes, OnlyWithinASlice) {
  const Slice slice({2, 2}, {false, false});
  const NetworkSpec network = multi_slice_network(slice, 2, IciModel{4, kSplitW, kSplitW, kSplitW, kSplitAlpha},
                                                  DcnLinks{1e9, 1e-5, 4}, 1e12, RoutePolicy::split_minimal);
  EventGraph graph;
  graph.num_chips = 8;
  graph.add(transfer(4, 7, 1000));  // slice 1, chip 0 to chip 3: two routes of 2 hops
  graph.add(transfer(0, 7, 1000));  // between slices
  const SimulationResult result = simulate(network, graph);
  EXPECT_EQ(result.parts_of(0).size(), 2u);
  EXPECT_TRUE(result.parts_of(1).empty());
  test::expect_close(result.tasks[0].end_s, 2 * kSplitAlpha + 500 / kSplitW);
  test::expect_close(result.tasks[1].end_s, 1e-5 + 1000 / 4e9);  // a NIC of 4 chips x 1e9 B/s
}

TEST(SplitRoutes, RoutesThatShareALinkAreRefused) {
  NetworkSpec network = split_mesh_4x4(RoutePolicy::dimension_order);
  const Slice slice({4, 4}, {false, false});
  network.split_routes = [slice](std::int32_t src, std::int32_t dst) {
    const auto route = dor_route(slice, src, dst);
    return std::vector<std::vector<std::int32_t>>{{route.begin(), route.end()}, {route.begin(), route.end()}};
  };
  EventGraph graph;
  graph.num_chips = 16;
  graph.add(transfer(0, 15, kSplitBytes));
  try {
    simulate(network, graph);
    FAIL() << "expected an error";
  } catch (const VerifyError& e) {
    const LinkId first = dor_route(slice, 0, 15).front();
    EXPECT_EQ(std::string(e.what()),
              "task 0: route from chip 0 to chip 15: split routes must be link-disjoint, got: link " +
                  std::to_string(first) + " twice");
  }
}

}  // namespace
}  // namespace podsim::engine::testing
