// The DCN seconds of a simulated candidate (docs/overlap-pipeline-dcn.md, "Model-level scenarios over several
// slices"), read from the step breakdown of sim/run (step_breakdown), kept apart from candidate.hpp, whose closed-form
// breakdown shares that header's type name.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// Per op index (Task::op < ops): its transfers between slices on the critical chip outside that chip's compute and
// ICI transfers (step_breakdown's op_dcn_s). Throws InternalError as step_breakdown does.
std::vector<double> op_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation, std::size_t ops);

// The critical chip's DCN seconds (step_breakdown's dcn_s). Throws InternalError as step_breakdown does.
double critical_chip_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation);

}  // namespace podsim
