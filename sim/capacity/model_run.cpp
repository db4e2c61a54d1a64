// `podsim run` of a model-level scenario: its plans as fixed candidates through the plan search's evaluation (closed
// form, then the simulation), and the expanded step program's ops with their repeats.
#include "sim/capacity/model_run.hpp"

#include <cstddef>
#include <memory>
#include <utility>

#include "models/common/error.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/candidate_timeline.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/plan_candidate.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {
namespace {

const char* phase_name(ModelPhase phase) {
  switch (phase) {
    case ModelPhase::forward:
      return "forward";
    case ModelPhase::backward:
      return "backward";
    case ModelPhase::step:
      return "step";
  }
  return "step";
}

const char* place_name(ModelPlace place) {
  switch (place) {
    case ModelPlace::layer:
      return "layer";
    case ModelPlace::first:
      return "first";
    case ModelPlace::last:
      return "last";
  }
  return "layer";
}

// The expanded step program's ops, planned (closed form only) on the candidate's slice and mesh, with their repeats,
// phases and (once simulated) their simulated spans: what evaluate_candidate_book prepared.
std::vector<OpRun> op_rows(const CandidateResult& result) {
  if (!result.prepared) throw InternalError("op_rows: the candidate was not planned");
  const ModelProgram& model = result.prepared->model;
  const PlannedProgram& program = result.prepared->book_program;
  std::vector<OpRun> rows;
  rows.reserve(program.ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const PlannedOp& op = program.ops[i];
    OpRun row;
    row.name = op.name;
    row.kind = std::string(op_kind_name(op.kind));
    row.phase = phase_name(model.roles[i].phase);
    row.place = place_name(model.roles[i].place);
    row.repeats = model.repeats[i];
    row.book_time_s = op.book_time_s;
    row.simulated = i < result.des_op_s.size();
    if (row.simulated) row.des_time_s = result.des_op_s[i];
    row.compute_time_s = op.compute_time_s;
    row.flops = op.flops;
    row.bound = op.bound;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

ScenarioRun run_model_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  const std::optional<std::string>& plan = options.plan;
  const std::string file = spec.source_file.empty() ? std::string("scenario") : spec.source_file;
  if (spec.search)
    throw InputError(file + ": /search",
                     "a search has several candidates, `podsim run` runs a model-level scenario's fixed plans, got: a "
                     "search section (rank its candidates with `podsim plan " +
                         file + "`, or write the chosen one as a plan with a parallelism)");
  if (spec.plans.empty())
    throw InputError(file + ": /plans",
                     "`podsim run` of a model-level scenario runs its plans (each a parallelism on the scenario's "
                     "slice), got: none");
  std::vector<const ScenarioPlan*> chosen;
  for (const auto& p : spec.plans)
    if (!plan || p.name == *plan) chosen.push_back(&p);
  if (chosen.empty()) {
    std::string names;
    for (const auto& p : spec.plans)
      names += (names.empty() ? "" : ", ") + p.name;
    throw RunError(RunOptions::Field::plan, "unknown plan, got: " + *plan + " (plans: " + names + ")");
  }
  const CapacityProblem problem = capacity_problem(spec);
  ScenarioRun run;
  run.level = RunLevel::model;
  run.name = spec.name;
  run.description = spec.description;
  run.file = spec.source_file;
  run.hardware = spec.hardware.name;
  run.slice_shape = spec.slice_shape;
  run.wraparound = spec.wraparound;
  run.spec = std::make_shared<const ScenarioSpec>(spec);
  for (const ScenarioPlan* p : chosen) {
    PlanRun out;
    out.name = p->name;
    out.description = p->description;
    CandidateResult result = evaluate_candidate_book(problem, plan_candidate(spec, *p));
    if (result.rejected && result.book_step_s <= 0)  // not planned at all (not an HBM overflow)
      throw InputError(file + ": " + p->pointer + "/parallelism",
                       "the plan's candidate cannot be planned, got: " + *result.rejected);
    if (!result.rejected) {
      if (options.keep_timeline) {
        auto timeline = std::make_shared<CandidateTimeline>();
        simulate_candidate(problem, result, timeline.get());
        out.candidate_timeline = std::move(timeline);
      } else {
        simulate_candidate(problem, result);
      }
    }
    out.ops = op_rows(result);
    result.prepared.reset();  // the op rows are made: the planned program is not needed any more
    out.book_time_s = result.book_step_s;
    out.des_time_s = result.des_step_s.value_or(0.0);
    out.step_breakdown = model_step_breakdown(result);
    out.schedule = "program-order";
    out.memory_per_chip_bytes = result.memory_per_chip_bytes;
    out.hbm_bytes = result.hbm_bytes;
    out.fits_hbm = result.fits_hbm;
    out.candidate = std::move(result);
    run.plans.push_back(std::move(out));
  }
  return run;
}

CriticalChipBreakdown model_step_breakdown(const CandidateResult& r) {
  CriticalChipBreakdown out;
  if (r.des_step_s && r.des_breakdown) {
    // The des's own split on the critical chip; the host offload's exposed copies are transfers nothing hides.
    const DesStepBreakdown& b = *r.des_breakdown;
    out.compute_s = b.compute_s;
    out.exposed_communication_s = b.exposed_communication_s + b.offload_s;
    out.dcn_s = b.dcn_s;
    out.bubble_s = b.bubble_s;
    return out;
  }
  const double step = r.step_s();
  out.bubble_s =
      r.des_step_s ? (r.pipeline && r.pipeline->des_bubble_s ? *r.pipeline->des_bubble_s : 0.0) : r.breakdown.bubble_s;
  const double compute = r.breakdown.compute_s + r.breakdown.hbm_s;
  const double parts = compute + r.breakdown.ici_s + r.breakdown.dcn_s;
  const double rest = step - out.bubble_s;
  if (parts > 0) {  // the compute part takes the rounding, so a step without communication is all compute
    out.exposed_communication_s = rest * r.breakdown.ici_s / parts;
    out.dcn_s = rest * r.breakdown.dcn_s / parts;
    out.compute_s = rest - out.exposed_communication_s - out.dcn_s;
  } else {
    out.compute_s = rest;
  }
  return out;
}

}  // namespace podsim
