// Spare cubes (spare_cubes.hpp, slice_failures.hpp; docs/topology.md "Spare cubes"): cube ids, which cubes a count of
// spares replaces and what stays failed, the count's rules, and the one resolver, all worked by hand on a v5p-like
// pod of 140 cubes.
#include "models/topology/spare_cubes.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/failed_links.hpp"
#include "models/topology/slice_failures.hpp"

namespace podsim {
namespace {

const CubePod kV5p{true, 140, "tpu-v5p"};
const CubePod kV5e{false, 4, "tpu-v5e"};

LinkId link_of(const Slice& s, const std::string& name) {
  const auto id = link_named(s, name);
  EXPECT_TRUE(id) << name;
  return id.value_or(0);
}

// A 4x4x8 is two cubes along z: cube 0 holds z 0-3, cube 1 z 4-7. Chip 70 = 2 x 32 + 0 x 8 + 6 is (2,0,6): cube 1.
TEST(SpareCubes, CubesOfA4x4x8) {
  const Slice s({4, 4, 8}, {true, true, true});
  EXPECT_EQ(cube_of(s, 0), 0);
  EXPECT_EQ(cube_of(s, 70), 1);
  EXPECT_EQ(cube_of(s, s.chip_at({3, 3, 3})), 0);
  EXPECT_EQ(cube_label(s, 1), "cube 1 (x 0-3, y 0-3, z 4-7)");
  // An 8x8x8 has 2 x 2 x 2 cubes, row-major: (4,0,4) is in cube 1 x 4 + 0 x 2 + 1 = 5.
  const Slice big({8, 8, 8}, {true, true, true});
  EXPECT_EQ(cube_of(big, big.chip_at({4, 0, 4})), 5);
  EXPECT_EQ(cube_label(big, 5), "cube 5 (x 4-7, y 0-3, z 4-7)");
}

// Spares go to cubes with failed chips first, then to those holding an end of a failed link still failed, in cube
// order. The link ici.x+.0.0.1 lies in cube 0; chip 70 in cube 1.
TEST(SpareCubes, SparesReplaceChipCubesFirstThenLinkCubes) {
  const Slice s({4, 4, 8}, {true, true, true});
  const LinkId in_cube_0 = link_of(s, "ici.x+.0.0.1");
  const SliceFailures one = spare_failed_cubes(s, {in_cube_0}, {70}, 1);
  EXPECT_EQ(one.replaced_cubes, (std::vector<std::int64_t>{1}));
  EXPECT_TRUE(one.chips.empty());
  EXPECT_EQ(one.links, (std::vector<LinkId>{in_cube_0}));  // cube 0 not replaced: its link stays failed
  const SliceFailures two = spare_failed_cubes(s, {in_cube_0}, {70}, 2);
  EXPECT_EQ(two.replaced_cubes, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(two.chips.empty() && two.links.empty());
  // More spares than failed cubes: the rest stay idle.
  EXPECT_EQ(spare_failed_cubes(s, {}, {70}, 5).replaced_cubes, (std::vector<std::int64_t>{1}));
  // No spare: everything stays.
  const SliceFailures none = spare_failed_cubes(s, {in_cube_0}, {70}, 0);
  EXPECT_TRUE(none.replaced_cubes.empty());
  EXPECT_EQ(none.chips, (std::vector<ChipId>{70}));
}

// A cable between two cubes, (0,0,3)-(0,0,4): both cubes hold an end, the lower one (cube 0) is replaced, which
// clears it; a second failed link inside cube 1 then takes the next spare.
TEST(SpareCubes, ALinkBetweenCubesIsClearedByTheLowerCube) {
  const Slice s({4, 4, 8}, {true, true, true});
  const LinkId between = link_of(s, "ici.z+.0.0.3");
  const LinkId in_cube_1 = link_of(s, "ici.y+.1.1.5");
  const SliceFailures one = spare_failed_cubes(s, {between, in_cube_1}, {}, 1);
  EXPECT_EQ(one.replaced_cubes, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(one.links, (std::vector<LinkId>{in_cube_1}));
  EXPECT_EQ(spare_failed_cubes(s, {between, in_cube_1}, {}, 2).replaced_cubes, (std::vector<std::int64_t>{0, 1}));
}

// 16x16x24 is 4 x 4 x 6 = 96 cubes: with 44 spares 140, the v5p pod; 45 is one too many.
TEST(SpareCubes, CountRules) {
  EXPECT_FALSE(spare_cubes_issue({4, 4, 8}, 0, kV5e));
  EXPECT_FALSE(spare_cubes_issue({4, 4, 8}, 1, kV5p));
  EXPECT_EQ(*spare_cubes_issue({4, 4, 8}, -1, kV5p), "a spare cube count must be an integer >= 0, got: -1");
  EXPECT_EQ(*spare_cubes_issue({4, 4}, 1, kV5e),
            "spare cubes replace failed 4x4x4 cubes through the optical circuit switches of a generation built of them "
            "(v4, v5p, tpu7x), got: 1 spare cube(s) on tpu-v5e");
  EXPECT_EQ(
      *spare_cubes_issue({2, 2, 4}, 2, kV5p),
      "spare cubes replace whole 4x4x4 cubes, so the slice must be of whole cubes (3 dims, each a multiple of 4), "
      "got: 2 spare cube(s) for slice 2x2x4");
  EXPECT_FALSE(spare_cubes_issue({16, 16, 24}, 44, kV5p));
  EXPECT_EQ(*spare_cubes_issue({16, 16, 24}, 45, kV5p),
            "a slice and its spare cubes must fit in one pod (tpu-v5p: 140 cubes), got: 96 cube(s) of slice 16x16x24 + "
            "45 spare cube(s) = 141");
  EXPECT_EQ(parse_spare_cubes("2"), 2);
  EXPECT_THROW(parse_spare_cubes("1.5"), VerifyError);
  EXPECT_THROW(parse_spare_cubes("-1"), VerifyError);
  // The pod of a preset: pod chips / 64 (v5p 8960: 140), else the pod shape's chips.
  EXPECT_EQ(cube_pod(WrapRule::whole_cubes, {16, 20, 28}, 8960, "tpu-v5p").cubes, 140);
  EXPECT_EQ(cube_pod(WrapRule::whole_cubes, {16, 16, 16}, 0, "tpu-v4").cubes, 64);
  EXPECT_FALSE(cube_pod(WrapRule::full_pod_axis, {16, 16}, 0, "tpu-v5e").built_of_cubes);
}

// The resolver: a program on a 4x4x8 with chip 70 failed runs whole with one spare and is refused without.
TEST(SpareCubes, ResolverReplacesOrRefuses) {
  const Slice healthy({4, 4, 8}, {true, true, true});
  SliceFailures failures;
  EXPECT_FALSE(resolve_slice_failures(healthy, FailureRequest{{}, {70}, 1}, kV5p, true, failures));
  EXPECT_EQ(failures.replaced_cubes, (std::vector<std::int64_t>{1}));
  const Slice repaired(healthy.shape(), healthy.wraparound(), false, failures);
  EXPECT_FALSE(repaired.has_failures());  // routes and quotients as on the whole slice
  EXPECT_EQ(failures_summary(repaired, FailureRequest{{}, {70}, 1}),
            "1 failed chip: chip 70 (2,0,6); cube 1 (x 0-3, y 0-3, z 4-7) replaced by a spare");
  const auto refused = resolve_slice_failures(healthy, FailureRequest{{}, {70}, 0}, kV5p, true, failures);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->field, FailureIssue::Field::failed_chips);
  EXPECT_EQ(refused->message,
            "a sharded program runs on every chip of its slice, so a failed chip must be replaced by a spare cube "
            "(spare_cubes: one replaces each 4x4x4 cube holding a failed chip) or the work planned on a smaller slice "
            "without it, got: 1 failed chip(s) not replaced: chip 70 (2,0,6)");
  // `podsim topology` describes the slice with the chip failed (no program).
  EXPECT_FALSE(resolve_slice_failures(healthy, FailureRequest{{}, {70}, 0}, kV5p, false, failures));
  EXPECT_EQ(failures.chips, (std::vector<ChipId>{70}));
  const auto link = resolve_slice_failures(healthy, FailureRequest{{"ici.w+.0"}, {}, 0}, kV5p, true, failures);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->field, FailureIssue::Field::failed_links);
  EXPECT_EQ(link->index, 0u);
  const auto spares = resolve_slice_failures(healthy, FailureRequest{{}, {}, 1}, kV5e, true, failures);
  ASSERT_TRUE(spares);
  EXPECT_EQ(spares->field, FailureIssue::Field::spare_cubes);
}

}  // namespace
}  // namespace podsim
