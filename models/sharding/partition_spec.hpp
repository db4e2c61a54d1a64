// JAX's PartitionSpec notation `P(('X', 'Y'), None)`: parsing into and printing from the one internal
// TensorSharding. Each entry shards one dim over a mesh axis or a tuple of axes (major to minor); None and
// missing trailing entries leave a dim replicated.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "models/sharding/sharding.hpp"

namespace podsim {

// Parses `P('X', None)`, `P(('X', 'Y'), None)`, `PartitionSpec("x")`, `P()`, `P(None,)`, with an optional
// `jax.sharding.` or `jax.` prefix, either quote style, and the keyword `unreduced={'Z'}` of newer JAX.
// With a rank, missing trailing entries become replicated dims (JAX's rule) and more entries than the rank
// throw VerifyError; nullopt keeps the entries given. Dims are closed, bound to mesh `mesh_name`. Throws
// ParseError with the 1-based column.
TensorSharding parse_partition_spec(std::string_view text, const std::string& mesh_name,
                                    std::optional<std::size_t> rank);

// Prints `P('X', None)`, `P(('X', 'Y'), None)`, `P('X', unreduced={'Z'})`, one entry per dim. Throws
// VerifyError `a PartitionSpec cannot express <what>, got: <sharding>` for sub-axes, open dims, priorities,
// explicitly replicated axes, non-sum unreduced axes and names that need escapes.
std::string print_partition_spec(const TensorSharding& s);

}  // namespace podsim
