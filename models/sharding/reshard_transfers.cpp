// Transfers of shards between mesh positions: pieces of the receiver's new shard, each from the nearest holder.
#include "models/sharding/reshard_transfers.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"

namespace podsim {
namespace {

// `position` with its coordinate along `ref` (a full axis, or the sub-axis "x":(m)k: axis x of size n viewed as
// [m, k, n/(m*k)], the middle digit) set to `value`.
std::int64_t with_coordinate(std::int64_t position, const AxisRef& ref, std::int64_t value, const Mesh& mesh) {
  const std::int64_t n = mesh.axis_size(ref.name);
  const std::int64_t unit = mesh.axis_stride(ref.name) * (n / (ref.pre_size() * ref.size(mesh)));
  const std::int64_t digit = position / unit % ref.size(mesh);
  return position + (value - digit) * unit;
}

}  // namespace

std::vector<ShardTransfer> reshard_transfers(const std::vector<std::int64_t>& shape, DType dtype,
                                             const TensorSharding& from, const TensorSharding& to, const Mesh& mesh,
                                             std::size_t limit) {
  if (!from.unreduced.empty() || !to.unreduced.empty())
    throw VerifyError("a sharding with unreduced axes is reduced, not moved, got: unreduced " +
                      to_string(from.unreduced.empty() ? to.unreduced : from.unreduced));
  Mesh logical = mesh;
  logical.device_ids.clear();
  const Layout in = compute_layout(shape, dtype, from, logical);
  const std::size_t rank = shape.size();
  std::vector<ShardTransfer> out;
  for (std::int64_t receiver = 0; receiver < logical.num_devices(); ++receiver) {
    const std::vector<Range> need = shard_ranges(shape, to, logical, receiver);
    const std::vector<std::int64_t> own = shard_index(from, logical, receiver);
    // The `from` shards overlapping the need, dim by dim: indices first[d] .. last[d].
    std::vector<std::int64_t> first(rank), last(rank);
    bool empty = false;
    for (std::size_t d = 0; d < rank; ++d) {
      if (need[d].begin >= need[d].end) empty = true;
      const std::int64_t local = in.local_shape[d];
      first[d] = need[d].begin / local;
      last[d] = empty ? first[d] : (need[d].end - 1) / local;
    }
    if (empty) continue;
    std::vector<std::int64_t> index = first;
    while (true) {
      if (index != own) {
        std::uint64_t elements = 1;
        std::int64_t holder = receiver;
        for (std::size_t d = 0; d < rank; ++d) {
          const std::int64_t local = in.local_shape[d];
          const std::int64_t begin = std::max(need[d].begin, index[d] * local);
          const std::int64_t end = std::min({need[d].end, (index[d] + 1) * local, shape[d]});
          elements *= static_cast<std::uint64_t>(end - begin);
          // The holder: the receiver's position with the digits of this shard's index along the dim's axes.
          std::int64_t rest = index[d];
          const auto& axes = from.dims[d].axes;
          for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
            const std::int64_t size = it->size(logical);
            holder = with_coordinate(holder, *it, rest % size, logical);
            rest /= size;
          }
        }
        if (elements > 0 && holder != receiver) {
          if (out.size() >= limit)
            throw VerifyError("the reshard needs more than " + std::to_string(limit) + " transfers");
          out.push_back({holder, receiver, dtype_bytes(dtype, elements)});
        }
      }
      std::size_t d = rank;
      while (d > 0 && index[d - 1] == last[d - 1]) {
        index[d - 1] = first[d - 1];
        --d;
      }
      if (d == 0) break;
      ++index[d - 1];
    }
  }
  return out;
}

ReductionTransfers reduction_transfers(std::uint64_t bytes_per_chip, const std::vector<AxisRef>& axes, const Mesh& mesh,
                                       bool gather, std::size_t limit) {
  Mesh logical = mesh;
  logical.device_ids.clear();
  std::int64_t group = 1;
  for (const auto& ref : axes)
    group *= ref.size(logical);
  const std::uint64_t piece =
      (bytes_per_chip + static_cast<std::uint64_t>(group) - 1) / static_cast<std::uint64_t>(group);
  ReductionTransfers out;
  for (std::int64_t sender = 0; sender < logical.num_devices(); ++sender)
    for (std::int64_t member = 0; member < group; ++member) {
      // The member's position: the sender's with the axes' digits of `member` (mixed radix, the last axis minor).
      std::int64_t to = sender, rest = member;
      for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
        const std::int64_t size = it->size(logical);
        to = with_coordinate(to, *it, rest % size, logical);
        rest /= size;
      }
      if (to == sender) continue;
      if (out.scatter.size() >= limit)
        throw VerifyError("the reduction needs more than " + std::to_string(limit) + " transfers per phase");
      out.scatter.push_back({sender, to, piece});
      if (gather) out.gather.push_back({sender, to, piece});
    }
  return out;
}

}  // namespace podsim
