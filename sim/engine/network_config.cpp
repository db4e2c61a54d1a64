// Exact-timing SimGrid configuration: CM02 with unit factors, no cross-traffic, no TCP window bound, and the
// maxmin solver (network_config.hpp says why not fairbottleneck).
#include "sim/engine/network_config.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace podsim::engine {

void apply_exact_network_config() {
  namespace sg4 = simgrid::s4u;
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/latency-factor:1.0");
  sg4::Engine::set_config("network/bandwidth-factor:1.0");
  sg4::Engine::set_config("network/weight-S:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/solver:maxmin");
}

}  // namespace podsim::engine
