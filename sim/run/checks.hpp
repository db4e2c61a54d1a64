// The scenario's `expect` list evaluated against a run (docs/scenario-format.md, "Metrics"), or, for a model-level
// scenario, its model metrics by the closed forms and its plans' candidate metrics.
#pragma once

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One CheckResult per expectation whose plan was run (and per model metric, of no plan, and candidate metric, of its
// plan's candidate), in order, then one per plan run in functional mode (its values equal the dense reference).
std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run);

// One CheckResult per expectation of a model-level scenario, in order: model metrics (params_total, ..., the
// training state) by the closed forms of docs/models.md, candidate metrics (step_time_s, ..., compute_bound) of the
// plan they name by evaluate_candidate_book, and by simulate_candidate for a des step time (once per plan). Throws
// VerifyError when the scenario has no model, InputError when a plan's candidate cannot be planned or a des figure
// is asked of one that does not fit HBM, Error when a simulation fails.
std::vector<CheckResult> evaluate_model_checks(const ScenarioSpec& spec);

}  // namespace podsim
