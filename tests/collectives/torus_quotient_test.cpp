// The translation quotient (simulate_torus_quotient): on wrapped tori small enough to simulate fully it gives the
// makespan and the per-link and per-chip ledger of the full simulation, sequential and concurrent multi-axis
// alike, with reductions contending on the chip; it simulates one chip's tasks; and it declines (nullopt) where
// the torus is not translation invariant for the request.
#include "sim/collective_sim/torus_quotient.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;

NetworkSpec network_of(const Slice& slice) {
  return slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
}

CollectiveRequest request_on(const Slice& slice, CollectiveKind op, const std::vector<std::string>& axes,
                             std::uint64_t bytes, MultiAxis multi_axis, Algorithm algorithm = Algorithm::automatic,
                             double flops_per_byte = 0) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = op;
  request.axes = axes_groups(mapping, slice, axes);
  request.array_bytes = bytes;
  request.algorithm = algorithm;
  request.multi_axis = multi_axis;
  request.reduce_flops_per_byte = flops_per_byte;
  return request;
}

// Every figure the reports print: times to 1e-12 of the makespan and equal at the ledger's 9 significant digits,
// bytes and messages exactly.
void expect_same(const SimulationResult& fast, const SimulationResult& full, const std::string& what) {
  const double tolerance = 1e-12 * full.makespan_s;
  EXPECT_NEAR(fast.makespan_s, full.makespan_s, tolerance) << what;
  EXPECT_EQ(fmt::format("{:.9g}", fast.makespan_s), fmt::format("{:.9g}", full.makespan_s)) << what;
  ASSERT_EQ(fast.links.size(), full.links.size()) << what;
  for (std::size_t l = 0; l < full.links.size(); ++l) {
    EXPECT_EQ(fast.links[l].bytes, full.links[l].bytes) << what << " link " << l;
    EXPECT_EQ(fast.links[l].messages, full.links[l].messages) << what << " link " << l;
    EXPECT_NEAR(fast.links[l].busy_s, full.links[l].busy_s, tolerance) << what << " link " << l;
    EXPECT_EQ(fmt::format("{:.9g}", fast.links[l].busy_s), fmt::format("{:.9g}", full.links[l].busy_s))
        << what << " link " << l;
  }
  EXPECT_EQ(fast.chip_bytes_sent, full.chip_bytes_sent) << what;
  EXPECT_EQ(fast.chip_bytes_received, full.chip_bytes_received) << what;
  EXPECT_EQ(fast.messages, full.messages) << what;
  EXPECT_EQ(fast.max_link_bytes(), full.max_link_bytes()) << what;
  EXPECT_EQ(fmt::format("{:.1f}", 100 * fast.max_link_utilisation()),
            fmt::format("{:.1f}", 100 * full.max_link_utilisation()))
      << what;
}

// The quotient of `request` on `slice`, checked against the full simulation; returns the quotient.
SimulationResult check_against_full(const Slice& slice, const CollectiveRequest& request, const std::string& what) {
  const NetworkSpec network = network_of(slice);
  const auto fast = simulate_torus_quotient(slice, network, request);
  EXPECT_TRUE(fast.has_value()) << what;
  if (!fast) return {};
  const SimulatedCollective full =
      simulate_collective(network, static_cast<std::int32_t>(slice.num_chips()), request, SymmetryUse::never);
  expect_same(*fast, full.result, what);
  EXPECT_TRUE(fast->tasks.empty()) << what;
  return *fast;
}

TEST(TorusQuotient, SequentialAllReduceIsTheWorkedFormulaOnOneChip) {
  // 4x4x4, 64 MiB: the worked 3D formula gives 1486.006 us (collective_des_test). The representative sends
  // 2 directions x 3 steps per phase, 6 phases: 36 transfers stand for 64 x 36 = 2304.
  const Slice slice({4, 4, 4}, {true, true, true});
  const SimulationResult fast = check_against_full(
      slice, request_on(slice, CollectiveKind::all_reduce, {"X", "Y", "Z"}, 64ull << 20, MultiAxis::sequential),
      "4x4x4 all-reduce");
  EXPECT_NEAR(fast.makespan_s, 1486.006e-6, 1e-9);
  EXPECT_EQ(fast.simulated_tasks, 36u);
  EXPECT_EQ(fast.messages, 2304u);
}

TEST(TorusQuotient, ConcurrentMultiAxisMatchesTheFullSimulation) {
  // Three parts of the array at once, each visiting the axes in a rotated order: on unequal sizes (3x5x7, 4x6x8)
  // parts reach an axis at different times and share its links; with reductions they share the chip's processor.
  const std::uint64_t bytes = 64ull << 20;
  for (const auto& shape : {std::vector<std::int64_t>{4, 4, 4}, {3, 5, 7}, {4, 6, 8}}) {
    const Slice slice(shape, {true, true, true});
    for (const CollectiveKind op :
         {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
      const std::string what = slice.shape_string() + " " + std::string(collective_kind_name(op));
      const SimulationResult fast =
          check_against_full(slice, request_on(slice, op, {"X", "Y", "Z"}, bytes, MultiAxis::concurrent), what);
      // One chip's tasks: per part and phase 2 directions x (n - 1) steps over the three axes.
      const std::uint64_t steps = static_cast<std::uint64_t>(shape[0] + shape[1] + shape[2] - 3);
      EXPECT_EQ(fast.simulated_tasks, (op == CollectiveKind::all_reduce ? 2 : 1) * 3 * 2 * steps) << what;
    }
    check_against_full(slice,
                       request_on(slice, CollectiveKind::all_reduce, {"X", "Y", "Z"}, bytes, MultiAxis::concurrent,
                                  Algorithm::automatic, 0.5),
                       slice.shape_string() + " all-reduce with reductions");
  }
}

TEST(TorusQuotient, EightCubedConcurrentAllGatherMatches) {
  const Slice slice({8, 8, 8}, {true, true, true});
  check_against_full(slice,
                     request_on(slice, CollectiveKind::all_gather, {"X", "Y", "Z"}, 64ull << 20, MultiAxis::concurrent),
                     "8x8x8 concurrent all-gather");
}

TEST(TorusQuotient, OtherRingAlgorithmsAndAxisSubsetsMatch) {
  const Slice slice({4, 5, 3}, {true, true, true});
  for (const Algorithm algorithm : {Algorithm::unidirectional, Algorithm::bidirectional}) {
    check_against_full(
        slice,
        request_on(slice, CollectiveKind::all_reduce, {"X", "Z"}, 3'000'001, MultiAxis::concurrent, algorithm, 0.25),
        "4x5x3 all-reduce over X,Z, " + std::string(algorithm_name(algorithm)));
  }
  // Y only: X and Z carry nothing, every chip still runs the same ring.
  check_against_full(slice, request_on(slice, CollectiveKind::all_gather, {"Y"}, 1'000'000, MultiAxis::sequential),
                     "4x5x3 all-gather over Y");
  // An axis of one chip per group (a dim of size 1) among wrapped ones.
  const Slice flat({4, 1, 5}, {true, false, true});
  check_against_full(flat,
                     request_on(flat, CollectiveKind::all_reduce, {"X", "Y", "Z"}, 1'000'000, MultiAxis::concurrent),
                     "4x1x5 concurrent all-reduce over X,Y,Z");
  // A 2D torus whose other dim does not wrap and is not used.
  const Slice half({5, 4}, {true, false});
  check_against_full(half, request_on(half, CollectiveKind::reduce_scatter, {"X"}, 1'000'000, MultiAxis::sequential),
                     "5x4 (wrap, line) reduce-scatter over X");
}

TEST(TorusQuotient, AllToAllOverThreeChipRingsMatches) {
  // Rings of 3: every destination is one hop away, so no route crosses two links of one class: one chip.
  const Slice slice({3, 3, 3}, {true, true, true});
  for (const MultiAxis multi : {MultiAxis::sequential, MultiAxis::concurrent}) {
    const SimulationResult fast = check_against_full(
        slice, request_on(slice, CollectiveKind::all_to_all, {"X", "Y", "Z"}, 27'000'000, multi), "3x3x3 all-to-all");
    // One chip sends to 2 others per axis, per part: 3 axes (x 3 parts when concurrent).
    EXPECT_EQ(fast.simulated_tasks, (multi == MultiAxis::concurrent ? 3u : 1u) * 3u * 2u);
  }
}

TEST(TorusQuotient, AllToAllOverLongerRingsRunsOneLinePerPhase) {
  // Rings of 4 and more reach some chips over two links of one class: the line through the representative is
  // simulated per phase (n (n - 1) sends, and none waits on a release beyond the phase's first), the phases being
  // apart in time on every class of links.
  const Slice cube({4, 4, 4}, {true, true, true});
  for (const MultiAxis multi : {MultiAxis::sequential, MultiAxis::concurrent}) {
    const SimulationResult fast = check_against_full(
        cube, request_on(cube, CollectiveKind::all_to_all, {"X", "Y", "Z"}, 64'000'000, multi), "4x4x4 all-to-all");
    EXPECT_EQ(fast.simulated_tasks, (multi == MultiAxis::concurrent ? 3u : 1u) * 3u * 4u * 3u);
  }
  const Slice mixed({5, 6, 3}, {true, true, true});
  check_against_full(mixed,
                     request_on(mixed, CollectiveKind::all_to_all, {"X", "Y", "Z"}, 9'000'001, MultiAxis::sequential),
                     "5x6x3 all-to-all");
  const Slice square({8, 8}, {true, true});
  check_against_full(square, request_on(square, CollectiveKind::all_to_all, {"Y", "X"}, 1 << 20, MultiAxis::sequential),
                     "8x8 all-to-all over Y, X");
}

TEST(TorusQuotient, DeclinesWhereTheTorusIsNotTranslationInvariant) {
  const std::uint64_t bytes = 1'000'000;
  // A dim without wraparound that the collective uses.
  const Slice mesh({4, 4}, {true, false});
  EXPECT_FALSE(simulate_torus_quotient(
      mesh, network_of(mesh), request_on(mesh, CollectiveKind::all_gather, {"X", "Y"}, bytes, MultiAxis::concurrent)));
  const Slice torus({4, 4}, {true, true});
  const NetworkSpec network = network_of(torus);
  // The line algorithm treats the ends of a ring apart.
  EXPECT_FALSE(simulate_torus_quotient(
      torus, network,
      request_on(torus, CollectiveKind::all_gather, {"X"}, bytes, MultiAxis::sequential, Algorithm::line)));
  // Concurrent all-to-all over rings of 4 and 6: a part reaches Y while the other still runs there, so two phases
  // share Y links at once, and routes cross two links of one class.
  const Slice oblong({4, 6}, {true, true});
  EXPECT_FALSE(simulate_torus_quotient(
      oblong, network_of(oblong),
      request_on(oblong, CollectiveKind::all_to_all, {"X", "Y"}, bytes, MultiAxis::concurrent)));
  // Groups that are not lines in coordinate order.
  CollectiveRequest reversed = request_on(torus, CollectiveKind::all_gather, {"X"}, bytes, MultiAxis::sequential);
  std::reverse(reversed.axes[0].groups[1].begin(), reversed.axes[0].groups[1].end());
  EXPECT_FALSE(simulate_torus_quotient(torus, network, reversed));
  // One slower link.
  NetworkSpec slow = network;
  slow.links[5].bandwidth_Bps /= 2;
  EXPECT_FALSE(simulate_torus_quotient(
      torus, slow, request_on(torus, CollectiveKind::all_gather, {"X", "Y"}, bytes, MultiAxis::sequential)));
  // A route that is not the representative's moved: chip 5 reaches chip 6 the long way round.
  NetworkSpec detour = network;
  const auto base = network.route;
  detour.route = [base, torus](std::int32_t src, std::int32_t dst) {
    if (src == 5 && dst == 6)
      return std::vector<std::int32_t>{torus.link_id(5, 1, Direction::minus), torus.link_id(4, 1, Direction::minus),
                                       torus.link_id(7, 1, Direction::minus)};
    return base(src, dst);
  };
  EXPECT_FALSE(simulate_torus_quotient(
      torus, detour, request_on(torus, CollectiveKind::all_gather, {"Y"}, bytes, MultiAxis::sequential)));
  // A network that is not the slice's.
  NetworkSpec other = network;
  other.links.pop_back();
  EXPECT_FALSE(simulate_torus_quotient(
      torus, other, request_on(torus, CollectiveKind::all_gather, {"X"}, bytes, MultiAxis::sequential)));
}

}  // namespace
}  // namespace podsim
