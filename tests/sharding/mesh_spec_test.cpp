// The `--mesh` flag's value: simple `X=8,Y=2` meshes, named ones, and named Shardy mesh attributes,
// with ParseError columns counted in the whole flag value and VerifyError for rule breaks.
#include "models/sharding/mesh_spec.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::size_t mesh_column_of(std::string_view text, std::string_view needle) {
  return text.find(needle) + 1;
}

void expect_parse_error(std::string_view text, const std::string& message, std::size_t column) {
  try {
    parse_mesh_spec(text);
    ADD_FAILURE() << "parsed: " << text;
  } catch (const ParseError& error) {
    EXPECT_EQ(std::string(error.what()), message) << text;
    EXPECT_EQ(error.column(), column) << text;
  }
}

void expect_verify_error(std::string_view text, const std::string& message) {
  try {
    parse_mesh_spec(text);
    ADD_FAILURE() << "parsed: " << text;
  } catch (const VerifyError& error) {
    EXPECT_EQ(std::string(error.what()), message) << text;
  }
}

TEST(MeshSpec, SimpleMeshIsNamedMeshAndRowMajor) {
  const NamedMesh named = parse_mesh_spec("X=8,Y=2");
  EXPECT_EQ(named.name, "mesh");
  EXPECT_EQ(named.mesh.axes, (std::vector<MeshAxis>{{"X", 8}, {"Y", 2}}));
  EXPECT_TRUE(named.mesh.device_ids.empty());
  // Row-major: device at (X=3, Y=1) is 3*2 + 1.
  EXPECT_EQ(named.mesh.device_at(3 * 2 + 1), 7);
  EXPECT_EQ(parse_mesh_spec(" X = 8 , Y = 2 ").mesh, named.mesh);
  EXPECT_EQ(parse_mesh_spec("data=4").mesh.axes, (std::vector<MeshAxis>{{"data", 4}}));
}

TEST(MeshSpec, NamedSimpleMesh) {
  const NamedMesh named = parse_mesh_spec("pod=X=4,Y=4,Z=4");
  EXPECT_EQ(named.name, "pod");
  EXPECT_EQ(named.mesh.axes, (std::vector<MeshAxis>{{"X", 4}, {"Y", 4}, {"Z", 4}}));
  EXPECT_EQ(parse_mesh_spec("@pod = X=2").name, "pod");
}

TEST(MeshSpec, NamedShardyMesh) {
  const NamedMesh named = parse_mesh_spec(R"(m=<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>)");
  EXPECT_EQ(named.name, "m");
  EXPECT_EQ(named.mesh.axes, (std::vector<MeshAxis>{{"x", 2}, {"y", 2}}));
  EXPECT_EQ(named.mesh.device_ids, (std::vector<std::int64_t>{3, 2, 1, 0}));
  EXPECT_TRUE(parse_mesh_spec(R"(m=<["x"=2], device_ids=[0, 1]>)").mesh.device_ids.empty());  // iota dropped
  EXPECT_EQ(parse_mesh_spec(R"(m = #sdy.mesh<["x"=4]>)").mesh.axes, (std::vector<MeshAxis>{{"x", 4}}));
  EXPECT_TRUE(parse_mesh_spec("single=<[], device_ids=[2]>").mesh.is_maximal());
  const NamedMesh unnamed = parse_mesh_spec(R"(<["x"=4]>)");
  EXPECT_EQ(unnamed.name, "mesh");
  EXPECT_EQ(unnamed.mesh.axes, (std::vector<MeshAxis>{{"x", 4}}));
}

TEST(MeshSpec, ParseErrorsCarryTheColumnInTheWholeSpec) {
  expect_parse_error("", "expected a mesh spec such as 'X=8,Y=2' or 'NAME=<[\"x\"=2]>'", 1);
  expect_parse_error("X=0", "axis size must be at least 1, got: 0", 3);
  expect_parse_error("X=8,Y=-2", "axis size must be at least 1, got: -2", 7);
  expect_parse_error("X=8,", "expected an axis name", 5);
  expect_parse_error("X=8;Y=2", "expected ',' or end of mesh spec", 4);
  expect_parse_error("X", "expected '='", 2);
  expect_parse_error("=8", "expected an axis or mesh name", 1);
  expect_parse_error("X=", "expected integer value", 3);
  expect_parse_error("X=99999999999999999999", "integer value too large", 3);
  const std::string attr = R"(m=<["x"=0]>)";
  expect_parse_error(attr, "axis size must be at least 1, got: 0", mesh_column_of(attr, "0"));
  const std::string attr_garbage = R"(pod = <["x"=2]> extra)";
  expect_parse_error(attr_garbage, "expected end of input after '>', got: extra",
                     mesh_column_of(attr_garbage, "extra"));
}

TEST(MeshSpec, RuleBreaksAreVerifyErrors) {
  expect_verify_error("X=8,X=2", "duplicate axis name: \"X\"");
  expect_verify_error(R"(m=<["x"=2], device_ids=[1, 1]>)", "sorted device ids must be iota(product(axes)), got: 1, 1");
  expect_verify_error(R"(m=<["x"=2, "y"=2], device_ids=[0, 1]>)",
                      "total product of axis sizes must match total number of device ids, got: 4 != 2");
  expect_verify_error("m=<[], device_ids=[0, 1]>", "axes is empty and device_ids has more than one element");
}

}  // namespace
}  // namespace podsim
