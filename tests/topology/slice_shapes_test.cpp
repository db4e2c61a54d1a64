// The slice shapes each generation offers, from the presets' documented pods (TPU_HARDWARE.md §3, Google Cloud's
// topologies): v5e/v6e 16x16 2D shapes, v4/v5p/7x shapes below one cube and of whole cubes.
#include "models/topology/slice_shapes.hpp"

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

}  // namespace
}  // namespace podsim
