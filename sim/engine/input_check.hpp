// Validation of a (network, event graph) pair before any simulation: every rule simulate() documents, each
// broken rule a podsim::VerifyError naming the task or link. SimGrid aborts on bad input, so nothing reaches it
// unchecked.
#pragma once

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine {

// Checks the network and the graph (rules in simulator.hpp) and returns the routes of every (src, dst) pair of a
// transfer with src != dst, resolved through network.route. Throws VerifyError on the first broken rule.
RouteTable check_simulation_input(const NetworkSpec& network, const EventGraph& graph);

}  // namespace podsim::engine
