// Writers for `podsim shard`: a readable summary and the versioned JSON object (schema podsim/1).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/sharding/shard_query.hpp"

namespace podsim::report {

// {"schema": "podsim/1", "local_shape", "padded_shape", "bytes_per_device", "total_bytes", "num_devices",
//  "replication_factor", "printed": {"shardy", "book", "pspec"}, ...} and "shard_index_by_device" when the
// answer has devices. Without a sharding: {"schema", "meshes": [...]}.
nlohmann::json shard_answer_json(const ShardAnswer& answer);

// The same answer for a person to read.
std::string shard_answer_text(const ShardAnswer& answer);

}  // namespace podsim::report
