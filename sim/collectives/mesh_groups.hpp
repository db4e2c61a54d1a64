// The chip groups a collective over mesh axes runs on, from the mesh's mapping onto the slice.
#pragma once

#include <string>
#include <vector>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collectives/collective.hpp"

namespace podsim {

// Groups along `axis` (one per combination of the other axes). They form rings of links when the axis covers
// exactly one slice dim and that dim wraps; an axis over several dims is treated as a line of its chips.
AxisGroups axis_groups(const MeshMapping& mapping, const Slice& slice, const std::string& axis);

// One AxisGroups per axis, in order.
std::vector<AxisGroups> axes_groups(const MeshMapping& mapping, const Slice& slice,
                                    const std::vector<std::string>& axes);

}  // namespace podsim
