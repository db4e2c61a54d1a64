// The scenario's `expect` list evaluated against a run (docs/scenario-format.md, "Metrics").
#pragma once

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One CheckResult per expectation whose plan was run, in order, then one per plan run in functional mode (its values
// equal the dense reference).
std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run);

}  // namespace podsim
