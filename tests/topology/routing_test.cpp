// Dimension-order routes: hop counts equal BFS distances on every pair, routes use existing links in
// dim order, the tie rule (+ at distance N/2), shortest way round, size-2 dims, and the diameter.
#include "models/topology/routing.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/slice_graph.hpp"

namespace podsim {
namespace {

// Every ordered pair: DOR length == BFS distance, and the route is a chain of real links from src to
// dst that never goes back to an earlier dim.
void check_all_pairs(const Slice& slice) {
  const SliceGraph graph(slice);
  for (ChipId src = 0; src < slice.num_chips(); ++src) {
    const std::vector<std::int64_t> bfs = graph.bfs_hops(src);
    for (ChipId dst = 0; dst < slice.num_chips(); ++dst) {
      const std::vector<LinkId> route = dor_route(slice, src, dst);
      ASSERT_EQ(static_cast<std::int64_t>(route.size()), bfs[dst]) << slice.shape_string() << " " << src << "->" << dst;
      ASSERT_EQ(hop_count(slice, src, dst), bfs[dst]);
      ChipId at = src;
      int last_dim = 0;
      for (LinkId id : route) {
        const Link& link = slice.link(id);
        ASSERT_EQ(link.src, at);
        ASSERT_GE(link.dim, last_dim);
        last_dim = link.dim;
        at = link.dst;
      }
      ASSERT_EQ(at, dst);
      const std::vector<ChipId> path = dor_path(slice, src, dst);
      ASSERT_EQ(path.size(), route.size() + 1);
      ASSERT_EQ(path.back(), dst);
    }
  }
}

TEST(Routing, DorIsShortestOn4x4x4Torus) {
  check_all_pairs(Slice({4, 4, 4}, WrapRule::whole_cubes));
}
TEST(Routing, DorIsShortestOn4x4Mesh) {
  check_all_pairs(Slice({4, 4}, WrapRule::never));
}
TEST(Routing, DorIsShortestOn3x5Torus) {
  check_all_pairs(Slice({3, 5}, WrapRule::always));
}
TEST(Routing, DorIsShortestOn8x4Mesh) {
  check_all_pairs(Slice({8, 4}, WrapRule::full_pod_axis, {16, 16}));
}
TEST(Routing, DorIsShortestOnMixedAndSizeTwoSlices) {
  check_all_pairs(Slice({8, 16}, WrapRule::full_pod_axis, {16, 16}));
  check_all_pairs(Slice({2, 2, 4}, WrapRule::whole_cubes));
  check_all_pairs(Slice({2, 6, 2}, {true, true, true}));
  check_all_pairs(Slice({7}, {true}));
}

TEST(Routing, TieAtHalfTheRingGoesPlus) {
  const Slice ring({4}, {true});
  const DimMove move = shortest_move(ring, 0, 0, 2);
  EXPECT_EQ(move.dir, Direction::plus);
  EXPECT_EQ(move.hops, 2);
  EXPECT_EQ(dor_path(ring, 0, 2), (std::vector<ChipId>{0, 1, 2}));
  EXPECT_EQ(dor_path(ring, 3, 1), (std::vector<ChipId>{3, 0, 1}));  // + through the wrap link
}

TEST(Routing, WrappedDimTakesTheShorterWay) {
  const Slice ring({8}, {true});
  EXPECT_EQ(dor_path(ring, 0, 6), (std::vector<ChipId>{0, 7, 6}));
  const Slice torus({3, 5}, WrapRule::always);
  // Along dim 1 (size 5) from 0 to 3: 3 hops going +, 2 going -.
  const DimMove move = shortest_move(torus, 1, 0, 3);
  EXPECT_EQ(move.dir, Direction::minus);
  EXPECT_EQ(move.hops, 2);
}

TEST(Routing, MeshGoesStraight) {
  const Slice line({8}, {false});
  const DimMove move = shortest_move(line, 0, 7, 0);
  EXPECT_EQ(move.dir, Direction::minus);
  EXPECT_EQ(move.hops, 7);
}

TEST(Routing, SizeTwoDimUsesItsOnlyLinkEachWay) {
  const Slice pair({2}, {true});
  EXPECT_EQ(dor_route(pair, 0, 1), (std::vector<LinkId>{pair.link_id(0, 0, Direction::plus)}));
  EXPECT_EQ(dor_route(pair, 1, 0), (std::vector<LinkId>{pair.link_id(1, 0, Direction::minus)}));
}

TEST(Routing, DimsInOrderWithNamedLinks) {
  const Slice torus({4, 4}, {true, true});
  // (0,0) -> (2,2): dim 0 first, +2 (tie), then dim 1, +2 (tie): chips 0, 4, 8, 9, 10.
  EXPECT_EQ(dor_path(torus, 0, 10), (std::vector<ChipId>{0, 4, 8, 9, 10}));
  std::vector<std::string> names;
  for (LinkId id : dor_route(torus, 0, 10))
    names.push_back(torus.link(id).name);
  EXPECT_EQ(names, (std::vector<std::string>{"ici.x+.0.0", "ici.x+.1.0", "ici.y+.2.0", "ici.y+.2.1"}));
  EXPECT_TRUE(dor_route(torus, 5, 5).empty());
  EXPECT_EQ(dor_path(torus, 5, 5), (std::vector<ChipId>{5}));
}

TEST(Routing, Diameter) {
  EXPECT_EQ(diameter(Slice({4, 4, 4}, WrapRule::whole_cubes)), 6);  // 2 + 2 + 2
  EXPECT_EQ(diameter(Slice({8, 4}, WrapRule::never)), 10);          // 7 + 3
  EXPECT_EQ(diameter(Slice({3, 5}, WrapRule::always)), 3);          // 1 + 2
  EXPECT_EQ(diameter(Slice({2, 2}, {true, true})), 2);              // 1 + 1
}

TEST(Routing, RejectsBadCoordinates) {
  const Slice ring({4}, {true});
  EXPECT_THROW(shortest_move(ring, 0, 0, 4), VerifyError);
  EXPECT_THROW(shortest_move(ring, 1, 0, 1), VerifyError);
  EXPECT_THROW(dor_route(ring, 0, 9), VerifyError);
}

}  // namespace
}  // namespace podsim
