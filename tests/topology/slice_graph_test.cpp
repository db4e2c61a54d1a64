// The Boost.Graph view: one vertex per chip, one edge per link, BFS distances, and bisection counts
// worked by hand (a torus dim is cut twice per line, a mesh dim once).
#include "models/topology/slice_graph.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

TEST(SliceGraph, OneVertexPerChipOneEdgePerLink) {
  const Slice cube({4, 4, 4}, WrapRule::whole_cubes);
  const SliceGraph graph(cube);
  EXPECT_EQ(graph.num_vertices(), 64);
  EXPECT_EQ(graph.num_edges(), 384);
  for (auto [it, end] = boost::edges(graph.graph()); it != end; ++it) {
    const Link& link = cube.link(graph.graph()[*it].link);
    EXPECT_EQ(static_cast<ChipId>(boost::source(*it, graph.graph())), link.src);
    EXPECT_EQ(static_cast<ChipId>(boost::target(*it, graph.graph())), link.dst);
  }
}

TEST(SliceGraph, BfsHops) {
  // 4x4 mesh from chip 0 = (0,0): distance is the Manhattan distance r + c.
  const Slice mesh({4, 4}, WrapRule::never);
  const std::vector<std::int64_t> hops = SliceGraph(mesh).bfs_hops(0);
  for (ChipId chip = 0; chip < 16; ++chip)
    EXPECT_EQ(hops[chip], chip / 4 + chip % 4);
  // 8-ring from 0: 0 1 2 3 4 3 2 1.
  EXPECT_EQ(SliceGraph(Slice({8}, {true})).bfs_hops(0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 3, 2, 1}));
  EXPECT_THROW(SliceGraph(mesh).bfs_hops(16), VerifyError);
}

TEST(SliceGraph, Bisection) {
  // 4x4x4 torus: cut across dim 0 (first of the longest), 16 lines x 2 crossings = 32 = 2N/max = 2*64/4.
  const Bisection cube = bisection_links(Slice({4, 4, 4}, WrapRule::whole_cubes));
  EXPECT_EQ(cube.dim, 0);
  EXPECT_EQ(cube.links_per_direction, 32);
  // 4x4 mesh: 4 lines x 1 crossing.
  EXPECT_EQ(bisection_links(Slice({4, 4}, WrapRule::never)).links_per_direction, 4);
  // v5e 8x16: longest dim 1 wraps, 8 lines x 2 = 16.
  const Bisection v5e = bisection_links(Slice({8, 16}, WrapRule::full_pod_axis, {16, 16}));
  EXPECT_EQ(v5e.dim, 1);
  EXPECT_EQ(v5e.links_per_direction, 16);
  // 4x4x8 torus: dim 2, 16 lines x 2 = 32.
  EXPECT_EQ(bisection_links(Slice({4, 4, 8}, WrapRule::whole_cubes)).links_per_direction, 32);
  // 2x2x4 mesh: dim 2, 4 lines x 1.
  EXPECT_EQ(bisection_links(Slice({2, 2, 4}, WrapRule::whole_cubes)).links_per_direction, 4);
  // 5-ring: low side {0, 1}; 1->2 and 0->4 (wrap) cross.
  EXPECT_EQ(bisection_links(Slice({5}, {true})).links_per_direction, 2);
  // One chip: nothing to cut.
  EXPECT_EQ(bisection_links(Slice({1}, {false})).links_per_direction, 0);
}

}  // namespace
}  // namespace podsim
