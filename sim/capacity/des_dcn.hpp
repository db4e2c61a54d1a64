// The DCN seconds of a simulated candidate (docs/overlap-pipeline-dcn.md, "Model-level scenarios over several
// slices"), read from the step breakdown of sim/run (step_breakdown), kept apart from candidate.hpp, whose closed-form
// breakdown shares that header's type name.
#pragma once

#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// The critical chip's DCN seconds (step_breakdown's dcn_s). Throws InternalError as step_breakdown does.
double critical_chip_dcn_seconds(const EventGraph& graph, const SimulationResult& simulation);

}  // namespace podsim
