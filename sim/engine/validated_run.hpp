// The part of simulate() after validation: fork a child that runs the graph on SimGrid, decode its timings and
// fill the ledger. Shared by simulate() and simulate_symmetric().
#pragma once

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine {

// `routes` from check_simulation_input(network, graph).
SimulationResult run_validated(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes);

}  // namespace podsim::engine
