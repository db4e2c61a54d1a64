// The engine's network for a slice: one host per chip, one link per directed ICI link of the slice (same
// ids and names), and the slice's dimension-order routes. For several slices joined by the data-centre network
// (docs/overlap-pipeline-dcn.md), the same torus per slice plus a DCN tier: per host one NIC link up to the switch and
// one down.
#pragma once

#include <cstdint>

#include "models/hardware/ici.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"

namespace podsim {

// Every link gets the ICI model's bandwidth_Bps (one direction) and hop_latency_s (per hop). The NetworkSpec keeps a
// copy of the slice for its route function. Under RoutePolicy::split_minimal the network also splits a transfer
// between chips that differ in several dims over policy_routes (NetworkSpec::split_routes).
NetworkSpec slice_network(const Slice& slice, const IciModel& ici, double chip_flops,
                          RoutePolicy routing = RoutePolicy::dimension_order);

// The data-centre network between slices, as the engine models it.
struct DcnLinks {
  double bandwidth_per_chip_Bps = 0;  // > 0: a chip's share of its host's NIC, each direction
  double latency_s = 0;               // >= 0: one transfer between slices, NIC to NIC (on the up link)
  std::int64_t chips_per_host = 0;    // >= 1: chips sharing one NIC (the last host of a slice may have fewer)
};

// `slices` copies of `slice` joined by a DCN: chip s * M + c is chip c of slice s (M = slice.num_chips()).
// Links: slice s's ICI links first, id s * L + l for link l of the slice (L = slice.num_links()), named
// `s<s>.<ici name>`, tier ici; then per host h (hosts numbered slice by slice, host h of a slice holds the chips
// c with c / chips_per_host == h) its NIC up link (`dcn.up.s<s>.h<h>`) and down link (`dcn.down.s<s>.h<h>`),
// tier dcn, each of bandwidth_per_chip_Bps x the host's chips; the up link carries latency_s, the down link none.
// The switch is non-blocking (no link). Routes: within a slice, the slice's dimension-order route; between slices,
// [up link of the source's host, down link of the destination's host]. With slices == 1 the network equals
// slice_network (no DCN link). Throws VerifyError unless slices >= 1, the DCN bandwidth is finite and > 0 (when
// slices > 1), the latency finite and >= 0, chips_per_host >= 1, and the chip count fits 32 bits. `routing` splits
// transfers within a slice only (a transfer between slices has its one DCN route).
NetworkSpec multi_slice_network(const Slice& slice, std::int32_t slices, const IciModel& ici, const DcnLinks& dcn,
                                double chip_flops, RoutePolicy routing = RoutePolicy::dimension_order);

}  // namespace podsim
