// Executes an event graph on SimGrid in the current process: the exact network configuration, the RouteZone
// platform, one actor per chip starting each task when its dependencies have completed. Call it only in a
// process that has never created a SimGrid engine (simulate() runs it in a forked child).
#pragma once

#include <vector>

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine {

struct GraphRun {
  std::vector<TaskTiming> tasks;       // per task id
  double wall_s = 0;                   // engine creation to the end of the run
  std::uint64_t rss_growth_bytes = 0;  // the process's VmHWM after the run less its VmRSS before (0 if unknown)
};

// Runs a validated (check_simulation_input) graph. Throws podsim::Error if tasks never complete.
GraphRun run_event_graph(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes);

}  // namespace podsim::engine
