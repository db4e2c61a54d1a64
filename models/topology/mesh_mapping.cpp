// Mesh axes onto slice dims: the default and explicit mappings, their checks, and the chip groups of an
// axis (what a collective over that axis runs on).
#include "models/topology/mesh_mapping.hpp"

#include <utility>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::string dims_text(const std::vector<int>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::vector<std::vector<int>> in_order(const Mesh& mesh, const Slice& slice) {
  for (std::size_t i = static_cast<std::size_t>(slice.rank()); i < mesh.axes.size(); ++i) {
    if (mesh.axes[i].size != 1) {
      throw VerifyError("mesh mapping: axis \"" + mesh.axes[i].name + "\" (size " + std::to_string(mesh.axes[i].size) +
                        ") has no slice dim to map onto in order, slice " + slice.shape_string() + " has " +
                        std::to_string(slice.rank()) + " dims");
    }
  }
  return in_order_axis_dims(mesh.axes.size(), slice.rank());
}

}  // namespace

std::vector<std::vector<int>> in_order_axis_dims(std::size_t num_axes, int rank) {
  std::vector<std::vector<int>> dims(num_axes);
  for (std::size_t i = 0; i < num_axes && static_cast<int>(i) < rank; ++i)
    dims[i] = {static_cast<int>(i)};
  return dims;
}

MeshMapping::MeshMapping(const Mesh& mesh, const Slice& slice) : MeshMapping(mesh, slice, in_order(mesh, slice)) {}

MeshMapping::MeshMapping(const Mesh& mesh, const Slice& slice, std::vector<std::vector<int>> axis_dims)
    : axes_(mesh.axes), axis_dims_(std::move(axis_dims)) {
  verify(slice);
  for (int d = 0; d < slice.rank(); ++d) {
    dim_size_.push_back(slice.size(d));
    dim_stride_.push_back(slice.stride(d));
  }
}

void MeshMapping::verify(const Slice& slice) {
  if (axis_dims_.size() != axes_.size())
    throw VerifyError("mesh mapping: one dim list per mesh axis, got: " + std::to_string(axis_dims_.size()) +
                      " lists for " + std::to_string(axes_.size()) + " axes (" + axis_list() + ")");
  std::vector<int> user(static_cast<std::size_t>(slice.rank()), -1);
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    const std::string axis = "axis \"" + axes_[a].name + "\"";
    std::int64_t product = 1;
    for (int dim : axis_dims_[a]) {
      if (dim < 0 || dim >= slice.rank())
        throw VerifyError("mesh mapping: " + axis + " maps to a dim outside slice " + slice.shape_string() +
                          " (dims 0.." + std::to_string(slice.rank() - 1) + "), got: " + std::to_string(dim));
      if (user[dim] >= 0)
        throw VerifyError("mesh mapping: each slice dim is used once, got: dim " + std::to_string(dim) +
                          " used by axis \"" + axes_[user[dim]].name + "\" and " + axis);
      user[dim] = static_cast<int>(a);
      product *= slice.size(dim);
    }
    if (product != axes_[a].size)
      throw VerifyError("mesh mapping: " + axis + " size must equal the product of its dims' sizes, got: size " +
                        std::to_string(axes_[a].size) + " over dims " + dims_text(axis_dims_[a]) + " of slice " +
                        slice.shape_string() + " (product " + std::to_string(product) + ")");
  }
  for (int dim = 0; dim < slice.rank(); ++dim)
    if (user[dim] < 0 && slice.size(dim) > 1)
      throw VerifyError("mesh mapping: every slice dim of size > 1 is covered by a mesh axis, got: dim " +
                        std::to_string(dim) + " (size " + std::to_string(slice.size(dim)) + ") of slice " +
                        slice.shape_string() + " uncovered by axes " + axis_list());
}

std::string MeshMapping::axis_list() const {
  std::string text;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    if (a) text += ", ";
    text += '"' + axes_[a].name + '"';
  }
  return text.empty() ? "(none)" : text;
}

std::size_t MeshMapping::axis_index(std::string_view name) const {
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (axes_[a].name == name) return a;
  throw VerifyError("mesh mapping: unknown axis \"" + std::string(name) + "\" (axes: " + axis_list() + ")");
}

ChipId MeshMapping::chip_at(const std::vector<std::int64_t>& mesh_coords) const {
  if (mesh_coords.size() != axes_.size())
    throw VerifyError("mesh mapping: mesh coordinates need " + std::to_string(axes_.size()) +
                      " values, got: " + std::to_string(mesh_coords.size()));
  ChipId chip = 0;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    std::int64_t index = mesh_coords[a];
    if (index < 0 || index >= axes_[a].size)
      throw VerifyError("mesh mapping: index along axis \"" + axes_[a].name + "\" must be in [0, " +
                        std::to_string(axes_[a].size) + "), got: " + std::to_string(index));
    // Row-major over the axis's dims: peel the last listed dim first.
    const std::vector<int>& dims = axis_dims_[a];
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
      chip += (index % dim_size_[*it]) * dim_stride_[*it];
      index /= dim_size_[*it];
    }
  }
  return chip;
}

ChipId MeshMapping::chip_at_position(std::int64_t position) const {
  std::int64_t total = 1;
  for (const MeshAxis& axis : axes_)
    total *= axis.size;
  if (position < 0 || position >= total)
    throw VerifyError("mesh mapping: device position must be in [0, " + std::to_string(total) +
                      "), got: " + std::to_string(position));
  std::vector<std::int64_t> coords(axes_.size());
  for (std::size_t a = axes_.size(); a-- > 0;) {
    coords[a] = position % axes_[a].size;
    position /= axes_[a].size;
  }
  return chip_at(coords);
}

std::vector<std::vector<ChipId>> MeshMapping::groups(std::string_view axis) const {
  return groups(std::vector<std::string>{std::string(axis)});
}

std::vector<std::vector<ChipId>> MeshMapping::groups(const std::vector<std::string>& axes) const {
  std::vector<bool> in_group(axes_.size(), false);
  std::vector<std::size_t> group_axes;
  for (const std::string& name : axes) {
    const std::size_t a = axis_index(name);
    if (in_group[a]) throw VerifyError("mesh mapping: an axis appears once per group, got: \"" + name + "\" twice");
    in_group[a] = true;
    group_axes.push_back(a);
  }
  std::vector<std::size_t> other_axes;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (!in_group[a]) other_axes.push_back(a);

  // Walks `which` axes row-major (last fastest), writing their indices into `coords`.
  auto count = [&](const std::vector<std::size_t>& which) {
    std::int64_t n = 1;
    for (std::size_t a : which)
      n *= axes_[a].size;
    return n;
  };
  auto place = [&](const std::vector<std::size_t>& which, std::int64_t k, std::vector<std::int64_t>& coords) {
    for (std::size_t i = which.size(); i-- > 0;) {
      coords[which[i]] = k % axes_[which[i]].size;
      k /= axes_[which[i]].size;
    }
  };

  std::vector<std::vector<ChipId>> result;
  std::vector<std::int64_t> coords(axes_.size(), 0);
  const std::int64_t num_groups = count(other_axes);
  const std::int64_t group_size = count(group_axes);
  for (std::int64_t g = 0; g < num_groups; ++g) {
    place(other_axes, g, coords);
    std::vector<ChipId> group;
    group.reserve(static_cast<std::size_t>(group_size));
    for (std::int64_t k = 0; k < group_size; ++k) {
      place(group_axes, k, coords);
      group.push_back(chip_at(coords));
    }
    result.push_back(std::move(group));
  }
  return result;
}

Mesh default_mesh(const Slice& slice) {
  static const char* const kNames[] = {"X", "Y", "Z"};
  std::vector<MeshAxis> axes;
  for (int d = 0; d < slice.rank(); ++d)
    axes.push_back({kNames[d], slice.size(d)});
  return make_mesh(axes);
}

}  // namespace podsim
