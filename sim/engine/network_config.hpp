// The SimGrid network configuration under which a message of S bytes over k hops takes exactly
// k * latency + S / bandwidth, and flows share a link with plain max-min fairness (SIMGRID.md §3).
#pragma once

namespace podsim::engine {

// Applies the exact-timing configuration. Call once per process, after constructing the
// simgrid::s4u::Engine and before creating the first zone (model settings freeze then).
void apply_exact_network_config();

}  // namespace podsim::engine
