// The network a disaggregated serving run moves KV caches over (docs/serving-model.md, "Disaggregated serving"): one
// host per replica, the prefill replicas first, each with one link out (its egress) and one link in (its ingress) to
// a non-blocking switch, as multi_slice_network models the DCN. Transfers that share a replica's link share its
// bandwidth (SimGrid's max-min flow model), so contention shows.
#pragma once

#include <cstdint>
#include <vector>

#include "models/serving/routing.hpp"
#include "sim/engine/network.hpp"

namespace podsim {

// Links: per prefill replica p its egress `kv.out.p<p>` (id p), then per decode replica d its ingress `kv.in.d<d>`
// (id P + d), of the given bandwidths (bytes/s, one direction), tier `tier`; the egress carries `latency_s`, the
// ingress none. Hosts: prefill replica p is host p, decode replica d is host P + d. Routes: from prefill host p to
// decode host P + d, [egress p, ingress d] (a transfer alone takes latency_s + bytes / min of the two); no other pair
// is routed. Throws VerifyError unless both pools are non-empty, every bandwidth is finite and > 0, the latency
// finite and >= 0, and P x D is at most kMaxKvRoutes.
NetworkSpec kv_transfer_network(const std::vector<double>& prefill_egress_Bps,
                                const std::vector<double>& decode_ingress_Bps, double latency_s, LinkTier tier);

}  // namespace podsim
