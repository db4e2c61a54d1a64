// The four collectives on real values (functional mode): each moves and adds the numbers of a ShardedValues,
// returns the values under the new sharding, and a ledger of the payload bytes every device sends under the
// simplest exchange (direct, every device to every other device of its group). No timing: the schedules in
// sim/collectives time the same payloads.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/plan/sharded_values.hpp"
#include "models/sharding/axis_ref.hpp"
#include "models/sharding/mesh.hpp"

namespace podsim {

// One logical send: `bytes` of payload from device `from` to device `to`, counted once at the sender (the matching
// receive is the same bytes). `phase` is the collective itself, or reduce-scatter / all-gather within an all-reduce.
struct PayloadSend {
  CollectiveKind phase = CollectiveKind::all_gather;
  std::int64_t from = 0;
  std::int64_t to = 0;
  std::uint64_t bytes = 0;
  bool operator==(const PayloadSend&) const = default;
};

// The sends of one collective. Bytes are the padded local chunk sizes of the tensor's dtype (XLA moves padding too);
// input placement, headers and local copies are not payload.
struct PayloadLedger {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::vector<PayloadSend> sends;  // by phase, then sender in logical mesh order, then receiver in group order

  // Bytes `device` sends in all phases, or in one phase.
  std::uint64_t bytes_sent_by(std::int64_t device) const;
  std::uint64_t bytes_sent_by(std::int64_t device, CollectiveKind phase) const;
  // Bytes all devices send.
  std::uint64_t total_bytes() const;
};

struct CollectiveValues {
  ShardedValues values;
  PayloadLedger ledger;
};

// Devices of `device`'s group over `axes`: those whose mesh coordinates differ from it only along `axes`, ordered by
// their mixed-radix coordinate along `axes` (first axis major). A device's own position in the list is its rank in
// the group. Throws VerifyError for an unknown axis, a sub-axis that does not divide its axis, overlapping axes, or
// a device not in the mesh.
std::vector<std::int64_t> collective_group(const Mesh& mesh, const std::vector<AxisRef>& axes, std::int64_t device);

// All-gather over `axes` along `dim`: `axes` must be the minor-most axes of the dim (`[I_XY]` gathers Y to `[I_X]`).
// Each device sends its local array to every other device of its group: (N-1) local arrays, i.e. (N-1)/N of the
// gathered array. Throws VerifyError `all-gather over "X" would concatenate partial sums: the tensor is unreduced over
// "X"; reduce it first (reduce-scatter or all-reduce)` when the tensor is unreduced over a gathered axis.
CollectiveValues all_gather(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t dim);

// Reduce-scatter over `axes` into `dim`: the input must be unreduced over every axis of `axes`; the group's partial
// arrays are combined (sum, or max / min as the sharding says) and each device keeps its slice, `axes` appended as
// the minor-most axes of `dim`. Each device sends every other device of its group the chunk that device keeps:
// (N-1) new local arrays, i.e. (N-1)/N of its partial array.
CollectiveValues reduce_scatter(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t dim);

// All-reduce over `axes`: the input must be unreduced over every axis of `axes`; every device of a group ends with
// the combined array. Counted as a reduce-scatter then an all-gather of the flattened local array cut into N chunks
// of ceil(E/N) elements: each device sends 2 (N-1) chunks.
CollectiveValues all_reduce(const ShardedValues& values, const std::vector<AxisRef>& axes);

// All-to-all moving `axes` (the minor-most axes of `from_dim`) to the minor end of `to_dim`: `[I_X, J]` over X from
// 0 to 1 is `[I, J_X]`. Each device sends every other device of its group the part of its local array that device
// holds afterwards: the local array with `to_dim` cut to its new local size, (N-1)/N of the array.
CollectiveValues all_to_all(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t from_dim,
                            std::size_t to_dim);

}  // namespace podsim
