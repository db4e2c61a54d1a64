// Twisted tori (Cámara, López-Lorenzo, Gregorio and Beivide, "Twisted Torus Topologies for Enhanced Interconnection
// Networks", IEEE TPDS 21(12), 2010; the TPU v4 slices of Jouppi et al., ISCA 2023): a k x k x 2k or k x 2k x 2k
// torus whose short dims' wrap links land k chips further along every long dim. docs/topology.md, "Twisted tori".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/common/ids.hpp"

namespace podsim {

class Slice;

// The rule a twisted torus's shape and wraparound must meet, as error text names it.
inline constexpr const char* kTwistShapeRule =
    "a twisted torus needs a slice of shape k x k x 2k or k x 2k x 2k, short dims first and k a multiple of 4 "
    "(4x4x8, 4x8x8, 8x8x16, 8x16x16, ...)";
inline constexpr const char* kTwistWrapRule = "a twisted torus needs wraparound on every dim";

// The rule `shape` with `wraparound` breaks for a twist (kTwistShapeRule or kTwistWrapRule), or nullopt; `k` gets the
// short size when it is met.
std::optional<std::string> twist_issue(const std::vector<std::int64_t>& shape, const std::vector<bool>& wraparound,
                                       std::int64_t* k = nullptr);

// As twist_issue, for a preset named `preset` that supports twisted slices or not, as a whole message ("rule, got:
// value"): the preset first, then the shape and wraparound.
std::optional<std::string> preset_twist_issue(bool supported, const std::string& preset,
                                              const std::vector<std::int64_t>& shape,
                                              const std::vector<bool>& wraparound);

// The chip g with `to` = `from` + g in the slice's group (plain or twisted torus, or a mesh: coordinates subtracted
// dim by dim, a short dim's overflow carried as k along every long dim on a twisted slice). On a torus, twisted or
// not, hops(from, to) = hops(0, g).
ChipId chip_difference(const Slice& slice, ChipId from, ChipId to);

// Fewest hops from `from` to `to` on a twisted slice, from its origin_hops table.
std::int64_t twisted_hops(const Slice& slice, ChipId from, ChipId to);

// The route by descent from `from` to `to` on hop counts to `to` (`hops_to_dst` of a chip): from each chip the first
// working link (Slice::link_failed) in (dim, + before -) order that ends one hop closer. `what` names the routes in
// the InternalError thrown when no link gets closer.
std::vector<LinkId> descend_route(const Slice& slice, ChipId from, ChipId to,
                                  const std::function<std::int64_t(ChipId)>& hops_to_dst, const char* what);

// The route on a twisted slice: from each chip the first link in (dim, + before -) order that ends one hop closer
// to `to`. A minimal route; the same order as dimension-order routes break their ties in.
std::vector<LinkId> twisted_route(const Slice& slice, ChipId from, ChipId to);

}  // namespace podsim
