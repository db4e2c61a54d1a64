// Simulating collectives from their requests: builds the event graph and simulates it by simulate_exact's rule
// (sim/collective_sim/exact_simulation.hpp) on a graph of no known slice: one representative group per axis phase
// (sim/engine/symmetric_simulation.hpp) when it is exact, the full simulation otherwise. Results are those of
// simulate() on the same graph. `podsim collective` takes simulate_exact with its slice, which adds the quotients.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/graph_symmetry.hpp"

namespace podsim {

enum class SymmetryUse {
  automatic,  // the representative path where the engine proves it exact, else the full simulation
  never,      // always the full simulation
};

// Several collectives in one graph, all starting at time 0 (each on an empty frontier), in request order, with the
// phases the builder records. The phases are left out (`phases` false) when a request crosses slices: they know one
// torus only (docs/overlap-pipeline-dcn.md).
struct CollectiveGraph {
  EventGraph graph;
  GraphSymmetry symmetry;
  bool phases = false;
};
CollectiveGraph build_collective_graph(std::int32_t num_chips, const std::vector<CollectiveRequest>& requests);

struct SimulatedCollective {
  EventGraph graph;         // the whole collective, as build_collective() makes it
  SimulationResult result;  // per task of `graph`, per link of the network
  bool symmetric = false;   // true when representatives gave the result
};

// Builds `request` on `num_chips` chips (build_collective) and simulates it on `network`.
SimulatedCollective simulate_collective(const NetworkSpec& network, std::int32_t num_chips,
                                        const CollectiveRequest& request, SymmetryUse use = SymmetryUse::automatic);

// build_collective_graph's graph, simulated.
SimulatedCollective simulate_collectives(const NetworkSpec& network, std::int32_t num_chips,
                                         const std::vector<CollectiveRequest>& requests,
                                         SymmetryUse use = SymmetryUse::automatic);

}  // namespace podsim
