// The translation quotient of a whole event graph (simulate_translation_quotient): on wrapped tori, a per-chip
// program that every chip runs moved gives simulate()'s result bit for bit (every task's times, the routes, the
// ledger), from chip 0's tasks alone, with the makespan of the closed form; each condition that fails declines with
// its reason.
#include "sim/engine/translation_quotient.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/topology/slice.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/engine/identical_results.hpp"

namespace podsim {
namespace {

constexpr double kAlpha = 1e-6;
constexpr double kW = 4.5e10;
constexpr double kFlops = 1e12;

NetworkSpec network_of(const Slice& slice) {
  return slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, kFlops);
}

// The chip one step from `chip` along `dim` (+1 or -1, modulo the size).
ChipId step(const Slice& slice, ChipId chip, int dim, std::int64_t by) {
  std::vector<std::int64_t> coords = slice.coords_of(chip);
  const std::int64_t size = slice.size(dim);
  coords[static_cast<std::size_t>(dim)] = ((coords[static_cast<std::size_t>(dim)] + by) % size + size) % size;
  return slice.chip_at(coords);
}

// Per chip: a compute of `flops`; then `bytes` to the chip `hops` ahead along dim 0 and `bytes` / 2 to the chip
// `b_by` ahead along `other` (both after the compute); then a compute of `flops` after the two sends it received.
// Built step by step (every chip's first compute, then every chip's sends, ...), so a chip's tasks are spread over
// the ids.
struct Program {
  EventGraph graph;
  std::vector<TaskId> first, send_a, send_b, last;  // per chip
};

Program neighbour_program(const Slice& slice, int other, double flops, std::uint64_t bytes, std::int64_t hops = 1,
                          std::int64_t b_by = -1) {
  Program p;
  const auto chips = static_cast<ChipId>(slice.num_chips());
  p.graph.num_chips = chips;
  for (ChipId c = 0; c < chips; ++c)
    p.first.push_back(p.graph.add({.src_chip = c, .dst_chip = c, .flops = flops, .kind = TaskKind::compute}));
  for (ChipId c = 0; c < chips; ++c) {
    p.send_a.push_back(p.graph.add({.src_chip = c,
                                    .dst_chip = step(slice, c, 0, hops),
                                    .bytes = bytes,
                                    .deps = {p.first[static_cast<std::size_t>(c)]}}));
    p.send_b.push_back(p.graph.add({.src_chip = c,
                                    .dst_chip = step(slice, c, other, b_by),
                                    .bytes = bytes / 2,
                                    .deps = {p.first[static_cast<std::size_t>(c)]}}));
  }
  for (ChipId c = 0; c < chips; ++c)
    p.last.push_back(p.graph.add({.src_chip = c,
                                  .dst_chip = c,
                                  .flops = flops,
                                  .deps = {p.send_a[static_cast<std::size_t>(step(slice, c, 0, -hops))],
                                           p.send_b[static_cast<std::size_t>(step(slice, c, other, -b_by))]},
                                  .kind = TaskKind::compute}));
  return p;
}

using engine::testing::expect_identical;

QuotientDecline decline_of(const Slice& slice, const NetworkSpec& network, const EventGraph& graph) {
  QuotientDecline why = QuotientDecline::none;
  EXPECT_FALSE(simulate_translation_quotient(slice, network, graph, &why).has_value());
  return why;
}

TEST(TranslationQuotient, SameAsTheFullSimulationOnA2DTorus) {
  const Slice slice({4, 4}, {true, true});
  const NetworkSpec network = network_of(slice);
  const Program p = neighbour_program(slice, 1, 2e6, 9000000);
  QuotientDecline why = QuotientDecline::task_not_translated;
  const auto quotient = simulate_translation_quotient(slice, network, p.graph, &why);
  ASSERT_TRUE(quotient.has_value());
  EXPECT_EQ(why, QuotientDecline::none);
  EXPECT_EQ(quotient->simulated_tasks, 4u);  // chip 0's own tasks
  expect_identical(*quotient, simulate(network, p.graph));
  // Each link carries one send alone: compute, then alpha + 9 MB / W (the larger send), then compute.
  EXPECT_NEAR(quotient->makespan_s, 2 * 2e6 / kFlops + kAlpha + 9e6 / kW, 1e-15);
}

TEST(TranslationQuotient, SameAsTheFullSimulationOnA3DTorusWithSharedLinks) {
  // Both sends go one hop + along dim 0: every such link carries two at once, shared max-min.
  const Slice slice({5, 3, 4}, {true, true, true});
  const NetworkSpec network = network_of(slice);
  const Program p = neighbour_program(slice, 0, 1e6, 4500000, 1, 1);
  const auto quotient = simulate_translation_quotient(slice, network, p.graph);
  ASSERT_TRUE(quotient.has_value());
  expect_identical(*quotient, simulate(network, p.graph));
  // At W / 2 each until the 2.25 MB send ends (alpha + 4.5 MB / W), then the rest of the 4.5 MB one alone:
  // alpha + 6.75 MB / W between the computes.
  EXPECT_NEAR(quotient->makespan_s, 2 * 1e6 / kFlops + kAlpha + 6.75e6 / kW, 1e-15);
}

// Without the ledger (the plan search's candidates read timings alone): the same task timings, makespan and message
// count, bit for bit, and no routes or link traffic.
TEST(TranslationQuotient, WithoutTheLedgerKeepsTheTimings) {
  const Slice slice({5, 3, 4}, {true, true, true});
  const NetworkSpec network = network_of(slice);
  const Program p = neighbour_program(slice, 1, 1e6, 4500000, 1, 1);
  const auto whole = simulate_translation_quotient(slice, network, p.graph);
  const auto timings = simulate_translation_quotient(slice, network, p.graph, nullptr, false);
  ASSERT_TRUE(whole.has_value());
  ASSERT_TRUE(timings.has_value());
  ASSERT_EQ(timings->tasks.size(), whole->tasks.size());
  for (std::size_t t = 0; t < whole->tasks.size(); ++t) {
    EXPECT_EQ(std::memcmp(&timings->tasks[t].start_s, &whole->tasks[t].start_s, sizeof(double)), 0) << "task " << t;
    EXPECT_EQ(std::memcmp(&timings->tasks[t].end_s, &whole->tasks[t].end_s, sizeof(double)), 0) << "task " << t;
  }
  EXPECT_EQ(std::memcmp(&timings->makespan_s, &whole->makespan_s, sizeof(double)), 0);
  EXPECT_EQ(timings->messages, 2u * 60u);  // two sends per chip
  EXPECT_EQ(timings->messages, whole->messages);
  EXPECT_TRUE(timings->task_route.empty());
  EXPECT_TRUE(timings->links.empty());
}

TEST(TranslationQuotient, DeclinesANetworkThatIsNotTheSlices) {
  const Slice slice({4, 4}, {true, true});
  const Program p = neighbour_program(slice, 1, 1e6, 1000);
  EXPECT_EQ(decline_of(slice, network_of(Slice({4, 5}, {true, true})), p.graph), QuotientDecline::not_the_slice);
}

TEST(TranslationQuotient, DeclinesAGraphWithoutTasksOnChipZero) {
  const Slice slice({4, 4}, {true, true});
  EventGraph graph;
  graph.num_chips = 16;
  EXPECT_EQ(decline_of(slice, network_of(slice), graph), QuotientDecline::no_tasks);
}

TEST(TranslationQuotient, DeclinesAnOpOnSomeChipsOnly) {
  const Slice slice({4, 4}, {true, true});
  Program p = neighbour_program(slice, 1, 1e6, 1000);
  p.graph.add({.src_chip = 5, .dst_chip = 5, .flops = 1e6, .deps = {p.last[5]}, .kind = TaskKind::compute});
  EXPECT_EQ(decline_of(slice, network_of(slice), p.graph), QuotientDecline::tasks_per_chip);
}

TEST(TranslationQuotient, DeclinesATaskThatIsNotChipZerosMoved) {
  const Slice slice({4, 4}, {true, true});
  const NetworkSpec network = network_of(slice);
  Program p = neighbour_program(slice, 1, 1e6, 1000);
  p.graph.tasks[static_cast<std::size_t>(p.send_a[6])].bytes = 999;
  EXPECT_EQ(decline_of(slice, network, p.graph), QuotientDecline::task_not_translated);
  p = neighbour_program(slice, 1, 1e6, 1000);
  p.graph.tasks[static_cast<std::size_t>(p.send_b[9])].dst_chip = step(slice, 9, 1, 1);  // + instead of -
  EXPECT_EQ(decline_of(slice, network, p.graph), QuotientDecline::task_not_translated);
}

TEST(TranslationQuotient, DeclinesADependencyThatIsNotChipZerosMoved) {
  const Slice slice({4, 4}, {true, true});
  Program p = neighbour_program(slice, 1, 1e6, 1000);
  // Chip 7's last compute waits for its own + neighbour's dim-0 send instead of its - neighbour's.
  p.graph.tasks[static_cast<std::size_t>(p.last[7])].deps[0] = p.send_a[static_cast<std::size_t>(step(slice, 7, 0, 1))];
  EXPECT_EQ(decline_of(slice, network_of(slice), p.graph), QuotientDecline::dependency_not_translated);
}

TEST(TranslationQuotient, TakesDependenciesInAnotherOrder) {
  const Slice slice({4, 4}, {true, true});
  const NetworkSpec network = network_of(slice);
  Program p = neighbour_program(slice, 1, 1e6, 1000);
  auto& deps = p.graph.tasks[static_cast<std::size_t>(p.last[7])].deps;
  std::swap(deps[0], deps[1]);
  const auto quotient = simulate_translation_quotient(slice, network, p.graph);
  ASSERT_TRUE(quotient.has_value());
  expect_identical(*quotient, simulate(network, p.graph));
}

TEST(TranslationQuotient, DeclinesADimWithoutWraparound) {
  // Dim 0 has no wrap link: chip 3's send to chip 0 (coordinate 3 -> 0) takes 3 hops back, not one forward.
  const Slice slice({4, 4}, {false, true});
  const Program p = neighbour_program(slice, 1, 1e6, 1000);
  EXPECT_EQ(decline_of(slice, network_of(slice), p.graph), QuotientDecline::route_not_translated);
}

TEST(TranslationQuotient, DeclinesARouteThatCrossesOneClassTwice) {
  // Two hops along a ring of 5 go + twice: the one + link of dim 0 would carry the send twice.
  const Slice slice({5, 4}, {true, true});
  const Program p = neighbour_program(slice, 1, 1e6, 1000, 2);
  EXPECT_EQ(decline_of(slice, network_of(slice), p.graph), QuotientDecline::route_repeats_class);
}

TEST(TranslationQuotient, DeclinesLinksOfOneClassWithDifferentBandwidths) {
  const Slice slice({4, 4}, {true, true});
  NetworkSpec network = network_of(slice);
  const LinkId slow = *slice.find_link(6, 0, Direction::plus);
  network.links[static_cast<std::size_t>(slow)].bandwidth_Bps = kW / 2;
  const Program p = neighbour_program(slice, 1, 1e6, 1000);
  EXPECT_EQ(decline_of(slice, network, p.graph), QuotientDecline::link_classes_differ);
}

}  // namespace
}  // namespace podsim
