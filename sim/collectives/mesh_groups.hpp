// The chip groups a collective over mesh axes runs on, from the mesh's mapping onto the slice.
#pragma once

#include <string>
#include <vector>

#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collectives/collective.hpp"

namespace podsim {

// Groups along `axis` (one per combination of the other axes). They form rings of links when the axis covers
// exactly one slice dim and that dim wraps; an axis over several dims is treated as a line of its chips.
AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const std::string& axis);

// The same groups when the mesh places its devices explicitly (`device_ids`): mesh position p sits on chip
// device_ids[p], so the groups are no physical rings (wraparound false). Without device_ids, axis_groups.
AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const Mesh& mesh, const std::string& axis);

// One AxisGroups per axis, in order.
std::vector<AxisGroups> axes_groups(const MeshMapping& mapping, const Slice& slice,
                                    const std::vector<std::string>& axes);

}  // namespace podsim
