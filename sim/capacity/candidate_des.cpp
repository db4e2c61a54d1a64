// One candidate's des (simulate_candidate, candidate_evaluation.hpp): without pipeline stages its layers in sequence
// under dataflow-hbm, two stretches whose difference is one more layer at the steady state; with stages (or program
// order asked for) the layer program in program order, each op's span one run of it, and the stages' schedule as an
// event graph of its own.
#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/candidate_figures.hpp"
#include "sim/capacity/des_dcn.hpp"
#include "sim/capacity/des_memory_gate.hpp"
#include "sim/capacity/layer_stretch.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/pipeline_graph.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/capacity/pipeline_stages.hpp"
#include "sim/engine/fork_runner.hpp"
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
  const bool longer = copies < layers;
  if (longer) {
    // The longer stretch is the larger graph: its size is checked before either stretch runs, so a candidate whose
    // des cannot run fails at once (4 v5p 16x16x16 slices: the shorter stretch took 64 s and 19 GB, then the longer
    // one was refused).
    const LayerStretch stretch = layer_stretch(model, copies + 1, microbatches > 1);
    const ScenarioPlatform platform = build_platform(stretch.spec);
    check_des_size(plan_program(stretch.spec, platform.topology(), nullptr), platform,
                   "the des of " + std::to_string(copies + 1) + " layers in sequence: ");
  }
  // The second stretch on a thread of its own when the caller has a core to spare: the runs share nothing (the second
  // keeps nothing in `result`), so the figures are the same either way.
  StretchRun first, next;
  if (longer && how.stretches_at_once && engine::children_from_threads()) {
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
  // The step program evaluate_candidate_book expanded (expanded here only when the caller let it go).
  std::optional<ModelProgram> expanded;
  if (!result.prepared) expanded = expand_candidate(problem, result.candidate);
  const ModelProgram& model = result.prepared ? result.prepared->model : *expanded;
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
  // process. Planned again: the des's program holds each collective's chip groups, which the book's leaves out.
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
  // The stages' schedule is no slice's work: simulate_exact runs it in full.
  SimulationResult simulated = simulate_exact(platform.network, schedule_graph, {}, problem.simulation).result;
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
