// Slice -> engine network.
#include "sim/engine/slice_network.hpp"

#include <memory>

#include "models/topology/routing.hpp"

namespace podsim {

NetworkSpec slice_network(const Slice& slice, const IciModel& ici, double chip_flops) {
  NetworkSpec network;
  network.num_chips = static_cast<std::int32_t>(slice.num_chips());
  network.chip_flops = chip_flops;
  network.links.reserve(static_cast<std::size_t>(slice.num_links()));
  for (const Link& link : slice.links())
    network.links.push_back({link.name, ici.bandwidth_Bps, ici.hop_latency_s});
  auto shared = std::make_shared<const Slice>(slice);
  network.route = [shared](std::int32_t src, std::int32_t dst) {
    const auto links = dor_route(*shared, src, dst);
    return std::vector<std::int32_t>(links.begin(), links.end());
  };
  return network;
}

}  // namespace podsim
