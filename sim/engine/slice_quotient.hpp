// The slice quotient of an event graph over several slices joined by the DCN (multi_slice_network): when every
// slice's tasks are slice 0's moved to that slice (kinds, sizes, destinations, dependencies and routes alike), every
// task runs exactly when its twin in slice 0 does. Slice 0's tasks are then simulated alone, on slice 0's ICI links
// and NIC links, each transfer to another slice going to a sink chip over slice 0's NIC links (its up link, and the
// down link of the host at the destination's position), and the timings are lifted to every slice; routes and the
// ledger are computed from the whole graph as simulate() computes them, so the result is simulate()'s.
// docs/performance.md ("The slice quotient") says why it is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// Why the slice quotient did not apply (the first condition that failed, in the order checked).
enum class SliceQuotientDecline {
  none,                       // it applied
  not_several_slices,         // fewer than 2 slices, or the network is not multi_slice_network's layout of them
  tasks_per_chip,             // some chip owns a different number of tasks than its position's chip in slice 0
  task_not_moved,             // a task differs from its slice-0 twin moved (kind, bytes, flops, destination)
  dependency_not_moved,       // its dependencies are not those of its twin, moved
  route_not_moved,            // a route is not its slice-0 twin's moved link by link, or crosses one class twice
  dependency_not_observable,  // a task of slice 0 waits on a transfer from another slice whose twin it cannot observe
};

// A short phrase for `decline` ("a task is not slice 0's moved"), for tests and benchmarks.
std::string_view slice_quotient_decline_name(SliceQuotientDecline decline);

// What simulate(network, graph) returns, or nullopt when the quotient does not apply (the reason in `declined` when
// given). `network` must be multi_slice_network(slice, slices, ...): chip s * M + c is chip c of slice s, slice s's
// ICI links are s * L + l, then each slice's hosts' NIC up and down links. Conditions, checked before anything is
// simulated:
//   - slices >= 2, and the network and the graph have slices * M chips and the layout's links;
//   - every chip owns as many tasks as its position's chip in slice 0, and its k-th task (in id order) is that
//     chip's k-th moved to its slice: same kind, bytes and flops, the destination moved by as many slices (modulo),
//     and dependencies (in order, or as a set) the moved twins of the twin's dependencies;
//   - every route is its twin's moved link by link, and no route of slice 0 crosses two links that are moves of one
//     another;
//   - each task of slice 0 can observe, in the quotient, the twin of each of its dependencies: a transfer that
//     reaches it from another slice is the twin of one it sends itself (a collective between the chips at one
//     position of every slice, as data parallelism over the DCN runs).
// Throws what simulate() throws for an invalid graph. Without `ledger`, the result holds the task timings, the
// makespan and the message count only.
std::optional<SimulationResult> simulate_slice_quotient(const Slice& slice, std::int32_t slices,
                                                        const NetworkSpec& network, const EventGraph& graph,
                                                        SliceQuotientDecline* declined = nullptr);

}  // namespace podsim
