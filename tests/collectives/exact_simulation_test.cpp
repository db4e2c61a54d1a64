// simulate_exact for one collective (sim/collective_sim/exact_simulation.hpp), the path `podsim collective` takes:
// the same rule as a program's, with the translation quotient taken from the request. Each path is checked on a
// collective whose time is worked by hand, and each result against the full simulation of the same graph.
#include "sim/collective_sim/exact_simulation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;

constexpr std::uint64_t kBytes = std::uint64_t{1} << 24;  // 16 MiB
constexpr double kDcnBw = 6.25e9;                         // DCN egress per chip
constexpr double kDcnLatency = 1e-5;                      // DCN per transfer

const IciModel kIci{4, kW, kW, kW, kAlpha};

CollectiveRequest on_axes(const Slice& slice, CollectiveKind op, const std::vector<std::string>& axes,
                          MultiAxis multi = MultiAxis::sequential) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = op;
  request.axes = axes_groups(mapping, slice, axes);
  request.array_bytes = kBytes;
  request.multi_axis = multi;
  return request;
}

double full_makespan(const NetworkSpec& network, const CollectiveRequest& request) {
  return simulate(network, build_collective(network.num_chips, request)).makespan_s;
}

// A ring of 4 on a 4x4 torus, all-gather over X, bidirectional split: 3 steps of V/8 each way,
// 3 (alpha + V / (8 W)) = 3 (1 us + 16,777,216 / 3.6e11 s) = 3 x 47.603 us = 142.81 us. One chip stands for all.
TEST(ExactCollective, AWrappedRingTakesTheTranslationQuotient) {
  const Slice slice({4, 4}, {true, true});
  const NetworkSpec network = slice_network(slice, kIci, 1e12);
  const CollectiveRequest request = on_axes(slice, CollectiveKind::all_gather, {"X"});
  const ExactSimulation exact = simulate_exact(network, slice, 1, request);
  EXPECT_EQ(exact.path, ExactPath::translation_quotient);
  EXPECT_EQ(exact.reason, "every chip's tasks are chip 0's, moved");
  const double expected = 3 * (kAlpha + static_cast<double>(kBytes) / (8 * kW));
  EXPECT_NEAR(exact.result.makespan_s, expected, 1e-9 * expected);
  EXPECT_NEAR(exact.result.makespan_s, full_makespan(network, request), 1e-12 * expected);
}

// The same all-gather on a 4x4 mesh (no wraparound: lines of 4, 3 steps of V/4 one way at W):
// 3 (alpha + V / (4 W)) = 3 x 94.206 us = 282.62 us. No translation quotient without wraparound; the four lines are
// alike, so one group per phase.
TEST(ExactCollective, AMeshLineTakesOneGroupPerPhase) {
  const Slice slice({4, 4}, {false, false});
  const NetworkSpec network = slice_network(slice, kIci, 1e12);
  const CollectiveRequest request = on_axes(slice, CollectiveKind::all_gather, {"X"});
  const ExactSimulation exact = simulate_exact(network, slice, 1, request);
  EXPECT_EQ(exact.path, ExactPath::one_group_per_phase);
  EXPECT_EQ(exact.reason.rfind("the translation quotient declined", 0), 0u) << exact.reason;
  const double expected = 3 * (kAlpha + static_cast<double>(kBytes) / (4 * kW));
  EXPECT_NEAR(exact.result.makespan_s, expected, 1e-9 * expected);
  EXPECT_EQ(exact.result.makespan_s, full_makespan(network, request));
}

// Symmetry off, or transfers split over several routes: in full, and the reason says which.
TEST(ExactCollective, SymmetryOffAndSplitRoutesRunInFull) {
  const Slice slice({4, 4}, {true, true});
  const CollectiveRequest request = on_axes(slice, CollectiveKind::all_gather, {"X"});
  ProgramSimulationOptions off;
  off.symmetry = false;
  const NetworkSpec network = slice_network(slice, kIci, 1e12);
  const ExactSimulation plain = simulate_exact(network, slice, 1, request, off);
  EXPECT_EQ(plain.path, ExactPath::full);
  EXPECT_EQ(plain.reason, "symmetry is off");
  const double expected = 3 * (kAlpha + static_cast<double>(kBytes) / (8 * kW));
  EXPECT_NEAR(plain.result.makespan_s, expected, 1e-9 * expected);
  const NetworkSpec split = slice_network(slice, kIci, 1e12, RoutePolicy::split_minimal);
  const ExactSimulation routes = simulate_exact(split, slice, 1, request);
  EXPECT_EQ(routes.path, ExactPath::full);
  EXPECT_EQ(routes.reason, "transfers split over several routes (routing split_minimal)");
  // Neighbours along X share one dim: split routes leave their transfers whole, the same time.
  EXPECT_NEAR(routes.result.makespan_s, expected, 1e-9 * expected);
}

// 4 slices of 4x4 (rings of 4), 4 chips per host, all-reduce over X, Y and the slices (hierarchical_des_test's hand
// schedule): 2 (3 (alpha + V/(8W)) + 3 (alpha + V/(32W)) + 3 (L + V/(64 W_dcn))). Every slice does slice 0's work:
// the slice quotient.
TEST(ExactCollective, SeveralSlicesTakeTheSliceQuotient) {
  const Slice slice({4, 4}, {true, true});
  const std::int32_t slices = 4;
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = CollectiveKind::all_reduce;
  request.array_bytes = kBytes;
  request.multi_axis = MultiAxis::sequential;
  for (const char* axis : {"X", "Y"})
    request.axes.push_back(repeat_over_slices(axis_groups(mapping, slice, axis), 16, slices));
  request.axes.push_back(slice_axis_groups(16, slices));
  const NetworkSpec network = multi_slice_network(slice, slices, kIci, {kDcnBw, kDcnLatency, 4}, 1e12);
  const ExactSimulation exact = simulate_exact(network, slice, slices, request);
  EXPECT_EQ(exact.path, ExactPath::slice_quotient) << exact.reason;
  const double v = static_cast<double>(kBytes);
  const double expected =
      2 * (3 * (kAlpha + v / (8 * kW)) + 3 * (kAlpha + v / (32 * kW)) + 3 * (kDcnLatency + v / (64 * kDcnBw)));
  EXPECT_NEAR(exact.result.makespan_s, expected, 1e-9 * expected);
  EXPECT_EQ(exact.result.makespan_s, full_makespan(network, request));
}

// Past kFewPhases phases of few tasks the full simulation is cheaper than a child per phase: 65 all-gathers over the
// lines of 4 of a 4x4 mesh in one graph, each its own phase of a few dozen tasks (far fewer than 2,000), run in full
// with the reason.
TEST(ExactCollective, ManyPhasesOfFewTasksRunInFull) {
  const Slice slice({4, 4}, {false, false});
  const NetworkSpec network = slice_network(slice, kIci, 1e12);
  const std::vector<CollectiveRequest> requests(kFewPhases + 1, on_axes(slice, CollectiveKind::all_gather, {"X"}));
  const CollectiveGraph built = build_collective_graph(16, requests);
  ASSERT_TRUE(built.phases);
  ASSERT_GT(built.symmetry.phases.size(), kFewPhases);
  const ExactSimulation exact = simulate_exact(network, built.graph, {&slice, 1, &built.symmetry});
  EXPECT_EQ(exact.path, ExactPath::full);
  EXPECT_EQ(exact.reason.rfind("the translation quotient declined: ", 0), 0u) << exact.reason;
  const std::string why =
      "; " + std::to_string(built.symmetry.phases.size()) + " phases of fewer than 2000 tasks each on average";
  EXPECT_EQ(exact.reason.substr(exact.reason.size() - why.size()), why) << exact.reason;
}

}  // namespace
}  // namespace podsim
