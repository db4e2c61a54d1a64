// The traffic ledger of a simulation, computed in our code from task timings and routes: bytes and messages
// per directed link (a transfer counts once on each link it crosses), busy time per link (the union of the
// bandwidth phases [start + route latency, end] of its transfers), bytes sent and received per chip.
#pragma once

#include "sim/engine/network.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine {

// Fills makespan_s, links, chip_bytes_sent/received and messages of `result` from result.tasks (one timing per
// task of `graph`). `routes` holds every (src, dst) pair of a transfer with src != dst.
void fill_ledger(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes,
                 SimulationResult& result);

}  // namespace podsim::engine
