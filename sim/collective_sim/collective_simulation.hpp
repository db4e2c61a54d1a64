// Simulating collectives from their requests: builds the event graph and simulates it, taking the engine's
// symmetry path (one representative group per axis phase, sim/engine/symmetric_simulation.hpp) when it is
// exact and the full simulation otherwise. Results are those of simulate() on the same graph.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"

namespace podsim {

enum class SymmetryUse {
  automatic,  // the representative path where the engine proves it exact, else the full simulation
  never,      // always the full simulation
};

struct SimulatedCollective {
  EventGraph graph;         // the whole collective, as build_collective() makes it
  SimulationResult result;  // per task of `graph`, per link of the network
  bool symmetric = false;   // true when representatives gave the result
};

// Builds `request` on `num_chips` chips (build_collective) and simulates it on `network`.
SimulatedCollective simulate_collective(const NetworkSpec& network, std::int32_t num_chips,
                                        const CollectiveRequest& request, SymmetryUse use = SymmetryUse::automatic);

// Several collectives in one graph, all starting at time 0 (each on an empty frontier), in request order.
SimulatedCollective simulate_collectives(const NetworkSpec& network, std::int32_t num_chips,
                                         const std::vector<CollectiveRequest>& requests,
                                         SymmetryUse use = SymmetryUse::automatic);

}  // namespace podsim
