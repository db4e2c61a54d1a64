// Mesh queries: sizes, strides and the row-major device order of SHARDY.md §2.
#include "models/sharding/mesh.hpp"

#include <numeric>

#include "models/common/error.hpp"

namespace podsim {

namespace {

// Product of the sizes of axes[first, end), or nullopt when it does not fit in int64 (never computed in overflow:
// a mesh text may name 4294967296 x 4294967296 devices before verify_mesh refuses it).
std::optional<std::int64_t> checked_product(const std::vector<MeshAxis>& axes, std::size_t first) {
  std::int64_t product = 1;
  for (std::size_t i = first; i < axes.size(); ++i)
    if (__builtin_mul_overflow(product, axes[i].size, &product)) return std::nullopt;
  return product;
}

std::string overflow_message(const std::vector<MeshAxis>& axes) {
  std::string sizes;
  for (const auto& axis : axes)
    sizes += (sizes.empty() ? "" : "x") + std::to_string(axis.size);
  return "total product of axis sizes overflows 64 bits, got: " + sizes;
}

}  // namespace

std::optional<std::int64_t> Mesh::checked_total_size() const {
  return checked_product(axes, 0);
}

std::int64_t Mesh::total_size() const {
  const auto product = checked_total_size();
  if (!product) throw VerifyError(overflow_message(axes));
  return *product;
}

std::int64_t Mesh::num_devices() const {
  if (axes.empty()) return static_cast<std::int64_t>(device_ids.size());
  return total_size();
}

std::optional<std::size_t> Mesh::axis_index(std::string_view name) const {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return i;
  return std::nullopt;
}

std::int64_t Mesh::axis_size(std::string_view name) const {
  const auto index = axis_index(name);
  if (!index) throw VerifyError("unknown axis name: \"" + std::string(name) + "\"");
  return axes[*index].size;
}

std::int64_t Mesh::axis_stride(std::string_view name) const {
  const auto index = axis_index(name);
  if (!index) throw VerifyError("unknown axis name: \"" + std::string(name) + "\"");
  const auto stride = checked_product(axes, *index + 1);
  if (!stride) throw VerifyError(overflow_message(axes));
  return *stride;
}

std::int64_t Mesh::device_at(std::int64_t position) const {
  if (device_ids.empty()) return position;
  return device_ids.at(static_cast<std::size_t>(position));
}

std::optional<std::int64_t> Mesh::position_of(std::int64_t device) const {
  if (device_ids.empty()) {
    if (device >= 0 && device < num_devices()) return device;
    return std::nullopt;
  }
  for (std::size_t i = 0; i < device_ids.size(); ++i)
    if (device_ids[i] == device) return static_cast<std::int64_t>(i);
  return std::nullopt;
}

Mesh make_mesh(std::vector<MeshAxis> axes, std::vector<std::int64_t> device_ids) {
  Mesh mesh{std::move(axes), std::move(device_ids)};
  if (!mesh.axes.empty() && !mesh.device_ids.empty() &&
      static_cast<std::int64_t>(mesh.device_ids.size()) == mesh.checked_total_size()) {
    std::vector<std::int64_t> iota(mesh.device_ids.size());
    std::iota(iota.begin(), iota.end(), 0);
    if (mesh.device_ids == iota) mesh.device_ids.clear();
  }
  return mesh;
}

void MeshTable::add(std::string name, Mesh mesh) {
  if (find(name)) throw VerifyError("duplicate mesh name: @" + name);
  meshes_.push_back({std::move(name), std::move(mesh)});
}

const Mesh* MeshTable::find(std::string_view name) const {
  for (const auto& named : meshes_)
    if (named.name == name) return &named.mesh;
  return nullptr;
}

}  // namespace podsim
