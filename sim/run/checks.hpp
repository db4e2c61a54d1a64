// The scenario's `expect` list evaluated against a run (docs/scenario-format.md, "Metrics"), or, for a model-level
// scenario, its model metrics evaluated by the closed forms.
#pragma once

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One CheckResult per expectation whose plan was run (and per model metric, of no plan), in order, then one per plan
// run in functional mode (its values equal the dense reference).
std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run);

// One CheckResult per model metric of a model-level scenario's `expect` list (params_total, ..., the training
// state), in order, by the closed forms of docs/models.md; no run needed. Throws VerifyError when the scenario has
// no model.
std::vector<CheckResult> evaluate_model_checks(const ScenarioSpec& spec);

}  // namespace podsim
