// The memory layout of a sharded tensor (SHARDY.md §7): per-device (local) shape, padding of dims that the
// shard count does not divide, bytes per device and in total, and which block each device holds.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

struct Layout {
  std::vector<std::int64_t> global_shape;
  std::vector<std::int64_t> local_shape;     // ceil(global / shards_per_dim)
  std::vector<std::int64_t> padded_shape;    // local * shards_per_dim: global rounded up to a multiple
  std::vector<std::int64_t> shards_per_dim;  // sharded size of each dim (product of its axis sizes)
  std::uint64_t bytes_per_device = 0;        // packed bytes of one local shard, padding included
  std::uint64_t global_bytes = 0;            // packed bytes of one unpadded copy
  std::int64_t num_devices = 0;              // devices of the mesh
  std::uint64_t total_bytes = 0;             // bytes_per_device * num_devices
  std::int64_t replication_factor = 0;       // num_devices / product(shards_per_dim): copies of each shard
  double memory_ratio = 0;                   // total_bytes / global_bytes (padding included); 0 if global is 0
};

// Layout of a tensor of `shape` and `dtype` sharded by `s` on `mesh`. A rank-0 tensor holds 1 element; on a
// maximal mesh a sharding without dims leaves every dim whole. Replicated and unreduced axes do not shrink
// the shard. Throws VerifyError on a rank mismatch, a negative dim, an unknown axis or an overflow.
Layout compute_layout(const std::vector<std::int64_t>& shape, DType dtype, const TensorSharding& s, const Mesh& mesh);

// Shard index of `device` in each dim (SHARDY.md §7 getShardIndex): the mixed-radix number of the device's
// coordinates along the dim's axes, major to minor, honouring the mesh's device_ids. Throws VerifyError if
// the device is not in the mesh.
std::vector<std::int64_t> shard_index(const TensorSharding& s, const Mesh& mesh, std::int64_t device);

// Half-open element range of one dim.
struct Range {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool operator==(const Range&) const = default;
};

// Element range [begin, end) of each dim held by `device`: [idx * local, (idx + 1) * local) clipped to the
// global dim, so a shard made only of padding is empty (begin == end == dim size).
std::vector<Range> shard_ranges(const std::vector<std::int64_t>& shape, const TensorSharding& s, const Mesh& mesh,
                                std::int64_t device);

}  // namespace podsim
