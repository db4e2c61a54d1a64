// Groups across slices and the hierarchical axis order.
#include "sim/collectives/hierarchical.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"

namespace podsim {

AxisGroups slice_axis_groups(std::int64_t chips_per_slice, std::int32_t slices) {
  if (chips_per_slice < 1 || slices < 1)
    throw VerifyError("slice axis groups need >= 1 chip per slice and >= 1 slice, got: " +
                      std::to_string(chips_per_slice) + " chips, " + std::to_string(slices) + " slices");
  AxisGroups axis;
  axis.wraparound = true;
  axis.dcn = true;
  axis.groups.resize(static_cast<std::size_t>(chips_per_slice));
  for (std::int64_t c = 0; c < chips_per_slice; ++c)
    for (std::int32_t s = 0; s < slices; ++s)
      axis.groups[static_cast<std::size_t>(c)].push_back(static_cast<ChipId>(s * chips_per_slice + c));
  return axis;
}

AxisGroups repeat_over_slices(const AxisGroups& in_slice, std::int64_t chips_per_slice, std::int32_t slices) {
  if (slices < 1) throw VerifyError("the slice count must be >= 1, got: " + std::to_string(slices));
  AxisGroups axis;
  axis.wraparound = in_slice.wraparound;
  axis.groups.reserve(in_slice.groups.size() * static_cast<std::size_t>(slices));
  for (std::int32_t s = 0; s < slices; ++s)
    for (const auto& group : in_slice.groups) {
      std::vector<ChipId> chips;
      chips.reserve(group.size());
      for (const ChipId chip : group)
        chips.push_back(static_cast<ChipId>(s * chips_per_slice + chip));
      axis.groups.push_back(std::move(chips));
    }
  return axis;
}

std::vector<std::size_t> hierarchical_axis_order(const CollectiveRequest& request) {
  std::vector<std::size_t> order(request.axes.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const bool dcn_first = request.op == CollectiveKind::all_gather;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return request.axes[i].dcn == dcn_first; });
  return order;
}

bool crosses_slices(const CollectiveRequest& request) {
  return std::any_of(request.axes.begin(), request.axes.end(), [](const AxisGroups& axis) { return axis.dcn; });
}

}  // namespace podsim
