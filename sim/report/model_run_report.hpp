// Writers for `podsim run` of a model-level scenario (docs/report-format.md, "Model-level scenarios"): each plan's
// step (des beside book), its step breakdown, the expanded step program's ops with their repeats, memory per chip
// by kind against HBM and MFU, as text, the versioned JSON object and a per-op CSV.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/capacity/model_run.hpp"
#include "sim/report/run_report.hpp"

namespace podsim::report {

// The plans to look at first, by the step time in force (des when simulated, else book); ties to the plan listed
// first; `fastest_fitting` only among plans that fit HBM.
PlanComparison compare_model_plans(const ModelScenarioRun& run);

// A model-level op's simulated span of one run, none when its plan was not simulated.
std::optional<double> model_op_des_s(const OpRun& op);

// `data=X fsdp=Y on mesh X=2,Y=2, 4 chips, 1 microbatch, no remat`: the plan's candidate in one line.
std::string model_plan_summary(const ModelPlanRun& plan);

// What the des simulates of a model-level step, one sentence (the text and the JSON's "simulated").
std::string model_run_simulated_text(const ModelPlanRun& plan);

// The human report of one model-level scenario, several one after the other separated by a blank line.
std::string run_report_text(const std::vector<ModelScenarioRun>& runs);

// One scenario: {"schema": "podsim/1", "level": "model", "scenario", "plans", "comparison"}; several:
// {"schema": "podsim/1", "scenarios": [object, ...]}. Keys as the op-level run's where they mean the same
// (docs/report-format.md).
nlohmann::json run_report_json(const ModelScenarioRun& run);
nlohmann::json run_report_json(const std::vector<ModelScenarioRun>& runs);

// One row per (scenario, plan, op) under the header
// scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,phase,place,repeats,des_step_s,book_step_s
// (the op-level CSV's first nine columns, then the model-level ones; RFC 4180 quoting).
void write_run_csv(const std::vector<ModelScenarioRun>& runs, std::ostream& out);

// `podsim run --report FILE.html` of model-level scenarios (model_run_html.cpp): the op-level page's structure and
// style (html_parts.hpp) with each plan's des and book step, its breakdown, memory per chip by kind against HBM,
// MFU, and the step program's ops with their repeats.
void write_html_report(const std::vector<ModelScenarioRun>& runs, std::ostream& out);

// `podsim run --trace` of a model-level scenario: the Chrome trace of its one plan's simulated step
// (write_candidate_trace, candidate_trace.hpp). `model_run_trace_problem` says why there is none ("" when there is):
// several plans, or a plan not simulated; write_run_trace throws InternalError then.
std::string model_run_trace_problem(const ModelScenarioRun& run);
void write_run_trace(const ModelScenarioRun& run, std::ostream& out);

}  // namespace podsim::report
