// The symmetry paths in order, then the full simulation.
#include "sim/collective_sim/exact_simulation.hpp"

#include <optional>
#include <utility>

#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collective_sim/torus_quotient.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_quotient.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/engine/translation_quotient.hpp"

namespace podsim {
namespace {

constexpr const char* kTranslationReason = "every chip's tasks are chip 0's, moved";

ExactSimulation full(const NetworkSpec& network, const EventGraph& graph, std::string reason) {
  return {simulate(network, graph), ExactPath::full, std::move(reason)};
}

// Why the symmetry paths are not tried at all, or nullopt when they may be.
std::optional<std::string> symmetry_off(const NetworkSpec& network, const ProgramSimulationOptions& options) {
  if (!options.symmetry) return "symmetry is off";
  // The symmetry paths build their own networks of one route per chip pair.
  if (network.split_routes) return "transfers split over several routes (routing split_minimal)";
  return std::nullopt;
}

// After the quotients (`declined_by` says why they gave no result): one group per phase, else in full.
ExactSimulation by_phases(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry* symmetry,
                          const std::string& declined_by) {
  if (!symmetry) return full(network, graph, declined_by + "; the graph has no phases");
  // One group per phase runs a simulation (a child process) per phase, about 20 ms each, where the full simulation
  // costs about 10 us a task (docs/performance.md): past kFewPhases phases it pays only on graphs of more than
  // kTasksPerPhase tasks a phase. Both give the same doubles, so the choice changes the time alone.
  const std::size_t phases = symmetry->phases.size();
  if (phases > kFewPhases && graph.tasks.size() < phases * kTasksPerPhase)
    return full(network, graph,
                declined_by + "; " + std::to_string(phases) + " phases of fewer than " +
                    std::to_string(kTasksPerPhase) + " tasks each on average");
  const std::string why = phases <= kFewPhases ? " phases, at most " + std::to_string(kFewPhases)
                                               : " phases of " + std::to_string(kTasksPerPhase) + " tasks or more each";
  bool used = false;
  SimulationResult result = simulate_symmetric(network, graph, *symmetry, &used);
  // simulate_symmetric checks its own conditions and runs in full when they fail: the path says which ran.
  if (!used)
    return {std::move(result), ExactPath::full,
            declined_by + "; " + std::to_string(phases) + why + ", but the groups of a phase are not alike"};
  return {std::move(result), ExactPath::one_group_per_phase, declined_by + "; " + std::to_string(phases) + why};
}

// The rule after symmetry_off: `quotient_declined`, when given, is why the translation quotient already gave no result
// (a collective's, taken from its request), and the graph's is not tried.
ExactSimulation exact_paths(const NetworkSpec& network, const EventGraph& graph, const ExactGraphShape& shape,
                            const ProgramSimulationOptions& options, const std::string* quotient_declined) {
  if (!shape.slice) {
    if (!shape.symmetry) return full(network, graph, "the graph is not known to be a slice's");
    return by_phases(network, graph, shape.symmetry, "the graph is not known to be a slice's");
  }
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
  if (!options.translation_quotient) {
    declined_by = "the translation quotient is off";
  } else if (quotient_declined) {
    declined_by = *quotient_declined;
  } else {
    QuotientDecline declined = QuotientDecline::none;
    if (auto quotient = simulate_translation_quotient(*shape.slice, network, graph, &declined, options.ledger))
      return {std::move(*quotient), ExactPath::translation_quotient, kTranslationReason};
    declined_by = "the translation quotient declined: " + std::string(quotient_decline_name(declined));
  }
  return by_phases(network, graph, shape.symmetry, declined_by);
}

}  // namespace

ExactSimulation simulate_exact(const NetworkSpec& network, const EventGraph& graph, const ExactGraphShape& shape,
                               const ProgramSimulationOptions& options) {
  if (const auto off = symmetry_off(network, options)) return full(network, graph, *off);
  return exact_paths(network, graph, shape, options, nullptr);
}

ExactSimulation simulate_exact(const NetworkSpec& network, const Slice& slice, std::int32_t slices,
                               const CollectiveRequest& request, const ProgramSimulationOptions& options) {
  const auto off = symmetry_off(network, options);
  // The translation quotient of one collective needs its request alone: the whole graph is never built.
  if (!off && slices == 1 && options.translation_quotient)
    if (auto quotient = simulate_torus_quotient(slice, network, request))
      return {std::move(*quotient), ExactPath::translation_quotient, kTranslationReason};
  const CollectiveGraph built = build_collective_graph(network.num_chips, {request});
  if (off) return full(network, built.graph, *off);
  const std::string declined = "the translation quotient declined (sim/collective_sim/torus_quotient.hpp)";
  return exact_paths(network, built.graph, {&slice, slices, built.phases ? &built.symmetry : nullptr}, options,
                     &declined);
}

}  // namespace podsim
