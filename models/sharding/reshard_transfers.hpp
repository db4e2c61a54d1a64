// The chip-to-chip transfers that change a tensor's sharding when nothing is summed (SHARDY.md §7): what
// `podsim import` simulates for Shardy's explicit collectives that podsim's collectives do not run (a
// collective_permute, an all-gather over a sub-axis, an all-to-all of several dims; docs/import.md).
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// One transfer between two logical mesh positions (row-major over the mesh's axes: the chips of a slice the mesh
// covers in order).
struct ShardTransfer {
  std::int64_t from = 0;
  std::int64_t to = 0;
  std::uint64_t bytes = 0;
  bool operator==(const ShardTransfer&) const = default;
};

// Each position receives the elements of its `to` shard that its `from` shard does not hold: one transfer per
// `from` shard it needs, from the position that holds that shard and has the receiver's coordinates along every
// axis (and sub-axis) the `from` sharding does not use for that shard. Ordered by receiver, then by the shard's
// index. Shardings are by logical position (a mesh's device_ids are ignored). Throws VerifyError when either
// sharding has unreduced axes (a reduction is not a move of shards), the ranks differ from the shape's, or more
// than `limit` transfers would be needed.
std::vector<ShardTransfer> reshard_transfers(const std::vector<std::int64_t>& shape, DType dtype,
                                             const TensorSharding& from, const TensorSharding& to, const Mesh& mesh,
                                             std::size_t limit);

// A sum over the group of `axes` (whole axes or sub-axes) of each position's `bytes_per_chip` bytes of partial sums,
// done directly (docs/import.md): the reduce-scatter phase, each position sending every other member of its group
// (the positions that differ from it only along `axes`) the 1/g of its bytes that member sums, g the group size;
// with `gather`, the all-gather phase, each sending its summed 1/g to every other member. Each phase moves
// (g - 1) / g of the bytes per position, as a ring does. Ordered by sender, then by receiver. Throws VerifyError
// when more than `limit` transfers per phase would be needed, or the axes are not on the mesh.
struct ReductionTransfers {
  std::vector<ShardTransfer> scatter, gather;
};
ReductionTransfers reduction_transfers(std::uint64_t bytes_per_chip, const std::vector<AxisRef>& axes, const Mesh& mesh,
                                       bool gather, std::size_t limit);

}  // namespace podsim
