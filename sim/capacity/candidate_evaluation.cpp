// One candidate's evaluation: the model's step expanded and planned once, its ops' closed-form times scaled by how
// many times a step runs them (or, with pipeline stages, composed into the stages' schedule), memory per chip by
// kind, and the figures derived from the step time.
#include "sim/capacity/candidate_evaluation.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <thread>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/cost/dcn_cost.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/model/parallel_fit.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/des_dcn.hpp"
#include "sim/capacity/layer_stretch.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/pipeline_graph.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/capacity/pipeline_stages.hpp"
#include "sim/capacity/step_memory.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/plan_schedule.hpp"
#include "sim/run/program_lowering.hpp"
#include "sim/run/program_simulation.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/run/scenario_platform.hpp"
#include "sim/run/step_breakdown.hpp"

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

// A mixture of experts' dropped fraction for one pass (a microbatch's tokens in training, the step's in serving), as
// the expanded program routes them (docs/overlap-pipeline-dcn.md, "Mixture of experts"); 0 for a dense model.
double dropped_fraction(const TransformerDims& dims, const Workload& w) {
  if (dims.experts <= 1) return 0;
  const std::uint64_t passes =
      w.mode == WorkloadMode::train ? static_cast<std::uint64_t>(std::max<std::int64_t>(1, w.microbatches)) : 1;
  const auto tokens = static_cast<std::int64_t>(w.tokens_per_step() / passes);
  return expert_load(w, tokens, dims.experts_per_token, dims.experts, 1).dropped_fraction;
}

const char* largest(const StepBreakdown& b) {
  const char* name = "compute";
  double best = b.compute_s;
  if (b.hbm_s > best) name = "hbm", best = b.hbm_s;
  if (b.ici_s > best) name = "ici", best = b.ici_s;
  if (b.dcn_s > best) name = "dcn";
  return name;
}

// A step's book time `repeat` times into its part: a collective's phases across slices (its book's dcn_s) into
// dcn_s, the rest into ici_s; a compute step by its bound.
void add_step(StepBreakdown& to, const PlannedStep& step, double repeat) {
  const double t = step.book.time_s * repeat;
  if (step.kind != StepKind::compute) {
    const double dcn = step.book.dcn_s * repeat;
    to.dcn_s += dcn;
    to.ici_s += t - dcn;
  } else if (step.bound == "compute") {
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
std::uint64_t pipeline_send_bytes(const TransformerDims& dims, const Workload& w, const Candidate& candidate,
                                  const Mesh& mesh) {
  std::uint64_t shards = 1;
  for (const auto& axis : batch_axes(candidate.parallelism))
    shards *= static_cast<std::uint64_t>(mesh.axis_size(axis));
  const std::uint64_t tokens = w.batch_tokens / static_cast<std::uint64_t>(w.microbatches);
  const std::uint64_t local = (tokens + shards - 1) / shards;
  return local * static_cast<std::uint64_t>(dims.d_model) * static_cast<std::uint64_t>(dtype_bits(w.activation_dtype)) /
         8;
}

// The stage with the largest work after the last backward (the step ends when it is done).
std::size_t longest_tail(const StageWork& work) {
  std::size_t longest = 0;
  for (std::size_t s = 1; s < work.tail.size(); ++s)
    if (work.tail[s].total() > work.tail[longest].total()) longest = s;
  return longest;
}

// The closed form of a pipelined step: the stages' work from the layer program's book times, the sends between
// neighbouring stages at the book's point-to-point time, the schedule's span by recurrence, then the longest tail.
// Sets `breakdown` to the busiest stage's work by part (m microbatches and the longest tail) plus its bubble.
PipelineFigures book_pipeline(const TransformerDims& dims, const Workload& w, const Candidate& candidate,
                              const ModelProgram& model, const PlannedProgram& program, const PlanTopology& topology,
                              StepBreakdown& breakdown) {
  const Mesh& mesh = model.spec.mesh.mesh;
  PipelineFigures f;
  f.axes = candidate.parallelism.of(ParallelKind::pipeline);
  f.stages = candidate.parallelism.degree(ParallelKind::pipeline, mesh);
  f.layers_per_stage = dims.layers / f.stages;
  f.microbatches = w.microbatches;
  f.schedule = w.pipeline_schedule;
  const StageWork work = stage_work(model, book_op_times(program), dims.layers, f.stages);
  PipelineTimes times{work.forward_s(), work.backward_s(), {}};
  f.forward_s = times.forward_s;
  f.backward_s = times.backward_s;
  f.send_bytes = pipeline_send_bytes(dims, w, candidate, mesh);
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
    const ModelProgram model = expand_candidate(problem, candidate);
    const Slice slice(model.spec.slice_shape, model.spec.wraparound);
    const auto [in_slice, in_slice_dims] = model.spec.in_slice_mesh();
    const MeshMapping mapping(in_slice, slice, in_slice_dims);
    const PlanTopology topology{slice,
                                mapping,
                                true,
                                model.spec.slice_count,
                                model.spec.slice_count > 1 ? model.spec.dcn_bandwidth_or_preset() : 0.0,
                                model.spec.slice_count > 1 ? model.spec.dcn_latency_or_preset() : 0.0};
    PlannedProgram program = plan_program(model.spec, topology, nullptr);
    const std::int64_t stages = candidate.parallelism.degree(ParallelKind::pipeline, model.spec.mesh.mesh);
    if (stages > 1) {
      r.pipeline = book_pipeline(dims, w, candidate, model, program, topology, r.breakdown);
    } else {
      for (std::size_t i = 0; i < program.ops.size(); ++i)
        for (const auto& step : program.ops[i].steps)
          add_step(r.breakdown, step, static_cast<double>(model.repeats[i]));
    }
    r.breakdown.recompute_s = recompute_seconds(model, book_op_times(program), stages);
    r.breakdown.offload_s = offload_seconds(w, candidate, model, program, stages);
    r.book_step_s = r.breakdown.total();
    r.bound = largest(r.breakdown);
    const std::vector<MemoryByKind> per_stage = stage_memory(dims, w, candidate, model, std::move(program));
    const std::size_t worst = worst_stage(per_stage);
    r.memory = per_stage[worst];
    if (r.pipeline) {
      for (const auto& memory : per_stage)
        r.pipeline->stage_memory_bytes.push_back(memory.total());
      r.pipeline->worst_stage = static_cast<std::int64_t>(worst);
    }
  } catch (const Error& e) {
    r.rejected = e.what();
    return r;
  }
  r.memory_per_chip_bytes = r.memory.total();
  r.fits_hbm = r.hbm_bytes == 0 || r.memory_per_chip_bytes <= r.hbm_bytes;
  if (!r.fits_hbm)
    r.rejected = "needs " + gib(r.memory_per_chip_bytes) + " per chip, HBM holds " + gib(r.hbm_bytes) + ": " +
                 gib(r.memory_per_chip_bytes - r.hbm_bytes) + " over";
  r.dropped_fraction = dropped_fraction(dims, w);
  r.model_flops_per_step = model_flops(dims, w, r.dropped_fraction);
  derive(problem, r);
  return r;
}

namespace {

// The spans of one op per op index of `program`: its first task's start to its last task's end.
struct OpSpans {
  std::vector<double> start, end;
};

OpSpans op_spans(std::size_t ops, const EventGraph& graph, const SimulationResult& simulation) {
  OpSpans s{std::vector<double>(ops, std::numeric_limits<double>::infinity()), std::vector<double>(ops, 0.0)};
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const auto op = static_cast<std::size_t>(graph.tasks[t].op);
    s.start[op] = std::min(s.start[op], simulation.tasks[t].start_s);
    s.end[op] = std::max(s.end[op], simulation.tasks[t].end_s);
  }
  return s;
}

CriticalChipBreakdown operator+(CriticalChipBreakdown a, const CriticalChipBreakdown& b) {
  a.compute_s += b.compute_s;
  a.exposed_communication_s += b.exposed_communication_s;
  a.dcn_s += b.dcn_s;
  a.bubble_s += b.bubble_s;
  return a;
}

CriticalChipBreakdown operator*(double k, CriticalChipBreakdown a) {
  a.compute_s *= k;
  a.exposed_communication_s *= k;
  a.dcn_s *= k;
  a.bubble_s *= k;
  return a;
}

// HBM left to a stretch of `copies` layers (docs/capacity.md, "Overlap in the step"): the chip's HBM less what the
// step holds that the stretch does not, the other layers' weights, gradients, optimizer state and KV cache (the
// step's less the stretch's state) and their saved activations.
std::uint64_t stretch_hbm(const CandidateResult& r, const PlannedProgram& program, std::int64_t copies,
                          std::int64_t layers) {
  if (program.hbm_bytes == 0) return 0;
  std::uint64_t held = 0;
  for (const auto& b : program.buffers)
    if (b.role == PlannedBuffer::Role::declared && !b.transient && b.view_of.empty()) held += b.bytes_per_chip;
  const std::uint64_t state = r.memory.params + r.memory.grads + r.memory.optimizer + r.memory.kv_cache;
  const double others =
      static_cast<double>(state > held ? state - held : 0) +
      static_cast<double>(r.memory.activations) * static_cast<double>(layers - copies) / static_cast<double>(layers);
  const auto outside = static_cast<std::uint64_t>(others);
  return program.hbm_bytes > outside ? program.hbm_bytes - outside : 1;
}

// The most tasks (transfers by estimate_transfers, which is at most twice the built count, and compute tasks) a
// candidate's des may build. Measured: LLaMA 3.1 405B's stretch of 3 layers on a 16x16x16 v5p, FSDP over X, Y, Z,
// estimates 65 million transfers and peaks at 3.4 GiB (the translation quotient keeps no ledger), about 55 bytes per
// estimated task, so 200 million keeps a candidate's des under about 11 GiB; a whole tpu7x pod's stretch estimates
// about 2.25 times the 4,096-chip one. Above it the candidate keeps the closed form's figures, with the reason.
constexpr std::uint64_t kMaxDesTasks = 200'000'000;

void check_des_size(const PlannedProgram& program, const ScenarioPlatform& platform, const std::string& what) {
  const std::uint64_t tasks =
      estimate_transfers(program) + count_compute_tasks(program, static_cast<std::uint64_t>(platform.num_chips()));
  if (tasks > kMaxDesTasks)
    throw VerifyError(what + "the event graph would hold about " + std::to_string(tasks) +
                      " tasks, above the limit of " + std::to_string(kMaxDesTasks) +
                      " for a candidate's des (docs/reliability.md): the closed form's figures stand");
}

// Checks the size of a des (check_des_size), then waits for its memory when candidates run at once (how.memory): the
// grant is held until the graph is freed.
DesMemoryGate::Grant admit_des(const PlannedProgram& program, const ScenarioPlatform& platform,
                               const CandidateSimulation& how, const std::string& what) {
  check_des_size(program, platform, what);
  if (how.memory == nullptr) return {};
  return how.memory->acquire(static_cast<std::uint64_t>(count_lowered_tasks(program, platform)) * kDesBytesPerTask);
}

// The most waits dataflow-hbm adds to a stretch (each a simulation of it): a stretch still over HBM after them runs as
// it stands, with the overlap the chip's memory would limit partly limited (docs/capacity.md).
constexpr std::size_t kStretchWaits = 8;

// One simulated stretch of layers (layer_stretch.hpp): the critical chip's split of one microbatch (to the end of its
// last op) and of the tail after it.
struct StretchRun {
  CriticalChipBreakdown microbatch, tail;
};

CriticalChipBreakdown operator-(CriticalChipBreakdown a, const CriticalChipBreakdown& b) {
  return a + (-1.0) * b;
}

double sum(const CriticalChipBreakdown& b) {
  return b.compute_s + b.exposed_communication_s + b.dcn_s + b.bubble_s;
}

// The step of a candidate without pipeline stages (docs/capacity.md, "Overlap in the step"): its first n layers
// (`layers_in_sequence`, at most the model's) in sequence with the embedding, the unembedding and loss and the tail
// (the optimizer's updates; with several microbatches the once-per-step gradient all-reduces too), under dataflow-hbm,
// so that a layer's gathers overlap the layer before it and its gradients' reductions the backward after it; then
// n + 1 layers, whose difference is one more layer at the steady state: the step is the microbatch of n layers plus
// L - n such layers, times the microbatches, plus the tail likewise. The first run is the one kept for the trace and
// the op rows.
void simulate_layers_in_sequence(const CapacityProblem& problem, const ModelProgram& model, CandidateResult& result,
                                 CandidateTimeline* timeline, const CandidateSimulation& how) {
  const Workload w = effective_workload(problem, result.candidate);
  const std::int64_t layers = problem.model.dims.layers;
  const std::int64_t microbatches = w.mode == WorkloadMode::train ? std::max<std::int64_t>(1, w.microbatches) : 1;
  const auto run = [&](std::int64_t copies, bool keep) {
    const LayerStretch stretch = layer_stretch(model, copies, microbatches > 1);
    const ScenarioPlatform platform = build_platform(stretch.spec);
    PlannedProgram program = plan_program(stretch.spec, platform.topology(), nullptr);
    const DesMemoryGate::Grant memory =
        admit_des(program, platform, how, "the des of " + std::to_string(copies) + " layers in sequence: ");
    program.hbm_bytes = stretch_hbm(result, program, copies, layers);
    ProgramSimulationOptions options = problem.simulation;
    options.ledger = keep && timeline != nullptr;
    const SimulateProgram simulate = [&](const LoweredProgram& lowered) {
      return simulate_program(platform, lowered, options);
    };
    const ScheduledPlan scheduled = schedule_plan(program, platform, problem.options.schedule, simulate, kStretchWaits);
    const EventGraph& graph = *scheduled.lowered.graph;
    const SimulationResult& simulation = scheduled.simulation;
    const std::size_t ops = program.ops.size();
    const OpSpans spans = op_spans(ops, graph, simulation);
    double microbatch_end = 0;
    bool has_tail = false;
    for (std::size_t j = 0; j < ops; ++j) {
      if (stretch.tail[j])
        has_tail = true;
      else
        microbatch_end = std::max(microbatch_end, spans.end[j]);
    }
    const double makespan = simulation.makespan_s;
    if (!has_tail) microbatch_end = makespan;
    const ChipId chip = critical_chip(graph, simulation);
    const std::vector<CriticalChipBreakdown> parts = chip_breakdowns(
        graph, simulation, chip, {{0, microbatch_end}, {microbatch_end, std::max(makespan, microbatch_end)}});
    StretchRun out;
    out.microbatch = parts[0];
    out.tail = parts[1];
    if (!keep) return out;
    result.des_op_s.assign(model.spec.program.size(), 0.0);
    for (std::size_t j = 0; j < ops; ++j)
      if (stretch.copy[j] <= 1 && spans.end[j] > spans.start[j])
        result.des_op_s[stretch.source[j]] = spans.end[j] - spans.start[j];
    if (timeline) {
      LayerProgramTimeline& kept = timeline->layer_program;
      kept.layers = copies;
      for (std::size_t j = 0; j < ops; ++j) {
        kept.op_names.push_back(program.ops[j].name);
        kept.repeats.push_back(model.repeats[stretch.source[j]]);
      }
      kept.graph = scheduled.lowered.graph;
      kept.simulation = std::make_shared<const SimulationResult>(scheduled.simulation);
      kept.memory = std::make_shared<const MemoryTimeline>(scheduled.memory);
      kept.slice = platform.slice;
    }
    return out;
  };
  const std::int64_t copies = std::clamp<std::int64_t>(how.layers_in_sequence, 1, layers);
  // The second stretch on a thread of its own when the caller has a core to spare: the runs share nothing (the second
  // keeps nothing in `result`), so the figures are the same either way.
  StretchRun first, next;
  const bool longer = copies < layers;
  if (longer && how.stretches_at_once) {
    std::exception_ptr failed;
    {
      const std::jthread other([&] {
        try {
          next = run(copies + 1, false);
        } catch (...) {
          failed = std::current_exception();
        }
      });
      first = run(copies, true);
    }
    if (failed) std::rethrow_exception(failed);
  } else {
    first = run(copies, true);
    if (longer) next = run(copies + 1, false);
  }
  CriticalChipBreakdown layer, layer_tail;  // one more layer at the steady state: its microbatch's and its tail's
  if (longer) {
    layer = next.microbatch - first.microbatch;
    layer_tail = next.tail - first.tail;
  }
  const double others = static_cast<double>(layers - copies);
  const CriticalChipBreakdown parts =
      static_cast<double>(microbatches) * (first.microbatch + others * layer) + first.tail + others * layer_tail;
  // The step from the runs' ends; the parts, each at least 0 (a part one more layer shrinks: its first layers' share
  // hidden by the next), in its proportions.
  const double step = sum(parts);
  CriticalChipBreakdown shown = parts;
  for (double* part : {&shown.compute_s, &shown.exposed_communication_s, &shown.dcn_s, &shown.bubble_s})
    *part = std::max(0.0, *part);
  const double scale = sum(shown) > 0 ? step / sum(shown) : 0.0;
  DesStepBreakdown& b = result.des_breakdown.emplace();
  b.compute_s = scale * shown.compute_s;
  b.exposed_communication_s = scale * shown.exposed_communication_s;
  b.dcn_s = scale * shown.dcn_s;
  b.bubble_s = scale * shown.bubble_s;
  // Host offload's exposed copies: the closed form's (the des does not simulate the host link yet).
  b.offload_s = result.breakdown.offload_s;
  result.des_step_s = b.total();
  result.des_dcn_s = b.dcn_s;
  derive(problem, result);
}

}  // namespace

void simulate_candidate(const CapacityProblem& problem, CandidateResult& result, CandidateTimeline* timeline,
                        const CandidateSimulation& how) {
  if (result.rejected) throw VerifyError("a rejected candidate is not simulated: " + *result.rejected);
  const ModelProgram model = expand_candidate(problem, result.candidate);
  // Several slices too: the layers in sequence overlap the DCN's gradient reductions with the backward, as XLA
  // schedules them (docs/capacity.md, "Overlap in the step").
  if (!result.pipeline && problem.options.schedule != SchedulePolicy::program_order) {
    simulate_layers_in_sequence(problem, model, result, timeline, how);
    return;
  }
  // Pipeline stages, or a scenario whose options.schedule asks for program order: the layer program in program order,
  // each op's simulated span (from its first task's start to its last task's end) one run of it. Without stages the
  // step is each op's span times its repeats (no overlap, as the book); with them, the stages' work from those, and
  // the schedule as an event graph of the stages' computes and the sends between them, simulated in a second child
  // process.
  const ScenarioPlatform platform = build_platform(model.spec);
  const PlannedProgram program = plan_program(model.spec, platform.topology(), nullptr);
  const DesMemoryGate::Grant memory = admit_des(program, platform, how, "the des of the layer: ");
  ProgramSimulationOptions options = problem.simulation;
  options.ledger = timeline != nullptr;
  const SimulateProgram simulate = [&](const LoweredProgram& lowered) {
    return simulate_program(platform, lowered, options);
  };
  const ScheduledPlan scheduled = schedule_plan(program, platform, SchedulePolicy::program_order, simulate);
  const EventGraph& graph = *scheduled.lowered.graph;
  const OpSpans spans = op_spans(program.ops.size(), graph, scheduled.simulation);
  result.des_op_s.assign(program.ops.size(), 0.0);
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    if (spans.end[i] > spans.start[i]) result.des_op_s[i] = spans.end[i] - spans.start[i];
  if (timeline) {
    LayerProgramTimeline& kept = timeline->layer_program;
    kept.layers = 0;
    for (const auto& op : program.ops)
      kept.op_names.push_back(op.name);
    kept.repeats = model.repeats;
    kept.graph = scheduled.lowered.graph;
    kept.simulation = std::make_shared<const SimulationResult>(scheduled.simulation);
    kept.memory = std::make_shared<const MemoryTimeline>(scheduled.memory);
    kept.slice = platform.slice;
  }
  if (!result.pipeline) {
    double step = 0, dcn = 0;
    const std::vector<double> op_dcn = platform.slices > 1
                                           ? step_breakdown(graph, scheduled.simulation, program.ops.size()).op_dcn_s
                                           : std::vector<double>(program.ops.size(), 0.0);
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      step += result.des_op_s[i] * static_cast<double>(model.repeats[i]);
      dcn += op_dcn[i] * static_cast<double>(model.repeats[i]);
    }
    // Host offload's exposed copies: the closed form's (the des does not simulate the host link yet).
    result.des_step_s = step + result.breakdown.offload_s;
    result.des_dcn_s = dcn;
    derive(problem, result);
    return;
  }
  std::vector<StepBreakdown> op_time(program.ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    op_time[i].compute_s = result.des_op_s[i];
  PipelineFigures& f = *result.pipeline;
  const StageWork work = stage_work(model, op_time, problem.model.dims.layers, f.stages);
  PipelineGraphSpec pipeline;
  pipeline.chips = stage_chips(model.spec.mesh.mesh, *platform.mapping, f.axes, platform.slices);
  pipeline.forward_s = work.forward_s();
  pipeline.backward_s = work.backward_s();
  pipeline.send_bytes = f.send_bytes;
  pipeline.schedule = f.schedule;
  pipeline.microbatches = f.microbatches;
  pipeline.chip_flops = platform.chip_flops;
  pipeline.num_chips = platform.network.num_chips;
  std::vector<PipelineGraphTask> roles;
  EventGraph schedule_graph = pipeline_graph(pipeline, timeline ? &roles : nullptr);
  SimulationResult simulated = podsim::simulate(platform.network, schedule_graph);
  const PipelineSpan span =
      pipeline_bubble(simulated.makespan_s, f.microbatches, PipelineTimes{pipeline.forward_s, pipeline.backward_s, {}});
  f.des_span_s = span.span_s;
  f.des_bubble_s = span.bubble_s;
  f.des_bubble_fraction = span.bubble_fraction;
  // Host offload's exposed copies: the closed form's (the des does not simulate the host link yet).
  result.des_step_s = simulated.makespan_s + work.tail[longest_tail(work)].total() + result.breakdown.offload_s;
  result.des_dcn_s = platform.slices > 1 ? critical_chip_dcn_seconds(schedule_graph, simulated) : 0.0;
  derive(problem, result);
  if (timeline) {
    PipelineTimeline& kept = timeline->pipeline.emplace();
    kept.layers = problem.model.dims.layers;
    for (const auto& tail : work.tail)
      kept.tail_s.push_back(tail.total());
    kept.slice_chips = platform.slice->num_chips();
    kept.spec = std::move(pipeline);
    kept.roles = std::move(roles);
    kept.graph = std::move(schedule_graph);
    kept.simulation = std::move(simulated);
  }
}

}  // namespace podsim
