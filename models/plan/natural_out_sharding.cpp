// A matmul's natural output sharding: see natural_out_sharding.hpp.
#include "models/plan/natural_out_sharding.hpp"

#include <algorithm>
#include <string>

namespace podsim {

TensorSharding natural_out_sharding(const Einsum& einsum, const TensorSharding& lhs, const TensorSharding& rhs,
                                    const Mesh& mesh) {
  TensorSharding out;
  out.mesh_name = lhs.mesh_name;
  out.inline_mesh = lhs.inline_mesh;
  std::vector<AxisRef> used;
  for (const char label : einsum.out) {
    const std::size_t l = einsum.lhs.find(label);
    const std::size_t r = einsum.rhs.find(label);
    const std::vector<AxisRef>* source = l != std::string::npos ? &lhs.dims[l].axes : &rhs.dims[r].axes;
    if (l != std::string::npos && r != std::string::npos && source->empty()) source = &rhs.dims[r].axes;
    DimSharding dim;
    for (const auto& axis : *source) {
      if (std::any_of(used.begin(), used.end(), [&](const AxisRef& u) { return overlaps(u, axis, mesh); })) break;
      used.push_back(axis);
      dim.axes.push_back(axis);
    }
    out.dims.push_back(std::move(dim));
  }
  return out;
}

}  // namespace podsim
