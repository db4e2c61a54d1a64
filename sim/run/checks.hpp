// The scenario's `expect` list evaluated against an op-level run (docs/scenario-format.md, "Metrics"), and the one
// comparison of a measured figure with an expectation that both kinds of run use (a model-level scenario's model and
// candidate metrics are measured in sim/capacity/candidate_checks.hpp).
#pragma once

#include <vector>

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One CheckResult per expectation whose plan was run, in order, then one per plan run in functional mode (its values
// equal the dense reference). Throws InputError for an op or tensor the plan does not have, and for a model or
// candidate metric (the verifier allows them only in a model-level scenario, which evaluate_model_checks checks).
std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run);

// The check of `e` against the figure `measured`: its description (`fsdp: op h time_s (des)`), pointer, source,
// value and target, and whether the figure is within e's tolerance (relative or absolute; a finite number; booleans
// and shapes equal).
CheckResult check_expectation(const Expectation& e, const CheckValue& measured);

}  // namespace podsim
