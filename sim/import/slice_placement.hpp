// The one rule by which `podsim import` lays a program's devices on the preset's pod when no --slice is given
// (docs/import.md, "Hardware and slice" and "Devices, slice and axes"): a slice has as many dims as the pod, and no
// dim longer than the pod's. Both readers choose their candidate shapes (the mesh's axes; factorisations of the
// device count) and ask this rule whether each fits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace podsim::import {

// The rank of a slice on a pod of shape `pod_shape`: the pod's, or `fallback` when the generation names no pod shape.
std::size_t slice_rank(const std::vector<std::int64_t>& pod_shape, std::size_t fallback);

enum class Placement { fits, too_many_dims, longer_than_pod };

// `dims` as a slice of rank `rank` on the pod: padded with 1s to `rank` in place (when it has no more dims than
// that); `longer_than_pod` when a dim exceeds the pod's (an empty `pod_shape` bounds nothing).
Placement place_on_pod(std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& pod_shape, std::size_t rank);

}  // namespace podsim::import
