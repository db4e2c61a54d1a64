// A tensor sharding with Shardy semantics plus unreduced axes (SHARDY.md §4, §8-§10): one axis list per
// tensor dimension (major to minor), open or closed, optional priority, explicitly replicated axes and
// unreduced axes. The same value is read from and written to all three notations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/sharding/axis_ref.hpp"
#include "models/sharding/mesh.hpp"

namespace podsim {

struct DimSharding {
  std::vector<AxisRef> axes;             // major to minor
  bool is_closed = true;                 // `{...}` closed, `{..., ?}` open
  std::optional<std::int64_t> priority;  // `pN`; absent means the default 0 but prints differently

  bool operator==(const DimSharding&) const = default;
  // Product of the sizes of the axes (1 when empty).
  std::int64_t sharded_size(const Mesh& mesh) const { return product_of_sizes(axes, mesh); }
};

enum class Reduction { sum, max, min };

struct TensorSharding {
  std::string mesh_name;            // `@name`; empty when the mesh is inlined
  std::optional<Mesh> inline_mesh;  // `mesh<[...]>`
  std::vector<DimSharding> dims;
  std::vector<AxisRef> replicated;
  std::vector<AxisRef> unreduced;
  Reduction unreduced_reduction = Reduction::sum;

  bool operator==(const TensorSharding&) const = default;
};

// The mesh a sharding is bound to: its inline mesh, or `mesh_name` looked up in `meshes`
// (nullptr when the name is unknown).
const Mesh* resolve_mesh(const TensorSharding& sharding, const MeshTable& meshes);

}  // namespace podsim
