// How an event graph is simulated exactly: the engine's symmetry paths in order where they prove exact (the slice
// quotient across slices; on one slice the translation quotient, bit for bit the full simulation, then one group per
// phase), else every chip in full. simulate_exact is the only place that picks the path, for `podsim run`, the
// capacity search's simulated candidates and their pipeline schedules, and `podsim collective` alike
// (docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "models/topology/slice.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/graph/graph_symmetry.hpp"

namespace podsim {

// The one-group-per-phase path is taken with at most this many phases, or with more on graphs of more than
// kTasksPerPhase tasks a phase (else the full simulation is faster, and gives the same doubles).
inline constexpr std::size_t kFewPhases = 64;
inline constexpr std::size_t kTasksPerPhase = 2000;

struct ProgramSimulationOptions {
  bool symmetry = true;              // false: simulate every chip
  bool translation_quotient = true;  // with `symmetry`: try chip 0's tasks for all first
  // false: the translation quotient may leave the routes and the link and chip ledger empty, and the slice quotient
  // the ledger (task timings, makespan and message count are kept; across slices the routes and the links' tiers
  // too), for callers that read the timings alone (the plan search's candidates).
  bool ledger = true;
};

// The exact paths, in the order they are tried (ExactSimulation::reason says why one was taken).
enum class ExactPath { slice_quotient, translation_quotient, one_group_per_phase, full };

// What the graph is known to be: the slice its chips form (`slices` copies of it over the DCN), and its phases for
// one group per phase. A graph without a slice (a pipeline's stage schedule) takes neither quotient; one without
// phases runs in full after them.
struct ExactGraphShape {
  const Slice* slice = nullptr;
  std::int32_t slices = 1;
  const GraphSymmetry* symmetry = nullptr;
};

struct ExactSimulation {
  SimulationResult result;  // simulate(network, graph)'s (without the ledger when options.ledger is false and a
                            // quotient gives it; a collective's translation quotient has no per-task timings)
  ExactPath path = ExactPath::full;
  std::string reason;  // why this path: the rule that chose it, or why the earlier paths declined
};

// The one place that picks the path: several slices take the slice quotient when they do the same work, else run in
// full; one slice takes the translation quotient when every chip's tasks are chip 0's moved, else one group per phase
// (with few phases, or many tasks a phase), else the full simulation. Throws what simulate() throws.
ExactSimulation simulate_exact(const NetworkSpec& network, const EventGraph& graph, const ExactGraphShape& shape,
                               const ProgramSimulationOptions& options = {});

// One collective on `slices` copies of `slice` (the network is slice_network's or multi_slice_network's): the same
// rule, with the translation quotient taken from the request itself (simulate_torus_quotient), before and without
// building the whole graph, which is built (with its phases) only when a later path needs it.
ExactSimulation simulate_exact(const NetworkSpec& network, const Slice& slice, std::int32_t slices,
                               const CollectiveRequest& request, const ProgramSimulationOptions& options = {});

}  // namespace podsim
