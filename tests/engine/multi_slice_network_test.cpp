// The network of several slices joined by the DCN (docs/overlap-pipeline-dcn.md): each slice's ICI links and routes
// unchanged (offset by slice), one NIC up and one down link per host with the host's share of DCN bandwidth, and routes
// between slices through the two NICs; then a transfer between slices timed on SimGrid by hand.
#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/routing.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {
namespace {

const IciModel kIci{4, 4.5e10, 4.5e10, 4.5e10, 1e-6};
const DcnLinks kDcn{6.25e9, 1e-5, 2};

TEST(MultiSliceNetwork, LinksAreEachSlicesIciThenOneNicPairPerHost) {
  const Slice slice({2, 3}, std::vector<bool>{false, true});  // 6 chips: hosts of 2, 2, 2
  const NetworkSpec network = multi_slice_network(slice, 2, kIci, kDcn, 1e12);
  const auto ici = static_cast<std::size_t>(slice.num_links());
  EXPECT_EQ(network.num_chips, 12);
  ASSERT_EQ(network.links.size(), 2 * ici + 2 * 3 * 2);
  EXPECT_EQ(network.links[0].name, "s0." + slice.links()[0].name);
  EXPECT_EQ(network.links[ici].name, "s1." + slice.links()[0].name);
  for (std::size_t id = 0; id < 2 * ici; ++id) {
    EXPECT_FALSE(network.is_dcn(static_cast<std::int32_t>(id)));
    EXPECT_DOUBLE_EQ(network.links[id].bandwidth_Bps, 4.5e10);
  }
  const auto up = [&](int s, int h) { return network.links[2 * ici + static_cast<std::size_t>(2 * (s * 3 + h))]; };
  EXPECT_EQ(up(1, 2).name, "dcn.up.s1.h2");
  EXPECT_EQ(network.links[2 * ici + 1].name, "dcn.down.s0.h0");
  EXPECT_EQ(up(0, 1).tier, LinkTier::dcn);
  EXPECT_DOUBLE_EQ(up(0, 1).bandwidth_Bps, 2 * 6.25e9);  // two chips share the NIC
  EXPECT_DOUBLE_EQ(up(0, 1).latency_s, 1e-5);
  EXPECT_DOUBLE_EQ(network.links[2 * ici + 1].latency_s, 0);
}

TEST(MultiSliceNetwork, TheLastHostOfASliceMayHoldFewerChips) {
  const Slice slice({5}, std::vector<bool>{false});  // hosts of 2, 2, 1
  const NetworkSpec network = multi_slice_network(slice, 2, kIci, kDcn, 1e12);
  const auto ici = static_cast<std::size_t>(slice.num_links());
  EXPECT_DOUBLE_EQ(network.links[2 * ici + 4].bandwidth_Bps, 6.25e9);  // s0.h2 up: one chip
  EXPECT_DOUBLE_EQ(network.links[2 * ici + 2].bandwidth_Bps, 12.5e9);  // s0.h1 up: two chips
}

TEST(MultiSliceNetwork, RoutesStayInTheSliceOrCrossBothNics) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = multi_slice_network(slice, 3, kIci, kDcn, 1e12);
  const auto ici = static_cast<std::int32_t>(slice.num_links());
  // Chips 8 and 11 are chips 0 and 3 of slice 2: one wrap hop, offset by 2 slices of links.
  const auto local = dor_route(slice, 0, 3);
  ASSERT_EQ(local.size(), 1u);
  EXPECT_EQ(network.route(8, 11), (std::vector<std::int32_t>{2 * ici + local[0]}));
  // Chip 1 (slice 0, host 0) to chip 7 (slice 1, chip 3, host 1): up of s0.h0, down of s1.h1.
  const std::int32_t nics = 3 * ici;
  EXPECT_EQ(network.route(1, 7), (std::vector<std::int32_t>{nics + 0, nics + 2 * (1 * 2 + 1) + 1}));
}

TEST(MultiSliceNetwork, OneSliceIsTheSliceNetwork) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec one = multi_slice_network(slice, 1, kIci, DcnLinks{}, 1e12);
  EXPECT_EQ(one.links.size(), static_cast<std::size_t>(slice.num_links()));
  for (std::size_t id = 0; id < one.links.size(); ++id)
    EXPECT_FALSE(one.is_dcn(static_cast<std::int32_t>(id)));
}

TEST(MultiSliceNetwork, RejectsBadSettings) {
  const Slice slice({4}, std::vector<bool>{true});
  EXPECT_THROW(multi_slice_network(slice, 0, kIci, kDcn, 1e12), VerifyError);
  EXPECT_THROW(multi_slice_network(slice, 2, kIci, DcnLinks{0, 0, 1}, 1e12), VerifyError);
  EXPECT_THROW(multi_slice_network(slice, 2, kIci, DcnLinks{1e9, -1, 1}, 1e12), VerifyError);
  EXPECT_THROW(multi_slice_network(slice, 2, kIci, DcnLinks{1e9, 0, 0}, 1e12), VerifyError);
}

// Two chips of one host send V each to two chips of a host in the other slice at once: they share the up link
// (2 W_dcn) and the down link, so each takes L + V / W_dcn; a third chip of another host alone takes the same.
TEST(MultiSliceNetwork, TransfersShareTheirHostsNic) {
  const Slice slice({4}, std::vector<bool>{false});
  const NetworkSpec network = multi_slice_network(slice, 2, kIci, kDcn, 1e12);
  EventGraph graph;
  graph.num_chips = 8;
  const std::uint64_t v = 1 << 20;
  graph.add(Task{.src_chip = 0, .dst_chip = 4, .bytes = v});
  graph.add(Task{.src_chip = 1, .dst_chip = 5, .bytes = v});
  graph.add(Task{.src_chip = 2, .dst_chip = 6, .bytes = 2 * v});
  const SimulationResult result = simulate(network, graph);
  const double one = 1e-5 + static_cast<double>(v) / 6.25e9;
  EXPECT_NEAR(result.tasks[0].end_s, one, 1e-12);
  EXPECT_NEAR(result.tasks[1].end_s, one, 1e-12);
  // Alone on its host's NIC (2 W_dcn): L + 2V / (2 W_dcn).
  EXPECT_NEAR(result.tasks[2].end_s, one, 1e-12);
}

// The result tells DCN transfers from ICI ones: the ledger marks the NIC links, a transfer between slices crosses
// one, a transfer within a slice does not.
TEST(MultiSliceNetwork, TheResultMarksDcnLinksAndTransfers) {
  const Slice slice({4}, std::vector<bool>{false});
  const NetworkSpec network = multi_slice_network(slice, 2, kIci, kDcn, 1e12);
  EventGraph graph;
  graph.num_chips = 8;
  graph.add(Task{.src_chip = 0, .dst_chip = 4, .bytes = 1024});
  graph.add(Task{.src_chip = 0, .dst_chip = 1, .bytes = 1024});
  graph.add(Task{.src_chip = 2, .dst_chip = 2, .flops = 10, .kind = TaskKind::compute});
  const SimulationResult result = simulate(network, graph);
  EXPECT_TRUE(result.crosses_dcn(0));
  EXPECT_FALSE(result.crosses_dcn(1));
  EXPECT_FALSE(result.crosses_dcn(2));
  std::size_t marked = 0;
  for (const LinkUsage& link : result.links)
    marked += link.dcn ? 1 : 0;
  EXPECT_EQ(marked, 2u * 2u * 2u);  // 2 slices x 2 hosts x (up, down)
}

}  // namespace
}  // namespace podsim
