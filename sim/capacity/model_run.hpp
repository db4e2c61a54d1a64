// `podsim run` of a model-level scenario (docs/capacity.md, "`podsim run` of a model-level scenario"): each of its
// parallelism plans is one fixed candidate (the scenario's hardware, slice, mesh, the plan's parallelism, the
// workload's microbatches and remat), evaluated by the closed form and simulated by the plan search's own code
// (candidate_evaluation.hpp), with the layer program's ops, their repeats and their book and des times for one run.
// The result is the op-level run's ScenarioRun (sim/run/run_result.hpp) at RunLevel::model: each plan a PlanRun
// carrying its CandidateResult.
#pragma once

#include "sim/run/run_result.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Runs every plan of a verified model-level scenario (only options.plan when given; options.schedule and
// verify_values do not apply): evaluate_candidate_book, then, when the candidate fits HBM, simulate_candidate (keeping
// its timeline with options.keep_timeline). A candidate that does not fit is reported with its rejection and without
// des figures. Throws InputError at `/search` for a scenario with a search section (its candidates are ranked by
// `podsim plan`), at `/plans` for one without plans, at the plan's `/plans/N/parallelism` when its candidate cannot be
// planned; RunError (RunOptions::Field::plan) for a `plan` the scenario does not have; what simulate_candidate throws
// when the simulation fails.
ScenarioRun run_model_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

// The step breakdown of `podsim run` (docs/report-format.md, plans[].step_breakdown) for a model-level plan. Simulated
// without pipeline stages: the des's split on the critical chip (des_breakdown; the host offload's exposed copies in
// the exposed communication). Otherwise the step time in force (des when simulated, else book) split into compute
// (the book's MXU- and HBM-bound compute), exposed communication (its ICI) and DCN in the book's proportions, after
// the bubble (the des bubble when simulated, else the book's). The four add up to the step time.
CriticalChipBreakdown model_step_breakdown(const CandidateResult& result);

}  // namespace podsim
