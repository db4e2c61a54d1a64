// One candidate's evaluation: the model's step expanded and planned once, its ops' closed-form times scaled by how
// many times a step runs them (or, with pipeline stages, composed into the stages' schedule), memory per chip by
// kind, and the figures derived from the step time.
#include "sim/capacity/candidate_evaluation.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/cost/dcn_cost.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/model/parallel_fit.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/candidate_figures.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/capacity/pipeline_stages.hpp"
#include "sim/capacity/step_memory.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {
namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / 1073741824.0);
  return text;
}

// Model FLOPs of one step (docs/capacity.md, "MFU"): 6 N per token plus the attention products in training, 2 N plus
// attention in serving (at the sequence length the step attends to), N the matmul parameters (no input embedding).
// The step's model FLOPs (docs/capacity.md, "MFU"): a mixture of experts' (token, expert) pairs that the dense
// dispatch drops (`dropped` of them) skip that expert's matmuls, which are then not counted: MFU counts the work the
// step does, never above the peak however small the capacity factor.
double model_flops(const TransformerDims& dims, const Workload& w, double dropped) {
  const double tokens = static_cast<double>(w.tokens_per_step());
  const bool train = w.mode == WorkloadMode::train;
  double flops = train ? model_flops_per_token(dims, w.seq_len).train_with_attention * tokens
                       : model_flops_per_token(dims, w.context).forward_with_attention * tokens;
  if (dims.experts > 1 && dropped > 0) {
    const double matrices = dims.mlp == MlpKind::gated ? 3.0 : 2.0;
    const double expert_params = matrices * static_cast<double>(dims.d_model) * static_cast<double>(dims.d_ff) *
                                 static_cast<double>(dims.layers);  // one expert of every layer
    const double pairs = tokens * static_cast<double>(dims.experts_per_token);
    flops -= (train ? 6.0 : 2.0) * expert_params * pairs * dropped;
  }
  return flops;
}

// A mixture of experts' dropped fraction for one pass (a microbatch's tokens in training, the step's in serving), as
// the expanded program routes them (docs/overlap-pipeline-dcn.md, "Mixture of experts"); 0 for a dense model.
double dropped_fraction(const TransformerDims& dims, const Workload& w) {
  if (dims.experts <= 1) return 0;
  const auto tokens = static_cast<std::int64_t>(w.tokens_per_pass());
  return expert_load(w, tokens, dims.experts_per_token, dims.experts, 1).dropped_fraction;
}

StepBound largest(const StepBreakdown& b) {
  StepBound bound = StepBound::compute;
  double best = b.compute_s;
  if (b.hbm_s > best) bound = StepBound::hbm, best = b.hbm_s;
  if (b.ici_s > best) bound = StepBound::ici, best = b.ici_s;
  if (b.dcn_s > best) bound = StepBound::dcn;
  return bound;
}

// A step's book time `repeat` times into its part: a collective's phases across slices (its book's dcn_s) into
// dcn_s, the rest into ici_s; a compute step by its bound.
void add_step(StepBreakdown& to, const PlannedStep& step, double repeat) {
  const double t = step.book.time_s * repeat;
  if (step.kind != StepKind::compute) {
    const double dcn = step.book.dcn_s * repeat;
    to.dcn_s += dcn;
    to.ici_s += t - dcn;
  } else if (step.bound == Bound::compute) {
    to.compute_s += t;
  } else {
    to.hbm_s += t;
  }
}

// One run of each op of the layer program by part, from the closed form.
std::vector<StepBreakdown> book_op_times(const PlannedProgram& program) {
  std::vector<StepBreakdown> out(program.ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    for (const auto& step : program.ops[i].steps)
      add_step(out[i], step, 1);
  return out;
}

// The time of the recomputed ops (remat) in a step, from one run of each op: times its repeats (per stage, the busiest
// stage's share: the layers divide by the stages).
double recompute_seconds(const ModelProgram& model, const std::vector<StepBreakdown>& op_time, std::int64_t stages) {
  double total = 0;
  for (std::size_t i = 0; i < op_time.size(); ++i)
    if (model.roles[i].recompute) total += op_time[i].total() * static_cast<double>(model.repeats[i]);
  return total / static_cast<double>(std::max<std::int64_t>(1, stages));
}

// Host offload's exposed seconds in a step (docs/capacity.md, "Host offload"): each layer copies the tensors it
// offloads to the host while its forward runs, and back while its backward runs (XLA's asynchronous copies); what a
// copy takes beyond its layer's forward (or backward) compute, at the chip's host link bandwidth, is exposed, once
// per layer and microbatch (the busiest stage's layers with pipeline stages). Throws VerifyError when the policy
// offloads and the hardware has no host link figure.
double offload_seconds(const Workload& w, const Candidate& candidate, const ModelProgram& model,
                       const PlannedProgram& program, std::int64_t stages) {
  const SavedBytes saved = saved_bytes_per_layer(model, program);
  if (saved.offloaded == 0) return 0;
  const double bandwidth = candidate.hardware.spec.host_offload_Bps;
  if (!(bandwidth > 0))
    throw VerifyError("remat " + remat_text(w.remat) +
                      " offloads activations to host memory, which needs the hardware's host link figure "
                      "(host.offload_Bps): " +
                      candidate.hardware.spec.name + " has none");
  double forward = 0, backward = 0;
  std::int64_t passes = 0;  // layers x microbatches: the repeats of a layer's backward op
  const std::vector<StepBreakdown> times = book_op_times(program);
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (model.roles[i].place != ModelPlace::layer) continue;
    if (model.roles[i].phase == ModelPhase::forward) forward += times[i].total();
    if (model.roles[i].phase == ModelPhase::backward) {
      backward += times[i].total();
      passes = std::max(passes, model.repeats[i]);
    }
  }
  const double copy = static_cast<double>(saved.offloaded) / bandwidth;
  const double per_layer = std::max(0.0, copy - forward) + std::max(0.0, copy - backward);
  return per_layer * static_cast<double>(passes) / static_cast<double>(std::max<std::int64_t>(1, stages));
}

// Bytes one chip sends to its neighbouring stage per microbatch: its shard of the microbatch's activation at the
// stage boundary, [tokens / token axes, D] (d_model is whole in activations).
std::uint64_t pipeline_send_bytes(const TransformerDims& dims, const Workload& w, const ModelProgram& model) {
  const std::uint64_t shards = model.axes.token_shards;
  const std::uint64_t tokens = w.tokens_per_pass();
  const std::uint64_t local = (tokens + shards - 1) / shards;
  return local * static_cast<std::uint64_t>(dims.d_model) * static_cast<std::uint64_t>(dtype_bits(w.activation_dtype)) /
         8;
}

// The closed form of a pipelined step: the stages' work from the layer program's book times, the sends between
// neighbouring stages at the book's point-to-point time, the schedule's span by recurrence, then the longest tail.
// Sets `breakdown` to the busiest stage's work by part (m microbatches and the longest tail) plus its bubble.
PipelineFigures book_pipeline(const TransformerDims& dims, const Workload& w, const ModelProgram& model,
                              const PlannedProgram& program, const PlanTopology& topology, StepBreakdown& breakdown) {
  const Mesh& mesh = model.spec.mesh.mesh;
  PipelineFigures f;
  f.axes = model.axes.pipeline;
  f.stages = model.axes.stages;
  f.layers_per_stage = dims.layers / f.stages;
  f.microbatches = w.microbatches;
  f.schedule = w.pipeline_schedule;
  const StageWork work = stage_work(model, book_op_times(program), dims.layers, f.stages);
  PipelineTimes times{work.forward_s(), work.backward_s(), {}};
  f.forward_s = times.forward_s;
  f.backward_s = times.backward_s;
  f.send_bytes = pipeline_send_bytes(dims, w, model);
  const IciModel& ici = model.spec.hardware.spec.ici;
  if (!ici.present())
    throw VerifyError("pipeline axes " + join(f.axes, ",") + ": stages send activations over ICI, got: hardware " +
                      model.spec.hardware.spec.name + " without ICI figures");
  const auto chips = stage_chips(mesh, topology.mapping, f.axes, topology.slices);
  const ChipId per_slice = static_cast<ChipId>(topology.slice.num_chips());
  for (std::size_t b = 0; b + 1 < chips.size(); ++b) {
    const ChipId from = chips[b].front(), to = chips[b + 1].front();
    if (from / per_slice != to / per_slice) {
      // Across slices (docs/overlap-pipeline-dcn.md): every chip of the stage sends its own part at once, through
      // its host's NIC, at its egress share: the DCN latency plus bytes / W_dcn.
      times.send_s.push_back(topology.dcn_latency_s + static_cast<double>(f.send_bytes) / topology.dcn_bandwidth_Bps);
      f.send_crosses_dcn = true;
    } else {
      const auto hops = static_cast<int>(hop_count(topology.slice, from % per_slice, to % per_slice));
      times.send_s.push_back(book_point_to_point(f.send_bytes, hops, 1, ici.bandwidth_Bps, ici.hop_latency_s).time_s);
    }
    f.send_s = std::max(f.send_s, times.send_s.back());
  }
  const PipelineSpan span = pipeline_span(f.schedule, f.microbatches, times);
  f.span_s = span.span_s;
  f.bubble_s = span.bubble_s;
  f.bubble_fraction = span.bubble_fraction;
  const auto busiest = static_cast<std::size_t>(span.busiest_stage);
  const auto m = static_cast<double>(f.microbatches);
  const StepBreakdown& tail = work.tail[longest_tail(work)];
  breakdown = StepBreakdown{};
  for (const StepBreakdown* part : {&work.forward[busiest], &work.backward[busiest]}) {
    breakdown.compute_s += m * part->compute_s;
    breakdown.hbm_s += m * part->hbm_s;
    breakdown.ici_s += m * part->ici_s;
    breakdown.dcn_s += m * part->dcn_s;
  }
  breakdown.compute_s += tail.compute_s;
  breakdown.hbm_s += tail.hbm_s;
  breakdown.ici_s += tail.ici_s;
  breakdown.dcn_s += tail.dcn_s;
  breakdown.bubble_s = f.bubble_s;
  return f;
}

}  // namespace

Workload effective_workload(const CapacityProblem& problem, const Candidate& candidate) {
  Workload w = problem.workload;
  if (w.mode == WorkloadMode::train) {
    w.microbatches = candidate.microbatches;
    w.remat = candidate.remat;
  }
  return w;
}

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
  if (const auto price = candidate_price(problem, r.candidate))
    r.cost_per_million_tokens = *price * chips * step / 3600.0 / tokens * 1e6;
}

std::size_t longest_tail(const StageWork& work) {
  std::size_t longest = 0;
  for (std::size_t s = 1; s < work.tail.size(); ++s)
    if (work.tail[s].total() > work.tail[longest].total()) longest = s;
  return longest;
}

CapacityProblem capacity_problem(const ScenarioSpec& spec) {
  if (spec.serve)
    throw InputError(spec.source_file + ": /workload/mode",
                     "a serving scenario runs requests through replicas, not one model-level step, got: \"serve\"");
  return step_problem(spec);
}

CapacityProblem step_problem(const ScenarioSpec& spec) {
  if (!spec.model) throw VerifyError("the scenario has no model: capacity planning needs a \"model\" section");
  CapacityProblem problem;
  problem.model = *spec.model;
  problem.workload = spec.workload.value_or(Workload{});
  problem.options = spec.options;
  problem.price_per_chip_hour = spec.price_per_chip_hour;
  problem.price_per_preset = spec.price_per_preset;
  problem.goal = spec.goal;
  problem.reliability = spec.reliability;
  problem.source_file = spec.source_file;
  return problem;
}

std::optional<double> candidate_price(const CapacityProblem& problem, const Candidate& candidate) {
  return chip_hour_price(problem.price_per_chip_hour, problem.price_per_preset, candidate.hardware.name);
}

ModelProgram expand_candidate(const CapacityProblem& problem, const Candidate& candidate) {
  ModelProgram model = expand_model(problem.model.dims, problem.workload, candidate, problem.options);
  model.spec.source_file = problem.source_file;
  return model;
}

CandidateResult evaluate_candidate_book(const CapacityProblem& problem, const Candidate& candidate) {
  CandidateResult r;
  r.candidate = candidate;
  r.hbm_bytes = candidate.hardware.spec.chip.hbm_bytes;
  const TransformerDims& dims = problem.model.dims;
  const Workload w = effective_workload(problem, candidate);
  try {
    if (candidate.slices > 1) {
      if (const auto issue = slice_axis_issue(candidate.parallelism, kSliceAxisName)) throw VerifyError(issue->message);
    }
    auto prepared = std::make_shared<PreparedCandidate>();
    prepared->model = expand_candidate(problem, candidate);
    const ModelProgram& model = prepared->model;
    const Slice slice = model.spec.one_slice();
    const auto [in_slice, in_slice_dims] = model.spec.in_slice_mesh();
    const MeshMapping mapping(in_slice, slice, in_slice_dims);
    const PlanTopology topology{slice,
                                mapping,
                                true,
                                model.spec.slice_count,
                                model.spec.slice_count > 1 ? model.spec.dcn_bandwidth_or_preset() : 0.0,
                                model.spec.slice_count > 1 ? model.spec.dcn_latency_or_preset() : 0.0};
    prepared->book_program = plan_program(model.spec, topology, nullptr);
    const PlannedProgram& program = prepared->book_program;
    const std::int64_t stages = model.axes.stages;
    if (stages > 1) {
      r.pipeline = book_pipeline(dims, w, model, program, topology, r.breakdown);
    } else {
      for (std::size_t i = 0; i < program.ops.size(); ++i)
        for (const auto& step : program.ops[i].steps)
          add_step(r.breakdown, step, static_cast<double>(model.repeats[i]));
    }
    r.breakdown.recompute_s = recompute_seconds(model, book_op_times(program), stages);
    r.breakdown.offload_s = offload_seconds(w, candidate, model, program, stages);
    r.book_step_s = r.breakdown.total();
    r.bound = largest(r.breakdown);
    // stage_memory takes its own copy of the program (it zeroes the bytes it does not count as temporaries).
    const std::vector<MemoryByKind> per_stage = stage_memory(dims, w, model, program);
    const std::size_t worst = worst_stage(per_stage);
    r.memory = per_stage[worst];
    if (r.pipeline) {
      for (const auto& memory : per_stage)
        r.pipeline->stage_memory_bytes.push_back(memory.total());
      r.pipeline->worst_stage = static_cast<std::int64_t>(worst);
    }
    r.prepared = std::move(prepared);
  } catch (const Error& e) {
    r.rejected = e.what();
    return r;
  }
  r.memory_per_chip_bytes = r.memory.total();
  r.fits_hbm = fits_hbm(r.memory_per_chip_bytes, r.hbm_bytes);
  if (!r.fits_hbm)
    r.rejected = "needs " + gib(r.memory_per_chip_bytes) + " per chip, HBM holds " + gib(r.hbm_bytes) + ": " +
                 gib(r.memory_per_chip_bytes - r.hbm_bytes) + " over";
  r.dropped_fraction = dropped_fraction(dims, w);
  r.model_flops_per_step = model_flops(dims, w, r.dropped_fraction);
  derive(problem, r);
  return r;
}

}  // namespace podsim
