// Flat storage of distinct routes.
#include "sim/engine/route_list.hpp"

#include <limits>
#include <stdexcept>

namespace podsim {

std::int32_t RouteList::add(std::span<const LinkId> links, double latency_s) {
  if (links_.size() + links.size() > std::numeric_limits<std::uint32_t>::max() ||
      latency_s_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::length_error("route list: more routes or links than 32-bit indices address");
  links_.insert(links_.end(), links.begin(), links.end());
  offsets_.push_back(static_cast<std::uint32_t>(links_.size()));
  latency_s_.push_back(latency_s);
  return static_cast<std::int32_t>(latency_s_.size() - 1);
}

}  // namespace podsim
