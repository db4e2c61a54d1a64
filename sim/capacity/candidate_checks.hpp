// A model-level scenario's `expect` list (docs/scenario-format.md, "Metrics"): its model metrics by the closed forms
// and its plans' candidate metrics by the plan search's evaluation, compared by the run checks' one comparison
// (sim/run/checks.hpp) into the same CheckResult rows.
#pragma once

#include <vector>

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One CheckResult per expectation of a model-level scenario, in order: model metrics (params_total, ..., the
// training state) by the closed forms of docs/models.md, candidate metrics (step_time_s, ..., compute_bound) of the
// plan they name by evaluate_candidate_book, and by simulate_candidate for a des step time (once per plan). Throws
// VerifyError when the scenario has no model, InputError when a plan's candidate cannot be planned or a des figure
// is asked of one that does not fit HBM, Error when a simulation fails.
std::vector<CheckResult> evaluate_model_checks(const ScenarioSpec& spec);

}  // namespace podsim
