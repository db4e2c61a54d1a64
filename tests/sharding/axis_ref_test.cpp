// Axis-ref algebra (SHARDY.md §3) and sort-and-merge (§6), on the worked examples of the reference.
#include "models/sharding/axis_ref.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

Mesh mesh_of(std::vector<MeshAxis> axes) {
  return make_mesh(std::move(axes));
}

TEST(AxisRef, TextOfFullAndSubAxes) {
  EXPECT_EQ(to_string(test::axis("x")), "\"x\"");
  EXPECT_EQ(to_string(test::sub_axis("x", 2, 4)), "\"x\":(2)4");
  EXPECT_EQ(to_string(test::sub_axis("x", -1, 2)), "\"x\":(-1)2");
}

TEST(AxisRef, NamesAreQuotedWithMlirEscapes) {
  EXPECT_EQ(quote_string("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(quote_string("a\\b"), "\"a\\\\b\"");
  EXPECT_EQ(quote_string("a\nb"), "\"a\\0Ab\"");
  EXPECT_EQ(to_string(test::axis("")), "\"\"");
}

TEST(AxisRef, SizeIsSubAxisSizeOrMeshAxisSize) {
  const Mesh mesh = mesh_of({{"x", 16}, {"y", 2}});
  EXPECT_EQ(test::axis("x").size(mesh), 16);
  EXPECT_EQ(test::sub_axis("x", 2, 4).size(mesh), 4);
  EXPECT_EQ(test::sub_axis("x", 2, 4).next_pre_size(mesh), 8);
  EXPECT_EQ(test::axis("y").next_pre_size(mesh), 2);
  EXPECT_EQ(product_of_sizes({test::axis("y"), test::sub_axis("x", 1, 4)}, mesh), 8);
  EXPECT_EQ(product_of_sizes({}, mesh), 1);
}

TEST(AxisRef, OrderFollowsMeshAxisOrderNotNames) {
  const Mesh mesh = mesh_of({{"c", 2}, {"a", 2}, {"b", 2}});
  EXPECT_TRUE(axis_ref_less(test::axis("c"), test::axis("a"), mesh));
  EXPECT_FALSE(axis_ref_less(test::axis("a"), test::axis("c"), mesh));
  EXPECT_TRUE(axis_ref_less(test::axis("a"), test::axis("b"), mesh));
  EXPECT_FALSE(axis_ref_less(test::axis("a"), test::axis("a"), mesh));
}

TEST(AxisRef, KnownAxesComeBeforeUnknownOnes) {
  const Mesh mesh = mesh_of({{"a", 2}});
  EXPECT_TRUE(axis_ref_less(test::axis("a"), test::axis("c"), mesh));
  EXPECT_FALSE(axis_ref_less(test::axis("c"), test::axis("a"), mesh));
}

TEST(AxisRef, SameNameOrdersPrefixSubAxisThenFullThenLaterSubAxes) {
  const Mesh mesh = mesh_of({{"a", 16}});
  // "a":(1)k < "a" < "a":(m)k for m > 1
  EXPECT_TRUE(axis_ref_less(test::sub_axis("a", 1, 4), test::axis("a"), mesh));
  EXPECT_FALSE(axis_ref_less(test::axis("a"), test::sub_axis("a", 1, 4), mesh));
  EXPECT_TRUE(axis_ref_less(test::axis("a"), test::sub_axis("a", 2, 2), mesh));
  EXPECT_FALSE(axis_ref_less(test::sub_axis("a", 2, 2), test::axis("a"), mesh));
  // sub-axes by (pre-size, size)
  EXPECT_TRUE(axis_ref_less(test::sub_axis("a", 1, 2), test::sub_axis("a", 1, 4), mesh));
  EXPECT_TRUE(axis_ref_less(test::sub_axis("a", 2, 4), test::sub_axis("a", 4, 2), mesh));
  EXPECT_FALSE(axis_ref_less(test::sub_axis("a", 4, 2), test::sub_axis("a", 2, 4), mesh));
}

TEST(AxisRef, OverlapExamples) {
  const Mesh mesh = mesh_of({{"a", 16}, {"b", 4}});
  EXPECT_TRUE(overlaps(test::sub_axis("a", 1, 4), test::sub_axis("a", 2, 4), mesh));
  EXPECT_TRUE(overlaps(test::sub_axis("a", 1, 4), test::sub_axis("a", 1, 2), mesh));  // containment counts
  EXPECT_FALSE(overlaps(test::sub_axis("a", 1, 4), test::sub_axis("a", 4, 2), mesh));
  EXPECT_FALSE(overlaps(test::sub_axis("a", 4, 2), test::sub_axis("a", 1, 4), mesh));
  EXPECT_TRUE(overlaps(test::axis("a"), test::sub_axis("a", 4, 2), mesh));
  EXPECT_TRUE(overlaps(test::axis("a"), test::axis("a"), mesh));
  EXPECT_FALSE(overlaps(test::axis("a"), test::axis("b"), mesh));
  // Non-overlapping but unable to coexist (SHARDY.md §12.1): [1,2) and [3,6) do not intersect.
  EXPECT_FALSE(overlaps(test::sub_axis("a", 1, 2), test::sub_axis("a", 3, 2), mesh));
}

TEST(AxisRef, ContainsAndPrefix) {
  const Mesh mesh = mesh_of({{"a", 16}});
  EXPECT_TRUE(contains(test::axis("a"), test::sub_axis("a", 2, 4), mesh));
  EXPECT_TRUE(contains(test::sub_axis("a", 1, 8), test::sub_axis("a", 2, 4), mesh));   // [2,8) inside [1,8)
  EXPECT_FALSE(contains(test::sub_axis("a", 2, 4), test::sub_axis("a", 1, 8), mesh));  // [1,8) is bigger
  EXPECT_FALSE(contains(test::sub_axis("a", 1, 4), test::sub_axis("a", 2, 4), mesh));  // [2,8) sticks out of [1,4)
  EXPECT_FALSE(contains(test::sub_axis("a", 1, 4), test::axis("a"), mesh));
  EXPECT_TRUE(is_prefix_of(test::sub_axis("a", 1, 2), test::sub_axis("a", 1, 4), mesh));
  EXPECT_TRUE(is_prefix_of(test::sub_axis("a", 1, 4), test::axis("a"), mesh));
  EXPECT_TRUE(is_prefix_of(test::sub_axis("a", 2, 2), test::sub_axis("a", 2, 2), mesh));
  EXPECT_FALSE(is_prefix_of(test::sub_axis("a", 2, 2), test::sub_axis("a", 1, 8), mesh));  // different pre-size
  EXPECT_FALSE(is_prefix_of(test::axis("a"), test::sub_axis("a", 1, 4), mesh));
}

TEST(AxisRef, MergeExamples) {
  const Mesh mesh = mesh_of({{"x", 16}});
  ASSERT_TRUE(can_merge(test::sub_axis("x", 1, 4), test::sub_axis("x", 4, 2)));
  EXPECT_EQ(merge(test::sub_axis("x", 1, 4), test::sub_axis("x", 4, 2), mesh), test::sub_axis("x", 1, 8));
  ASSERT_TRUE(can_merge(test::sub_axis("x", 2, 2), test::sub_axis("x", 4, 4)));
  EXPECT_EQ(merge(test::sub_axis("x", 2, 2), test::sub_axis("x", 4, 4), mesh), test::sub_axis("x", 2, 8));
  ASSERT_TRUE(can_merge(test::sub_axis("x", 1, 8), test::sub_axis("x", 8, 2)));
  EXPECT_EQ(merge(test::sub_axis("x", 1, 8), test::sub_axis("x", 8, 2), mesh), test::axis("x"));  // covers x=16
  EXPECT_FALSE(can_merge(test::sub_axis("x", 1, 2), test::sub_axis("x", 4, 2)));                  // a gap
  EXPECT_FALSE(can_merge(test::sub_axis("x", 2, 2), test::sub_axis("x", 1, 2)));                  // minor before major
  EXPECT_FALSE(can_merge(test::axis("x"), test::sub_axis("x", 16, 2)));           // full axes never merge
  EXPECT_FALSE(can_merge(test::sub_axis("x", 1, 2), test::sub_axis("y", 2, 2)));  // different axes
}

TEST(AxisRef, CanMergeDoesNotOverflowOnHugeNumbers) {
  const std::int64_t big = std::int64_t{1} << 62;
  // big * 4 wraps to 0 in 64 bits; it must not count as equal to the next pre-size 0.
  EXPECT_FALSE(can_merge(test::sub_axis("x", big, 4), test::sub_axis("x", 0, 2)));
}

TEST(AxisRef, SortAndMergeUnitTestExample) {
  const Mesh mesh = mesh_of({{"a", 8}, {"b", 8}, {"c", 8}, {"d", 8}});
  // SHARDY.md §6 (utils_test.cc SortAndMergeAxes), given in a shuffled order.
  const std::vector<AxisRef> input = {test::sub_axis("d", 4, 2), test::axis("c"),           test::sub_axis("b", 2, 2),
                                      test::sub_axis("a", 4, 2), test::sub_axis("b", 4, 2), test::sub_axis("d", 2, 2),
                                      test::sub_axis("a", 1, 2), test::sub_axis("b", 1, 2)};
  const std::vector<AxisRef> expected = {test::sub_axis("a", 1, 2), test::sub_axis("a", 4, 2), test::axis("b"),
                                         test::axis("c"), test::sub_axis("d", 2, 4)};
  EXPECT_EQ(sort_and_merge_axes(input, mesh), expected);
}

TEST(AxisRef, SortAndMergeReachesFullAxis) {
  EXPECT_EQ(sort_and_merge_axes({test::sub_axis("x", 2, 2), test::sub_axis("x", 1, 2)}, mesh_of({{"x", 4}})),
            std::vector<AxisRef>{test::axis("x")});
  EXPECT_EQ(sort_and_merge_axes({test::sub_axis("x", 4, 2), test::sub_axis("x", 1, 2), test::sub_axis("x", 2, 2)},
                                mesh_of({{"x", 8}})),
            std::vector<AxisRef>{test::axis("x")});
  EXPECT_EQ(sort_and_merge_axes({}, mesh_of({{"x", 8}})), std::vector<AxisRef>{});
}

TEST(AxisRef, ManualAxesCleanupExample) {
  // SHARDY.md §6: replicated {"x":(2)2} plus the unused parts of manual axes x and y ({"y":(1)2} shards a
  // dim) on x=8, y=8 ends as {"x", "y":(2)4}.
  const Mesh mesh = mesh_of({{"x", 8}, {"y", 8}});
  const std::vector<AxisRef> input = {test::sub_axis("x", 2, 2), test::sub_axis("x", 1, 2), test::sub_axis("x", 4, 2),
                                      test::sub_axis("y", 2, 4)};
  EXPECT_EQ(sort_and_merge_axes(input, mesh), (std::vector<AxisRef>{test::axis("x"), test::sub_axis("y", 2, 4)}));
}

TEST(AxisRef, AddAxisOrMergeMergesIntoTheLastRefOnly) {
  const Mesh mesh = mesh_of({{"x", 16}, {"y", 4}});
  std::vector<AxisRef> refs;
  add_axis_or_merge(refs, test::sub_axis("x", 1, 2), mesh);
  add_axis_or_merge(refs, test::sub_axis("x", 2, 2), mesh);
  EXPECT_EQ(refs, std::vector<AxisRef>{test::sub_axis("x", 1, 4)});
  add_axis_or_merge(refs, test::axis("y"), mesh);
  add_axis_or_merge(refs, test::sub_axis("x", 4, 4), mesh);  // "y" in between: appended, not merged
  EXPECT_EQ(refs, (std::vector<AxisRef>{test::sub_axis("x", 1, 4), test::axis("y"), test::sub_axis("x", 4, 4)}));
}

}  // namespace
}  // namespace podsim
