// Slices: shapes and wraparound, chip id <-> coordinates (row-major, dim 0 slowest), neighbours, link
// counts worked by hand, dense link indices and deterministic link names.
#include "models/topology/slice.hpp"

#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

TEST(Slice, ShapesAndWraparound) {
  const Slice ring({8}, {true});
  EXPECT_EQ(ring.rank(), 1);
  EXPECT_EQ(ring.num_chips(), 8);
  EXPECT_TRUE(ring.wraps(0));

  const Slice v5e({8, 16}, WrapRule::full_pod_axis, {16, 16});
  EXPECT_EQ(v5e.num_chips(), 128);
  EXPECT_FALSE(v5e.wraps(0));
  EXPECT_TRUE(v5e.wraps(1));
  EXPECT_EQ(v5e.shape_string(), "8x16");

  const Slice cube({4, 4, 4}, WrapRule::whole_cubes);
  EXPECT_EQ(cube.wraparound(), (std::vector<bool>{true, true, true}));
  const Slice small({2, 2, 4}, WrapRule::whole_cubes);
  EXPECT_EQ(small.wraparound(), (std::vector<bool>{false, false, false}));
}

TEST(Slice, SizeTwoDimAskedToWrapHasNoWrapLink) {
  const Slice s({2, 4}, {true, true});
  EXPECT_FALSE(s.wraps(0));
  EXPECT_TRUE(s.wraps(1));
}

TEST(Slice, ChipIdsAreRowMajorWithDimZeroSlowest) {
  const Slice s({4, 2, 4}, WrapRule::never);
  // (1, 0, 3) -> 1*(2*4) + 0*4 + 3 = 11; (3, 1, 2) -> 24 + 4 + 2 = 30.
  EXPECT_EQ(s.chip_at({1, 0, 3}), 11);
  EXPECT_EQ(s.chip_at({3, 1, 2}), 30);
  EXPECT_EQ(s.coords_of(11), (std::vector<std::int64_t>{1, 0, 3}));
  EXPECT_EQ(s.stride(0), 8);
  EXPECT_EQ(s.stride(1), 4);
  EXPECT_EQ(s.stride(2), 1);
  for (ChipId chip = 0; chip < s.num_chips(); ++chip)
    EXPECT_EQ(s.chip_at(s.coords_of(chip)), chip);
}

// Directed links: a torus dim of N has N per direction per line; a mesh dim N-1; counted per dim below.
TEST(Slice, LinkCounts) {
  // 4x4 torus: 16 chips x 2 dims x 2 directions = 64.
  EXPECT_EQ(Slice({4, 4}, {true, true}).num_links(), 64);
  // 4x4 mesh: per dim 3 pairs x 4 lines = 12 pairs; 2 dims, 2 directions: 2 x (3 x 4 x 2) = 48.
  EXPECT_EQ(Slice({4, 4}, {false, false}).num_links(), 48);
  // 4x4x4 torus: 64 chips x 3 dims x 2 = 384.
  EXPECT_EQ(Slice({4, 4, 4}, WrapRule::whole_cubes).num_links(), 384);
  // 2x2x4 mesh: dim0 1x2x4 = 8 pairs, dim1 2x1x4 = 8, dim2 2x2x3 = 12; 28 pairs x 2 = 56.
  EXPECT_EQ(Slice({2, 2, 4}, WrapRule::whole_cubes).num_links(), 56);
  // A size-2 dim: one pair per line, one link per direction, wrap asked or not: 2x2 -> 2 dims x 2 pairs x 2.
  EXPECT_EQ(Slice({2, 2}, {true, true}).num_links(), 8);
  EXPECT_EQ(Slice({2, 2}, {false, false}).num_links(), 8);
  // v5e 8x16: dim0 mesh 7 x 16 = 112 pairs, dim1 torus 16 x 8 = 128 pairs; 240 x 2 = 480.
  EXPECT_EQ(Slice({8, 16}, WrapRule::full_pod_axis, {16, 16}).num_links(), 480);
  // 1D: ring of 8 -> 16, line of 8 -> 14, one chip -> 0.
  EXPECT_EQ(Slice({8}, {true}).num_links(), 16);
  EXPECT_EQ(Slice({8}, {false}).num_links(), 14);
  EXPECT_EQ(Slice({1}, {true}).num_links(), 0);
}

TEST(Slice, Neighbours) {
  const Slice torus({4, 4}, {true, true});
  // Chip 0 = (0,0): x+ (1,0)=4, x- wraps to (3,0)=12, y+ (0,1)=1, y- wraps to (0,3)=3.
  EXPECT_EQ(torus.neighbours(0), (std::vector<ChipId>{4, 12, 1, 3}));
  const Slice mesh({4, 4}, {false, false});
  EXPECT_EQ(mesh.neighbours(0), (std::vector<ChipId>{4, 1}));
  EXPECT_EQ(mesh.neighbour(0, 0, Direction::minus), std::nullopt);
  // Size-2 dim: chip 1 of a 2-ring has one neighbour, chip 0, reached going -.
  const Slice pair({2}, {true});
  EXPECT_EQ(pair.neighbours(1), (std::vector<ChipId>{0}));
  EXPECT_EQ(pair.neighbour(1, 0, Direction::plus), std::nullopt);
  EXPECT_EQ(pair.neighbour(1, 0, Direction::minus), ChipId{0});
}

TEST(Slice, LinksAreDenselyIndexedBySourceDimDirection) {
  const Slice torus({4, 4}, {true, true});
  // Chip 0 owns links 0..3: x+, x-, y+, y-.
  EXPECT_EQ(torus.link_id(0, 0, Direction::plus), 0);
  EXPECT_EQ(torus.link_id(0, 0, Direction::minus), 1);
  EXPECT_EQ(torus.link_id(0, 1, Direction::plus), 2);
  EXPECT_EQ(torus.link_id(0, 1, Direction::minus), 3);
  EXPECT_EQ(torus.link_id(5, 1, Direction::minus), 5 * 4 + 3);
  const Slice mesh({4, 4}, {false, false});
  // Chip 0 (0,0): x+ = 0, y+ = 1; chip 1 (0,1): x+ = 2, y+ = 3, y- = 4.
  EXPECT_EQ(mesh.link_id(0, 1, Direction::plus), 1);
  EXPECT_EQ(mesh.link_id(1, 0, Direction::plus), 2);
  EXPECT_EQ(mesh.link_id(1, 1, Direction::minus), 4);
  for (const Link& link : torus.links()) {
    EXPECT_EQ(torus.link(link.id).name, link.name);
    EXPECT_EQ(torus.link_id(link.src, link.dim, link.dir), link.id);
    EXPECT_EQ(torus.neighbour(link.src, link.dim, link.dir), link.dst);
  }
}

TEST(Slice, LinkNamesCarrySourceCoordinates) {
  const Slice cube({4, 4, 4}, WrapRule::whole_cubes);
  const Link& link = cube.link(cube.link_id(cube.chip_at({0, 1, 3}), 0, Direction::plus));
  EXPECT_EQ(link.name, "ici.x+.0.1.3");
  EXPECT_EQ(link.dst, cube.chip_at({1, 1, 3}));
  const Link& wrap = cube.link(cube.link_id(cube.chip_at({3, 0, 0}), 0, Direction::plus));
  EXPECT_EQ(wrap.name, "ici.x+.3.0.0");
  EXPECT_EQ(wrap.dst, 0);
  EXPECT_EQ(cube.link(cube.link_id(0, 2, Direction::minus)).name, "ici.z-.0.0.0");
  EXPECT_EQ(Slice({8}, {false}).link(0).name, "ici.x+.0");
  std::set<std::string> names;
  for (const Link& l : cube.links())
    names.insert(l.name);
  EXPECT_EQ(names.size(), 384u);
  // Deterministic: a second build names every link the same.
  const Slice again({4, 4, 4}, WrapRule::whole_cubes);
  for (const Link& l : cube.links())
    EXPECT_EQ(again.link(l.id).name, l.name);
}

TEST(Slice, MissingLinkIsAnError) {
  const Slice pair({2, 2}, {true, true});
  EXPECT_EQ(pair.find_link(1, 1, Direction::plus), std::nullopt);
  EXPECT_EQ(test::verify_error([&] { pair.link_id(1, 1, Direction::plus); }),
            "slice 2x2: no link leaves chip 1 along dim 1 in direction + (edge of a dim without wraparound)");
}

TEST(Slice, RejectsBadShapes) {
  EXPECT_EQ(test::verify_error([] {
              Slice({2, 2, 2, 2}, {false, false, false, false});
            }),
            "slice: rank must be 1, 2 or 3, got: 4 (shape 2x2x2x2)");
  EXPECT_EQ(test::verify_error([] { Slice({}, {}); }), "slice: rank must be 1, 2 or 3, got: 0 (shape (none))");
  EXPECT_EQ(test::verify_error([] { Slice({4, 0}, {false, false}); }), "slice: dim 1 size must be >= 1, got: 4x0");
  EXPECT_EQ(test::verify_error([] {
              Slice({4, 4}, {true});
            }),
            "slice: wraparound needs one flag per dim, got: 1 flags for shape 4x4");
  EXPECT_EQ(test::verify_error([] {
              Slice({4, 4}, {false, false}).coords_of(16);
            }),
            "slice 4x4: chip id must be in [0, 16), got: 16");
  EXPECT_EQ(test::verify_error([] {
              Slice({4, 4}, {false, false}).chip_at({0, 4});
            }),
            "slice 4x4: coordinate 1 must be in [0, 4), got: 4");
}

TEST(SliceShapeIssue, TheLimitsInOrder) {
  using Rule = SliceShapeIssue::Rule;
  EXPECT_FALSE(slice_shape_issue({16, 16}).has_value());
  EXPECT_FALSE(slice_shape_issue({64, 64, 16}).has_value());  // exactly kMaxSliceChips
  EXPECT_EQ(slice_shape_issue({}).value().rule, Rule::rank);
  EXPECT_EQ(slice_shape_issue({2, 2, 2, 2}).value().rule, Rule::rank);
  const auto zero = slice_shape_issue({4, 0});
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(zero->rule, Rule::dim_size);
  EXPECT_EQ(zero->dim, 1u);
  EXPECT_EQ(slice_shape_issue({64, 64, 32}).value().rule, Rule::chips);
  EXPECT_EQ(slice_shape_issue({INT64_MAX, INT64_MAX}).value().rule, Rule::chips);  // no overflow
}

}  // namespace
}  // namespace podsim
