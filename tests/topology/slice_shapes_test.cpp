// The slice shapes each generation offers, from the presets' documented pods (TPU_HARDWARE.md §3, Google Cloud's
// topologies): v5e/v6e 16x16 2D shapes, v4/v5p/7x shapes below one cube and of whole cubes.
#include "models/topology/slice_shapes.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace podsim {
namespace {

using Shapes = std::vector<Shape>;

TEST(SliceShapes, A16x16TorusOffersGoogleCloudsEightTopologies) {
  // v5e and v6e: v5litepod-1 ... -256 are 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16.
  EXPECT_EQ(offered_slice_shapes(WrapRule::full_pod_axis, {16, 16}),
            (Shapes{{1, 1}, {2, 2}, {2, 4}, {4, 4}, {4, 8}, {8, 8}, {8, 16}, {16, 16}}));
}

TEST(SliceShapes, A32x32PodAddsItsTwoLargerShapes) {
  const Shapes shapes = offered_slice_shapes(WrapRule::full_pod_axis, {32, 32});
  ASSERT_EQ(shapes.size(), 10u);
  EXPECT_EQ(shapes[8], (Shape{16, 32}));
  EXPECT_EQ(shapes[9], (Shape{32, 32}));
}

TEST(SliceShapes, V4CubesGoUpToItsWhole16x16x16Pod) {
  EXPECT_EQ(offered_slice_shapes(WrapRule::whole_cubes, {16, 16, 16}), (Shapes{{2, 2, 1},
                                                                               {2, 2, 2},
                                                                               {2, 2, 4},
                                                                               {2, 4, 4},
                                                                               {4, 4, 4},
                                                                               {4, 4, 8},
                                                                               {4, 8, 8},
                                                                               {8, 8, 8},
                                                                               {8, 8, 16},
                                                                               {8, 16, 16},
                                                                               {16, 16, 16}}));
}

TEST(SliceShapes, V5pStopsAt16x16x16WithinIts16x20x28Pod) {
  // 16x16x32 would hold 8192 of the pod's 8960 chips, but its 32 is longer than the pod's longest dim (28).
  const Shapes shapes = offered_slice_shapes(WrapRule::whole_cubes, {16, 20, 28});
  ASSERT_EQ(shapes.size(), 11u);
  EXPECT_EQ(shapes.back(), (Shape{16, 16, 16}));
}

TEST(SliceShapes, Tpu7xReaches16x16x32Within9216Chips) {
  // 4x4x576 = 9216 chips (144 cubes): 16x16x32 (8192) fits, 16x32x32 (16384) does not.
  const Shapes shapes = offered_slice_shapes(WrapRule::whole_cubes, {4, 4, 576});
  ASSERT_EQ(shapes.size(), 12u);
  EXPECT_EQ(shapes.back(), (Shape{16, 16, 32}));
}

TEST(SliceShapes, OtherRulesOrRanksOfferNone) {
  EXPECT_TRUE(offered_slice_shapes(WrapRule::never, {16, 16}).empty());
  EXPECT_TRUE(offered_slice_shapes(WrapRule::always, {4, 4, 4}).empty());
  EXPECT_TRUE(offered_slice_shapes(WrapRule::full_pod_axis, {16}).empty());
  EXPECT_TRUE(offered_slice_shapes(WrapRule::whole_cubes, {16, 16}).empty());
}

// Every shape a pod forms (formable_slice_shapes), counted by hand: v4's whole cubes a <= b <= c of {4, 8, 12, 16}
// are the 3-multisets of 4 values, C(6, 3) = 20, plus the 4 shapes below a cube: 24. v5p (largest slice 16x16x24):
// pairs a <= b of {4, ..., 16} by b: 1, 2, 3, 4, times the c from b to 24: 6, 5, 4, 3: 6 + 10 + 12 + 12 = 40, plus 4:
// 44, among them the 16x16x24 that the power-of-two list misses.
TEST(SliceShapes, FormableShapesOfWholeCubesUpToTheLargestSlice) {
  const Shapes v4 = formable_slice_shapes(WrapRule::whole_cubes, {16, 16, 16}, 4096, {16, 16, 16});
  EXPECT_EQ(v4.size(), 24u);
  EXPECT_EQ(v4.front(), (Shape{2, 2, 1}));
  EXPECT_EQ(v4.back(), (Shape{16, 16, 16}));
  const Shapes v5p = formable_slice_shapes(WrapRule::whole_cubes, {16, 20, 28}, 8960, {16, 16, 24});
  EXPECT_EQ(v5p.size(), 44u);
  EXPECT_EQ(v5p.back(), (Shape{16, 16, 24}));
  EXPECT_NE(std::find(v5p.begin(), v5p.end(), Shape{12, 12, 24}), v5p.end());
  // Smallest first, equal chips by dims: 4x4x12 (192 chips), then 4x4x16 and 4x8x8 (256 each, by dims).
  const auto at = [&](const Shape& s) { return std::find(v5p.begin(), v5p.end(), s) - v5p.begin(); };
  EXPECT_LT(at({4, 4, 12}), at({4, 4, 16}));
  EXPECT_LT(at({4, 4, 16}), at({4, 8, 8}));
}

// 7x: no largest slice published, so every shape of whole cubes within the pod's 144 cubes: the triples of cube
// counts A <= B <= C with A B C <= 144, counted by brute force here (516), plus the 4 below a cube; up to 4x4x576.
TEST(SliceShapes, IronwoodFormsEveryShapeOfItsPodsCubes) {
  const Shapes shapes = formable_slice_shapes(WrapRule::whole_cubes, {4, 4, 576}, 9216, {});
  std::size_t triples = 0;
  for (int a = 1; a <= 144; ++a)
    for (int b = a; a * b <= 144; ++b)
      for (int c = b; a * b * c <= 144; ++c)
        ++triples;
  EXPECT_EQ(shapes.size(), triples + 4);
  EXPECT_EQ(shapes.size(), 520u);
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), Shape{4, 4, 576}), shapes.end());
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), Shape{8, 8, 144}), shapes.end());
  EXPECT_EQ(std::find(shapes.begin(), shapes.end(), Shape{8, 8, 148}), shapes.end());  // 148 cubes
  // A 2D pod's shapes are the offered ones.
  EXPECT_EQ(formable_slice_shapes(WrapRule::full_pod_axis, {16, 16}, 0, {}),
            offered_slice_shapes(WrapRule::full_pod_axis, {16, 16}));
}

}  // namespace
}  // namespace podsim
