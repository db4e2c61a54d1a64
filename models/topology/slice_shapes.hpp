// The slice shapes a chip generation offers (docs/capacity.md, "Slices chosen for a goal"): what `podsim plan`
// searches when a goal's scenario names no slice, the topologies Google Cloud sells for each generation.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/shape.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

// The shapes a generation with `rule` and `pod_shape` forms, smallest first, each listed once (dims ascending):
// - full_pod_axis with a 2D pod (v5e, v6e: 16x16): 1x1, then a x b with a and b powers of two, 2 <= a <= b <= 2a,
//   within the pod (16x16: 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16);
// - whole_cubes with a 3D pod (v4, v5p, 7x): the four shapes below one cube (2x2x1, 2x2x2, 2x2x4, 2x4x4), then whole
//   4x4x4 cubes a x b x c, powers of two, 4 <= a <= b <= c <= 2a, with at most the pod's chips and no dim longer
//   than the pod's longest (v4 16x16x16: up to 16x16x16; 7x 4x4x576, 9216 chips: up to 16x16x32);
// - any other rule or rank: none (the scenario lists its slices).
std::vector<Shape> offered_slice_shapes(WrapRule rule, const Shape& pod_shape);

// Every shape a pod can form (`podsim topology --shapes`; docs/topology.md, "Shapes"), smallest first, then by dims:
// - whole_cubes with a 3D pod (v4, v5p, 7x): Google Cloud's rule for these generations, a x b x c with a <= b <= c
//   and all of a, b, c <= 4 or all multiples of 4 (types-topologies): the four shapes below one cube that Google
//   offers (2x2x1, 2x2x2, 2x2x4, 2x4x4), then every a x b x c of whole cubes (multiples of 4) with at most `pod_chips`
//   chips (0: the pod shape's) and, when `largest_slice` is given (the largest single slice offered), a <= its
//   smallest dim, b <= its middle one and c <= its largest (v5p 16x16x24: 4x4x4 up to 16x16x24; 7x, none published:
//   all 144 cubes' shapes, up to 4x4x576);
// - any other rule: offered_slice_shapes (the 2D pods' shapes are all listed there).
std::vector<Shape> formable_slice_shapes(WrapRule rule, const Shape& pod_shape, std::int64_t pod_chips,
                                         const Shape& largest_slice);

}  // namespace podsim
