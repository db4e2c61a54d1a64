// Shardy's verifier for meshes and tensor shardings (SHARDY.md §2 and §4): the checks run in Shardy's
// order and the first failing one throws VerifyError with Shardy's exact core message.
#pragma once

#include <cstddef>
#include <optional>

#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// SHARDY.md §2 checks 3..9 in order, preceded by the parse-time `axis size must be at least 1, got: <n>`
// (check 1) for meshes built in code. Throws VerifyError.
void verify_mesh(const Mesh& mesh);

// SHARDY.md §4 rows 1, 2, 6, 7 (a-c), 8, 9 and 10 in order, as Shardy's verifyTensorShardingAttr runs them
// for an op or function (no divisibility check). `rank` is the tensor's rank; nullopt means the value has
// no type (an op without results), which takes row 2's path when all dims are empty and otherwise fails
// like Shardy's per-value count check (`shardings don't match number of values: 1 shardings vs 0 values`).
// Sub-axes are checked per axis name in mesh axis order. An inline mesh is first checked with verify_mesh
// (Shardy verifies it when building the attribute). Throws VerifyError.
void verify_sharding(const TensorSharding& sharding, const MeshTable& meshes, std::optional<std::size_t> rank);

}  // namespace podsim
