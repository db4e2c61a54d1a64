// The custom routing zone: hosts, links and on-demand routes from the RouteTable.
#include "sim/engine/route_zone.hpp"

#include <cstdio>
#include <cstdlib>
#include <span>

#include <fmt/format.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace podsim::engine {
namespace {

constexpr double kNoticeLatency = 1e-300;

}  // namespace

RouteZone* RouteZone::create(const NetworkSpec& network, const RouteTable& routes, double route_latency_s) {
  auto* zone = new RouteZone("ici", routes, route_latency_s);
  simgrid::s4u::NetZone* iface = zone->get_iface();
  for (std::int32_t chip = 0; chip < network.num_chips; ++chip) {
    simgrid::s4u::Host* host = iface->create_host(fmt::format("chip{}", chip), network.chip_flops);
    const auto netpoint = static_cast<std::size_t>(host->get_netpoint()->id());
    if (zone->chip_of_netpoint_.size() <= netpoint) zone->chip_of_netpoint_.resize(netpoint + 1, -1);
    zone->chip_of_netpoint_[netpoint] = chip;
    zone->hosts_.push_back(host);
  }
  for (std::int32_t part = 0; routes.max_parts() > 1 && part < routes.max_parts(); ++part)
    for (std::int32_t chip = 0; chip < network.num_chips; ++chip) {
      simgrid::s4u::Host* host = iface->create_host(fmt::format("part{}.chip{}", part, chip), network.chip_flops);
      const auto netpoint = static_cast<std::size_t>(host->get_netpoint()->id());
      if (zone->chip_of_netpoint_.size() <= netpoint) zone->chip_of_netpoint_.resize(netpoint + 1, -1);
      zone->chip_of_netpoint_[netpoint] = chip;
      if (zone->part_of_netpoint_.size() <= netpoint) zone->part_of_netpoint_.resize(netpoint + 1, -1);
      zone->part_of_netpoint_[netpoint] = part;
      zone->part_hosts_.push_back(host);
    }
  // Names are ours (l<id>): spec names need not be unique, SimGrid's must. Links are sealed with the zone,
  // not one by one (sealing twice fires the creation signal twice). They have no latency: every route has
  // route_latency_s, and the graph runner delays each transfer by the rest of its route's own latency.
  for (std::size_t id = 0; id < network.links.size(); ++id) {
    simgrid::s4u::Link* link = iface->create_link(fmt::format("l{}", id), network.links[id].bandwidth_Bps);
    zone->links_.push_back(link->get_impl());
  }
  iface->seal();
  return zone;
}

void RouteZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                double* latency) {
  const std::int32_t from = chip_of_netpoint_.at(static_cast<std::size_t>(src->id()));
  const std::int32_t to = chip_of_netpoint_.at(static_cast<std::size_t>(dst->id()));
  if (!routes_.contains(from, to)) {
    // Unreachable after check_simulation_input: the runner only sends along pairs of the graph's transfers.
    std::fprintf(stderr, "podsim route zone: no route stored from chip %d to chip %d\n", from, to);
    std::abort();
  }
  const auto src_at = static_cast<std::size_t>(src->id());
  const std::int32_t part = src_at < part_of_netpoint_.size() ? part_of_netpoint_[src_at] : -1;
  const std::span<const std::int32_t> parts = routes_.parts(routes_.index(from, to));
  if (part < 0 && !parts.empty()) {
    // A split pair's notice: no link and a latency too small to move the clock (SimGrid refuses a route of neither
    // links nor latency); `now + kNoticeLatency == now` for any simulated time past 1e-280 s.
    if (latency != nullptr) *latency += kNoticeLatency;
    return;
  }
  const std::span<const std::int32_t> links =
      part < 0 ? routes_.links(from, to) : routes_.list().links(parts[static_cast<std::size_t>(part)]);
  for (std::int32_t link : links)
    into->link_list_.push_back(links_[static_cast<std::size_t>(link)]);
  if (latency != nullptr) *latency += route_latency_;
}

}  // namespace podsim::engine
