// `podsim run` of a model-level scenario (docs/capacity.md, "`podsim run` of a model-level scenario"): each of its
// parallelism plans is one fixed candidate (the scenario's hardware, slice, mesh, the plan's parallelism, the
// workload's microbatches and remat), evaluated by the closed form and simulated by the plan search's own code
// (candidate_evaluation.hpp), with the layer program's ops, their repeats and their book and des times for one run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/common/bound.hpp"
#include "sim/capacity/candidate.hpp"
#include "sim/capacity/candidate_timeline.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct ModelPlanRun {
  std::string name;  // the scenario plan's
  std::string description;
  CandidateResult result;  // book and des step times, breakdown, memory by kind, fit, MFU (as `podsim plan`)
  // The expanded step program's ops (one layer's forward and backward plus the edges, model_program.hpp) with their
  // phase, place and repeats, in program order (empty when the candidate cannot be planned).
  std::vector<OpRun> ops;
  // With ModelRunOptions::keep_timeline and once simulated: the simulated step's timeline (for the Chrome trace).
  std::shared_ptr<const CandidateTimeline> timeline;
};

struct ModelScenarioRun {
  std::string name;
  std::string description;
  std::string file;
  std::string hardware;
  std::shared_ptr<const ScenarioSpec> spec;  // the scenario (its model and workload), for the reports
  std::vector<std::int64_t> slice_shape;
  std::vector<bool> wraparound;
  std::vector<ModelPlanRun> plans;
};

struct ModelRunOptions {
  std::optional<std::string> plan;  // run only this plan
  bool keep_timeline = false;       // keep each simulated plan's timeline (podsim run --trace)
};

// Runs every plan of a verified model-level scenario (only options.plan when given): evaluate_candidate_book, then,
// when the candidate fits HBM, simulate_candidate. A candidate that does not fit is reported with its rejection and
// without des figures. Throws InputError at `/search` for a scenario with a search section (its candidates are
// ranked by `podsim plan`), at `/plans` for one without plans, at the plan's `/plans/N/parallelism` when its
// candidate cannot be planned; RunError (RunOptions::Field::plan) for a `plan` the scenario does not have; what
// simulate_candidate throws when the simulation fails.
ModelScenarioRun run_model_scenario(const ScenarioSpec& spec, const ModelRunOptions& options = {});

// The step breakdown of `podsim run` (docs/report-format.md, plans[].step_breakdown) for a model-level plan. Simulated
// without pipeline stages: the des's split on the critical chip (des_breakdown; the host offload's exposed copies in
// the exposed communication). Otherwise the step time in force (des when simulated, else book) split into compute
// (the book's MXU- and HBM-bound compute), exposed communication (its ICI) and DCN in the book's proportions, after
// the bubble (the des bubble when simulated, else the book's). The four add up to the step time.
struct ModelStepBreakdown {
  double compute_s = 0;
  double exposed_communication_s = 0;
  double bubble_s = 0;
  double dcn_s = 0;
};
ModelStepBreakdown model_step_breakdown(const CandidateResult& result);

}  // namespace podsim
