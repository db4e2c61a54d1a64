// simulate() for graphs whose phases run on groups that behave alike: one representative group per class is
// simulated hop by hop on SimGrid and its timings are applied to every group of the class. Exact where taken,
// the full simulation otherwise; docs/performance.md states the conditions.
#pragma once

#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/graph/graph_symmetry.hpp"

namespace podsim {

// Validates like simulate() and returns what simulate(network, graph) returns. The representative path is taken
// when every phase of `symmetry` passes these checks before simulating:
//   - the phases cover the graph's tasks in id order, each group's range the same length, and the task at
//     offset k of every group equals that of group 0 (kind, bytes, flops; chips at the same group positions;
//     dependencies inside the group at the same offsets, the others on tasks of earlier phases);
//   - each transfer's route has as many links as its group-0 twin, with equal bandwidth and latency hop by
//     hop, and no link carries transfers of two groups of one phase;
// and this one after: per link (and per chip for computes) the time spans of different phases never overlap
// (so groups never met another phase's traffic). Phase by phase, groups are put in classes by the start times
// their external dependencies allow, equal bit for bit; one child simulates one group of each class from time 0,
// so each timing is the double the full simulation computes (docs/performance.md, "One group per phase").
// `symmetric`, when given, tells which path gave the result.
SimulationResult simulate_symmetric(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry& symmetry,
                                    bool* symmetric = nullptr);

}  // namespace podsim
