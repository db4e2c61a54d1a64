// One candidate's evaluation: the model's step expanded and planned once, its ops' closed-form times scaled by how
// many times a step runs them, memory per chip by kind, and the figures derived from the step time.
#include "sim/capacity/candidate_evaluation.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

#include "models/common/error.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/step_memory.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/plan_schedule.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {
namespace {

Workload effective_workload(const CapacityProblem& problem, const Candidate& candidate) {
  Workload w = problem.workload;
  if (w.mode == WorkloadMode::train) {
    w.microbatches = candidate.microbatches;
    w.remat = candidate.remat;
  }
  return w;
}

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / 1073741824.0);
  return text;
}

// Model FLOPs of one step: 6 N (active) per token plus the attention products in training, 2 N plus attention in
// serving (at the sequence length the step attends to).
double model_flops(const TransformerDims& dims, const Workload& w) {
  const double tokens = static_cast<double>(w.tokens_per_step());
  if (w.mode == WorkloadMode::train) return flops_per_token(dims, w.seq_len).train_with_attention * tokens;
  return flops_per_token(dims, w.context).forward_with_attention * tokens;
}

// MFU, tokens per second per chip, latency and cost from the step time in force (des when simulated).
void derive(const CapacityProblem& problem, CandidateResult& r) {
  const double step = r.step_s();
  const auto chips = static_cast<double>(r.candidate.chips());
  const Workload w = effective_workload(problem, r.candidate);
  const double tokens = static_cast<double>(w.tokens_per_step());
  if (!(step > 0)) return;
  const auto& peaks = r.candidate.hardware.spec.chip.peak_flops_by_dtype;
  const auto peak = peaks.find(DType::bf16);
  r.mfu = peak == peaks.end() ? 0 : r.model_flops_per_step / (chips * peak->second * step);  // MFU of bf16 peak
  r.tokens_per_s_per_chip = tokens / step / chips;
  r.token_latency_s = w.mode == WorkloadMode::train ? 0 : step;
  if (problem.price_per_chip_hour)
    r.cost_per_million_tokens = *problem.price_per_chip_hour * chips * step / 3600.0 / tokens * 1e6;
}

const char* largest(const StepBreakdown& b) {
  const char* name = "compute";
  double best = b.compute_s;
  if (b.hbm_s > best) name = "hbm", best = b.hbm_s;
  if (b.ici_s > best) name = "ici", best = b.ici_s;
  if (b.dcn_s > best) name = "dcn";
  return name;
}

}  // namespace

CapacityProblem capacity_problem(const ScenarioSpec& spec) {
  if (!spec.model) throw VerifyError("the scenario has no model: capacity planning needs a \"model\" section");
  CapacityProblem problem;
  problem.model = *spec.model;
  problem.workload = spec.workload.value_or(Workload{});
  problem.options = spec.options;
  problem.price_per_chip_hour = spec.price_per_chip_hour;
  problem.source_file = spec.source_file;
  return problem;
}

CandidateResult evaluate_candidate_book(const CapacityProblem& problem, const Candidate& candidate) {
  CandidateResult r;
  r.candidate = candidate;
  r.hbm_bytes = candidate.hardware.spec.chip.hbm_bytes;
  const TransformerDims& dims = problem.model.dims;
  const Workload w = effective_workload(problem, candidate);
  try {
    const ModelProgram model = expand_model(dims, problem.workload, candidate, problem.options);
    const Slice slice(model.spec.slice_shape, model.spec.wraparound);
    const MeshMapping mapping(model.spec.mesh.mesh, slice, model.spec.mesh.axis_dims);
    PlannedProgram program = plan_program(model.spec, PlanTopology{slice, mapping, true}, nullptr);
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const auto repeat = static_cast<double>(model.repeats[i]);
      for (const auto& step : program.ops[i].steps) {
        const double t = step.book.time_s * repeat;
        if (step.kind != StepKind::compute)
          r.breakdown.ici_s += t;
        else if (step.bound == "compute")
          r.breakdown.compute_s += t;
        else
          r.breakdown.hbm_s += t;
      }
    }
    r.book_step_s = r.breakdown.total();
    r.bound = largest(r.breakdown);
    r.memory = step_memory(dims, w, candidate, model, std::move(program));
  } catch (const Error& e) {
    r.rejected = e.what();
    return r;
  }
  r.memory_per_chip_bytes = r.memory.total();
  r.fits_hbm = r.hbm_bytes == 0 || r.memory_per_chip_bytes <= r.hbm_bytes;
  if (!r.fits_hbm)
    r.rejected = "needs " + gib(r.memory_per_chip_bytes) + " per chip, HBM holds " + gib(r.hbm_bytes) + ": " +
                 gib(r.memory_per_chip_bytes - r.hbm_bytes) + " over";
  r.model_flops_per_step = model_flops(dims, w);
  derive(problem, r);
  return r;
}

void simulate_candidate(const CapacityProblem& problem, CandidateResult& result) {
  if (result.rejected) throw VerifyError("a rejected candidate is not simulated: " + *result.rejected);
  const ModelProgram model = expand_model(problem.model.dims, problem.workload, result.candidate, problem.options);
  // The path `podsim run` takes (plan, lower, simulate in a child process through the symmetry path), without the
  // analyses a report needs (contention, link ledger, values), under program order: each op's simulated span, from
  // its first task's start to its last task's end, counts its repeats times, as its book time does.
  const ScenarioPlatform platform = build_platform(model.spec);
  const PlannedProgram program = plan_program(model.spec, platform.topology(), nullptr);
  const SimulateProgram simulate = [&](const LoweredProgram& lowered) {
    return simulate_symmetric(platform.network, *lowered.graph, *lowered.symmetry);
  };
  const ScheduledPlan scheduled = schedule_plan(program, platform, SchedulePolicy::program_order, simulate);
  const EventGraph& graph = *scheduled.lowered.graph;
  std::vector<double> start(program.ops.size(), std::numeric_limits<double>::infinity());
  std::vector<double> end(program.ops.size(), 0.0);
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const auto op = static_cast<std::size_t>(graph.tasks[t].op);
    start[op] = std::min(start[op], scheduled.simulation.tasks[t].start_s);
    end[op] = std::max(end[op], scheduled.simulation.tasks[t].end_s);
  }
  double step = 0;
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    if (end[i] > start[i]) step += (end[i] - start[i]) * static_cast<double>(model.repeats[i]);
  result.des_step_s = step;
  derive(problem, result);
}

}  // namespace podsim
