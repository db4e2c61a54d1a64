// `podsim shard`'s question as typed values: the answer for a good request, and errors that name the field at
// fault (never a flag) with the rule's message and, for text that did not parse, the column.
#include "models/sharding/shard_query.hpp"

#include <gtest/gtest.h>

#include "models/sharding/mesh_spec.hpp"

namespace podsim {
namespace {

ShardRequest request_on(const std::string& mesh, const std::string& sharding, Shape shape = {1024, 4096}) {
  ShardRequest request;
  request.meshes.push_back(parse_mesh_spec(mesh));
  request.tensor = ShardRequest::Tensor{std::move(shape), DType::bf16, sharding};
  return request;
}

TEST(ShardQuery, LayoutOfATypedRequest) {
  const ShardAnswer answer = answer_shard_request(request_on("X=4,Y=2", "A[I_X, J_Y]"));
  EXPECT_EQ(answer.mesh_name, "mesh");
  EXPECT_EQ(answer.layout.bytes_per_device, 1024u / 4 * 4096 / 2 * 2);  // bf16[256, 2048]
}

TEST(ShardQuery, ErrorsNameTheField) {
  try {
    answer_shard_request(request_on("X=4,Y=2", "A[I_X, J_X]"));
    FAIL() << "expected ShardError";
  } catch (const ShardError& e) {
    EXPECT_EQ(e.field(), ShardRequest::Field::sharding);
    EXPECT_EQ(e.message(), "duplicate axis ref: \"X\"");
    EXPECT_FALSE(e.parse());
  }
  try {
    answer_shard_request(request_on("X=4", "<@mesh, [{\"X\"}, {?, \"Y\"}]>"));
    FAIL() << "expected ShardError";
  } catch (const ShardError& e) {
    EXPECT_EQ(e.field(), ShardRequest::Field::sharding);
    EXPECT_TRUE(e.parse());
    EXPECT_EQ(e.column(), 19u);
    EXPECT_STREQ(e.what(), "column 19: expected '}'");
  }
  ShardRequest twice = request_on("X=4", "A[I_X, J]");
  twice.meshes.push_back(twice.meshes.front());
  try {
    answer_shard_request(twice);
    FAIL() << "expected ShardError";
  } catch (const ShardError& e) {
    EXPECT_EQ(e.field(), ShardRequest::Field::meshes);
  }
  EXPECT_THROW(answer_shard_request(ShardRequest{}), ShardError);  // no mesh
}

TEST(ShardQuery, AnInlineMeshNeedsNoOtherMesh) {
  ShardRequest request;
  request.tensor = ShardRequest::Tensor{{4, 4}, DType::f32, R"(<mesh<["a"=2, "b"=2]>, [{"a"}, {"b"}]>)"};
  const ShardAnswer answer = answer_shard_request(request);
  EXPECT_EQ(answer.mesh_name, "inline");
  EXPECT_EQ(answer.layout.local_shape, (Shape{2, 2}));
  EXPECT_EQ(answer.layout.bytes_per_device, 2u * 2 * 4);
  request.tensor->sharding = "A[I_a, J_b]";  // names no mesh, and none is given
  try {
    answer_shard_request(request);
    FAIL() << "expected ShardError";
  } catch (const ShardError& e) {
    EXPECT_EQ(e.field(), ShardRequest::Field::meshes);
    EXPECT_EQ(e.message(), "at least one mesh is required unless the sharding inlines one, got: none");
  }
}

}  // namespace
}  // namespace podsim
