// A lowered program through simulate_exact.
#include "sim/run/program_simulation.hpp"

namespace podsim {

SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options) {
  return simulate_exact(platform.network, *lowered.graph,
                        {platform.slice.get(), platform.slices, lowered.symmetry.get()}, options)
      .result;
}

}  // namespace podsim
