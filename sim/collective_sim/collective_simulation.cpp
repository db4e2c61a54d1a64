// Build then simulate, with the phases the builder records.
#include "sim/collective_sim/collective_simulation.hpp"

#include <utility>

#include "sim/collective_sim/exact_simulation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"

namespace podsim {

CollectiveGraph build_collective_graph(std::int32_t num_chips, const std::vector<CollectiveRequest>& requests) {
  CollectiveGraph built;
  built.graph.num_chips = num_chips;
  built.phases = true;
  for (const CollectiveRequest& request : requests)
    if (crosses_slices(request)) built.phases = false;
  for (const CollectiveRequest& request : requests) {
    Frontier frontier(num_chips);
    append_collective(built.graph, frontier, request, built.phases ? &built.symmetry : nullptr);
  }
  return built;
}

SimulatedCollective simulate_collective(const NetworkSpec& network, std::int32_t num_chips,
                                        const CollectiveRequest& request, SymmetryUse use) {
  return simulate_collectives(network, num_chips, {request}, use);
}

SimulatedCollective simulate_collectives(const NetworkSpec& network, std::int32_t num_chips,
                                         const std::vector<CollectiveRequest>& requests, SymmetryUse use) {
  CollectiveGraph built = build_collective_graph(num_chips, requests);
  ProgramSimulationOptions options;
  options.symmetry = use == SymmetryUse::automatic;
  ExactSimulation exact =
      simulate_exact(network, built.graph, {nullptr, 1, built.phases ? &built.symmetry : nullptr}, options);
  SimulatedCollective run;
  run.graph = std::move(built.graph);
  run.result = std::move(exact.result);
  run.symmetric = exact.path != ExactPath::full;
  return run;
}

}  // namespace podsim
