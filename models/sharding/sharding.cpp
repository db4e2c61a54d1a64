// Binding a tensor sharding to its mesh.
#include "models/sharding/sharding.hpp"

namespace podsim {

const Mesh* resolve_mesh(const TensorSharding& sharding, const MeshTable& meshes) {
  if (sharding.inline_mesh) return &*sharding.inline_mesh;
  return meshes.find(sharding.mesh_name);
}

}  // namespace podsim
