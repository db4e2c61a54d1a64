// The question `podsim shard` answers: given meshes, a tensor shape and dtype and a sharding in any
// notation, verify it and describe the layout (local shape, padding, bytes per device and in total,
// replication) and the device -> shard map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/field_error.hpp"
#include "models/common/shape.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/notation.hpp"

namespace podsim {

// The question as typed values. Errors name the field (ShardError).
struct ShardRequest {
  enum class Field { meshes, sharding };

  // A tensor and its sharding.
  struct Tensor {
    Shape shape;
    DType dtype = DType::f32;
    std::string sharding;  // any notation; book and PartitionSpec texts bind to the first mesh
  };

  std::vector<NamedMesh> meshes;  // at least one, unless the tensor's sharding inlines its mesh
  std::optional<Tensor> tensor;   // without it the meshes are verified and described
  bool devices = false;           // compute the device -> shard index map
};

using ShardError = FieldError<ShardRequest::Field>;

struct DeviceShard {
  std::int64_t device = 0;
  std::vector<std::int64_t> shard_index;  // per dim
};

struct ShardAnswer {
  MeshTable meshes;
  // Set when a tensor was given:
  std::optional<ParsedSharding> parsed;
  std::string mesh_name;  // the mesh the sharding is bound to (`inline` for an inlined mesh)
  Shape shape;
  DType dtype = DType::f32;
  Layout layout;
  PrintedSharding printed;
  std::vector<DeviceShard> devices;  // with ShardRequest::devices, ordered by device id
};

// Verifies and measures. Throws ShardError in the field at fault (`meshes`: none (and no inline mesh), or two
// of one name;
// `sharding`: parse (with the column) or verify, carrying the rule's message).
ShardAnswer answer_shard_request(const ShardRequest& request);

}  // namespace podsim
