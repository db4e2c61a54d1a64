// A scenario's lowered program simulated exactly over its platform, by the one rule that picks the path
// (simulate_exact, sim/collective_sim/exact_simulation.hpp; docs/performance.md).
#pragma once

#include "sim/collective_sim/exact_simulation.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/run/program_lowering.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {

// simulate_exact on a scenario's lowered program over its platform.
SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options = {});

}  // namespace podsim
