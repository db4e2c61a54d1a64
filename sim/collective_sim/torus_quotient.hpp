// The translation quotient of a collective on a wrapped torus: when every axis of the request is the set of
// lines along one wrapped slice dim, every chip runs the same schedule as every other, shifted in space but
// not in time. One chip then stands for all: its own tasks are simulated with every dependency on another
// chip's task replaced by the same task of the representative, and each of its links by the one link of the
// same dim and direction. Where a route would cross that one link twice (all-to-all over rings of 4 or more),
// the line through the representative is simulated phase by phase instead, and the phases must be apart in time
// on every class of links. The result is lifted to every chip and link. docs/performance.md states why it is
// exact; the conditions are checked and the caller falls back to the full graph otherwise.
#pragma once

#include <optional>

#include "models/topology/slice.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"

namespace podsim {

// The ledger of `request` on `network` (which must be the network of `slice`: one link per slice link, in the
// slice's order, routed by `network.route`), or nullopt when the quotient does not hold. It holds when:
//   - every axis with groups of more than one chip is the set of all lines along one slice dim that wraps, each
//     group in coordinate order from coordinate 0, and runs an algorithm whose row is translation_invariant
//     (sim/collectives/algorithm_table.hpp);
//   - the links of each dim and direction that the collective uses have one bandwidth and one latency;
//   - the route from any chip c to c + v is the route from chip 0 to v moved by c, hop by hop (checked for every
//     chip and every offset v the representative sends to);
//   - when a route crosses two links of one dim and direction: routes stay on their line, and no two phases use
//     one dim and direction's links, or the chips' processors, at the same time (beyond 1e-12 of the makespan);
//   - on each line the representative's group builds, the tasks of every position are those of the
//     representative's position rotated: the same kinds, bytes, flops, steps and destination offsets, and
//     dependencies inside the line at the same offsets on the same tasks.
// The result has what the reports read: makespan_s, links, chip_bytes_sent/received, messages (of the whole
// graph), simulated_tasks, wall_s and child_rss_growth_bytes; it holds no per-task timings or routes (`tasks`,
// `routes`, `task_route` empty). Throws what verify_collective() and simulate() throw.
std::optional<SimulationResult> simulate_torus_quotient(const Slice& slice, const NetworkSpec& network,
                                                        const CollectiveRequest& request);

}  // namespace podsim
