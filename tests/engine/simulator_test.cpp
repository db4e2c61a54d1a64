// simulate() against hand-worked alpha-beta numbers: one transfer over k hops, ring all-gathers, max-min sharing,
// computes, dependency chains, out-of-order arrivals, transfers no task on their destination waits for, and
// running several simulations from one process.
#include "sim/engine/simulator.hpp"

#include <gtest/gtest.h>

#include "engine_test_networks.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::engine::testing {
namespace {

TEST(Simulator, OneTransferOverKHopsIsKAlphaPlusSizeOverBandwidth) {
  const double bandwidth = 4.5e10, latency = 1e-6;
  const std::uint64_t bytes = 16777216;
  for (std::int32_t hops : {1, 3, 6}) {
    const NetworkSpec network = line_network(hops + 1, bandwidth, latency);
    EventGraph graph;
    graph.num_chips = hops + 1;
    graph.add(transfer(0, hops, bytes));
    const SimulationResult result = simulate(network, graph);
    const double expected = hops * latency + static_cast<double>(bytes) / bandwidth;
    ASSERT_EQ(result.tasks.size(), 1u);
    EXPECT_EQ(result.tasks[0].start_s, 0);
    test::expect_close(result.tasks[0].end_s, expected);
    test::expect_close(result.makespan_s, expected);
    EXPECT_EQ(result.messages, 1u);
  }
}

TEST(Simulator, UnidirectionalRingAllGatherTakesNMinusOneSteps) {
  const double bandwidth = 4.5e10, latency = 1e-6;
  const std::uint64_t shard = 1 << 24;
  for (std::int32_t chips : {4, 8}) {
    const SimulationResult result =
        simulate(ring_network(chips, bandwidth, latency, false), ring_all_gather(chips, shard, false));
    const double expected = (chips - 1) * (latency + static_cast<double>(shard) / bandwidth);
    test::expect_close(result.makespan_s, expected);
    EXPECT_EQ(result.messages, static_cast<std::uint64_t>(chips * (chips - 1)));
    // Every clockwise link carries one shard per step.
    for (const LinkUsage& link : result.links)
      EXPECT_EQ(link.bytes, shard * static_cast<std::uint64_t>(chips - 1));
  }
}

TEST(Simulator, BidirectionalRingAllGatherWithHalfShards) {
  const double bandwidth = 4.5e10, latency = 1e-6;
  const std::uint64_t shard = 1 << 24, half = shard / 2;
  for (std::int32_t chips : {4, 8}) {
    const SimulationResult result =
        simulate(ring_network(chips, bandwidth, latency, true), ring_all_gather(chips, half, true));
    const double expected = (chips - 1) * (latency + static_cast<double>(shard) / (2 * bandwidth));
    test::expect_close(result.makespan_s, expected);
  }
}

TEST(Simulator, TwoFlowsShareALinkMaxMinFairly) {
  // Line 0 -> 1 -> 2, W = 1e9 B/s, alpha = 1 us. Flow A: 1 -> 2 (1 hop), flow B: 0 -> 2 (2 hops), 1e8 B each,
  // both crossing link 1. A runs alone from 1 us to 2 us (1e3 B); then both get W/2 until A has its last byte:
  // 2 us + (1e8 - 1e3) / 5e8 = 0.2 s. B then sends its last 1e3 B alone: 0.2 s + 1 us.
  const NetworkSpec network = line_network(3, 1e9, 1e-6);
  EventGraph graph;
  graph.num_chips = 3;
  const TaskId a = graph.add(transfer(1, 2, 100000000));
  const TaskId b = graph.add(transfer(0, 2, 100000000));
  const SimulationResult result = simulate(network, graph);
  test::expect_close(result.tasks[static_cast<std::size_t>(a)].end_s, 0.2);
  test::expect_close(result.tasks[static_cast<std::size_t>(b)].end_s, 0.2 + 1e-6);
  // Ledger: link 1 is busy from A's bandwidth phase start (1 us) to B's end; link 0 only during B's phase.
  test::expect_close(result.links[1].busy_s, 0.2);
  test::expect_close(result.links[0].busy_s, 0.2 + 1e-6 - 2e-6);
  test::expect_close(result.max_link_utilisation(), 0.2 / (0.2 + 1e-6));
  EXPECT_EQ(result.links[1].bytes, 200000000u);
  EXPECT_EQ(result.links[1].messages, 2u);
}

TEST(Simulator, ComputeTakesFlopsOverSpeedAndOverlapsATransfer) {
  NetworkSpec network = line_network(2, 1e9, 1e-6);
  network.chip_flops = 1e12;
  EventGraph graph;
  graph.num_chips = 2;
  const TaskId work = graph.add(compute(0, 2e12));                 // 2 s
  const TaskId send = graph.add(transfer(0, 1, 1000000000));       // 1 us + 1 s, concurrently
  const TaskId after = graph.add(compute(0, 5e11, {work, send}));  // waits for both: starts at 2 s, 0.5 s
  const SimulationResult result = simulate(network, graph);
  test::expect_close(result.tasks[static_cast<std::size_t>(work)].end_s, 2.0);
  test::expect_close(result.tasks[static_cast<std::size_t>(send)].end_s, 1.0 + 1e-6);
  test::expect_close(result.tasks[static_cast<std::size_t>(after)].start_s, 2.0);
  test::expect_close(result.makespan_s, 2.5);
}

TEST(Simulator, DependencyChainAcrossChips) {
  // compute 1 s on chip 0 -> send 1e9 B to chip 1 (1 us + 1 s) -> compute 1 s on chip 1 -> send to chip 2 ->
  // compute 1 s on chip 2: 5 s + 2 us.
  const NetworkSpec network = line_network(3, 1e9, 1e-6);
  EventGraph graph;
  graph.num_chips = 3;
  const TaskId c0 = graph.add(compute(0, 1e12));
  const TaskId t01 = graph.add(transfer(0, 1, 1000000000, {c0}));
  const TaskId c1 = graph.add(compute(1, 1e12, {t01}));
  const TaskId t12 = graph.add(transfer(1, 2, 1000000000, {c1}));
  const TaskId c2 = graph.add(compute(2, 1e12, {t12}));
  const SimulationResult result = simulate(network, graph);
  test::expect_close(result.tasks[static_cast<std::size_t>(t01)].start_s, 1.0);
  test::expect_close(result.tasks[static_cast<std::size_t>(c1)].start_s, 2.0 + 1e-6);
  test::expect_close(result.tasks[static_cast<std::size_t>(t12)].end_s, 4.0 + 2e-6);
  test::expect_close(result.tasks[static_cast<std::size_t>(c2)].end_s, 5.0 + 2e-6);
  test::expect_close(result.makespan_s, 5.0 + 2e-6);
}

TEST(Simulator, ATaskWaitsOnlyForItsOwnIncomingTransfer) {
  // Chip 0 sends 1e9 B then 1e3 B to chip 1 at t = 0 over one link (W = 1e9, alpha = 1 us): after the latency
  // both get W/2, so the small one ends at 1 us + 2e3 / 1e9 = 3 us and the big one at 3 us + (1e9 - 1e3) / 1e9.
  // Chip 1's task on the small one starts at 3 us although the big one was sent first.
  const NetworkSpec network = line_network(2, 1e9, 1e-6);
  EventGraph graph;
  graph.num_chips = 2;
  const TaskId big = graph.add(transfer(0, 1, 1000000000));
  const TaskId small = graph.add(transfer(0, 1, 1000));
  // Chip 1 posts its receive for the small transfer first while chip 0 sends the big one first: a receive must
  // match its own transfer, not the first one queued.
  const TaskId on_small = graph.add(compute(1, 1e6, {small}));  // 1 us
  const TaskId on_big = graph.add(compute(1, 1e6, {big}));
  const SimulationResult result = simulate(network, graph);
  test::expect_close(result.tasks[static_cast<std::size_t>(small)].end_s, 3e-6);
  test::expect_close(result.tasks[static_cast<std::size_t>(on_small)].start_s, 3e-6);
  test::expect_close(result.tasks[static_cast<std::size_t>(on_small)].end_s, 4e-6);
  const double big_end = 3e-6 + (1e9 - 1e3) / 1e9;
  test::expect_close(result.tasks[static_cast<std::size_t>(big)].end_s, big_end);
  test::expect_close(result.tasks[static_cast<std::size_t>(on_big)].start_s, big_end);
}

TEST(Simulator, TransfersNoTaskOnTheDestinationWaitsForShareTheLinkExactly) {
  // Line 0 -> 1, W = 1e9 B/s, alpha = 1 us. At t = 0 chip 0 sends A (1e8 B, nothing on chip 1 waits for it) and
  // B (2e8 B, a compute on chip 1 waits for it); C (1e3 B, nothing on chip 1 waits for it) follows A on chip 0.
  // A and B get W/2 from 1 us: A ends at 1 us + 0.2 s. C starts then, and from 0.2 s + 2 us shares with B:
  // 2e3 / 1e9 = 2 us, so C ends at 0.2 s + 4 us. B sent 1e8 B by A's end, 1e3 B alone during C's latency and
  // 1e3 B during C's bandwidth phase: it ends at 0.2 s + 4 us + (1e8 - 2e3) / 1e9 = 0.3 s + 2 us. The compute
  // (5e10 flop at 1e12 flop/s) runs from B's end for 0.05 s.
  NetworkSpec network = line_network(2, 1e9, 1e-6);
  network.chip_flops = 1e12;
  EventGraph graph;
  graph.num_chips = 2;
  const TaskId a = graph.add(transfer(0, 1, 100000000));
  const TaskId b = graph.add(transfer(0, 1, 200000000));
  const TaskId c = graph.add(transfer(0, 1, 1000, {a}));
  const TaskId on_b = graph.add(compute(1, 5e10, {b}));
  const SimulationResult result = simulate(network, graph);
  const auto at = [&](TaskId id) { return result.tasks[static_cast<std::size_t>(id)]; };
  test::expect_close(at(a).end_s, 0.2 + 1e-6);
  test::expect_close(at(c).start_s, 0.2 + 1e-6);
  test::expect_close(at(c).end_s, 0.2 + 4e-6);
  test::expect_close(at(b).end_s, 0.3 + 2e-6);
  test::expect_close(at(on_b).start_s, 0.3 + 2e-6);
  test::expect_close(at(on_b).end_s, 0.35 + 2e-6);
  EXPECT_EQ(result.links[0].messages, 3u);
  EXPECT_EQ(result.links[0].bytes, 300001000u);
}

TEST(Simulator, ATransferWithinAChipTakesNoTime) {
  const NetworkSpec network = line_network(2, 1e9, 1e-6);
  EventGraph graph;
  graph.num_chips = 2;
  const TaskId c = graph.add(compute(0, 1e12));
  const TaskId local = graph.add(transfer(0, 0, 1000, {c}));
  const TaskId next = graph.add(compute(0, 1e12, {local}));
  const SimulationResult result = simulate(network, graph);
  EXPECT_EQ(result.tasks[static_cast<std::size_t>(local)].start_s, result.tasks[static_cast<std::size_t>(local)].end_s);
  test::expect_close(result.tasks[static_cast<std::size_t>(next)].end_s, 2.0);
  EXPECT_EQ(result.chip_bytes_sent[0], 0u);
  EXPECT_EQ(result.total_link_bytes(), 0u);
  EXPECT_EQ(result.messages, 1u);
}

TEST(Simulator, LedgerCountsBytesOncePerLinkCrossed) {
  // 1e6 B from chip 0 to chip 3 crosses links 0, 1, 2; then 5e5 B from 1 to 2 crosses link 1 only, after it.
  const double bandwidth = 1e9, latency = 1e-6;
  const NetworkSpec network = line_network(4, bandwidth, latency);
  EventGraph graph;
  graph.num_chips = 4;
  const TaskId far = graph.add(transfer(0, 3, 1000000));
  graph.add(transfer(1, 2, 500000, {}));
  const SimulationResult result = simulate(network, graph);
  EXPECT_EQ(result.links[0].bytes, 1000000u);
  EXPECT_EQ(result.links[1].bytes, 1500000u);
  EXPECT_EQ(result.links[2].bytes, 1000000u);
  EXPECT_EQ(result.links[1].messages, 2u);
  EXPECT_EQ(result.total_link_bytes(), 3500000u);
  EXPECT_EQ(result.max_link_bytes(), 1500000u);
  EXPECT_EQ(result.chip_bytes_sent[0], 1000000u);
  EXPECT_EQ(result.chip_bytes_sent[1], 500000u);
  EXPECT_EQ(result.chip_bytes_received[3], 1000000u);
  EXPECT_EQ(result.chip_bytes_received[2], 500000u);
  // Link 0 carries only the far transfer: its bandwidth phase runs from 3 us to its end.
  test::expect_close(result.links[0].busy_s, result.tasks[static_cast<std::size_t>(far)].end_s - 3 * latency);
}

TEST(Simulator, SimulateAllMatchesSequentialRunsAndRunsTwiceInOneProcess) {
  const NetworkSpec ring4 = ring_network(4, 4.5e10, 1e-6, false);
  const NetworkSpec ring8 = ring_network(8, 4.5e10, 1e-6, true);
  const EventGraph gather4 = ring_all_gather(4, 1 << 20, false);
  const EventGraph gather8 = ring_all_gather(8, 1 << 19, true);
  const SimulationResult first = simulate(ring4, gather4);
  const SimulationResult second = simulate(ring8, gather8);
  const std::vector<SimulationResult> both = simulate_all({{&ring4, &gather4}, {&ring8, &gather8}, {&ring4, &gather4}});
  ASSERT_EQ(both.size(), 3u);
  EXPECT_EQ(both[0].makespan_s, first.makespan_s);
  EXPECT_EQ(both[1].makespan_s, second.makespan_s);
  EXPECT_EQ(both[2].makespan_s, first.makespan_s);
  for (std::size_t id = 0; id < second.tasks.size(); ++id) {
    EXPECT_EQ(both[1].tasks[id].start_s, second.tasks[id].start_s);
    EXPECT_EQ(both[1].tasks[id].end_s, second.tasks[id].end_s);
  }
  // The clock starts at 0 in every child (a second engine in one process would continue the first's clock).
  test::expect_close(first.makespan_s, 3 * (1e-6 + (1 << 20) / 4.5e10));
  test::expect_close(second.makespan_s, 7 * (1e-6 + (1 << 19) / 4.5e10));
}

}  // namespace
}  // namespace podsim::engine::testing
