// A logical device mesh with Shardy semantics (SHARDY.md §2): ordered named axes, optional explicit
// device_ids, and the special empty (`<[]>`) and maximal (`<[], device_ids=[d]>`) meshes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podsim {

struct MeshAxis {
  std::string name;
  std::int64_t size = 1;
  bool operator==(const MeshAxis&) const = default;
};

struct Mesh {
  std::vector<MeshAxis> axes;
  // Empty means implicit iota(product of sizes). Construct through make_mesh() so that an explicit
  // iota list is dropped, as Shardy's builder does.
  std::vector<std::int64_t> device_ids;

  bool operator==(const Mesh&) const = default;

  // `<[]>`: no axes and no device ids.
  bool is_empty() const { return axes.empty() && device_ids.empty(); }
  // `<[], device_ids=[d]>`: no axes and exactly one device id.
  bool is_maximal() const { return axes.empty() && device_ids.size() == 1; }
  // Product of the axis sizes (1 for a mesh without axes); throws VerifyError when it overflows 64 bits.
  std::int64_t total_size() const;
  // Product of the axis sizes, or nullopt when it overflows 64 bits.
  std::optional<std::int64_t> checked_total_size() const;
  // Devices the mesh spans: the product of the axis sizes, 1 for a maximal mesh, 0 for an empty one.
  std::int64_t num_devices() const;
  // Position of the axis called `name`, or nullopt.
  std::optional<std::size_t> axis_index(std::string_view name) const;
  // Size of the axis called `name`; throws VerifyError `unknown axis name: "<name>"`.
  std::int64_t axis_size(std::string_view name) const;
  // Product of the sizes of the axes after `name` (the stride of that axis in row-major order).
  std::int64_t axis_stride(std::string_view name) const;
  // Device id at logical (row-major) position `position`: device_ids[position], or position itself.
  std::int64_t device_at(std::int64_t position) const;
  // Logical position of `device` (inverse of device_at), or nullopt if it is not in the mesh.
  std::optional<std::int64_t> position_of(std::int64_t device) const;
};

// Builds a mesh the way Shardy's builder does: explicit device_ids equal to iota(product) are dropped
// when there are axes. Does not verify; see verify_mesh().
Mesh make_mesh(std::vector<MeshAxis> axes, std::vector<std::int64_t> device_ids = {});

// A mesh with the symbol name shardings refer to (`@name`).
struct NamedMesh {
  std::string name;
  Mesh mesh;
};

// The meshes a program knows, in declaration order. Book and PartitionSpec notations bind to the first.
class MeshTable {
 public:
  // Adds a mesh; throws VerifyError `duplicate mesh name: @<name>`.
  void add(std::string name, Mesh mesh);
  const Mesh* find(std::string_view name) const;
  const std::vector<NamedMesh>& meshes() const { return meshes_; }
  bool empty() const { return meshes_.empty(); }

 private:
  std::vector<NamedMesh> meshes_;
};

}  // namespace podsim
