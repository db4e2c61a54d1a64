// The DCN seconds of a simulated candidate, from the step breakdown.
#include "sim/capacity/des_dcn.hpp"

#include "sim/run/step_breakdown.hpp"

namespace podsim {

double critical_chip_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation) {
  return step_breakdown(graph, simulation, 0).breakdown.dcn_s;
}

}  // namespace podsim
