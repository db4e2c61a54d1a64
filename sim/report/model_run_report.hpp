// The model-level part of the run report family (docs/report-format.md, "Model-level scenarios"): what the family's
// entry points (run_report.hpp, html_report.hpp, chrome_trace.hpp) write for a ScenarioRun at RunLevel::model, whose
// plans carry their candidate figures: each plan's step (des beside book), its step breakdown, the expanded step
// program's ops with their repeats, memory per chip by kind against HBM and MFU. Callers use the entry points.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/run_result.hpp"

namespace podsim::report {

// A model-level op's simulated span of one run, none when its plan was not simulated.
std::optional<double> model_op_des_s(const OpRun& op);

// `data=X fsdp=Y on mesh X=2,Y=2, 4 chips, 1 microbatch, no remat`: the plan's candidate in one line.
std::string model_plan_summary(const PlanRun& plan);

// What the des simulates of a model-level step, one sentence (the text and the JSON's "simulated").
std::string model_run_simulated_text(const PlanRun& plan);

// The scenario's text (run_report_text).
std::string model_run_text(const ScenarioRun& run);

// {"schema": "podsim/1", "level": "model", "scenario", "plans", "comparison"}: keys as the op-level run's where they
// mean the same (run_report_json).
nlohmann::json model_run_json(const ScenarioRun& run);

// One row per (scenario, plan, op) under the header
// scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,phase,place,repeats,des_step_s,book_step_s
// (the op-level CSV's first nine columns, then the model-level ones; write_run_csv).
void write_model_run_csv(const std::vector<ScenarioRun>& runs, std::ostream& out);

// The page (model_run_html.cpp, write_html_report): the op-level page's structure and style (html_parts.hpp) with
// each plan's des and book step, its breakdown, memory per chip by kind against HBM, MFU, and the step program's ops
// with their repeats.
void write_model_run_html(const std::vector<ScenarioRun>& runs, std::ostream& out);

// The Chrome trace of the one plan's simulated step (write_candidate_trace, candidate_trace.hpp; write_run_trace).
void write_model_run_trace(const ScenarioRun& run, std::ostream& out);
// Why the run has no trace ("" when it has; run_trace_problem): several plans, or a plan not simulated.
std::string model_run_trace_problem(const ScenarioRun& run);

// Shared with the op-level text: the scenario's heading and facts, and the verdict over its plans (compare_plans).
std::string scenario_header_text(const ScenarioRun& run);
std::string verdict_text(const ScenarioRun& run);

}  // namespace podsim::report
