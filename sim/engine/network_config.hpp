// The SimGrid network configuration under which a message of S bytes over k hops takes exactly
// k * latency + S / bandwidth, and flows share links with plain max-min fairness (SIMGRID.md §3) as long as every
// route has the same latency.
//
// The solver is SimGrid's default `maxmin`: it re-solves only the flows that an event touches, and gives true
// max-min rates. It weights each flow by its route's latency, hence the condition above: the graph runner gives
// every route one latency and delays each transfer by the rest of its own (graph_runner.cpp). `fairbottleneck`
// ignores the weights but re-solves every active flow at each event (most of the time of a concurrent mesh
// all-reduce), and in SimGrid 3.32 it is not max-min when flows have bottlenecks at several levels
// (tests/engine/network_config_test.cpp).
#pragma once

namespace podsim::engine {

// Applies the exact-timing configuration. Call once per process, after constructing the
// simgrid::s4u::Engine and before creating the first zone (model settings freeze then).
void apply_exact_network_config();

}  // namespace podsim::engine
