// Shardy verification (SHARDY.md §2 and §4): each rule has a negative test on its exact message, checks
// run in Shardy's order, and the §12 surprises that apply are pinned down.
#include "models/sharding/sharding_verify.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "models/sharding/shardy_parse.hpp"

namespace podsim {
namespace {

void expect_mesh_error(const Mesh& mesh, const std::string& message) {
  try {
    verify_mesh(mesh);
    ADD_FAILURE() << "mesh verified: expected " << message;
  } catch (const VerifyError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}
void expect_mesh_error(const char* text, const std::string& message) {
  SCOPED_TRACE(text);
  expect_mesh_error(parse_shardy_mesh(text), message);
}

// A table with mesh "m" (from Shardy text) and a maximal mesh "maximal".
MeshTable table_with(const char* mesh_text) {
  MeshTable table;
  table.add("m", parse_shardy_mesh(mesh_text));
  table.add("maximal", parse_shardy_mesh("<[], device_ids=[5]>"));
  table.add("empty", parse_shardy_mesh("<[]>"));
  return table;
}

void expect_valid(const char* mesh_text, const char* sharding_text, std::optional<std::size_t> rank) {
  SCOPED_TRACE(sharding_text);
  EXPECT_NO_THROW(verify_sharding(parse_shardy_sharding(sharding_text), table_with(mesh_text), rank));
}

void expect_error(const char* mesh_text, const char* sharding_text, std::optional<std::size_t> rank,
                  const std::string& message) {
  try {
    verify_sharding(parse_shardy_sharding(sharding_text), table_with(mesh_text), rank);
    ADD_FAILURE() << sharding_text << " verified: expected " << message;
  } catch (const VerifyError& error) {
    EXPECT_EQ(std::string(error.what()), message) << sharding_text;
  }
}

// ---- meshes (§2) ----

TEST(VerifyMesh, ValidMeshes) {
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh("<[]>")));
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh("<[], device_ids=[5]>")));
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh(R"(<["a"=1]>)")));
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh(R"(<["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>)")));
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh(R"(<["a"=2, "b"=2], device_ids=[0, 1, 2, 3]>)")));  // dropped
}

TEST(VerifyMesh, AxisSizeMustBeAtLeastOne) {
  expect_mesh_error(Mesh{{{"a", 2}, {"b", 0}}, {}}, "axis size must be at least 1, got: 0");
  expect_mesh_error(Mesh{{{"a", -3}}, {}}, "axis size must be at least 1, got: -3");
}

TEST(VerifyMesh, DeviceIdsMustBeNonNegative) {
  expect_mesh_error(R"(<["a"=2], device_ids=[1, -1]>)", "device id must be non-negative, got: -1");
  expect_mesh_error("<[], device_ids=[-2]>", "device id must be non-negative, got: -2");
  // Check 3 runs before check 4.
  expect_mesh_error("<[], device_ids=[0, -1, 1]>", "device id must be non-negative, got: -1");
}

TEST(VerifyMesh, NoAxesAllowsAtMostOneDeviceId) {
  expect_mesh_error("<[], device_ids=[0, 1]>", "axes is empty and device_ids has more than one element");
}

TEST(VerifyMesh, DuplicateAxisName) {
  expect_mesh_error(R"(<["a"=2, "b"=2, "a"=4]>)", "duplicate axis name: \"a\"");
  // Check 5 runs before the device-id count check 7.
  expect_mesh_error(R"(<["a"=2, "a"=2], device_ids=[0]>)", "duplicate axis name: \"a\"");
}

TEST(VerifyMesh, ProductMustMatchDeviceCount) {
  expect_mesh_error(R"(<["a"=2, "b"=2], device_ids=[0, 1, 2]>)",
                    "total product of axis sizes must match total number of device ids, got: 4 != 3");
  expect_mesh_error(R"(<["a"=4294967296, "b"=4294967296], device_ids=[0]>)",
                    "total product of axis sizes must match total number of device ids, got: "
                    "18446744073709551616 != 1");
}

TEST(VerifyMesh, ProductOverflowIsCheckedNotWrapped) {
  // 2^32 x 2^32 does not fit in int64: the product is never computed in overflow (UBSan runs this test).
  const Mesh huge = parse_shardy_mesh(R"(<["a"=4294967296, "b"=4294967296]>)");
  EXPECT_EQ(huge.checked_total_size(), std::nullopt);
  try {
    (void)huge.total_size();
    ADD_FAILURE() << "total_size() of a 2^64-device mesh returned";
  } catch (const VerifyError& error) {
    EXPECT_EQ(std::string(error.what()), "total product of axis sizes overflows 64 bits, got: 4294967296x4294967296");
  }
  EXPECT_EQ(huge.axis_stride("a"), std::int64_t{4294967296});
  EXPECT_EQ(huge.axis_stride("b"), 1);
  const Mesh wider = parse_shardy_mesh(R"(<["z"=2, "a"=4294967296, "b"=4294967296]>)");
  EXPECT_THROW((void)wider.axis_stride("z"), VerifyError);  // 2^64 after "z"
  EXPECT_EQ(parse_shardy_mesh(R"(<["a"=4294967296, "b"=2147483647]>)").checked_total_size(),
            std::int64_t{4294967296} * 2147483647);
}

TEST(VerifyMesh, DeviceCountMustFitIn64Bits) {
  // 9999100 x 2999999999999 = 29997299999990000900, above 2^63 - 1 = 9223372036854775807 (found by fuzz_mesh_spec).
  expect_mesh_error(R"(<["X"=9999100, "YX"=2999999999999]>)",
                    "total product of axis sizes overflows 64 bits, got: 9999100x2999999999999");
  expect_mesh_error(R"(<["a"=4294967296, "b"=4294967296]>)",
                    "total product of axis sizes overflows 64 bits, got: 4294967296x4294967296");
  // 2^32 x (2^31 - 1) = 9223372032559808512 fits: verified.
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh(R"(<["a"=4294967296, "b"=2147483647]>)")));
}

TEST(VerifyMesh, SortedDeviceIdsMustBeIota) {
  expect_mesh_error(R"(<["a"=2], device_ids=[1, 1]>)", "sorted device ids must be iota(product(axes)), got: 1, 1");
  expect_mesh_error(R"(<["a"=2], device_ids=[2, 1]>)", "sorted device ids must be iota(product(axes)), got: 1, 2");
}

TEST(VerifyMesh, IotaDeviceIdsBuiltWithoutMakeMesh) {
  // Unreachable from text (make_mesh drops them), reachable from code.
  expect_mesh_error(Mesh{{{"a", 2}, {"b", 2}}, {0, 1, 2, 3}},
                    "if the ordered device ids are the same as iota(product(axes)), no need to specify them for "
                    "simplicity");
}

// ---- tensor shardings (§4) ----

constexpr const char* kAb = R"(<["a"=8, "b"=8]>)";
constexpr const char* kXyz = R"(<["x"=2, "y"=4, "z"=2]>)";

TEST(VerifySharding, DocExamplesAreValid) {
  expect_valid(kXyz, R"(<@m, [{"x"}, {"z", "y"}]>)", 2);
  expect_valid(kXyz, R"(<@m, [{"x"}, {"z", ?}]>)", 2);
  expect_valid(kXyz, R"(<@m, [{"x"}p1, {"y"}, {"z", ?}p2]>)", 3);
  expect_valid(R"(<["x"=8, "y"=8]>)", R"(<@m, [{"x"}, {"y":(2)2}], replicated={"y":(1)2}>)", 2);
  expect_valid(R"(<["c"=2, "a"=2, "b"=2]>)", R"(<@m, [{}], replicated={"c", "a"}>)", 1);
  expect_valid(kAb, R"(<@m, [{"a", ?}, {?}p3], replicated={"b":(1)2}, unreduced=max{"b":(2)4}>)", 2);
}

TEST(VerifySharding, UnknownMesh) {
  expect_error(kAb, R"(<@foo, [{"a"}]>)", 1, "unknown mesh: @foo");
  // An inline mesh always resolves.
  EXPECT_NO_THROW(verify_sharding(parse_shardy_sharding(R"(<mesh<["q"=2]>, [{"q"}]>)"), MeshTable{}, 1));
}

TEST(VerifySharding, InlineMeshIsVerifiedFirst) {
  expect_error(kAb, R"(<mesh<["q"=2], device_ids=[1, 1]>, [{"zz"}, {}]>)", 1,
               "sorted device ids must be iota(product(axes)), got: 1, 1");
  expect_error(kAb, R"(<mesh<["q"=2, "q"=2]>, [{"q"}]>)", 1, "duplicate axis name: \"q\"");
}

// The inline mesh is the sharding's own: its axes, not the table's, are the ones it may name (SHARDY.md §4).
TEST(VerifySharding, InlineMeshBindsItsOwnAxes) {
  expect_error(kAb, R"(<mesh<["a"=2, "b"=2]>, [{}, {"c"}]>)", 2, "unknown axis name: \"c\"");
  expect_valid(kAb, R"(<mesh<["a"=2, "b"=2]>, [{"a"}, {"b"}]>)", 2);
  expect_valid(kAb, R"(<mesh<["a"=2], device_ids=[1, 0]>, [{"a"}]>)", 1);
  expect_valid(kAb, R"(<mesh<[], device_ids=[3]>, []>)", 2);  // maximal: the rank is not checked (§12.9)
  expect_error(kAb, R"(<mesh<["q"=2]>, [{"a"}]>)", 1, "unknown axis name: \"a\"");
}

TEST(VerifySharding, MaximalMeshNeedsRankZeroAndNoNamedAxes) {
  const std::string message =
      "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes.";
  expect_valid(kAb, "<@maximal, []>", 2);  // the tensor rank is not checked at all (§12.9)
  expect_valid(kAb, "<@maximal, []>", std::nullopt);
  expect_error(kAb, "<@maximal, [{}]>", 1, message);
  expect_error(kAb, "<mesh<[], device_ids=[0]>, [{}, {}]>", 2, message);
  expect_error(kAb, R"(<@maximal, [], replicated={"a"}>)", 0, message);
  expect_error(kAb, R"(<@maximal, [], unreduced={"a"}>)", 0, message);
}

TEST(VerifySharding, NoTypeTakesTheMaximalPath) {
  const std::string message =
      "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes.";
  expect_valid(kAb, "<@m, []>", std::nullopt);
  expect_error(kAb, "<@m, [{}]>", std::nullopt, message);  // misleading but Shardy's (§12.8)
  expect_error(kAb, R"(<@m, [], replicated={"a"}>)", std::nullopt, message);
  expect_error(kAb, R"(<@m, [{"a"}]>)", std::nullopt,
               "shardings don't match number of values: 1 shardings vs 0 values");
}

TEST(VerifySharding, RankMustMatch) {
  expect_error(kAb, R"(<@m, [{"a"}, {}]>)", 3, "sharding doesn't match tensor rank: 2 != 3");
  expect_error(kAb, R"(<@m, []>)", 1, "sharding doesn't match tensor rank: 0 != 1");
  // Row 6 before the dims' own checks.
  expect_error(kAb, R"(<@m, [{"zz"}]>)", 2, "sharding doesn't match tensor rank: 1 != 2");
}

TEST(VerifySharding, ClosedEmptyDimMustNotHaveAPriority) {
  expect_error(kAb, R"(<@m, [{"a"}, {}p0]>)", 2, "dim 1 is empty and closed but has a priority");
  expect_error(kAb, R"(<@m, [{}p2]>)", 1, "dim 0 is empty and closed but has a priority");
  expect_valid(kAb, R"(<@m, [{?}p3, {"a"}p0]>)", 2);
  // The priority check of dim 0 runs before dim 1's axis list.
  expect_error(kAb, R"(<@m, [{}p1, {"zz"}]>)", 2, "dim 0 is empty and closed but has a priority");
}

TEST(VerifySharding, NegativePriorityFromCode) {
  TensorSharding s = parse_shardy_sharding(R"(<@m, [{"a"}, {"b"}]>)");
  s.dims[1].priority = -1;
  try {
    verify_sharding(s, table_with(kAb), 2);
    ADD_FAILURE() << "negative priority verified";
  } catch (const VerifyError& error) {
    EXPECT_EQ(std::string(error.what()), "dim 1 has a negative priority");
  }
}

TEST(VerifySharding, UnknownAxisName) {
  expect_error(kAb, R"(<@m, [{"a", "c"}]>)", 1, "unknown axis name: \"c\"");
  expect_error(kAb, R"(<@m, [{"c":(1)2}]>)", 1, "unknown axis name: \"c\"");
  // The empty mesh has no axes, so only empty dims are allowed.
  expect_valid(kAb, "<@empty, [{}, {?}]>", 2);
  expect_error(kAb, R"(<@empty, [{"a"}]>)", 1, "unknown axis name: \"a\"");
}

TEST(VerifySharding, DuplicateAxisRefAcrossAllLists) {
  expect_error(kAb, R"(<@m, [{"a"}, {"a"}]>)", 2, "duplicate axis ref: \"a\"");
  expect_error(kAb, R"(<@m, [{"b", "a":(2)2}], replicated={"a":(2)2}>)", 1, "duplicate axis ref: \"a\":(2)2");
  expect_error(kAb, R"(<@m, [{"a"}], unreduced={"a"}>)", 1, "duplicate axis ref: \"a\"");
  expect_error(kAb, R"(<@m, [], replicated={"b"}, unreduced={"b"}>)", 0, "duplicate axis ref: \"b\"");
}

TEST(VerifySharding, AdjacentSubAxesThatMergeAreRejected) {
  expect_error(kAb, R"(<@m, [{"a":(1)2, "a":(2)4}]>)", 1,
               "two consecutive sub-axes can be merged: \"a\":(1)2, \"a\":(2)4");
  // List checks come before sub-axis validity: the merge error wins over the invalid "a":(4)4 (a=8).
  expect_error(kAb, R"(<@m, [{"a":(2)2, "a":(4)4}]>)", 1,
               "two consecutive sub-axes can be merged: \"a\":(2)2, \"a\":(4)4");
  expect_error(kAb, R"(<@m, [{}], replicated={"a":(1)2, "a":(2)2}>)", 1,
               "two consecutive sub-axes can be merged: \"a\":(1)2, \"a\":(2)2");
  // A full axis in between breaks adjacency; minor before major is allowed; other lists do not count.
  expect_valid(kAb, R"(<@m, [{"a":(1)2, "b", "a":(2)2}]>)", 1);
  expect_valid(kAb, R"(<@m, [{"a":(2)2, "a":(1)2}]>)", 1);
  expect_valid(kAb, R"(<@m, [{"a":(1)2}, {"a":(2)2}]>)", 2);
}

TEST(VerifySharding, ReplicatedAxesMustBeOrderedWithRespectToTheMesh) {
  const std::string message = "replicated axes are not ordered w.r.t. mesh";
  expect_error(kAb, R"(<@m, [{}], replicated={"b", "a"}>)", 1, message);
  expect_error(R"(<["x"=2, "y"=8]>)", R"(<@m, [{}], replicated={"y":(4)2, "x", "y":(1)2}>)", 1, message);
  expect_valid(R"(<["x"=2, "y"=8]>)", R"(<@m, [{}], replicated={"x", "y":(1)2, "y":(4)2}>)", 1);
  expect_error(kAb, R"(<@m, [{}], replicated={"a", "a":(1)2}>)", 1, message);  // "a":(1)2 < "a"
  expect_valid(kAb, R"(<@m, [{}], replicated={"a":(1)2, "b"}>)", 1);
  // Order before unknown names: known axes sort before unknown ones.
  expect_error(kAb, R"(<@m, [{}], replicated={"c", "a"}>)", 1, message);
  expect_error(kAb, R"(<@m, [{}], replicated={"a", "c"}>)", 1, "unknown axis name: \"c\"");
  // Two different unknown names (undefined in Shardy): the first unknown is reported.
  expect_error(kAb, R"(<@m, [{}], replicated={"a", "d", "c"}>)", 1, "unknown axis name: \"d\"");
  expect_error(kAb, R"(<@m, [{}], replicated={"d", "c"}>)", 1, "unknown axis name: \"d\"");
  // Dims are checked before the replicated list.
  expect_error(kAb, R"(<@m, [{"a"}, {"a"}], replicated={"b", "a"}>)", 2, "duplicate axis ref: \"a\"");
}

TEST(VerifySharding, UnreducedAxesMustBeOrderedWithRespectToTheMesh) {
  expect_error(kAb, R"(<@m, [{}], unreduced={"b", "a"}>)", 1, "unreduced axes are not ordered w.r.t. mesh");
  expect_error(kAb, R"(<@m, [{}], unreduced=max{"a", "c"}>)", 1, "unknown axis name: \"c\"");
  // Replicated (row 8) before unreduced (row 9).
  expect_error(kAb, R"(<@m, [{}], replicated={"b", "a"}, unreduced={"b", "a"}>)", 1,
               "replicated axes are not ordered w.r.t. mesh");
}

TEST(VerifySharding, SubAxisAndFullAxisOfOneName) {
  expect_error(kAb, R"(<@m, [{"a"}, {"a":(1)2}]>)", 2, "both sub-axis and full-axis are used for axis name: \"a\"");
  expect_error(kAb, R"(<@m, [{"a":(2)2}], replicated={"a"}>)", 1,
               "both sub-axis and full-axis are used for axis name: \"a\"");
}

TEST(VerifySharding, SubAxisValidity) {
  expect_error(kAb, R"(<@m, [{"a":(0)2}]>)", 1, "sub-axis pre-size must be at least 1: \"a\":(0)2");
  expect_error(kAb, R"(<@m, [{"a":(-1)2}]>)", 1, "sub-axis pre-size must be at least 1: \"a\":(-1)2");
  expect_error(kAb, R"(<@m, [{"a":(1)1}]>)", 1, "sub-axis sizes must be greater than 1: \"a\":(1)1");
  expect_error(kAb, R"(<@m, [{"a":(2)-2}]>)", 1, "sub-axis sizes must be greater than 1: \"a\":(2)-2");
  expect_error(kAb, R"(<@m, [{"a":(3)2}]>)", 1,
               "sub-axis next pre-size 6 doesn't divide the size of the full axis 8: \"a\":(3)2");
  expect_error(kAb, R"(<@m, [{"a":(4)4}]>)", 1,
               "sub-axis next pre-size 16 doesn't divide the size of the full axis 8: \"a\":(4)4");
  expect_error(kAb, R"(<@m, [{"a":(1)8}]>)", 1, "sub-axis size is equal to the full axis size: \"a\":(1)8");
  // m*k beyond int64 is reported exactly: 2^62 * 4 = 2^64.
  expect_error(kAb, R"(<@m, [{"a":(4611686018427387904)4}]>)", 1,
               "sub-axis next pre-size 18446744073709551616 doesn't divide the size of the full axis 8: "
               "\"a\":(4611686018427387904)4");
}

TEST(VerifySharding, OverlappingSubAxesAreReportedInSortedOrder) {
  const char* mesh = R"(<["x"=16]>)";
  expect_error(mesh, R"(<@m, [{"x":(2)4}, {"x":(1)4}]>)", 2, "overlapping sub-axes: \"x\":(1)4, \"x\":(2)4");
  expect_error(mesh, R"(<@m, [{"x":(1)4}], replicated={"x":(1)2}>)", 1, "overlapping sub-axes: \"x\":(1)2, \"x\":(1)4");
  expect_valid(mesh, R"(<@m, [{"x":(1)4}, {"x":(4)2}]>)", 2);
}

TEST(VerifySharding, SubAxisChecksFollowMeshAxisOrder) {
  // Both names have an invalid sub-axis; "y" comes first in the mesh, "x" first in the text.
  const char* mesh = R"(<["y"=8, "x"=8]>)";
  expect_error(mesh, R"(<@m, [{"x":(3)2}, {"y":(0)2}]>)", 2, "sub-axis pre-size must be at least 1: \"y\":(0)2");
  // Each name's sub-axes are sorted before checking: "x":(1)3 (invalid) sorts before "x":(3)2.
  expect_error(mesh, R"(<@m, [{"x":(3)2}, {"x":(1)3}]>)", 2,
               "sub-axis next pre-size 3 doesn't divide the size of the full axis 8: \"x\":(1)3");
  // An unknown name in the replicated list is found before any sub-axis check.
  expect_error(mesh, R"(<@m, [{"x":(3)2}], replicated={"q"}>)", 1, "unknown axis name: \"q\"");
}

TEST(VerifySharding, Surprises) {
  // §12.1: non-overlapping but incompatible sub-axes pass (a=12).
  expect_valid(R"(<["a"=12]>)", R"(<@m, [{"a":(1)2}, {"a":(3)2}]>)", 2);
  // §12.2/§12.3: no shape is checked, so dims of size 0 and non-divisible dims may be sharded
  // (a tensor<0x7xf32> sharded 8 ways on each dim).
  expect_valid(kAb, R"(<@m, [{"a"}, {"b"}]>)", 2);
  // §12.5: `{}p0` is rejected although p0 is the default.
  expect_error(kAb, R"(<@m, [{}p0]>)", 1, "dim 0 is empty and closed but has a priority");
  // §12.6: `unreduced{...}` without `=` parses and verifies.
  expect_valid(kAb, R"(<@m, [{"a"}], unreduced{"b"}>)", 1);
  // §12.4: an explicit iota list is dropped, not rejected.
  EXPECT_NO_THROW(verify_mesh(parse_shardy_mesh(R"(<["a"=2], device_ids=[0, 1]>)")));
  // Size-1 axes are legal; a mesh of total size 1 is not maximal.
  expect_valid(R"(<["a"=1]>)", R"(<@m, [{"a"}]>)", 1);
}

}  // namespace
}  // namespace podsim
