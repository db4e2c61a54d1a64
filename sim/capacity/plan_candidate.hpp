// The capacity-planning candidate a model-level scenario's parallelism plan makes: the scenario's hardware, slice
// (with its resolved wraparound) and mesh, the plan's assignment, and the workload's microbatches and remat.
#pragma once

#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// `plan` is a verified plan of `spec` with a parallelism (a model-level scenario's plans all have one).
Candidate plan_candidate(const ScenarioSpec& spec, const ScenarioPlan& plan);

}  // namespace podsim
