// The symmetry paths in order, then the full simulation.
#include "sim/run/program_simulation.hpp"

#include <utility>

#include "sim/engine/simulator.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/engine/translation_quotient.hpp"

namespace podsim {

SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options) {
  // The symmetry paths know one torus: several slices run in full (docs/overlap-pipeline-dcn.md).
  if (!options.symmetry || platform.slices != 1) return simulate(platform.network, *lowered.graph);
  if (options.translation_quotient)
    if (auto quotient = simulate_translation_quotient(*platform.slice, platform.network, *lowered.graph))
      return std::move(*quotient);
  return simulate_symmetric(platform.network, *lowered.graph, *lowered.symmetry);
}

}  // namespace podsim
