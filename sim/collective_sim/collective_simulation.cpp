// Build then simulate, with the symmetry hint the builder records.
#include "sim/collective_sim/collective_simulation.hpp"

#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/symmetric_simulation.hpp"

namespace podsim {

SimulatedCollective simulate_collective(const NetworkSpec& network, std::int32_t num_chips,
                                        const CollectiveRequest& request, SymmetryUse use) {
  return simulate_collectives(network, num_chips, {request}, use);
}

SimulatedCollective simulate_collectives(const NetworkSpec& network, std::int32_t num_chips,
                                         const std::vector<CollectiveRequest>& requests, SymmetryUse use) {
  SimulatedCollective run;
  run.graph.num_chips = num_chips;
  GraphSymmetry symmetry;
  // The symmetry path knows the torus only: a collective across slices runs in full (docs/overlap-pipeline-dcn.md).
  for (const CollectiveRequest& request : requests)
    if (crosses_slices(request)) use = SymmetryUse::never;
  if (network.split_routes) use = SymmetryUse::never;  // the symmetry path keeps one route per chip pair
  for (const CollectiveRequest& request : requests) {
    Frontier frontier(num_chips);
    append_collective(run.graph, frontier, request, use == SymmetryUse::automatic ? &symmetry : nullptr);
  }
  if (use == SymmetryUse::never) {
    run.result = simulate(network, run.graph);
  } else {
    run.result = simulate_symmetric(network, run.graph, symmetry, &run.symmetric);
  }
  return run;
}

}  // namespace podsim
