// The question `podsim shard` answers: given meshes, a tensor shape and dtype and a sharding in any
// notation, verify it and describe the layout (local shape, padding, bytes per device and in total,
// replication) and the device -> shard map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/shape.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/notation.hpp"

namespace podsim {

// The inputs as the user wrote them; `where` names of the flags are used in errors.
struct ShardRequest {
  std::vector<std::string> mesh_specs;  // `X=8,Y=2` or `NAME=<["x"=2], device_ids=[...]>`
  std::optional<std::string> shape;     // `1024x4096`, `scalar`
  std::string dtype = "f32";
  std::optional<std::string> sharding;  // any notation
  bool devices = false;                 // compute the device -> shard index map
};

struct DeviceShard {
  std::int64_t device = 0;
  std::vector<std::int64_t> shard_index;  // per dim
};

struct ShardAnswer {
  MeshTable meshes;
  // Set when a sharding was given:
  std::optional<ParsedSharding> parsed;
  std::string mesh_name;  // the mesh the sharding is bound to (`inline` for an inlined mesh)
  Shape shape;
  DType dtype = DType::f32;
  Layout layout;
  PrintedSharding printed;
  std::vector<DeviceShard> devices;  // with ShardRequest::devices, ordered by device id
};

// Parses, verifies and measures. Throws InputError located at the flag (`--mesh`, `--shape`, `--dtype`,
// `--sharding`) with stage parse (and the column) or verify, carrying the rule's message.
ShardAnswer answer_shard_request(const ShardRequest& request);

}  // namespace podsim
