// Collectives over several slices (docs/overlap-pipeline-dcn.md): the chip groups of an axis that spans the slices, the
// in-slice groups repeated in every slice, and the order in which the builder visits the axes so that a collective over
// in-slice axes and the slice axis runs hierarchically: reduce-scatter in the slice over ICI, all-reduce across
// slices over DCN, all-gather in the slice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace podsim {

// The groups of the axis over the slice index: chip s * chips_per_slice + c of every slice s, one group per
// local chip c (in slice order), dcn = true and wraparound = true (the switch joins every pair of hosts, so the
// slices form a ring). Throws VerifyError unless chips_per_slice >= 1 and slices >= 1.
AxisGroups slice_axis_groups(std::int64_t chips_per_slice, std::int32_t slices);

// `in_slice` (groups of one slice, chips in [0, chips_per_slice)) repeated in every slice: group g of slice s
// holds chip s * chips_per_slice + c for every chip c of group g. Same wraparound, dcn false. Throws VerifyError
// unless slices >= 1.
AxisGroups repeat_over_slices(const AxisGroups& in_slice, std::int64_t chips_per_slice, std::int32_t slices);

// The order in which the builder visits the request's axes (indices into request.axes) when they run one after
// another: the request's order, with the DCN axes moved first for an all-gather (the shard is smallest then) and
// last for a reduce-scatter or an all-reduce (whose all-gather then runs in reverse: DCN first). So only V / M
// crosses the DCN per chip, M being the chips of the in-slice axes.
std::vector<std::size_t> hierarchical_axis_order(const CollectiveRequest& request);

// True when an axis of the request runs over the DCN.
bool crosses_slices(const CollectiveRequest& request);

}  // namespace podsim
