// Collectives simulated hop by hop on SimGrid over real slices: the simulated time equals each schedule's
// alpha-beta closed form (worked here) where no link is shared, the bytes per link equal the hand count, and
// shared links show max-min contention worked by hand. Also: how the book model differs, and why.
#include <gtest/gtest.h>

#include <numeric>

#include "models/cost/collective_cost.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;

struct SimRun {
  Slice slice;
  EventGraph graph;
  SimulationResult result;
};

// Simulates `op` over `axes` of a mesh laid in order over `slice` (one mesh axis per slice dim, named X, Y, Z).
SimRun simulate_on(Slice slice, CollectiveKind op, const std::vector<std::string>& axes, std::uint64_t array_bytes,
                   Algorithm algorithm, MultiAxis multi = MultiAxis::sequential) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = op;
  request.axes = axes_groups(mapping, slice, axes);
  request.array_bytes = array_bytes;
  request.algorithm = algorithm;
  request.multi_axis = multi;
  EventGraph graph = build_collective(static_cast<std::int32_t>(slice.num_chips()), request);
  SimulationResult result = simulate(slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12), graph);
  return {std::move(slice), std::move(graph), std::move(result)};
}

std::uint64_t link_bytes(const SimRun& run, ChipId chip, int dim, Direction dir) {
  return run.result.links[static_cast<std::size_t>(run.slice.link_id(chip, dim, dir))].bytes;
}

void expect_time(double simulated, double expected, const std::string& what) {
  EXPECT_NEAR(simulated, expected, 1e-9 * expected) << what;
}

TEST(CollectiveDes, RingAlgorithmsOnRingsOf3To16) {
  for (std::int64_t n = 3; n <= 16; ++n) {
    const std::uint64_t shard = 1 << 20;
    const std::uint64_t v = shard * static_cast<std::uint64_t>(n);
    const std::string at = "n=" + std::to_string(n);
    // Unidirectional: (N-1)(alpha + S/W); every + link carries N-1 shards, no - link is used.
    SimRun uni = simulate_on(Slice({n}, {true}), CollectiveKind::all_gather, {"X"}, v, Algorithm::unidirectional);
    expect_time(uni.result.makespan_s, (n - 1) * (kAlpha + shard / kW), "unidirectional " + at);
    EXPECT_EQ(link_bytes(uni, 0, 0, Direction::plus), shard * static_cast<std::uint64_t>(n - 1)) << at;
    EXPECT_EQ(link_bytes(uni, 0, 0, Direction::minus), 0u) << at;
    // Whole shards both ways: ceil((N-1)/2) steps of alpha + S/W.
    SimRun bidi = simulate_on(Slice({n}, {true}), CollectiveKind::all_gather, {"X"}, v, Algorithm::bidirectional);
    expect_time(bidi.result.makespan_s, static_cast<double>(n / 2) * (kAlpha + shard / kW), "bidirectional " + at);
    EXPECT_EQ(link_bytes(bidi, 1, 0, Direction::plus), shard * static_cast<std::uint64_t>(n / 2)) << at;
    EXPECT_EQ(link_bytes(bidi, 1, 0, Direction::minus), shard * static_cast<std::uint64_t>((n - 1) / 2)) << at;
    // Split halves: (N-1)(alpha + S/(2W)); each direction carries N-1 half shards.
    SimRun split =
        simulate_on(Slice({n}, {true}), CollectiveKind::all_gather, {"X"}, v, Algorithm::bidirectional_split);
    expect_time(split.result.makespan_s, (n - 1) * (kAlpha + shard / (2 * kW)), "split " + at);
    EXPECT_EQ(link_bytes(split, 2, 0, Direction::minus), shard / 2 * static_cast<std::uint64_t>(n - 1)) << at;
  }
}

TEST(CollectiveDes, RingAlgorithmsAlongEachAxisOf2DAnd3DTori) {
  // The groups along the other axes run at once on disjoint links, so every axis behaves as one ring of its size.
  struct Case {
    std::vector<std::int64_t> shape;
    std::string axis;
    std::int64_t n;
  };
  const std::vector<Case> cases = {{{4, 4}, "X", 4},    {{4, 4}, "Y", 4},    {{3, 5}, "Y", 5},   {{6, 3}, "X", 6},
                                   {{4, 4, 4}, "Z", 4}, {{4, 3, 5}, "Y", 3}, {{4, 3, 5}, "Z", 5}};
  const std::uint64_t shard = 1 << 18;
  for (const auto& c : cases) {
    const std::vector<bool> wraps(c.shape.size(), true);
    const std::string at = Slice(c.shape, wraps).shape_string() + " over " + c.axis;
    const std::uint64_t v = shard * static_cast<std::uint64_t>(c.n);
    SimRun uni = simulate_on(Slice(c.shape, wraps), CollectiveKind::all_gather, {c.axis}, v, Algorithm::unidirectional);
    expect_time(uni.result.makespan_s, (c.n - 1) * (kAlpha + shard / kW), "unidirectional " + at);
    EXPECT_EQ(uni.result.max_link_bytes(), shard * static_cast<std::uint64_t>(c.n - 1)) << at;
    SimRun bidi = simulate_on(Slice(c.shape, wraps), CollectiveKind::all_gather, {c.axis}, v, Algorithm::bidirectional);
    expect_time(bidi.result.makespan_s, static_cast<double>(c.n / 2) * (kAlpha + shard / kW), "bidirectional " + at);
    SimRun split =
        simulate_on(Slice(c.shape, wraps), CollectiveKind::reduce_scatter, {c.axis}, v, Algorithm::bidirectional_split);
    expect_time(split.result.makespan_s, (c.n - 1) * (kAlpha + shard / (2 * kW)), "split reduce-scatter " + at);
    // Every chip sends N-1 half shards each way: the total over all links is chips x 2 x (N-1) x S/2.
    const auto chips = static_cast<std::uint64_t>(Slice(c.shape, wraps).num_chips());
    EXPECT_EQ(split.result.total_link_bytes(), chips * static_cast<std::uint64_t>(c.n - 1) * shard) << at;
  }
}

TEST(CollectiveDes, LineOnMeshesOf2To16) {
  for (std::int64_t n = 2; n <= 16; ++n) {
    const std::uint64_t shard = 3 << 18;
    SimRun line = simulate_on(Slice({n}, {false}), CollectiveKind::all_gather, {"X"},
                              shard * static_cast<std::uint64_t>(n), Algorithm::automatic);
    expect_time(line.result.makespan_s, (n - 1) * (kAlpha + shard / kW), "line n=" + std::to_string(n));
    // The link i -> i+1 carries the shards of chips 0..i; the link i -> i-1 those of chips i..N-1.
    for (ChipId i = 0; i + 1 < n; ++i)
      EXPECT_EQ(link_bytes(line, i, 0, Direction::plus), shard * static_cast<std::uint64_t>(i + 1));
    for (ChipId i = 1; i < n; ++i)
      EXPECT_EQ(link_bytes(line, i, 0, Direction::minus), shard * static_cast<std::uint64_t>(n - i));
    SimRun rs = simulate_on(Slice({n}, {false}), CollectiveKind::reduce_scatter, {"X"},
                            shard * static_cast<std::uint64_t>(n), Algorithm::automatic);
    expect_time(rs.result.makespan_s, (n - 1) * (kAlpha + shard / kW), "line reduce-scatter n=" + std::to_string(n));
  }
}

TEST(CollectiveDes, PopQuizTwoOnAV5eEightByFour) {
  // AllGather_Y of bf16[2048, 8192] sharded [E_Y, F] on an 8x4 mesh (no wraparound): 3 steps of the 8,388,608 B
  // shard over one link direction = 559.24 us + 3 us. All 8 Y-lines run at once on disjoint links.
  SimRun run =
      simulate_on(Slice({8, 4}, {false, false}), CollectiveKind::all_gather, {"Y"}, 33554432, Algorithm::automatic);
  expect_time(run.result.makespan_s, 3 * (kAlpha + 8388608 / kW), "pop quiz 2");
  EXPECT_EQ(run.result.max_link_bytes(), 3u * 8388608u);  // the links next to the line's ends carry 3 shards
}

TEST(CollectiveDes, ThreeDimensionalAllReduceOnTorusAndMesh) {
  // Reduce-scatter X, Y, Z then all-gather Z, Y, X with split bidirectional rings (SIMGRID.md §4):
  // T += (N_d - 1)(alpha + cur / (2 N_d W)), cur /= N_d; then T += (N_d - 1)(alpha + cur / (2 W)), cur *= N_d.
  const std::uint64_t d = 64ull << 20;
  double expected = 0;
  double cur = static_cast<double>(d);
  for (int dim = 0; dim < 3; ++dim) {
    expected += 3 * (kAlpha + cur / (2 * 4 * kW));
    cur /= 4;
  }
  for (int dim = 0; dim < 3; ++dim) {
    expected += 3 * (kAlpha + cur / (2 * kW));
    cur *= 4;
  }
  SimRun torus = simulate_on(Slice({4, 4, 4}, {true, true, true}), CollectiveKind::all_reduce, {"X", "Y", "Z"}, d,
                             Algorithm::automatic);
  expect_time(torus.result.makespan_s, expected, "4x4x4 torus all-reduce");
  EXPECT_NEAR(torus.result.makespan_s, 1486.006e-6, 1e-9);  // SIMGRID.md §4's measured prototype figure

  // A 4x4x2 mesh: lines on every axis, (N-1)(alpha + shard/W) per phase.
  SimRun mesh = simulate_on(Slice({4, 4, 2}, {false, false, false}), CollectiveKind::all_reduce, {"X", "Y", "Z"}, d,
                            Algorithm::automatic);
  double line_expected = 0;
  double data = static_cast<double>(d);
  const int sizes[] = {4, 4, 2};
  for (int size : sizes) {
    data /= size;
    line_expected += (size - 1) * (kAlpha + data / kW);
  }
  for (int i = 2; i >= 0; --i) {
    line_expected += (sizes[i] - 1) * (kAlpha + data / kW);
    data *= sizes[i];
  }
  expect_time(mesh.result.makespan_s, line_expected, "4x4x2 mesh all-reduce");
}

// An FSDP weight gathered over X, Y and Z of a 4x4x4 torus with the default request (multi-axis concurrent): V in 3
// parts of V/3, part p visiting the axes from axis p, so each phase has one part on each axis's links. Per part the
// shard is S = V/192 and grows 4x per phase; split rings of 4 take 3 steps of half the shard each way:
// 3 (alpha + S/(2W)) + 3 (alpha + 4S/(2W)) + 3 (alpha + 16S/(2W)) = 9 alpha + 63 S/(2W). The book (V / (3 W_bidi),
// W_bidi = 2W) is 64 S/(2W): the schedule's bandwidth is (3/4) (1 + 1/4 + 1/16) = 0.984375 of it. Axis after axis,
// the whole V/64 shard goes through the same three phases: three times the bandwidth term.
TEST(CollectiveDes, ThreeAxisAllGatherRunsTheAxesAtOnceByDefault) {
  const Slice slice({4, 4, 4}, {true, true, true});
  const MeshMapping mapping(default_mesh(slice), slice);
  const std::uint64_t s = 1 << 20;
  const std::uint64_t v = 192 * s;
  CollectiveRequest request;
  request.op = CollectiveKind::all_gather;
  request.axes = axes_groups(mapping, slice, {"X", "Y", "Z"});
  request.array_bytes = v;
  ASSERT_EQ(request.multi_axis, MultiAxis::concurrent);
  const NetworkSpec network = slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  const SimulationResult concurrent = simulate(network, build_collective(64, request));
  expect_time(concurrent.makespan_s, 9 * kAlpha + 63 * (s / (2 * kW)), "concurrent 3-axis all-gather");
  const CostBreakdown book =
      book_collective_cost(CollectiveKind::all_gather, {{4, true}, {4, true}, {4, true}}, v, kW, kAlpha);
  EXPECT_NEAR(book.bandwidth_s, v / (3 * 2 * kW), 1e-15);
  EXPECT_NEAR((concurrent.makespan_s - 9 * kAlpha) / book.bandwidth_s, 0.984375, 1e-9);
  EXPECT_NEAR(concurrent.makespan_s / book.time_s, 1.0, 0.03);  // within a few % with the steps' latencies
  // Every link carries the same: per part on its axis, 3 steps of S/2, S/2 x 4, S/2 x 16 one way: 63 S/2 in all.
  for (const LinkUsage& link : concurrent.links)
    EXPECT_EQ(link.bytes, 63 * s / 2);

  request.multi_axis = MultiAxis::sequential;
  const SimulationResult sequential = simulate(network, build_collective(64, request));
  expect_time(sequential.makespan_s, 9 * kAlpha + 3 * 63 * (s / (2 * kW)), "sequential 3-axis all-gather");
}

TEST(CollectiveDes, TwoCollectivesSharingLinksSplitThemFairly) {
  // Two unidirectional all-gathers with equal shards on the same 4-ring at once: every + link carries two flows
  // that start together, so each gets W/2 and every step takes alpha + 2S/W.
  const Slice slice({4}, {true});
  const MeshMapping mapping(make_mesh({{"X", 4}}), slice);
  const std::uint64_t shard = 1 << 20;
  EventGraph graph;
  graph.num_chips = 4;
  Frontier frontier(4);
  for (int op = 0; op < 2; ++op) {
    CollectiveRequest request;
    request.axes = axes_groups(mapping, slice, {"X"});
    request.array_bytes = 4 * shard;
    request.algorithm = Algorithm::unidirectional;
    request.op_id = op;
    Frontier start(4);  // both start at time 0
    append_collective(graph, start, request);
  }
  const SimulationResult result = simulate(slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12), graph);
  expect_time(result.makespan_s, 3 * (kAlpha + 2.0 * shard / kW), "shared ring");
  EXPECT_EQ(result.links[static_cast<std::size_t>(slice.link_id(0, 0, Direction::plus))].bytes, 6u * shard);
}

TEST(CollectiveDes, AllToAllOnARingShowsTheTieRuleContention) {
  // 4-ring, chunk c to every peer. Routes: +1 hop, +2 hops (the tie goes +), -1 hop. Each + link carries three
  // flows (a 1-hop one and two 2-hop ones), each - link one. Worked by hand (fluid, latency first): the 1-hop +
  // flow runs alone at W from alpha to 2 alpha, then the three share W/3 until it ends at 3c/W - alpha; the two
  // 2-hop flows then share W/2 and end at 3c/W + alpha.
  const std::uint64_t c = 1000000;
  SimRun run = simulate_on(Slice({4}, {true}), CollectiveKind::all_to_all, {"X"}, 16 * c, Algorithm::automatic);
  expect_time(run.result.makespan_s, 3.0 * c / kW + kAlpha, "all-to-all");
  EXPECT_EQ(link_bytes(run, 0, 0, Direction::plus), 3 * c);
  EXPECT_EQ(link_bytes(run, 0, 0, Direction::minus), c);
  // The book's V / (4 W_bidi) = 16c / (4 x 9e10) assumes both directions carry half the traffic; the + tie rule
  // loads the + links with 3 of the 4 flows, so the simulation is slower by more than 1.5x.
  const CostBreakdown book = book_collective_cost(CollectiveKind::all_to_all, {{4, true}}, 16 * c, kW, kAlpha);
  EXPECT_GT(run.result.makespan_s / book.time_s, 1.5);
}

TEST(CollectiveDes, BookAndSimulationDifferByTheirDocumentedTerms) {
  // Split bidirectional all-gather on an 8-ring: the simulation takes 7 (alpha + S/(2W)); the book takes
  // max(4 alpha, V / W_bidi) = max(4 alpha, 8 S / (2 W)). Bandwidth: the simulation sends (N-1)/N of the book's
  // bytes per link. Latency: the simulation pays alpha at each of its N-1 steps and adds it to the bandwidth time;
  // the book takes the larger of N/2 hops and the bandwidth time.
  const std::uint64_t shard = 8 << 20;
  SimRun run = simulate_on(Slice({8}, {true}), CollectiveKind::all_gather, {"X"}, 8 * shard, Algorithm::automatic);
  const CostBreakdown book = book_collective_cost(CollectiveKind::all_gather, {{8, true}}, 8 * shard, kW, kAlpha);
  EXPECT_NEAR(book.time_s, 8.0 * shard / (2 * kW), 1e-15);
  const double simulated_bandwidth = 7 * (shard / (2 * kW));
  EXPECT_NEAR(run.result.makespan_s - 7 * kAlpha, simulated_bandwidth, 1e-12);
  EXPECT_NEAR(simulated_bandwidth / book.bandwidth_s, 7.0 / 8.0, 1e-12);
}

}  // namespace
}  // namespace podsim
