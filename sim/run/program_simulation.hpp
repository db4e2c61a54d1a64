// How a scenario's lowered program is simulated: the engine's symmetry paths in order where they prove exact (the
// translation quotient, bit for bit the full simulation; then one group per phase), else every chip in full. One
// place for `podsim run` and the capacity search's simulated candidates (docs/performance.md).
#pragma once

#include <cstddef>

#include "sim/engine/simulation_result.hpp"
#include "sim/run/program_lowering.hpp"
#include "sim/run/scenario_platform.hpp"

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

// What simulate(platform.network, *lowered.graph) returns (without the ledger when `options.ledger` is false and
// a quotient gives the result). Several slices take the slice quotient when they do the same work, else run in
// full. Throws what simulate() throws.
SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options = {});

}  // namespace podsim
