// Mesh axes -> chip groups for collectives.
#include "sim/collectives/mesh_groups.hpp"

namespace podsim {

AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const std::string& axis) {
  AxisGroups groups;
  groups.groups = mapping.groups(axis);
  const auto& dims = mapping.dims_of(axis);
  // On a twisted torus a short dim's wrap link leaves the line (it lands k along the long dims), so its line is not a
  // ring; a long dim's wrap is plain.
  groups.wraparound = dims.size() == 1 && slice.wraps(dims.front()) &&
                      !(slice.twisted() && slice.size(dims.front()) == slice.twist_k());
  return groups;
}

AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const Mesh& mesh, const std::string& axis) {
  AxisGroups groups = axis_groups(mapping, slice, axis);
  if (mesh.device_ids.empty()) return groups;
  const auto chips = static_cast<std::size_t>(slice.num_chips());
  std::vector<ChipId> chip_of_position(chips);
  for (std::size_t p = 0; p < chips; ++p)
    chip_of_position[static_cast<std::size_t>(mapping.chip_at_position(static_cast<std::int64_t>(p)))] =
        static_cast<ChipId>(mesh.device_ids[p]);
  for (auto& group : groups.groups)
    for (auto& chip : group)
      chip = chip_of_position[static_cast<std::size_t>(chip)];
  groups.wraparound = false;
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
