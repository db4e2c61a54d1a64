// Mesh axes -> chip groups for collectives.
#include "sim/collectives/mesh_groups.hpp"

namespace podsim {

AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const std::string& axis) {
  AxisGroups groups;
  groups.groups = mapping.groups(axis);
  const auto& dims = mapping.dims_of(axis);
  groups.wraparound = dims.size() == 1 && slice.wraps(dims.front());
  return groups;
}

std::vector<AxisGroups> axes_groups(const MeshMapping& mapping, const Slice& slice,
                                    const std::vector<std::string>& axes) {
  std::vector<AxisGroups> out;
  for (const auto& axis : axes)
    out.push_back(axis_groups(mapping, slice, axis));
  return out;
}

}  // namespace podsim
