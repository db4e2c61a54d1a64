// The slice quotient (simulate_slice_quotient): on several slices joined by the DCN, a program that every slice runs
// moved gives simulate()'s result bit for bit (every task's times, the routes, the ledger) from slice 0's tasks
// alone, with a makespan worked by hand; each condition that fails declines with its reason.
#include "sim/engine/slice_quotient.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "models/topology/slice.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/engine/identical_results.hpp"

namespace podsim {
namespace {

constexpr double kSqHopLatency = 1e-6;  // ICI hop latency
constexpr double kSqIciBps = 4.5e10;    // ICI bandwidth, each direction
constexpr double kSqDcnBps = 5e9;       // DCN bandwidth per chip, each direction
constexpr double kSqDcnLatency = 2e-5;  // DCN latency (on the up link)
constexpr double kSqFlops = 1e12;       // the engine's host speed

const IciModel kSqIci{4, kSqIciBps, kSqIciBps, kSqIciBps, kSqHopLatency};

NetworkSpec sliced_network(const Slice& slice, std::int32_t slices, std::int64_t chips_per_host = 2) {
  return multi_slice_network(slice, slices, kSqIci, DcnLinks{kSqDcnBps, kSqDcnLatency, chips_per_host}, kSqFlops);
}

// Per chip c of slice s (M chips a slice): a compute of `flops`; `bytes` over the DCN to the chip at c's position in
// slice s + 1 (modulo the slices) and `bytes` / 4 over the ICI to chip c + 1 of its slice (modulo M), both after the
// compute; then a compute after the two it received. Built step by step, so a chip's tasks are spread over the ids.
struct SlicedProgram {
  EventGraph graph;
  std::vector<TaskId> first, over_dcn, over_ici, last;  // per chip
};

SlicedProgram ring_program(std::int64_t chips, std::int32_t slices, double flops, std::uint64_t bytes) {
  SlicedProgram p;
  const auto total = static_cast<ChipId>(chips * slices);
  const auto next_slice = [&](ChipId c) { return static_cast<ChipId>((c + chips) % total); };
  const auto prev_slice = [&](ChipId c) { return static_cast<ChipId>((c + total - chips) % total); };
  const auto next_chip = [&](ChipId c) { return static_cast<ChipId>(c / chips * chips + (c % chips + 1) % chips); };
  const auto prev_chip = [&](ChipId c) {
    return static_cast<ChipId>(c / chips * chips + (c % chips + chips - 1) % chips);
  };
  p.graph.num_chips = total;
  for (ChipId c = 0; c < total; ++c)
    p.first.push_back(p.graph.add({.src_chip = c, .dst_chip = c, .flops = flops, .kind = TaskKind::compute}));
  for (ChipId c = 0; c < total; ++c) {
    const auto at = static_cast<std::size_t>(c);
    p.over_dcn.push_back(
        p.graph.add({.src_chip = c, .dst_chip = next_slice(c), .bytes = bytes, .deps = {p.first[at]}}));
    p.over_ici.push_back(
        p.graph.add({.src_chip = c, .dst_chip = next_chip(c), .bytes = bytes / 4, .deps = {p.first[at]}}));
  }
  for (ChipId c = 0; c < total; ++c)
    p.last.push_back(p.graph.add({.src_chip = c,
                                  .dst_chip = c,
                                  .flops = flops,
                                  .deps = {p.over_dcn[static_cast<std::size_t>(prev_slice(c))],
                                           p.over_ici[static_cast<std::size_t>(prev_chip(c))]},
                                  .kind = TaskKind::compute}));
  return p;
}

using engine::testing::expect_identical;

SliceQuotientDecline slice_decline_of(const Slice& slice, std::int32_t slices, const NetworkSpec& network,
                                      const EventGraph& graph) {
  SliceQuotientDecline why = SliceQuotientDecline::none;
  EXPECT_FALSE(simulate_slice_quotient(slice, slices, network, graph, &why).has_value());
  return why;
}

// Two slices of a wrapped ring of 4 chips, hosts of 2: moving by whole hosts (2 chips) and by slices leaves 2
// representatives, chips 0 and 1. Every chip's 8 MB over the DCN shares its host's NIC (2 x 5 GB/s) with its
// neighbour's, so each flows at 5 GB/s: 1 ms of compute (1e9 FLOPs at 1e12), then 20 us + 8e6 / 5e9 = 1.62 ms on
// the DCN (the 2 MB over the ICI take 45 us beside it), then 1 ms: 3.62 ms, as the closed form has it.
TEST(SliceQuotient, SameAsTheFullSimulationAndTheClosedFormOnTwoSlices) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 2);
  const SlicedProgram p = ring_program(4, 2, 1e9, 8'000'000);
  SliceQuotientDecline why = SliceQuotientDecline::dependency_not_moved;
  const auto quotient = simulate_slice_quotient(slice, 2, network, p.graph, &why);
  ASSERT_TRUE(quotient.has_value()) << slice_quotient_decline_name(why);
  EXPECT_EQ(why, SliceQuotientDecline::none);
  EXPECT_EQ(quotient->simulated_tasks, 2u * 4u);  // the 2 representatives x 4 tasks
  expect_identical(*quotient, simulate(network, p.graph));
  EXPECT_NEAR(quotient->makespan_s, 1e-3 + kSqDcnLatency + 8e6 / kSqDcnBps + 1e-3, 1e-12);
}

// Three slices of a 2x2 torus (hosts of 4: one NIC a slice, four flows on it), and a ring over the slices.
TEST(SliceQuotient, SameAsTheFullSimulationOnThreeSlicesSharingOneNic) {
  const Slice slice({2, 2}, std::vector<bool>{true, true});
  const NetworkSpec network = sliced_network(slice, 3, 4);
  const SlicedProgram p = ring_program(4, 3, 2e9, 4'000'000);
  const auto quotient = simulate_slice_quotient(slice, 3, network, p.graph);
  ASSERT_TRUE(quotient.has_value());
  expect_identical(*quotient, simulate(network, p.graph));
  // Four 4 MB flows share the NIC's 4 x 5 GB/s: 20 us + 0.8 ms between two 2 ms computes.
  EXPECT_NEAR(quotient->makespan_s, 2e-3 + kSqDcnLatency + 4e6 / kSqDcnBps + 2e-3, 1e-12);
}

TEST(SliceQuotient, DeclinesOneSlice) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 1);
  EventGraph graph;
  graph.num_chips = 4;
  graph.add({.src_chip = 0, .dst_chip = 0, .flops = 1e9, .kind = TaskKind::compute});
  EXPECT_EQ(slice_decline_of(slice, 1, network, graph), SliceQuotientDecline::not_several_slices);
}

TEST(SliceQuotient, DeclinesATaskOnOneSliceOnly) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 2);
  SlicedProgram p = ring_program(4, 2, 1e9, 8'000'000);
  p.graph.add({.src_chip = 5, .dst_chip = 5, .flops = 1e9, .kind = TaskKind::compute});
  EXPECT_EQ(slice_decline_of(slice, 2, network, p.graph), SliceQuotientDecline::tasks_per_chip);
}

TEST(SliceQuotient, DeclinesATaskThatIsNotSliceZerosMoved) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 2);
  SlicedProgram p = ring_program(4, 2, 1e9, 8'000'000);
  p.graph.tasks[static_cast<std::size_t>(p.last[6])].flops = 2e9;  // chip 2 of slice 1 computes more
  EXPECT_EQ(slice_decline_of(slice, 2, network, p.graph), SliceQuotientDecline::task_not_moved);
}

// Chip 0 of slice 0 sends to chip 1 of slice 1, and chip 0 of slice 1 to chip 1 of slice 0, where a compute waits on
// it (a line of 2 chips does not wrap: both chips are representatives). The twin of what chip 1 of slice 0 receives
// is chip 0's transfer to chip 1 of slice 1, which the quotient delivers to chip 1, the destination's representative,
// so chip 1 observes it: each transfer alone on its host's NIC (2 chips x 5 GB/s), 20 us + 1000 B / 10 GB/s, then
// 1 ms.
TEST(SliceQuotient, AReceiveFromAnotherPositionArrivesAtItsRepresentative) {
  const Slice slice({2}, std::vector<bool>{false});
  const NetworkSpec network = sliced_network(slice, 2);
  EventGraph graph;
  graph.num_chips = 4;
  const TaskId a = graph.add({.src_chip = 0, .dst_chip = 3, .bytes = 1000});
  const TaskId b = graph.add({.src_chip = 2, .dst_chip = 1, .bytes = 1000});
  graph.add({.src_chip = 1, .dst_chip = 1, .flops = 1e9, .deps = {b}, .kind = TaskKind::compute});
  graph.add({.src_chip = 3, .dst_chip = 3, .flops = 1e9, .deps = {a}, .kind = TaskKind::compute});
  const auto quotient = simulate_slice_quotient(slice, 2, network, graph);
  ASSERT_TRUE(quotient.has_value());
  EXPECT_EQ(quotient->simulated_tasks, 2u);
  expect_identical(*quotient, simulate(network, graph));
  EXPECT_NEAR(quotient->makespan_s, kSqDcnLatency + 1000 / (2 * kSqDcnBps) + 1e-3, 1e-12);
}

// Per chip of `slices` slices of `slice`: a compute of `flops`, then `bytes` to the chip at its position in the next
// slice and `bytes` / 4 to each neighbour on the ICI (both directions of every dim), then a compute after all it
// received. Built step by step, so a chip's tasks are spread over the ids.
EventGraph slice_neighbour_program(const Slice& slice, std::int32_t slices, double flops, std::uint64_t bytes) {
  EventGraph graph;
  const auto chips = static_cast<ChipId>(slice.num_chips());
  const ChipId total = chips * slices;
  graph.num_chips = total;
  std::vector<TaskId> first;
  for (ChipId c = 0; c < total; ++c)
    first.push_back(graph.add({.src_chip = c, .dst_chip = c, .flops = flops, .kind = TaskKind::compute}));
  std::vector<std::vector<TaskId>> received(static_cast<std::size_t>(total));
  const auto send = [&](ChipId from, ChipId to, std::uint64_t size) {
    received[static_cast<std::size_t>(to)].push_back(
        graph.add({.src_chip = from, .dst_chip = to, .bytes = size, .deps = {first[static_cast<std::size_t>(from)]}}));
  };
  for (ChipId c = 0; c < total; ++c) {
    send(c, (c + chips) % total, bytes);
    for (int dim = 0; dim < slice.rank(); ++dim)
      for (const Direction dir : {Direction::plus, Direction::minus})
        if (const auto to = slice.neighbour(c % chips, dim, dir)) send(c, c / chips * chips + *to, bytes / 4);
  }
  for (ChipId c = 0; c < total; ++c) {
    Task last{.src_chip = c, .dst_chip = c, .flops = flops, .kind = TaskKind::compute};
    for (const TaskId d : received[static_cast<std::size_t>(c)])
      last.deps.push_back(d);
    graph.add(std::move(last));
  }
  return graph;
}

// Two slices of a 4x8 torus, hosts of 4 (a quarter of a row each): moves by a whole row along X and by 4 along Y
// leave the 4 chips of slice 0's first host. Each chip sends over the ICI both ways along both dims (the Y
// neighbours inside the block arrive at representatives; those along X, and past the block's edge, at their own
// representatives or, when that is the sender, at a sink) and over the DCN. Every flow has a link to itself, and the
// NIC (4 x 5 GB/s) gives each of its 4 chips 5 GB/s: 1 ms, 20 us + 8e6 / 5e9, 1 ms.
TEST(SliceQuotient, MovesByWholeHostsOnAWrappedSlice) {
  const Slice slice({4, 8}, std::vector<bool>{true, true});
  const NetworkSpec network = sliced_network(slice, 2, 4);
  const EventGraph graph = slice_neighbour_program(slice, 2, 1e9, 8'000'000);
  SliceQuotientDecline why = SliceQuotientDecline::none;
  const auto quotient = simulate_slice_quotient(slice, 2, network, graph, &why);
  ASSERT_TRUE(quotient.has_value()) << slice_quotient_decline_name(why);
  EXPECT_EQ(quotient->simulated_tasks, 4u * 7u);  // 4 representatives x (2 computes, 1 + 4 sends)
  expect_identical(*quotient, simulate(network, graph));
  EXPECT_NEAR(quotient->makespan_s, 1e-3 + kSqDcnLatency + 8e6 / kSqDcnBps + 1e-3, 1e-12);
}

// Without the ledger: the same timings, and the routes and link tiers that say which transfers cross the DCN (what
// the step's DCN seconds read), but no link bytes.
TEST(SliceQuotient, WithoutTheLedgerKeepsTheTimingsAndWhatCrossesTheDcn) {
  const Slice slice({4, 8}, std::vector<bool>{true, true});
  const NetworkSpec network = sliced_network(slice, 2, 4);
  const EventGraph graph = slice_neighbour_program(slice, 2, 1e9, 8'000'000);
  const auto quotient = simulate_slice_quotient(slice, 2, network, graph, nullptr, false);
  ASSERT_TRUE(quotient.has_value());
  const SimulationResult full = simulate(network, graph);
  ASSERT_EQ(quotient->tasks.size(), full.tasks.size());
  for (std::size_t id = 0; id < full.tasks.size(); ++id) {
    EXPECT_EQ(std::memcmp(&quotient->tasks[id].start_s, &full.tasks[id].start_s, sizeof(double)), 0) << id;
    EXPECT_EQ(std::memcmp(&quotient->tasks[id].end_s, &full.tasks[id].end_s, sizeof(double)), 0) << id;
    const Task& task = graph.tasks[id];
    const bool between_slices = task.kind == TaskKind::transfer && task.src_chip / 32 != task.dst_chip / 32;
    EXPECT_EQ(quotient->crosses_dcn(static_cast<TaskId>(id)), between_slices) << id;
  }
  EXPECT_EQ(quotient->makespan_s, full.makespan_s);
  EXPECT_EQ(quotient->messages, full.messages);
  for (const LinkUsage& link : quotient->links)
    EXPECT_EQ(link.bytes, 0u);
}

// A wrapped ring of 6, hosts of 4: the second host has 2 chips and half the NIC, so no move within a slice keeps the
// hosts' NICs alike; the quotient moves by whole slices only (6 representatives), still simulate()'s result.
TEST(SliceQuotient, HostsOfUnequalNicsMoveByWholeSlices) {
  const Slice slice({6}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 2, 4);
  const EventGraph graph = slice_neighbour_program(slice, 2, 1e9, 8'000'000);
  const auto quotient = simulate_slice_quotient(slice, 2, network, graph);
  ASSERT_TRUE(quotient.has_value());
  EXPECT_EQ(quotient->simulated_tasks, 6u * 5u);  // 6 chips x (2 computes, 1 + 2 sends)
  expect_identical(*quotient, simulate(network, graph));
}

// A wrapped ring of 4, hosts of 2: chip 0 sends to both neighbours, chip 1 (a representative) and chip 3 (whose
// representative is chip 1). Their routes differ (the + link and the - link), so the second goes to a sink; chip
// 1's compute waits on what chip 2 sends it, whose twin is that second transfer: it cannot observe it.
TEST(SliceQuotient, DeclinesTwoRoutesBetweenOneRepresentativePair) {
  const Slice slice({4}, std::vector<bool>{true});
  const NetworkSpec network = sliced_network(slice, 2);
  const EventGraph graph = slice_neighbour_program(slice, 2, 1e9, 8'000'000);
  EXPECT_EQ(slice_decline_of(slice, 2, network, graph), SliceQuotientDecline::dependency_not_observable);
}

}  // namespace
}  // namespace podsim
