// The slice quotient of an event graph over several slices joined by the DCN (multi_slice_network): when every
// slice's tasks are slice 0's moved to that slice (kinds, sizes, destinations, dependencies and routes alike), every
// task runs exactly when its twin in slice 0 does; and when, besides, the slice wraps around along a dim and its hosts
// are boxes of chips, moving by whole hosts along that dim keeps every host with its NIC, so every chip's tasks run
// when those of its representative in slice 0's first block of hosts do. The representatives' tasks are then simulated
// alone, on one link per class of links (the representatives' ICI links and their hosts' NIC links), each transfer
// going to its destination's representative (or to a sink chip), and the timings are lifted to every chip; routes and
// the ledger are computed from the whole graph as simulate() computes them, so the result is simulate()'s.
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
// ICI links are s * L + l, then each slice's hosts' NIC up and down links. The moves: to any slice, and along each dim
// that wraps, by multiples of a host's extent there (hosts are runs of consecutive chip ids, so they tile the slice
// in boxes when the chips per host are a product of trailing dims' sizes and a divisor of the next; otherwise, or
// when the NICs of the hosts differ, by whole slices only). The representatives: slice 0's chips with every
// coordinate below the block's size (a host's extent along the dims moved, the dim's size along the others).
// Conditions, checked before anything is simulated:
//   - slices >= 2, and the network and the graph have slices * M chips and the layout's links; the links that are
//     moves of one another are alike (bandwidth, latency, tier);
//   - every chip owns as many tasks as its representative, and its k-th task (in id order) is the representative's
//     k-th moved: same kind, bytes and flops, the destination moved, and dependencies (in order, or as a set) the
//     moved twins of the twin's dependencies;
//   - every route is its twin's moved link by link, and no route of a representative crosses two links that are
//     moves of one another;
//   - each task of a representative can observe, in the quotient, the twin of each of its dependencies: a transfer
//     that reaches it is the twin of one that goes to it in the quotient (from another representative, to this
//     destination's representative, over a route no other transfer of that pair differs from) or of one it sends
//     itself (as data parallelism over the DCN, between the chips at one position of every slice, runs).
// Throws what simulate() throws for an invalid graph. The result always holds the routes and each link's tier (the
// step's DCN seconds are read from them); without `ledger`, no link's bytes, messages or busy time and no chip's
// bytes (one pass over the whole graph less). simulated_tasks is the representatives' task count.
std::optional<SimulationResult> simulate_slice_quotient(const Slice& slice, std::int32_t slices,
                                                        const NetworkSpec& network, const EventGraph& graph,
                                                        SliceQuotientDecline* declined = nullptr, bool ledger = true);

}  // namespace podsim
