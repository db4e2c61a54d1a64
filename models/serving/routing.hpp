// How a serving deployment's router picks the replica of an arriving request (docs/serving.md, "Routing").
#pragma once

#include <cstdint>

#include "models/common/enum_names.hpp"

namespace podsim {

// round_robin: replicas in turn (request k to k mod R, in arrival order). least_outstanding: the replica with the
// fewest requests routed to it and not yet finished (waiting, running or preempted), the lowest index on a tie (Vidur's
// `lor` counts only the unscheduled; this counts all).
enum class Routing { round_robin, least_outstanding };
inline constexpr EnumNames<Routing, 2> kRoutingNames{"routing",
                                                     {{
                                                         {"round_robin", Routing::round_robin},
                                                         {"least_outstanding", Routing::least_outstanding},
                                                     }}};

// A disaggregated deployment's (prefill replica, decode replica) pairs, each a route of its KV network: at most this
// many (docs/serving-model.md, "Disaggregated serving").
inline constexpr std::int64_t kMaxKvRoutes = std::int64_t{1} << 20;

}  // namespace podsim
