// Releases in a sub-problem of the symmetry paths (docs/performance.md): a representative's task that may not start
// before a time it inherits from outside the sub-problem waits on a one-byte transfer from its chip to a "timer
// chip", over a link whose latency is that time. SimGrid 3.32 never completes a 0-byte transfer, and the link's
// bandwidth (1e30 B/s) makes the byte add 1e-30 s, far below the rounding of any time of the simulation.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine/network.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// A sub-problem's routes: (src chip << 32 | dst chip) -> link ids of its network.
using SubRoutes = std::unordered_map<std::uint64_t, std::vector<std::int32_t>>;

// The key of a route from `src` to `dst` in SubRoutes.
inline std::uint64_t sub_route_key(std::int32_t src, std::int32_t dst) {
  return (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst);
}

// Makes each (task, at) of `releases` (at > 0, in seconds from the sub-problem's start) wait until `at`: one timer
// chip and one release link per distinct time, numbered from `chips` (the sub-problem's own chips) in order of first
// use. Sets both chip counts and the network's route to `routes`, which gains the timers' routes.
void add_release_timers(const std::vector<std::pair<TaskId, double>>& releases, std::int32_t chips, EventGraph& graph,
                        NetworkSpec& network, const std::shared_ptr<SubRoutes>& routes);

}  // namespace podsim
