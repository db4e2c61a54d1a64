// How a logical device mesh lies on a slice: each mesh axis covers whole slice dims, and the chips along
// a mesh axis form the groups that collectives over that axis run on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/sharding/mesh.hpp"
#include "models/topology/slice.hpp"

namespace podsim {

// Mesh axes -> slice dims.
//
// Default (in order): axis i covers dim i. When the mesh has fewer axes than the slice has dims, the
// dims left over must have size 1 (a 2-axis mesh fits a 4x4x1 slice, not a 4x4x4 one: map an axis over
// two dims explicitly instead). When it has more axes than dims, the extra axes must have size 1 and
// cover no dim.
//
// Explicit: `axis_dims[i]` lists the dims of mesh axis i. An axis over several dims numbers its chips
// row-major over those dims in the listed order (the last listed dim fastest): axis X over dims [0, 1] of
// a 4x2x4 slice has size 8 and index i = c0 * 2 + c1.
//
// Constraints (checked by both constructors, VerifyError, message starting `mesh mapping: `):
//   - one dim list per mesh axis;
//   - every listed dim exists in the slice;
//   - each dim is used by at most one axis, and at most once;
//   - an axis's size equals the product of its dims' sizes;
//   - every dim of size > 1 is covered by some axis (the mesh spans the whole slice).
//
// The mesh's explicit device_ids are not consulted: this mapping places mesh coordinates on chips.
// The in-order dims of `num_axes` mesh axes on a slice of `rank` dims: axis i covers dim i, an axis past the
// slice's rank covers none.
std::vector<std::vector<int>> in_order_axis_dims(std::size_t num_axes, int rank);

// The mesh with one axis per slice dim, named X, Y, Z in order (each the size of its dim): what a slice means when
// no mesh is given.
Mesh default_mesh(const Slice& slice);

class MeshMapping {
 public:
  MeshMapping(const Mesh& mesh, const Slice& slice);
  MeshMapping(const Mesh& mesh, const Slice& slice, std::vector<std::vector<int>> axis_dims);

  std::size_t num_axes() const { return axes_.size(); }
  const std::vector<MeshAxis>& axes() const { return axes_; }
  // Position of the axis called `name`; throws VerifyError `mesh mapping: unknown axis "Q" (axes: ...)`.
  std::size_t axis_index(std::string_view name) const;
  // Slice dims covered by an axis, in its traversal order.
  const std::vector<int>& dims_of(std::size_t axis) const { return axis_dims_.at(axis); }
  const std::vector<int>& dims_of(std::string_view name) const { return axis_dims_[axis_index(name)]; }

  // Chip at mesh coordinates (one index per mesh axis, each in [0, axis size)). Throws VerifyError.
  ChipId chip_at(const std::vector<std::int64_t>& mesh_coords) const;
  // Chip at a logical (row-major over the mesh axes, last axis fastest) device position.
  ChipId chip_at_position(std::int64_t position) const;

  // The chips a collective over `axis` runs on: one group per combination of the other axes' indices
  // (those combinations in row-major order), each group ordered by the index along `axis`.
  std::vector<std::vector<ChipId>> groups(std::string_view axis) const;
  // The same over several axes at once (AllGather_XY): chips in each group are ordered row-major over
  // `axes` in the listed order. Throws VerifyError on an unknown or repeated axis.
  std::vector<std::vector<ChipId>> groups(const std::vector<std::string>& axes) const;

 private:
  void verify(const Slice& slice);
  std::string axis_list() const;

  std::vector<MeshAxis> axes_;
  std::vector<std::vector<int>> axis_dims_;
  std::vector<std::int64_t> dim_size_;
  std::vector<std::int64_t> dim_stride_;
};

}  // namespace podsim
