// The slice-placement rule of slice_placement.hpp.
#include "sim/import/slice_placement.hpp"

namespace podsim::import {

std::size_t slice_rank(const std::vector<std::int64_t>& pod_shape, std::size_t fallback) {
  return pod_shape.empty() ? fallback : pod_shape.size();
}

Placement place_on_pod(std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& pod_shape, std::size_t rank) {
  if (dims.size() > rank) return Placement::too_many_dims;
  dims.resize(rank, 1);
  for (std::size_t d = 0; d < pod_shape.size() && d < dims.size(); ++d)
    if (dims[d] > pod_shape[d]) return Placement::longer_than_pod;
  return Placement::fits;
}

}  // namespace podsim::import
