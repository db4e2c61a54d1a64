// The one SimGrid routing zone of a simulation: one host per chip, one SHARED link per directed link of the
// NetworkSpec, and routes read from our RouteTable on demand (O(links) memory, any topology). It subclasses the
// kernel-level NetZoneImpl of SimGrid 3.32, an API that changed later: keep every use of it in this file pair.
#pragma once

#include <string>
#include <vector>

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"

namespace podsim::engine {

class RouteZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  // Creates the zone (the root zone when it is the first one), the chip hosts chip0..chipN-1 (speed
  // network.chip_flops), the links l0..lM-1 without latency, and seals it. Every route has the latency
  // `route_latency_s`, whatever its links (the same for all, so that SimGrid's maxmin solver weights every flow
  // alike: network_config.hpp); the caller adds the rest of each route's latency. Call after
  // apply_exact_network_config(). `routes` must outlive the simulation. The engine owns and deletes the zone.
  // When some route splits (RouteTable::parts), also the hosts part<k>.chip<c> (k < max_parts) that each part of a
  // split transfer leaves from: SimGrid routes by host pair, and the parts of one pair take different routes.
  static RouteZone* create(const NetworkSpec& network, const RouteTable& routes, double route_latency_s);

  simgrid::s4u::Host* host(std::int32_t chip) const { return hosts_[static_cast<std::size_t>(chip)]; }
  // The host part `part` of a split transfer from `chip` leaves from.
  simgrid::s4u::Host* part_host(std::int32_t part, std::int32_t chip) const {
    return part_hosts_[static_cast<std::size_t>(part) * hosts_.size() + static_cast<std::size_t>(chip)];
  }

 protected:
  // Pushes the links of the stored route and adds route_latency_s. Only pairs of the event graph's transfers are
  // ever asked for. From a part host: the links of that part. Between the chip hosts of a split pair: no link and a
  // latency of 1e-300 s (the notice that the last part has arrived, graph_runner.cpp).
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  RouteZone(const std::string& name, const RouteTable& routes, double route_latency_s)
      : NetZoneImpl(name), routes_(routes), route_latency_(route_latency_s) {}

  const RouteTable& routes_;
  double route_latency_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<std::int32_t> chip_of_netpoint_;   // NetPoint::id() -> chip
  std::vector<std::int32_t> part_of_netpoint_;   // NetPoint::id() -> part of a part host, -1 for a chip host
  std::vector<simgrid::s4u::Host*> part_hosts_;  // part k of chip c at k * chips + c
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> links_;
};

}  // namespace podsim::engine
