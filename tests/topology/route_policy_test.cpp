// Routing policies: split_minimal's routes on every pair of a torus, a mesh and a mixed slice are minimal (BFS
// length), chains of real links from src to dst, pairwise link-disjoint, one per dim the chips differ in, route 0
// the dimension-ordered one; the book's Question 5 corner to corner by hand; the byte split; the names.
#include "models/topology/route_policy.hpp"

#include <set>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice_graph.hpp"

namespace podsim {
namespace {

int split_dims_apart(const Slice& slice, ChipId a, ChipId b) {
  const auto x = slice.coords_of(a), y = slice.coords_of(b);
  int n = 0;
  for (std::size_t d = 0; d < x.size(); ++d)
    n += x[d] != y[d] ? 1 : 0;
  return n;
}

void check_split_pairs(const Slice& slice) {
  const SliceGraph graph(slice);
  for (ChipId src = 0; src < slice.num_chips(); ++src) {
    const std::vector<std::int64_t> bfs = graph.bfs_hops(src);
    for (ChipId dst = 0; dst < slice.num_chips(); ++dst) {
      const auto routes = policy_routes(slice, src, dst, RoutePolicy::split_minimal);
      const int m = split_dims_apart(slice, src, dst);
      ASSERT_EQ(routes.size(), static_cast<std::size_t>(m < 2 ? 1 : m)) << src << "->" << dst;
      ASSERT_EQ(route_ports(slice, src, dst, RoutePolicy::split_minimal), m < 1 ? 1 : m);
      ASSERT_EQ(routes.front(), dor_route(slice, src, dst));
      std::set<LinkId> seen;
      for (const auto& route : routes) {
        ASSERT_EQ(static_cast<std::int64_t>(route.size()), bfs[dst])
            << slice.shape_string() << " " << src << "->" << dst;
        ChipId at = src;
        for (const LinkId id : route) {
          ASSERT_EQ(slice.link(id).src, at);
          at = slice.link(id).dst;
          ASSERT_TRUE(seen.insert(id).second) << "link " << slice.link(id).name << " on two routes";
        }
        ASSERT_EQ(at, dst);
      }
    }
  }
}

TEST(RoutePolicy, SplitRoutesAreMinimalAndLinkDisjointOnEveryPair) {
  check_split_pairs(Slice({4, 4, 4}, {true, true, true}));
  check_split_pairs(Slice({3, 4, 5}, {false, false, false}));
  check_split_pairs(Slice({4, 6}, {true, false}));
  check_split_pairs(Slice({2, 3, 4}, {false, true, true}));
}

// The book's Question 5 (tpus.md): v5e 4x4 without wraparound, TPU{0,0} to TPU{3,3}: two routes of 3 + 3 hops, one
// leaving along x and arriving along y, the other leaving along y and arriving along x: both ports out and in.
TEST(RoutePolicy, CornerToCornerOfAFourByFourMeshUsesBothPorts) {
  const Slice slice({4, 4}, {false, false});
  const auto routes = policy_routes(slice, 0, 15, RoutePolicy::split_minimal);
  ASSERT_EQ(routes.size(), 2u);
  for (const auto& route : routes)
    EXPECT_EQ(route.size(), 6u);
  EXPECT_EQ(slice.link(routes[0].front()).dim, 0);
  EXPECT_EQ(slice.link(routes[0].back()).dim, 1);
  EXPECT_EQ(slice.link(routes[1].front()).dim, 1);
  EXPECT_EQ(slice.link(routes[1].back()).dim, 0);
  EXPECT_EQ(route_ports(slice, 0, 15, RoutePolicy::dimension_order), 1);
  EXPECT_EQ(policy_routes(slice, 0, 15, RoutePolicy::dimension_order).size(), 1u);
  // One dim apart: one route under either policy.
  EXPECT_EQ(policy_routes(slice, 0, 3, RoutePolicy::split_minimal).size(), 1u);
}

TEST(RoutePolicy, BytesSplitEquallyWithTheRemainderOnTheFirstParts) {
  EXPECT_EQ(split_bytes(10, 3, 0), 4u);
  EXPECT_EQ(split_bytes(10, 3, 1), 3u);
  EXPECT_EQ(split_bytes(10, 3, 2), 3u);
  EXPECT_EQ(split_bytes(16777216, 2, 1), 8388608u);
}

TEST(RoutePolicy, NamesParseAndRefuseOthers) {
  EXPECT_EQ(kRoutePolicyNames.parse("split-minimal"), RoutePolicy::split_minimal);
  EXPECT_EQ(kRoutePolicyNames.name(RoutePolicy::dimension_order), "dimension_order");
  try {
    kRoutePolicyNames.parse("adaptive");
    FAIL() << "expected an error";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "unknown routing, got: adaptive (expected one of dimension_order, split_minimal)");
  }
}

TEST(RoutePolicy, SplitMinimalIsRefusedOnATwistedSlice) {
  EXPECT_FALSE(route_policy_issue(RoutePolicy::split_minimal, false));
  EXPECT_FALSE(route_policy_issue(RoutePolicy::dimension_order, true));
  ASSERT_TRUE(route_policy_issue(RoutePolicy::split_minimal, true));
  const Slice twisted({4, 4, 8}, {true, true, true}, true);
  // (0,0,0) to (3,0,4): one hop over the twisted x- wrap link (docs/topology.md), so one route either way.
  EXPECT_EQ(policy_routes(twisted, 0, twisted.chip_at({3, 0, 4}), RoutePolicy::dimension_order).size(), 1u);
  EXPECT_THROW(policy_routes(twisted, 0, twisted.chip_at({3, 0, 4}), RoutePolicy::split_minimal), VerifyError);
}

}  // namespace
}  // namespace podsim
