// The engine's network for a slice: one host per chip, one link per directed ICI link of the slice (same
// ids and names), and the slice's dimension-order routes.
#pragma once

#include "models/hardware/ici.hpp"
#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"

namespace podsim {

// Every link gets the ICI model's bandwidth_Bps (one direction) and hop_latency_s (per hop). The NetworkSpec keeps a
// copy of the slice for its route function.
NetworkSpec slice_network(const Slice& slice, const IciModel& ici, double chip_flops);

}  // namespace podsim
