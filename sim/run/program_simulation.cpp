// The symmetry paths in order, then the full simulation.
#include "sim/run/program_simulation.hpp"

#include <utility>

#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_quotient.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/engine/translation_quotient.hpp"

namespace podsim {

SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options) {
  if (!options.symmetry) return simulate(platform.network, *lowered.graph);
  // Several slices that do the same work: slice 0's tasks alone (docs/performance.md, "The slice quotient"); the
  // other symmetry paths know one slice.
  if (platform.slices != 1) {
    if (auto quotient = simulate_slice_quotient(*platform.slice, platform.slices, platform.network, *lowered.graph,
                                                nullptr, options.ledger))
      return std::move(*quotient);
    return simulate(platform.network, *lowered.graph);
  }
  if (options.translation_quotient)
    if (auto quotient =
            simulate_translation_quotient(*platform.slice, platform.network, *lowered.graph, nullptr, options.ledger))
      return std::move(*quotient);
  // One group per phase runs a simulation (a child process) per phase, about 20 ms each, where the full simulation
  // costs about 10 us a task (docs/performance.md): past kFewPhases phases it pays only on graphs of more than
  // kTasksPerPhase tasks a phase. Both give the same doubles, so the choice changes the time alone.
  const std::size_t phases = lowered.symmetry->phases.size();
  if (phases > kFewPhases && lowered.graph->tasks.size() < phases * kTasksPerPhase)
    return simulate(platform.network, *lowered.graph);
  return simulate_symmetric(platform.network, *lowered.graph, *lowered.symmetry);
}

}  // namespace podsim
