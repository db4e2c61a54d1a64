// Twisted tori (twist.hpp): the wiring of the short dims' wrap links, the shape rule, minimal routes against a
// breadth-first search from every chip, and the figures of a twisted 4x4x8 and 4x8x8 worked by hand
// (docs/topology.md, "Twisted tori").
#include "models/topology/twist.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice_graph.hpp"
#include "models/topology/topology_figures.hpp"

namespace podsim {
namespace {

Slice twisted(std::vector<std::int64_t> shape) {
  return Slice(std::move(shape), {true, true, true}, true);
}

TEST(Twist, ShortWrapLinksLandKFurtherAlongEveryLongDim) {
  const Slice s = twisted({4, 4, 8});
  EXPECT_TRUE(s.twisted());
  EXPECT_EQ(s.twist_k(), 4);
  // x+ from (3, 1, 2) wraps to (0, 1, 6); y- from (2, 0, 5) to (2, 3, 1); z keeps its plain wrap.
  EXPECT_EQ(*s.neighbour(s.chip_at({3, 1, 2}), 0, Direction::plus), s.chip_at({0, 1, 6}));
  EXPECT_EQ(*s.neighbour(s.chip_at({2, 0, 5}), 1, Direction::minus), s.chip_at({2, 3, 1}));
  EXPECT_EQ(*s.neighbour(s.chip_at({1, 1, 7}), 2, Direction::plus), s.chip_at({1, 1, 0}));
  // Every chip keeps its 6 links, named by their source as on a plain torus.
  EXPECT_EQ(s.num_links(), 128 * 6);
  const Link& wrap = s.link(s.link_id(s.chip_at({3, 0, 0}), 0, Direction::plus));
  EXPECT_EQ(wrap.name, "ici.x+.3.0.0");
  EXPECT_EQ(wrap.dst, s.chip_at({0, 0, 4}));
  // k x 2k x 2k: the short dim's wrap moves both long dims by k.
  const Slice t = twisted({4, 8, 8});
  EXPECT_EQ(*t.neighbour(t.chip_at({3, 1, 6}), 0, Direction::plus), t.chip_at({0, 5, 2}));
  EXPECT_EQ(*t.neighbour(t.chip_at({3, 1, 6}), 1, Direction::plus), t.chip_at({3, 2, 6}));
}

TEST(Twist, ShapeRuleIsEnforced) {
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{
           {4, 4, 4}, {8, 8, 8}, {4, 8, 4}, {8, 4, 4}, {2, 2, 4}, {6, 6, 12}, {4, 8}, {4, 4, 16}}) {
    try {
      Slice(shape, std::vector<bool>(shape.size(), true), true);
      ADD_FAILURE() << "accepted " << shape.size();
    } catch (const VerifyError& e) {
      EXPECT_NE(std::string(e.what()).find("k x k x 2k or k x 2k x 2k"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(Slice({4, 4, 8}, {true, false, true}, true), VerifyError);
  EXPECT_EQ(twist_issue({4, 4, 8}, {true, false, true}).value(), kTwistWrapRule);
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{4, 4, 8}, {4, 8, 8}, {8, 8, 16}, {8, 16, 16}})
    EXPECT_FALSE(twist_issue(shape, {true, true, true}));
}

// Every ordered pair: the route is a chain of links from src to dst as long as the BFS distance (hop_count too).
void check_twisted_pairs(const Slice& slice) {
  const SliceGraph graph(slice);
  for (ChipId src = 0; src < slice.num_chips(); ++src) {
    const std::vector<std::int64_t> bfs = graph.bfs_hops(src);
    for (ChipId dst = 0; dst < slice.num_chips(); ++dst) {
      ChipId at = src;
      std::int64_t hops = 0;
      for (const LinkId id : dor_route(slice, src, dst)) {
        ASSERT_EQ(slice.link(id).src, at);
        at = slice.link(id).dst;
        ++hops;
      }
      ASSERT_EQ(at, dst);
      ASSERT_EQ(hops, bfs[dst]) << src << "->" << dst;
      ASSERT_EQ(hop_count(slice, src, dst), hops);
    }
  }
}

TEST(Twist, RoutesAreMinimalOnEveryPair) {
  check_twisted_pairs(twisted({4, 4, 8}));
  check_twisted_pairs(twisted({4, 8, 8}));
}

TEST(Twist, RouteTakesTheTwistedWrap) {
  // (0,0,0) -> (3,0,4): 5 hops on the plain torus (1 along x, 4 along z); 1 on the twisted one, over the x- wrap,
  // which lands at x = 3 and z = 0 + 4. The x+ link goes to (1,0,0), 2 hops away, so it is not taken.
  const Slice s = twisted({4, 4, 8});
  const std::vector<LinkId> route = dor_route(s, 0, s.chip_at({3, 0, 4}));
  ASSERT_EQ(route.size(), 1u);
  EXPECT_EQ(s.link(route[0]).name, "ici.x-.0.0.0");
  EXPECT_EQ(hop_count(Slice({4, 4, 8}, {true, true, true}), 0, s.chip_at({3, 0, 4})), 5);
  EXPECT_EQ(dor_path(s, 0, s.chip_at({3, 0, 4})), (std::vector<ChipId>{0, s.chip_at({3, 0, 4})}));
}

// The hops from the origin to (x, y, z) on a twisted 4x4x8, by hand: each short coordinate is reached going up (x
// hops) or across its wrap (4 - x hops, moving z by 4); an odd number of wraps moves z by 4, so
// d = min(E + f(z), O + f(z + 4)), with f the distance round a ring of 8, E = min(x + y, 8 - x - y) and
// O = min(4 - x + y, 4 + x - y). Over the 128 chips that gives, by distance 0..6, 1, 6, 18, 38, 43, 20, 2 chips
// (the two at 6: (2,2,2) and (2,2,6)): diameter 6, hops summed 440, mean 440 / 127. The plain 4x4x8: diameter
// 2 + 2 + 4 = 8, mean 512 / 127. Bisection: the x cut crosses 2 x 32 = 64 links one way (each of the 32 x rings
// twice), the y cut as many, the z cut 32 z links plus the 64 short wraps (x+ and x- from x = 3 and 0, y+ and y-,
// 16 each) that leave z < 4: 96. The fewest, 64, is twice the plain torus's 32 (its z cut).
TEST(Twist, FiguresOfATwisted4x4x8ByHand) {
  const TopologyFigures f = topology_figures(twisted({4, 4, 8}), WrapRule::whole_cubes);
  EXPECT_TRUE(f.twisted);
  EXPECT_EQ(f.chips, 128);
  EXPECT_EQ(f.links, 768);
  EXPECT_EQ(f.diameter_hops, 6);
  EXPECT_DOUBLE_EQ(f.mean_hops, 440.0 / 127.0);
  EXPECT_EQ(f.bisection_links, 64);
  EXPECT_EQ(f.cubes, 2);
  EXPECT_EQ(diameter(twisted({4, 4, 8})), 6);
  const TopologyFigures plain = topology_figures(Slice({4, 4, 8}, {true, true, true}), WrapRule::whole_cubes);
  EXPECT_FALSE(plain.twisted);
  EXPECT_EQ(plain.diameter_hops, 8);
  EXPECT_DOUBLE_EQ(plain.mean_hops, 512.0 / 127.0);
  EXPECT_EQ(plain.bisection_links, 32);
}

// A twisted 4x8x8: d = min(x + f(y) + f(z), 4 - x + f(y + 4) + f(z + 4)); 1, 6, 18, 38, 63, 84, 46 chips at 0..6
// hops: diameter 6 (plain: 2 + 4 + 4 = 10), hops summed 1104 over 255 others. Bisection: the x cut crosses
// 2 x 64 = 128; the y cut 2 x 32 y links plus the 2 x 32 x wraps (x+ and x-) from y < 4, 128; z the same: 128,
// twice the plain torus's 64.
TEST(Twist, FiguresOfATwisted4x8x8ByHand) {
  const TopologyFigures f = topology_figures(twisted({4, 8, 8}), WrapRule::whole_cubes);
  EXPECT_EQ(f.diameter_hops, 6);
  EXPECT_DOUBLE_EQ(f.mean_hops, 1104.0 / 255.0);
  EXPECT_EQ(f.bisection_links, 128);
  EXPECT_EQ(topology_figures(Slice({4, 8, 8}, {true, true, true}), WrapRule::whole_cubes).bisection_links, 64);
}

TEST(Twist, ChipDifferenceIsTheGroupInverse) {
  const Slice s = twisted({4, 4, 8});
  for (ChipId a = 0; a < s.num_chips(); a += 7)
    for (ChipId b = 0; b < s.num_chips(); ++b)
      EXPECT_EQ(twisted_hops(s, a, b), twisted_hops(s, b, a));  // links come in pairs: distances are symmetric
  EXPECT_EQ(chip_difference(s, s.chip_at({3, 0, 0}), s.chip_at({0, 0, 4})), s.chip_at({1, 0, 0}));
}

}  // namespace
}  // namespace podsim
