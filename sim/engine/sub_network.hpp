// The network of a sub-problem of the symmetry paths (docs/performance.md): some chips of a graph renumbered from 0,
// and the links their routes use, each renumbered in order of first use. The link map is kept between
// sub-problems, so building one costs what its routes touch, not the whole network.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/engine/network.hpp"
#include "sim/engine/release_timers.hpp"

namespace podsim {

class SubNetworkBuilder {
 public:
  explicit SubNetworkBuilder(const NetworkSpec& whole);

  // Starts a sub-problem: an empty network with the whole one's chip and transfer models, and no routes.
  void begin();

  // Records the route from sub chip `src` to sub chip `dst`, whose links in the whole network are `links`, unless
  // a route between them is already known.
  void add_route(std::int32_t src, std::int32_t dst, std::span<const std::int32_t> links);

  // True when a route from sub chip `src` to sub chip `dst` is recorded.
  bool has_route(std::int32_t src, std::int32_t dst) const;

  // Ends the sub-problem (its link map is cleared for the next); `net` and `routes` then hold it.
  void end();

  NetworkSpec net;
  std::shared_ptr<SubRoutes> routes;

 private:
  const NetworkSpec& whole_;
  std::vector<std::int32_t> link_map_;  // whole link id -> sub link id, -1 when not used yet
  std::vector<std::int32_t> touched_;   // whole link ids mapped in this sub-problem
};

}  // namespace podsim
