// The engine's network for a slice: one host per chip, one link per directed ICI link of the slice (same
// ids and names), and the slice's dimension-order routes.
#pragma once

#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"

namespace podsim {

// Every link gets `bandwidth_Bps` (one direction) and `latency_s` (per hop). The NetworkSpec keeps a copy of
// the slice for its route function.
NetworkSpec slice_network(const Slice& slice, double bandwidth_Bps, double latency_s, double chip_flops);

}  // namespace podsim
