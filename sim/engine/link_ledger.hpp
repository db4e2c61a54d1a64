// What the parent adds to a simulation's task timings: the routes its transfers took (published in the result) and
// the traffic ledger computed from them: bytes and messages per directed link (a transfer counts once on each link
// it crosses), busy time per link (the union of the bandwidth phases [start + route latency, end] of its
// transfers), bytes sent and received per chip.
#pragma once

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine {

// Publishes in `result` the route of every transfer of `graph` (result.routes, result.task_route) from `routes`,
// which holds every (src, dst) pair of a transfer with src != dst.
void publish_routes(const EventGraph& graph, const RouteTable& routes, SimulationResult& result);

// Fills makespan_s, links, chip_bytes_sent/received and messages of `result` from result.tasks (one timing per
// task of `graph`) and the routes publish_routes() put there.
void fill_ledger(const NetworkSpec& network, const EventGraph& graph, SimulationResult& result);

}  // namespace podsim::engine
