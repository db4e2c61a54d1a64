// All-to-all over every chip of a twisted 4x4x8 against the plain 4x4x8 (docs/book-model.md, "Twisted tori"): the
// bytes the links carry are the hand-worked hop sums, and the simulation is bounded by the closed form.
#include <gtest/gtest.h>

#include <numeric>

#include "models/cost/collective_cost.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "tests/collectives/book_link.hpp"

namespace podsim {
namespace {

using test::kAlpha;
using test::kW;

struct AllToAll {
  double makespan_s = 0;
  std::uint64_t link_bytes = 0;  // summed over every link
  std::uint64_t busiest = 0;
};

// One all-to-all group of every chip, V = N^2 chunks: each chip sends one chunk to every other.
AllToAll all_to_all_over(const Slice& slice, std::uint64_t chunk) {
  const auto n = static_cast<std::uint64_t>(slice.num_chips());
  std::vector<ChipId> chips(n);
  std::iota(chips.begin(), chips.end(), ChipId{0});
  CollectiveRequest request;
  request.op = CollectiveKind::all_to_all;
  request.axes = {AxisGroups{{chips}, false, false}};
  request.array_bytes = n * n * chunk;
  const EventGraph graph = build_collective(static_cast<std::int32_t>(n), request);
  const SimulationResult result = simulate(slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12), graph);
  AllToAll out{result.makespan_s, 0, 0};
  for (const auto& link : result.links) {
    out.link_bytes += link.bytes;
    out.busiest = std::max(out.busiest, link.bytes);
  }
  return out;
}

TEST(TwistedDes, AllToAllOverEveryChipOfA4x4x8) {
  const std::uint64_t chunk = 1 << 16;
  const Slice plain({4, 4, 8}, {true, true, true});
  const Slice twisted({4, 4, 8}, {true, true, true}, true);
  const AllToAll p = all_to_all_over(plain, chunk);
  const AllToAll t = all_to_all_over(twisted, chunk);
  // Every chunk crosses its route's hops: the hops summed over ordered pairs, 128 x 512 plain and 128 x 440 twisted
  // (worked by hand in tests/topology/twist_test.cpp).
  EXPECT_EQ(p.link_bytes, 128u * 512u * chunk);
  EXPECT_EQ(t.link_bytes, 128u * 440u * chunk);
  // The closed form is the bisection bound: V/4 crosses each way over 32 links plain, 64 twisted (V k / (4 N W_bidi)
  // with k = 8 plain, 4 twisted); no simulation beats it, and the twist halves it.
  const std::uint64_t v = 128u * 128u * chunk;
  const auto book = [&](const Slice& s) {
    const MeshMapping mapping(default_mesh(s), s);
    return book_collective_cost(CollectiveKind::all_to_all, collective_axes(s, mapping, {"X", "Y", "Z"}), v, kW,
                                kAlpha);
  };
  EXPECT_NEAR(book(plain).bandwidth_s, static_cast<double>(v) / 4 / (32 * kW), 1e-15);
  EXPECT_NEAR(book(twisted).bandwidth_s, static_cast<double>(v) / 4 / (64 * kW), 1e-15);
  EXPECT_EQ(book(twisted).hops, 6);
  // An all-gather over X, Y, Z keeps its per-dim form: the short dims are lines (W_uni x 4/3 each), the long dim a
  // ring (W_bidi): V / (2 x 4/3 W + 2 W), 3 + 3 + 4 = 10 hops.
  const MeshMapping mapping(default_mesh(twisted), twisted);
  const CostBreakdown gather = book_collective_cost(CollectiveKind::all_gather,
                                                    collective_axes(twisted, mapping, {"X", "Y", "Z"}), v, kW, kAlpha);
  EXPECT_NEAR(gather.bandwidth_s, static_cast<double>(v) / (2 * kW * 4.0 / 3.0 + 2 * kW), 1e-15);
  EXPECT_EQ(gather.hops, 10);
  EXPECT_GE(p.makespan_s, book(plain).bandwidth_s);
  EXPECT_GE(t.makespan_s, book(twisted).bandwidth_s);
  EXPECT_LT(t.makespan_s, p.makespan_s);
  // The busiest link carries at least the mean, the hop sums over the 768 links.
  EXPECT_GE(t.busiest * 768, t.link_bytes);
  EXPECT_GE(p.busiest * 768, p.link_bytes);
}

}  // namespace
}  // namespace podsim
