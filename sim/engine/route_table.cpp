// Flat storage of the routes an event graph uses.
#include "sim/engine/route_table.hpp"

#include <stdexcept>
#include <string>

namespace podsim::engine {

void RouteTable::add(std::int32_t src, std::int32_t dst, std::vector<std::int32_t> links, double latency_s) {
  if (contains(src, dst)) return;
  const Entry entry{static_cast<std::uint32_t>(links_.size()), static_cast<std::uint32_t>(links.size()), latency_s};
  links_.insert(links_.end(), links.begin(), links.end());
  index_.emplace(key(src, dst), entry);
}

const RouteTable::Entry& RouteTable::entry(std::int32_t src, std::int32_t dst) const {
  auto it = index_.find(key(src, dst));
  if (it == index_.end())
    throw std::out_of_range("route table: no route stored from chip " + std::to_string(src) + " to chip " +
                            std::to_string(dst));
  return it->second;
}

std::span<const std::int32_t> RouteTable::links(std::int32_t src, std::int32_t dst) const {
  const Entry& found = entry(src, dst);
  return {links_.data() + found.offset, found.size};
}

double RouteTable::latency_s(std::int32_t src, std::int32_t dst) const {
  return entry(src, dst).latency_s;
}

}  // namespace podsim::engine
