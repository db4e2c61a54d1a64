// Collective schedules as event graphs: transfer counts, bytes each chip receives, and the critical path
// (no contention, alpha-beta per transfer) against the closed form of each algorithm worked by hand.
#include "sim/collectives/collective_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "models/common/error.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

AxisGroups ring_of(std::int32_t n, bool wraparound) {
  std::vector<ChipId> chips(static_cast<std::size_t>(n));
  std::iota(chips.begin(), chips.end(), 0);
  return AxisGroups{{chips}, wraparound};
}

// Longest path where a transfer takes alpha + bytes / w after its deps and a compute flops / speed.
double critical_path(const EventGraph& graph, double alpha, double w, double speed = 1e12) {
  std::vector<double> end(graph.tasks.size(), -1);
  // Tasks are appended after their deps by the builder, so one pass in id order suffices.
  double makespan = 0;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const Task& task = graph.tasks[i];
    double start = 0;
    for (const TaskId dep : task.deps) {
      EXPECT_LT(static_cast<std::size_t>(dep), i) << "a dependency comes after its task";
      start = std::max(start, end[static_cast<std::size_t>(dep)]);
    }
    const double duration =
        task.kind == TaskKind::transfer ? alpha + static_cast<double>(task.bytes) / w : task.flops / speed;
    end[i] = start + duration;
    makespan = std::max(makespan, end[i]);
  }
  return makespan;
}

std::vector<std::uint64_t> received_bytes(const EventGraph& graph) {
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(graph.num_chips), 0);
  for (const Task& task : graph.tasks)
    if (task.kind == TaskKind::transfer) bytes[static_cast<std::size_t>(task.dst_chip)] += task.bytes;
  return bytes;
}

std::size_t transfers(const EventGraph& graph) {
  return static_cast<std::size_t>(std::count_if(graph.tasks.begin(), graph.tasks.end(),
                                                [](const Task& t) { return t.kind == TaskKind::transfer; }));
}

using test::kAlpha;
using test::kW;

CollectiveRequest request(CollectiveKind op, std::vector<AxisGroups> axes, std::uint64_t bytes, Algorithm algorithm) {
  CollectiveRequest r;
  r.op = op;
  r.axes = std::move(axes);
  r.array_bytes = bytes;
  r.algorithm = algorithm;
  return r;
}

TEST(CollectiveBuilder, UnidirectionalRingAllGather) {
  for (std::int32_t n : {2, 3, 4, 8, 16}) {
    const std::uint64_t shard = 1 << 20;
    const auto graph = build_collective(n, request(CollectiveKind::all_gather, {ring_of(n, true)},
                                                   shard * static_cast<std::uint64_t>(n), Algorithm::unidirectional));
    EXPECT_EQ(transfers(graph), static_cast<std::size_t>(n * (n - 1)));
    for (const auto bytes : received_bytes(graph))
      EXPECT_EQ(bytes, shard * static_cast<std::uint64_t>(n - 1));
    const double expected = (n - 1) * (kAlpha + static_cast<double>(shard) / kW);
    EXPECT_NEAR(critical_path(graph, kAlpha, kW), expected, 1e-12 * expected) << "n=" << n;
  }
}

TEST(CollectiveBuilder, BidirectionalWholeShardRingTakesHalfTheSteps) {
  for (std::int32_t n : {2, 3, 4, 5, 8, 16}) {
    const std::uint64_t shard = 1 << 20;
    const auto graph = build_collective(n, request(CollectiveKind::all_gather, {ring_of(n, true)},
                                                   shard * static_cast<std::uint64_t>(n), Algorithm::bidirectional));
    // Every chip still receives the N-1 other shards once.
    for (const auto bytes : received_bytes(graph))
      EXPECT_EQ(bytes, shard * static_cast<std::uint64_t>(n - 1));
    const int steps = n / 2;  // ceil((n-1)/2): forward steps; the backward direction runs alongside
    const double expected = steps * (kAlpha + static_cast<double>(shard) / kW);
    EXPECT_NEAR(critical_path(graph, kAlpha, kW), expected, 1e-12 * expected) << "n=" << n;
  }
}

TEST(CollectiveBuilder, BidirectionalSplitRingSendsHalves) {
  const std::int32_t n = 8;
  const std::uint64_t shard = 1000;
  const auto graph = build_collective(
      n, request(CollectiveKind::all_gather, {ring_of(n, true)}, shard * n, Algorithm::bidirectional_split));
  EXPECT_EQ(transfers(graph), static_cast<std::size_t>(2 * n * (n - 1)));
  for (const auto bytes : received_bytes(graph))
    EXPECT_EQ(bytes, shard * (n - 1));
  const double expected = (n - 1) * (kAlpha + 500.0 / kW);
  EXPECT_NEAR(critical_path(graph, kAlpha, kW), expected, 1e-12 * expected);
}

TEST(CollectiveBuilder, LineAllGatherAndReduceScatter) {
  for (std::int32_t n : {2, 3, 4, 7}) {
    const std::uint64_t shard = 8388608;  // Pop Quiz 2's 512 x 8192 bf16 shard
    const auto ag = build_collective(n, request(CollectiveKind::all_gather, {ring_of(n, false)},
                                                shard * static_cast<std::uint64_t>(n), Algorithm::automatic));
    // Each direction: step s has senders s..n-2, so n(n-1)/2 transfers per direction.
    EXPECT_EQ(transfers(ag), static_cast<std::size_t>(n * (n - 1)));
    for (const auto bytes : received_bytes(ag))
      EXPECT_EQ(bytes, shard * static_cast<std::uint64_t>(n - 1));
    const double expected = (n - 1) * (kAlpha + static_cast<double>(shard) / kW);
    EXPECT_NEAR(critical_path(ag, kAlpha, kW), expected, 1e-12 * expected) << "n=" << n;

    const auto rs = build_collective(n, request(CollectiveKind::reduce_scatter, {ring_of(n, false)},
                                                shard * static_cast<std::uint64_t>(n), Algorithm::automatic));
    EXPECT_EQ(transfers(rs), static_cast<std::size_t>(n * (n - 1)));
    EXPECT_NEAR(critical_path(rs, kAlpha, kW), expected, 1e-12 * expected) << "n=" << n;
  }
}

TEST(CollectiveBuilder, PopQuizTwoLineTimeIsThreeShardsOverOneLink) {
  // v5e 8x4, AllGather over Y (4 chips, no wraparound) of bf16[2048, 8192]: 3 x 8,388,608 B / 4.5e10 B/s
  // = 559.24 us of bandwidth, plus 3 hops of 1 us in this schedule.
  const auto graph =
      build_collective(4, request(CollectiveKind::all_gather, {ring_of(4, false)}, 33554432, Algorithm::automatic));
  EXPECT_NEAR(critical_path(graph, kAlpha, kW), 3 * 8388608 / 4.5e10 + 3e-6, 1e-15);
}

TEST(CollectiveBuilder, ReduceScatterAddsAReductionAfterEveryReceive) {
  const std::int32_t n = 4;
  auto r = request(CollectiveKind::reduce_scatter, {ring_of(n, true)}, 4000, Algorithm::unidirectional);
  r.reduce_flops_per_byte = 0.5;  // bf16: one add per 2 bytes
  const auto graph = build_collective(n, r);
  const auto computes =
      std::count_if(graph.tasks.begin(), graph.tasks.end(), [](const Task& t) { return t.kind == TaskKind::compute; });
  EXPECT_EQ(computes, n * (n - 1));
  // Each step: a 1000-byte chunk, then 500 flops at 1e12 flop/s.
  const double expected = (n - 1) * (kAlpha + 1000 / kW + 500 / 1e12);
  EXPECT_NEAR(critical_path(graph, kAlpha, kW), expected, 1e-12 * expected);
}

TEST(CollectiveBuilder, AllReduceIsReduceScatterThenAllGather) {
  const std::int32_t n = 4;
  const std::uint64_t v = 4 << 20;
  const auto ar =
      build_collective(n, request(CollectiveKind::all_reduce, {ring_of(n, true)}, v, Algorithm::unidirectional));
  EXPECT_EQ(transfers(ar), static_cast<std::size_t>(2 * n * (n - 1)));
  const double expected = 2 * (n - 1) * (kAlpha + static_cast<double>(v / n) / kW);
  EXPECT_NEAR(critical_path(ar, kAlpha, kW), expected, 1e-12 * expected);
}

TEST(CollectiveBuilder, TwoAxesOneAfterAnother) {
  // 4x2 chips: axis 0 groups {0,1,2,3},{4,5,6,7}; axis 1 groups {0,4},{1,5},{2,6},{3,7}.
  AxisGroups x{{{0, 1, 2, 3}, {4, 5, 6, 7}}, true};
  AxisGroups y{{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, false};
  const std::uint64_t shard = 1 << 16;
  auto sequential = request(CollectiveKind::all_gather, {x, y}, shard * 8, Algorithm::automatic);
  sequential.multi_axis = MultiAxis::sequential;
  const auto graph = build_collective(8, sequential);
  for (const auto bytes : received_bytes(graph))
    EXPECT_EQ(bytes, shard * 7);
  // Phase 1: split ring on 4 chips, 3 steps of shard/2. Phase 2: line of 2, 1 step of 4 shards.
  const double expected = 3 * (kAlpha + (shard / 2) / kW) + (kAlpha + 4.0 * shard / kW);
  EXPECT_NEAR(critical_path(graph, kAlpha, kW), expected, 1e-12 * expected);
}

TEST(CollectiveBuilder, TwoAxesAtOnceByDefault) {
  // The same 4x2 chips, concurrent (the default): 2 parts of 4 shards (shard/2 per chip each), part 0 visiting the
  // ring then the line, part 1 the line then the ring; every chip still receives 7 shards. Critical path (no link
  // sharing counted): part 0 takes 3 steps of shard/4 on the ring, then 1 step of 2 shards on the line; part 1 one
  // step of shard/2 on the line, then 3 steps of shard/2 on the ring: the longer is part 0's.
  AxisGroups x{{{0, 1, 2, 3}, {4, 5, 6, 7}}, true};
  AxisGroups y{{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, false};
  const std::uint64_t shard = 1 << 16;
  const auto graph = build_collective(8, request(CollectiveKind::all_gather, {x, y}, shard * 8, Algorithm::automatic));
  for (const auto bytes : received_bytes(graph))
    EXPECT_EQ(bytes, shard * 7);
  const double part0 = 3 * (kAlpha + (shard / 4) / kW) + (kAlpha + 2.0 * shard / kW);
  const double part1 = (kAlpha + (shard / 2) / kW) + 3 * (kAlpha + (shard / 2) / kW);
  ASSERT_GT(part0, part1);
  EXPECT_NEAR(critical_path(graph, kAlpha, kW), part0, 1e-12 * part0);
}

TEST(CollectiveBuilder, AllToAllSendsAChunkToEveryPeer) {
  const auto graph =
      build_collective(4, request(CollectiveKind::all_to_all, {ring_of(4, true)}, 16000, Algorithm::automatic));
  EXPECT_EQ(transfers(graph), 12u);
  for (const Task& task : graph.tasks)
    EXPECT_EQ(task.bytes, 1000u);  // local 4000 B, a quarter to each
}

TEST(CollectiveBuilder, RejectsBadRequests) {
  auto r = request(CollectiveKind::all_gather, {}, 100, Algorithm::automatic);
  try {
    build_collective(4, r);
    FAIL();
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "a collective needs at least one axis, got: none");
  }
  r.axes = {AxisGroups{{{0, 1, 9}}, true}};
  try {
    build_collective(4, r);
    FAIL();
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "axis 0: chip out of range [0, 4), got: 9");
  }
  r.axes = {ring_of(4, true)};
  r.algorithm = Algorithm::direct;
  try {
    build_collective(4, r);
    FAIL();
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "the direct algorithm is for all-to-all, got: all-gather");
  }
  EXPECT_THROW(parse_algorithm("zigzag"), VerifyError);
  EXPECT_EQ(parse_collective_kind("AllGather"), CollectiveKind::all_gather);
  EXPECT_EQ(parse_collective_kind("reduce_scatter"), CollectiveKind::reduce_scatter);
}

std::uint64_t transfers_built(const EventGraph& graph) {
  return static_cast<std::uint64_t>(std::count_if(graph.tasks.begin(), graph.tasks.end(),
                                                  [](const Task& t) { return t.kind == TaskKind::transfer; }));
}

TEST(CollectiveBuilder, TransferEstimateByHand) {
  // One ring of 8: 8 x 7 = 56 sends a pass; both directions double it, all-reduce's two passes double it again.
  EXPECT_EQ(
      estimate_transfers(request(CollectiveKind::all_gather, {ring_of(8, true)}, 1024, Algorithm::unidirectional)),
      56u);
  EXPECT_EQ(estimate_transfers(request(CollectiveKind::all_gather, {ring_of(8, true)}, 1024, Algorithm::automatic)),
            112u);
  EXPECT_EQ(estimate_transfers(request(CollectiveKind::all_reduce, {ring_of(8, true)}, 1024, Algorithm::automatic)),
            224u);
  EXPECT_EQ(estimate_transfers(request(CollectiveKind::all_to_all, {ring_of(8, true)}, 1024, Algorithm::direct)), 56u);
  // 8 chips as a 4 x 2 mesh: axis A has 2 groups of 4 (2 x 4 x 3 = 24), axis B 4 groups of 2 (4 x 2 x 1 = 8);
  // both ways: 64; concurrent, each of the 2 parts visits both axes: 128.
  const AxisGroups a{{{0, 1, 2, 3}, {4, 5, 6, 7}}, true};
  const AxisGroups b{{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, false};
  auto two_axes = request(CollectiveKind::all_gather, {a, b}, 1024, Algorithm::automatic);
  two_axes.multi_axis = MultiAxis::sequential;
  EXPECT_EQ(estimate_transfers(two_axes), 64u);
  two_axes.multi_axis = MultiAxis::concurrent;
  EXPECT_EQ(estimate_transfers(two_axes), 128u);
  // Across slices only the in-slice axes make parts: b repeated over 2 slices (8 groups of 2: 16) and the slice axis
  // (8 groups of 2: 16), both ways: 64, concurrent with one in-slice axis: still 64.
  auto across = request(CollectiveKind::all_gather, {repeat_over_slices(b, 8, 2), slice_axis_groups(8, 2)}, 1024,
                        Algorithm::automatic);
  EXPECT_EQ(estimate_transfers(across), 64u);
}

TEST(CollectiveBuilder, TransferEstimateBoundsTheBuiltGraphWithinTwice) {
  const AxisGroups a{{{0, 1, 2, 3}, {4, 5, 6, 7}}, true};
  const AxisGroups b{{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, false};
  for (const auto op : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce,
                        CollectiveKind::all_to_all})
    for (const auto multi : {MultiAxis::sequential, MultiAxis::concurrent})
      for (const auto& axes : std::vector<std::vector<AxisGroups>>{{ring_of(8, true)}, {ring_of(8, false)}, {a, b}}) {
        auto r = request(op, axes, 1 << 20, Algorithm::automatic);
        r.multi_axis = multi;
        const auto built = transfers_built(build_collective(8, r));
        const auto estimate = estimate_transfers(r);
        EXPECT_LE(built, estimate) << collective_kind_name(op);
        EXPECT_GE(2 * built, estimate) << collective_kind_name(op);
      }
}

TEST(CollectiveBuilder, CountsTheTasksItBuilds) {
  // By hand: a reduce-scatter over one unidirectional ring of 8 sends 8 x 7 = 56 chunks and reduces each on arrival.
  auto ring = request(CollectiveKind::reduce_scatter, {ring_of(8, true)}, 1024, Algorithm::unidirectional);
  ring.reduce_flops_per_byte = 1;
  EXPECT_EQ(count_collective_tasks(ring, 8), 112u);
  ring.reduce_flops_per_byte = 0;
  EXPECT_EQ(count_collective_tasks(ring, 8), 56u);
  // Every kind, with and without reductions, one axis or two (several groups each), at once or one after another:
  // the count is the built graph's.
  const AxisGroups a{{{0, 1, 2, 3}, {4, 5, 6, 7}}, true};
  const AxisGroups b{{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, false};
  for (const auto op : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce,
                        CollectiveKind::all_to_all})
    for (const auto multi : {MultiAxis::sequential, MultiAxis::concurrent})
      for (const double flops : {0.0, 2.0})
        for (const auto& axes : std::vector<std::vector<AxisGroups>>{{ring_of(8, true)}, {ring_of(8, false)}, {a, b}}) {
          auto r = request(op, axes, 1 << 20, Algorithm::automatic);
          r.multi_axis = multi;
          r.reduce_flops_per_byte = flops;
          const EventGraph built = build_collective(8, r);
          EXPECT_EQ(count_collective_tasks(r, 8), built.tasks.size()) << collective_kind_name(op);
          EXPECT_EQ(built.tasks.capacity(), built.tasks.size()) << collective_kind_name(op);
        }
  // It verifies the request as append_collective does.
  EXPECT_THROW(count_collective_tasks(request(CollectiveKind::all_gather, {}, 1024, Algorithm::automatic), 8),
               VerifyError);
}

TEST(CollectiveBuilder, RefusesACollectiveBeyondTheTransferLimit) {
  // A direct all-to-all over one axis of 65536 chips: 65536 x 65535 = 4294901760 transfers, about
  // 4294901760 x 172 B = 688 GiB of event graph.
  std::vector<ChipId> chips(65536);
  for (std::size_t i = 0; i < chips.size(); ++i)
    chips[i] = static_cast<ChipId>(i);
  const auto r = request(CollectiveKind::all_to_all, {AxisGroups{{chips}, false}}, 1 << 20, Algorithm::direct);
  try {
    verify_collective(r, 65536);
    FAIL();
  } catch (const VerifyError& e) {
    EXPECT_STREQ(
        e.what(),
        "the collective would build about 4294901760 transfers (about 688 GiB of event graph), above the limit "
        "of 50000000 (docs/reliability.md): use fewer chips per axis, or the book model");
  }
}

}  // namespace
}  // namespace podsim
