// The slice shapes a chip generation offers (slice_shapes.hpp): the 2D shapes of a fixed torus, and the 3D shapes
// below one cube and of whole cubes, as Google Cloud lists its topologies.
#include "models/topology/slice_shapes.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace podsim {

std::vector<Shape> offered_slice_shapes(WrapRule rule, const Shape& pod_shape) {
  std::vector<Shape> out;
  if (rule == WrapRule::full_pod_axis && pod_shape.size() == 2) {
    if (pod_shape[0] >= 1 && pod_shape[1] >= 1) out.push_back({1, 1});
    for (std::int64_t a = 2; a <= pod_shape[0]; a *= 2)
      for (std::int64_t b = a; b <= 2 * a && b <= pod_shape[1]; b *= 2)
        out.push_back({a, b});
    return out;
  }
  if (rule == WrapRule::whole_cubes && pod_shape.size() == 3) {
    std::int64_t chips = 1;
    for (const auto dim : pod_shape)
      chips = dim > 0 && chips <= (std::int64_t{1} << 40) / dim ? chips * dim : 0;
    const std::int64_t longest = *std::max_element(pod_shape.begin(), pod_shape.end());
    // Below one cube: a host (2x2x1) and its multiples Google offers, all within the 4x4x4 cube.
    for (const Shape& small : {Shape{2, 2, 1}, Shape{2, 2, 2}, Shape{2, 2, 4}, Shape{2, 4, 4}})
      if (small[0] * small[1] * small[2] <= chips) out.push_back(small);
    for (std::int64_t a = 4; a <= longest; a *= 2)
      for (std::int64_t b = a; b <= 2 * a && b <= longest; b *= 2)
        for (std::int64_t c = b; c <= 2 * a && c <= longest; c *= 2)
          if (a * b * c <= chips) out.push_back({a, b, c});
    std::stable_sort(out.begin(), out.end(), [](const Shape& x, const Shape& y) {
      return std::accumulate(x.begin(), x.end(), std::int64_t{1}, std::multiplies<>()) <
             std::accumulate(y.begin(), y.end(), std::int64_t{1}, std::multiplies<>());
    });
  }
  return out;
}

std::vector<Shape> formable_slice_shapes(WrapRule rule, const Shape& pod_shape, std::int64_t pod_chips,
                                         const Shape& largest_slice) {
  if (rule != WrapRule::whole_cubes || pod_shape.size() != 3) return offered_slice_shapes(rule, pod_shape);
  std::int64_t chips = pod_chips;
  if (chips <= 0) {
    chips = 1;
    for (const auto dim : pod_shape)
      chips = dim > 0 && chips <= (std::int64_t{1} << 40) / dim ? chips * dim : 0;
  }
  Shape bound = largest_slice;
  std::sort(bound.begin(), bound.end());
  if (bound.size() == 3) chips = std::min(chips, bound[0] * bound[1] * bound[2]);
  // Without a published largest slice a dim is bounded by the chips alone (a x b x c <= chips with a, b >= 4).
  const auto limit = [&](std::size_t d) { return bound.size() == 3 ? bound[d] : chips / 16; };
  std::vector<Shape> out;
  for (const Shape& small : {Shape{2, 2, 1}, Shape{2, 2, 2}, Shape{2, 2, 4}, Shape{2, 4, 4}})
    if (small[0] * small[1] * small[2] <= chips) out.push_back(small);
  for (std::int64_t a = 4; a <= limit(0) && a * a * a <= chips; a += 4)
    for (std::int64_t b = a; b <= limit(1) && a * b * b <= chips; b += 4)
      for (std::int64_t c = b; c <= limit(2) && a * b * c <= chips; c += 4)
        out.push_back({a, b, c});
  std::stable_sort(out.begin(), out.end(), [](const Shape& x, const Shape& y) {
    const std::int64_t cx = x[0] * x[1] * x[2], cy = y[0] * y[1] * y[2];
    return cx != cy ? cx < cy : x < y;
  });
  return out;
}

}  // namespace podsim
