#include "sim/engine/sub_network.hpp"

namespace podsim {

SubNetworkBuilder::SubNetworkBuilder(const NetworkSpec& whole) : whole_(whole), link_map_(whole.links.size(), -1) {}

void SubNetworkBuilder::begin() {
  net = NetworkSpec{};
  net.chip_flops = whole_.chip_flops;
  net.transfer = whole_.transfer;
  routes = std::make_shared<SubRoutes>();
}

bool SubNetworkBuilder::has_route(std::int32_t src, std::int32_t dst) const {
  return routes->contains(sub_route_key(src, dst));
}

void SubNetworkBuilder::add_route(std::int32_t src, std::int32_t dst, std::span<const std::int32_t> links) {
  const std::uint64_t pair = sub_route_key(src, dst);
  if (routes->contains(pair)) return;
  std::vector<std::int32_t> mapped_links;
  mapped_links.reserve(links.size());
  for (const std::int32_t l : links) {
    std::int32_t& mapped = link_map_[static_cast<std::size_t>(l)];
    if (mapped < 0) {
      mapped = static_cast<std::int32_t>(net.links.size());
      net.links.push_back(whole_.links[static_cast<std::size_t>(l)]);
      touched_.push_back(l);
    }
    mapped_links.push_back(mapped);
  }
  routes->emplace(pair, std::move(mapped_links));
}

void SubNetworkBuilder::end() {
  for (const std::int32_t l : touched_)
    link_map_[static_cast<std::size_t>(l)] = -1;
  touched_.clear();
}

}  // namespace podsim
