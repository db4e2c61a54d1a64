// A slice's hop figures (topology_figures.hpp): the closed forms against breadth-first search over the slice's
// links (every pair of chips), and values worked by hand.
#include "models/topology/topology_figures.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/topology/slice_graph.hpp"

namespace podsim {
namespace {

// Diameter and mean hops by BFS from every chip.
std::pair<std::int64_t, double> searched(const Slice& slice) {
  const SliceGraph graph(slice);
  std::int64_t longest = 0;
  double sum = 0;
  for (ChipId c = 0; c < slice.num_chips(); ++c)
    for (const auto hops : graph.bfs_hops(c)) {
      longest = std::max(longest, hops);
      sum += static_cast<double>(hops);
    }
  const double n = static_cast<double>(slice.num_chips());
  return {longest, n > 1 ? sum / (n * (n - 1)) : 0};
}

TEST(TopologyFigures, ClosedFormsAgreeWithSearch) {
  for (const auto& [shape, wrap] :
       std::vector<std::pair<std::vector<std::int64_t>, std::vector<bool>>>{{{1}, {false}},
                                                                            {{7}, {true}},
                                                                            {{6}, {false}},
                                                                            {{4, 4}, {true, true}},
                                                                            {{3, 5}, {false, true}},
                                                                            {{2, 3, 5}, {true, true, false}},
                                                                            {{4, 4, 8}, {true, true, true}},
                                                                            {{4, 6, 5}, {false, true, true}}}) {
    const Slice slice(shape, wrap);
    const TopologyFigures f = topology_figures(slice, WrapRule::never);
    const auto [diameter, mean] = searched(slice);
    EXPECT_EQ(f.diameter_hops, diameter) << slice.shape_string();
    EXPECT_NEAR(f.mean_hops, mean, 1e-12) << slice.shape_string();
    EXPECT_FALSE(f.cubes.has_value());
  }
}

// 4x4x8 torus (v5p's twistable shape, here plain): diameter 2 + 2 + 4 = 8. Mean: each 4-ring sums 4 x 4 = 16 over
// its (i, j) pairs, times (128 / 4)^2 = 1024 pairs of the other dims, twice; the 8-ring sums 8 x 16 = 128, times
// (128 / 8)^2 = 256: 65536 over 128 x 127 ordered pairs = 4.0315. The bisection cuts the 8-dim's 16 lines twice
// (middle and wrap): 32 links each way. Links: 3 dims x 2 directions x 128 chips = 768. Cubes: 128 / 64 = 2.
TEST(TopologyFigures, TorusWorkedByHand) {
  const Slice slice({4, 4, 8}, {true, true, true});
  const TopologyFigures f = topology_figures(slice, WrapRule::whole_cubes);
  EXPECT_EQ(f.chips, 128);
  EXPECT_EQ(f.links, 768);
  EXPECT_EQ(f.diameter_hops, 8);
  EXPECT_DOUBLE_EQ(f.mean_hops, 65536.0 / (128 * 127));
  EXPECT_EQ(f.bisection_links, 32);
  EXPECT_EQ(f.cubes, 2);
  EXPECT_FALSE(f.twisted);
}

// A 4x4 mesh: diameter 3 + 3; each line sums 4 x 15 / 3 = 20, times (16 / 4)^2 = 16, twice: 640 / (16 x 15).
// Links: 2 dims x 4 lines x 3 neighbour pairs x 2 directions = 48; the bisection cuts 4 lines once.
TEST(TopologyFigures, MeshWorkedByHand) {
  const TopologyFigures f = topology_figures(Slice({4, 4}, {false, false}), WrapRule::full_pod_axis);
  EXPECT_EQ(f.links, 48);
  EXPECT_EQ(f.diameter_hops, 6);
  EXPECT_DOUBLE_EQ(f.mean_hops, 640.0 / 240);
  EXPECT_EQ(f.bisection_links, 4);
  EXPECT_FALSE(f.cubes.has_value());
}

TEST(TopologyFigures, CubesOfAShape) {
  EXPECT_EQ(cubes_of({16, 16, 32}), 128);
  EXPECT_EQ(cubes_of({4, 4, 4}), 1);
  EXPECT_EQ(cubes_of({2, 4, 4}), 1);  // below a cube, in one
  EXPECT_EQ(cubes_of({2, 2, 1}), 1);
}

}  // namespace
}  // namespace podsim
