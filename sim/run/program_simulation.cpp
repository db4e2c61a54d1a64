// The symmetry paths in order, then the full simulation.
#include "sim/run/program_simulation.hpp"

#include <utility>

#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_quotient.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/engine/translation_quotient.hpp"

namespace podsim {
namespace {

ExactSimulation full(const NetworkSpec& network, const EventGraph& graph, std::string reason) {
  return {simulate(network, graph), ExactPath::full, std::move(reason)};
}

}  // namespace

ExactSimulation simulate_exact(const NetworkSpec& network, const EventGraph& graph, const ExactGraphShape& shape,
                               const ProgramSimulationOptions& options) {
  if (!options.symmetry) return full(network, graph, "symmetry is off");
  // The symmetry paths build their own networks of one route per chip pair.
  if (network.split_routes) return full(network, graph, "transfers split over several routes (routing split_minimal)");
  if (!shape.slice) return full(network, graph, "the graph is not known to be a slice's");
  // Several slices that do the same work: slice 0's tasks alone (docs/performance.md, "The slice quotient"); the
  // other symmetry paths know one slice.
  if (shape.slices != 1) {
    SliceQuotientDecline declined = SliceQuotientDecline::none;
    if (auto quotient = simulate_slice_quotient(*shape.slice, shape.slices, network, graph, &declined, options.ledger))
      return {std::move(*quotient), ExactPath::slice_quotient, "every slice does slice 0's work, moved"};
    return full(
        network, graph,
        "several slices, and the slice quotient declined: " + std::string(slice_quotient_decline_name(declined)));
  }
  std::string declined_by;
  if (options.translation_quotient) {
    QuotientDecline declined = QuotientDecline::none;
    if (auto quotient = simulate_translation_quotient(*shape.slice, network, graph, &declined, options.ledger))
      return {std::move(*quotient), ExactPath::translation_quotient, "every chip's tasks are chip 0's, moved"};
    declined_by = "the translation quotient declined: " + std::string(quotient_decline_name(declined));
  } else {
    declined_by = "the translation quotient is off";
  }
  if (!shape.symmetry) return full(network, graph, declined_by + "; the graph has no phases");
  // One group per phase runs a simulation (a child process) per phase, about 20 ms each, where the full simulation
  // costs about 10 us a task (docs/performance.md): past kFewPhases phases it pays only on graphs of more than
  // kTasksPerPhase tasks a phase. Both give the same doubles, so the choice changes the time alone.
  const std::size_t phases = shape.symmetry->phases.size();
  if (phases > kFewPhases && graph.tasks.size() < phases * kTasksPerPhase)
    return full(network, graph,
                declined_by + "; " + std::to_string(phases) + " phases of fewer than " +
                    std::to_string(kTasksPerPhase) + " tasks each on average");
  const std::string why = phases <= kFewPhases ? " phases, at most " + std::to_string(kFewPhases)
                                               : " phases of " + std::to_string(kTasksPerPhase) + " tasks or more each";
  return {simulate_symmetric(network, graph, *shape.symmetry), ExactPath::one_group_per_phase,
          declined_by + "; " + std::to_string(phases) + why};
}

SimulationResult simulate_program(const ScenarioPlatform& platform, const LoweredProgram& lowered,
                                  const ProgramSimulationOptions& options) {
  return simulate_exact(platform.network, *lowered.graph,
                        {platform.slice.get(), platform.slices, lowered.symmetry.get()}, options)
      .result;
}

}  // namespace podsim
