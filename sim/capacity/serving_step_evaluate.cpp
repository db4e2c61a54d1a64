// One model-level serving step (a decode or a prefill of the problem's model) evaluated by the book or the des and
// split into the groups of ops the serving step model composes (docs/serving-step-model.md): the layers, the logits,
// the attention.
#include <cmath>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/serving_step.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {
namespace {

enum class ServingOpGroup { layers, logits, attention };

// The group of op `i` of a serving step program: the unembedding's ops (ModelPlace::last) are the logits; the layer's
// score/value products (`attention`) and a decode's KV cache read (`kv_read`) the attention; everything else (the
// projections, the MLP, the norms, the tensor axes' collectives, the embedding) the layers.
ServingOpGroup serving_op_group(const ModelProgram& model, std::size_t i) {
  if (model.roles[i].place == ModelPlace::last) return ServingOpGroup::logits;
  const std::string& name = model.spec.program[i].name;
  if (model.roles[i].place == ModelPlace::layer && (name == "attention" || name == "kv_read"))
    return ServingOpGroup::attention;
  return ServingOpGroup::layers;
}

void add_to_serving_group(ServingStepEvaluation& out, ServingOpGroup group, double seconds) {
  switch (group) {
    case ServingOpGroup::layers:
      out.layers_s += seconds;
      break;
    case ServingOpGroup::logits:
      out.logits_s += seconds;
      break;
    case ServingOpGroup::attention:
      out.attention_s += seconds;
      break;
  }
}

}  // namespace

std::string serving_candidate_text(const Candidate& candidate) {
  std::string slice;
  for (std::size_t d = 0; d < candidate.slice.size(); ++d)
    slice += (d > 0 ? "x" : "") + std::to_string(candidate.slice[d]);
  if (candidate.slices > 1) slice = std::to_string(candidate.slices) + " x " + slice;
  return candidate.hardware.name + " " + slice + " " + candidate.parallelism.to_string();
}

ServingStepEvaluation evaluate_serving_step(const CapacityProblem& problem, const Candidate& candidate,
                                            WorkloadMode mode, std::int64_t batch, std::int64_t context,
                                            StepEvaluator evaluator) {
  if (mode == WorkloadMode::train)
    throw InternalError("evaluate_serving_step: a serving step is a prefill or a decode, got: train");
  CapacityProblem p = problem;
  p.workload.mode = mode;
  p.workload.batch = batch;
  p.workload.context = context;
  ServingStepEvaluation out;
  out.result = evaluate_candidate_book(p, candidate);
  // A candidate that could not be planned has no step; one that only overflows HBM has its figures (a grid point
  // beyond the KV capacity, which the scheduler never reaches, still needs a time for interpolating up to it).
  if (out.result.rejected && !(out.result.book_step_s > 0))
    throw VerifyError(serving_candidate_text(candidate) + ": " + std::string(kWorkloadModeNames.name(mode)) +
                      " of batch " + std::to_string(batch) + " at context " + std::to_string(context) +
                      " cannot be planned: " + *out.result.rejected);
  // What evaluate_candidate_book expanded and planned (a result with a step was planned).
  if (!out.result.prepared) throw InternalError("evaluate_serving_step: the candidate was not planned");
  const ModelProgram& model = out.result.prepared->model;
  if (evaluator == StepEvaluator::book) {
    const PlannedProgram& program = out.result.prepared->book_program;
    for (std::size_t i = 0; i < program.ops.size(); ++i)
      add_to_serving_group(out, serving_op_group(model, i),
                           program.ops[i].book_time_s * static_cast<double>(model.repeats[i]));
    out.step_s = out.result.book_step_s;
    const double sum = out.layers_s + out.logits_s + out.attention_s;
    if (!(std::abs(sum - out.step_s) <= 1e-9 * out.step_s))
      throw InternalError("evaluate_serving_step: the ops' book times add up to " + std::to_string(sum) +
                          " s, the step's to " + std::to_string(out.step_s) + " s");
    return out;
  }
  CandidateResult simulated = out.result;
  if (simulated.rejected) {
    // Over HBM: simulated as it stands, without waiting for memory it does not have.
    simulated.rejected.reset();
    p.options.schedule = SchedulePolicy::dataflow;
  }
  simulate_candidate(p, simulated);
  out.step_s = simulated.des_step_s.value_or(0.0);
  if (!(out.step_s > 0) || simulated.des_op_s.size() != model.spec.program.size())
    throw InternalError("evaluate_serving_step: the des of " + serving_candidate_text(candidate) +
                        " returned no step or no op spans");
  // The des overlaps ops (dataflow over the layers in sequence): its step apportioned to the groups in the
  // proportions of their ops' spans x repeats (ops sharing the chip stretch each other's spans alike).
  ServingStepEvaluation spans;
  for (std::size_t i = 0; i < simulated.des_op_s.size(); ++i)
    add_to_serving_group(spans, serving_op_group(model, i),
                         simulated.des_op_s[i] * static_cast<double>(model.repeats[i]));
  const double total = spans.layers_s + spans.logits_s + spans.attention_s;
  if (!(total > 0))
    throw InternalError("evaluate_serving_step: the des of " + serving_candidate_text(candidate) +
                        " has no op with a span");
  out.layers_s = out.step_s * spans.layers_s / total;
  out.logits_s = out.step_s * spans.logits_s / total;
  out.attention_s = out.step_s - out.layers_s - out.logits_s;
  out.result = std::move(simulated);
  return out;
}

std::vector<std::int64_t> serving_grid_axis(std::int64_t max, GridDensity density) {
  std::vector<std::int64_t> out;
  if (max < 1) return out;
  const std::int64_t factor = density == GridDensity::fine ? 2 : 4;
  for (std::int64_t power = 1; power < max;) {
    out.push_back(power);
    const std::int64_t mid = power + power / 2;
    if (density == GridDensity::fine && power >= 2 && mid < max) out.push_back(mid);
    if (power > (max - 1) / factor) break;  // the next power reaches max: no overflow near 2^63
    power *= factor;
  }
  out.push_back(max);
  return out;
}

}  // namespace podsim
