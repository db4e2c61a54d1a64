// The twisted-torus rule, group differences and minimal routes by descent on the hops from chip 0.
#include "models/topology/twist.hpp"

#include <array>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/topology/slice.hpp"

namespace podsim {

std::optional<std::string> twist_issue(const std::vector<std::int64_t>& shape, const std::vector<bool>& wraparound,
                                       std::int64_t* k) {
  if (shape.size() != 3) return std::string(kTwistShapeRule);
  const std::int64_t shortest = shape[0];
  const std::int64_t longest = shape[2];
  const bool form =
      shortest >= 4 && shortest % 4 == 0 && longest == 2 * shortest && (shape[1] == shortest || shape[1] == longest);
  if (!form) return std::string(kTwistShapeRule);
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d >= wraparound.size() || !wraparound[d]) return std::string(kTwistWrapRule);
  if (k) *k = shortest;
  return std::nullopt;
}

std::optional<std::string> preset_twist_issue(bool supported, const std::string& preset,
                                              const std::vector<std::int64_t>& shape,
                                              const std::vector<bool>& wraparound) {
  if (!supported) return "a twisted torus needs a preset whose slices twist (its slice.twist), got: " + preset;
  if (auto issue = twist_issue(shape, wraparound)) return *issue + ", got: " + format_dims(shape);
  return std::nullopt;
}

ChipId chip_difference(const Slice& slice, ChipId from, ChipId to) {
  if (from < 0 || to < 0 || from >= slice.num_chips() || to >= slice.num_chips())
    throw VerifyError("slice " + slice.shape_string() + ": chip ids must be in [0, " +
                      std::to_string(slice.num_chips()) + "), got: " + std::to_string(from) + " and " +
                      std::to_string(to));
  // Coordinates by strides, no allocation: every hop of a route asks this of each of its candidate links.
  const std::int64_t k = slice.twist_k();
  std::array<std::int64_t, 3> g{};
  std::int64_t carry = 0;  // k-steps a short dim's difference wrapped by, taken off every long dim
  for (int d = 0; d < slice.rank(); ++d) {
    const std::int64_t n = slice.size(d);
    g[d] = (to / slice.stride(d)) % n - (from / slice.stride(d)) % n;
    if (k > 0 && n == k && g[d] < 0) {
      g[d] += k;
      carry += k;
    }
  }
  ChipId id = 0;
  for (int d = 0; d < slice.rank(); ++d) {
    const std::int64_t n = slice.size(d);
    if (k > 0 && n == 2 * k) g[d] -= carry;
    id += ((g[d] % n + n) % n) * slice.stride(d);
  }
  return id;
}

std::int64_t twisted_hops(const Slice& slice, ChipId from, ChipId to) {
  return slice.origin_hops().at(static_cast<std::size_t>(chip_difference(slice, from, to)));
}

std::vector<LinkId> descend_route(const Slice& slice, ChipId from, ChipId to,
                                  const std::function<std::int64_t(ChipId)>& hops_to_dst, const char* what) {
  std::vector<LinkId> route;
  ChipId at = from;
  std::int64_t left = hops_to_dst(at);
  while (left > 0) {
    bool moved = false;
    for (int dim = 0; dim < slice.rank() && !moved; ++dim)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        const std::optional<LinkId> id = slice.find_link(at, dim, dir);
        if (!id || slice.link_failed(*id) || hops_to_dst(slice.link(*id).dst) != left - 1) continue;
        route.push_back(*id);
        at = slice.link(*id).dst;
        --left;
        moved = true;
        break;
      }
    if (!moved)
      throw InternalError(std::string(what) + " route on slice " + slice.shape_string() + " to chip " +
                          std::to_string(to) + ": no link gets closer");
  }
  return route;
}

std::vector<LinkId> twisted_route(const Slice& slice, ChipId from, ChipId to) {
  return descend_route(
      slice, from, to, [&](ChipId chip) { return twisted_hops(slice, chip, to); }, "twisted");
}

}  // namespace podsim
