// The DCN seconds of a simulated candidate, from the step breakdown.
#include "sim/capacity/des_dcn.hpp"

#include "sim/run/step_breakdown.hpp"

namespace podsim {

std::vector<double> op_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation, std::size_t ops) {
  return step_breakdown(graph, simulation, ops).op_dcn_s;
}

double critical_chip_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation) {
  return step_breakdown(graph, simulation, 0).breakdown.dcn_s;
}

}  // namespace podsim
