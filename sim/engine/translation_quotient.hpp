// The translation quotient of a whole event graph on one slice: when every chip's tasks are chip 0's moved by that
// chip's coordinates (kinds, sizes, destinations, dependencies and routes alike), every chip's task runs exactly when
// chip 0's twin does. Chip 0's tasks are then simulated alone, each link replaced by the one link of its dim and
// direction, and the timings are lifted to every task; routes and the ledger are then computed from the whole graph
// as simulate() computes them, so the result is simulate()'s, bit for bit. docs/performance.md says why it is exact.
#pragma once

#include <optional>
#include <string_view>

#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// Why the quotient did not apply (the first condition that failed, in the order checked).
enum class QuotientDecline {
  none,                       // it applied
  not_the_slice,              // the network or the graph is not the slice's (chips, links), or a task is out of range
  no_tasks,                   // chip 0 has no task
  tasks_per_chip,             // some chip owns (is the source of) a different number of tasks than chip 0
  task_not_translated,        // a chip's k-th task differs from chip 0's k-th moved (kind, bytes, flops, destination)
  dependency_not_translated,  // its dependencies are not those of chip 0's twin, moved
  route_not_translated,       // a chip's route to an offset is not chip 0's route to it, moved hop by hop
  route_repeats_class,        // a route of chip 0 crosses two links of one dim and direction
  link_classes_differ,        // links of one used dim and direction differ in bandwidth or latency
};

// A short phrase for `decline` ("tasks per chip differ"), for tests and benchmarks.
std::string_view quotient_decline_name(QuotientDecline decline);

// What simulate(network, graph) returns (task timings, published routes, ledger; simulated_tasks is chip 0's task
// count), or nullopt when `graph` is not invariant under the translations of `slice` (the reason in `declined` when
// given). Conditions, checked before anything is simulated:
//   - the network has the slice's chips and so does the graph, and, when a transfer goes between two chips, the
//     network has the slice's links (link id = slice link id);
//   - every chip is the source of as many tasks as chip 0, and its k-th task (in id order) is chip 0's k-th moved:
//     same kind, bytes and flops, destination chip 0's destination moved, and dependencies (in order, or as a set)
//     the moved twins of chip 0's task's dependencies;
//   - for every chip and every destination offset of chip 0's transfers, the chip's route is chip 0's moved hop by
//     hop (each link from and to the moved chips, along the same dim), and no route of chip 0 crosses two links of
//     one dim and direction;
//   - the links of each dim and direction that chip 0's routes use have one bandwidth and one latency.
// Throws what simulate() throws for a graph that passes these checks but breaks one of simulate()'s rules.
// Without `ledger`, the result holds the task timings, the makespan and the message count only (no routes, no
// link or chip traffic): two passes over the whole graph less, for callers that read timings alone.
std::optional<SimulationResult> simulate_translation_quotient(const Slice& slice, const NetworkSpec& network,
                                                              const EventGraph& graph,
                                                              QuotientDecline* declined = nullptr, bool ledger = true);

}  // namespace podsim
