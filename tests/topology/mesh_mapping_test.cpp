// Mesh axes onto slice dims: the default in-order mapping, an axis over two dims, the chip groups a
// collective runs on, and every rule's error message.
#include "models/topology/mesh_mapping.hpp"

#include <functional>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using Groups = std::vector<std::vector<ChipId>>;

Mesh mesh_of(std::vector<MeshAxis> axes) {
  return make_mesh(std::move(axes));
}

TEST(MeshMapping, DefaultMapsAxisIToDimIAndPositionsAreChipIds) {
  const Slice cube({4, 4, 4}, WrapRule::whole_cubes);
  const MeshMapping mapping(mesh_of({{"X", 4}, {"Y", 4}, {"Z", 4}}), cube);
  EXPECT_EQ(mapping.dims_of("Y"), (std::vector<int>{1}));
  // Both orders are row-major with the last axis/dim fastest, so position p is chip p.
  for (std::int64_t p = 0; p < 64; ++p)
    EXPECT_EQ(mapping.chip_at_position(p), p);
  // Groups over X: one per (y, z), 16 of them; the first is (x, 0, 0) = x * 16.
  const Groups x = mapping.groups("X");
  ASSERT_EQ(x.size(), 16u);
  EXPECT_EQ(x[0], (std::vector<ChipId>{0, 16, 32, 48}));
  EXPECT_EQ(x[1], (std::vector<ChipId>{1, 17, 33, 49}));  // (y, z) = (0, 1)
  EXPECT_EQ(mapping.groups("Z")[0], (std::vector<ChipId>{0, 1, 2, 3}));
}

TEST(MeshMapping, AxisOverTwoDims) {
  // 4x2x4 slice, X over dims [0, 1] (size 8), Y over dim 2 (size 4). Chip id = c0*8 + c1*4 + c2.
  const Slice s({4, 2, 4}, WrapRule::whole_cubes);
  const MeshMapping mapping(mesh_of({{"X", 8}, {"Y", 4}}), s, {{0, 1}, {2}});
  // X index i = c0*2 + c1 -> chip (i/2)*8 + (i%2)*4 + y = 4i + y.
  const Groups x = mapping.groups("X");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[0], (std::vector<ChipId>{0, 4, 8, 12, 16, 20, 24, 28}));
  EXPECT_EQ(x[3], (std::vector<ChipId>{3, 7, 11, 15, 19, 23, 27, 31}));
  const Groups y = mapping.groups("Y");
  ASSERT_EQ(y.size(), 8u);
  EXPECT_EQ(y[1], (std::vector<ChipId>{4, 5, 6, 7}));  // X index 1 = (c0, c1) = (0, 1)
}

TEST(MeshMapping, ListedDimOrderSetsTheTraversal) {
  // X over dims [1, 0]: i = c1*4 + c0, so X walks dim 0 first: (0,0),(1,0),(2,0),(3,0),(0,1),...
  const Slice s({4, 2, 4}, WrapRule::whole_cubes);
  const MeshMapping mapping(mesh_of({{"X", 8}, {"Y", 4}}), s, {{1, 0}, {2}});
  EXPECT_EQ(mapping.groups("X")[0], (std::vector<ChipId>{0, 8, 16, 24, 4, 12, 20, 28}));
}

TEST(MeshMapping, GroupsOverSeveralAxes) {
  const Slice cube({4, 4, 4}, WrapRule::whole_cubes);
  const MeshMapping mapping(mesh_of({{"X", 4}, {"Y", 4}, {"Z", 4}}), cube);
  const Groups xy = mapping.groups(std::vector<std::string>{"X", "Y"});
  ASSERT_EQ(xy.size(), 4u);
  ASSERT_EQ(xy[1].size(), 16u);
  // z = 1: chips (x, y, 1) row-major over (X, Y) = 16x + 4y + 1.
  for (std::int64_t k = 0; k < 16; ++k)
    EXPECT_EQ(xy[1][k], 16 * (k / 4) + 4 * (k % 4) + 1);
  EXPECT_EQ(test::verify_error([&] {
              mapping.groups(std::vector<std::string>{"X", "X"});
            }),
            "mesh mapping: an axis appears once per group, got: \"X\" twice");
}

TEST(MeshMapping, FewerOrMoreAxesThanDims) {
  // Two axes on a 4x4x1 slice: the extra dim has size 1.
  const MeshMapping flat(mesh_of({{"X", 4}, {"Y", 4}}), Slice({4, 4, 1}, WrapRule::never));
  EXPECT_EQ(flat.groups("Y")[2], (std::vector<ChipId>{8, 9, 10, 11}));
  // Two axes on 4x4x4: dim 2 is left uncovered.
  EXPECT_EQ(test::verify_error([] {
              MeshMapping(mesh_of({{"X", 4}, {"Y", 4}}), Slice({4, 4, 4}, WrapRule::whole_cubes));
            }),
            "mesh mapping: every slice dim of size > 1 is covered by a mesh axis, got: dim 2 (size 4) of slice "
            "4x4x4 uncovered by axes \"X\", \"Y\"");
  // A third axis of size 1 on a 2D slice covers no dim.
  const MeshMapping extra(mesh_of({{"X", 4}, {"Y", 4}, {"Z", 1}}), Slice({4, 4}, WrapRule::never));
  EXPECT_TRUE(extra.dims_of("Z").empty());
  EXPECT_EQ(extra.groups("Z").size(), 16u);
  EXPECT_EQ(test::verify_error([] {
              MeshMapping(mesh_of({{"X", 4}, {"Y", 4}, {"Z", 2}}), Slice({4, 4}, WrapRule::never));
            }),
            "mesh mapping: axis \"Z\" (size 2) has no slice dim to map onto in order, slice 4x4 has 2 dims");
}

TEST(MeshMapping, Errors) {
  const Slice s({4, 2, 4}, WrapRule::whole_cubes);
  const Mesh mesh = mesh_of({{"X", 4}, {"Y", 8}});
  EXPECT_EQ(test::verify_error([&] {
              MeshMapping(mesh, s, {{0, 1}, {2}});
            }),
            "mesh mapping: axis \"X\" size must equal the product of its dims' sizes, got: size 4 over dims [0, 1] "
            "of slice 4x2x4 (product 8)");
  EXPECT_EQ(test::verify_error([&] { MeshMapping(mesh, s); }),
            "mesh mapping: axis \"Y\" size must equal the product of its dims' sizes, got: size 8 over dims [1] of "
            "slice 4x2x4 (product 2)");
  EXPECT_EQ(test::verify_error([&] {
              MeshMapping(mesh, s, {{0}, {1, 0}});
            }),
            "mesh mapping: each slice dim is used once, got: dim 0 used by axis \"X\" and axis \"Y\"");
  EXPECT_EQ(test::verify_error([&] {
              MeshMapping(mesh, s, {{0}, {1, 3}});
            }),
            "mesh mapping: axis \"Y\" maps to a dim outside slice 4x2x4 (dims 0..2), got: 3");
  EXPECT_EQ(test::verify_error([&] { MeshMapping(mesh, s, {{0}}); }),
            "mesh mapping: one dim list per mesh axis, got: 1 lists for 2 axes (\"X\", \"Y\")");
  const MeshMapping ok(mesh, s, {{0}, {1, 2}});
  EXPECT_EQ(test::verify_error([&] { ok.groups("Q"); }), "mesh mapping: unknown axis \"Q\" (axes: \"X\", \"Y\")");
  EXPECT_EQ(test::verify_error([&] {
              ok.chip_at({4, 0});
            }),
            "mesh mapping: index along axis \"X\" must be in [0, 4), got: 4");
}

}  // namespace
}  // namespace podsim
