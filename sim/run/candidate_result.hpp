// One candidate of a capacity-planning study (docs/capacity.md) and what podsim finds of it: the hardware, slice,
// mesh and parallelism assignment tried, and its step time by the closed form and by the simulation, its memory
// per chip by kind against HBM, what bounds it, and why it was rejected when it was. Plain values: the plan search
// (sim/capacity) fills them, and a model-level plan of `podsim run` carries them in its PlanRun (run_result.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/common/bound.hpp"
#include "models/common/shape.hpp"
#include "models/goal/goal_figures.hpp"
#include "models/model/parallelism.hpp"
#include "models/model/transformer.hpp"
#include "models/model/workload.hpp"
#include "sim/scenario/hardware_preset.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct Candidate {
  HardwarePreset hardware;
  Shape slice;
  std::vector<bool> wraparound;  // per slice dim, resolved
  bool twist = false;            // a twisted torus (docs/topology.md, "Twisted tori")
  // Several slices joined by the DCN (docs/overlap-pipeline-dcn.md, "Model-level scenarios over several slices"):
  // `slices` identical slices; the mesh then has the axis kSliceAxisName = slices first, over the slice index.
  std::int32_t slices = 1;
  std::optional<double> dcn_bandwidth_Bps;  // the scenario's override of the preset's DCN egress per chip
  std::optional<double> dcn_latency_s;      // the scenario's override of the preset's DCN latency
  ScenarioMesh mesh;                        // the logical mesh (one axis per slice dim unless written)
  Parallelism parallelism;
  std::int64_t microbatches = 1;
  Remat remat;
  std::string plan;  // the scenario plan it comes from ("" for a searched candidate)

  std::int64_t chips() const;  // product of the slice dims, times the slices
};

// Bytes per chip by what they hold.
struct MemoryByKind {
  std::uint64_t params = 0;
  std::uint64_t grads = 0;
  std::uint64_t optimizer = 0;
  std::uint64_t activations = 0;  // saved for the backward pass (train), by remat policy and microbatches in flight
  std::uint64_t kv_cache = 0;     // serving
  std::uint64_t temporaries = 0;  // gathered weights, partial sums, collective buffers at their peak
  std::uint64_t offloaded = 0;    // activations held in host memory (remat "offload"): not in HBM, not in total()
  std::uint64_t total() const { return params + grads + optimizer + activations + kv_cache + temporaries; }
};

// A step's closed-form time by what each part is bound by (sums over the step's ops, no overlap). With pipeline
// stages, the parts are those of the busiest stage's work and `bubble_s` its idle time (docs/overlap-pipeline-dcn.md).
struct StepBreakdown {
  double compute_s = 0;  // compute steps bound by the MXU
  double hbm_s = 0;      // compute steps bound by HBM bandwidth (weight and KV-cache reads in decode)
  double ici_s = 0;      // collectives and transfers over ICI
  double dcn_s = 0;      // collectives' phases across slices over the DCN (docs/overlap-pipeline-dcn.md)
  double bubble_s = 0;   // pipeline stages: the busiest stage idle, waiting for its neighbours (0 without stages)
  double offload_s = 0;  // host offload's transfers not hidden under the layers' compute (docs/capacity.md)
  double total() const { return compute_s + hbm_s + ici_s + dcn_s + bubble_s + offload_s; }
  // Of the parts above, the time of the ops the backward recomputes (remat): a share, not added to total().
  double recompute_s = 0;
};

// The des's split of a step without pipeline stages (docs/capacity.md, "Overlap in the step"): the step's layers in
// sequence under dataflow-hbm, on the critical chip (the one whose last task ends last): computing, communication over
// ICI that no compute hides (exposed), DCN transfers outside both, waiting on others; plus the closed form's exposed
// host offload. They add up to des_step_s.
struct DesStepBreakdown {
  double compute_s = 0;
  double exposed_communication_s = 0;
  double dcn_s = 0;
  double bubble_s = 0;
  double offload_s = 0;
  double total() const { return compute_s + exposed_communication_s + dcn_s + bubble_s + offload_s; }
};

// What pipeline stages make of a candidate's step (docs/overlap-pipeline-dcn.md, "Pipeline parallelism"): p stages of
// L / p layers over the pipeline axes, m microbatches under a schedule, the span of the forwards and backwards and
// its bubble, by the closed form and (once simulated) by the des; memory per stage.
struct PipelineFigures {
  std::vector<std::string> axes;  // the pipeline axes, major to minor
  std::int64_t stages = 1;
  std::int64_t layers_per_stage = 0;
  std::int64_t microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::vector<double> forward_s;   // per stage, one microbatch (book)
  std::vector<double> backward_s;  // per stage, one microbatch (book; with the recomputed forward under remat)
  std::uint64_t send_bytes = 0;    // per chip and microbatch: an activation forward, or its gradient back
  double send_s = 0;               // its book time over the slowest boundary (hops x alpha + bytes / W; across
                                   // slices: the DCN latency + bytes / W_dcn per chip)
  bool send_crosses_dcn = false;   // some neighbouring stages lie on different slices
  double span_s = 0;               // book: first forward to last backward
  double bubble_s = 0;             // book: the busiest stage's idle time within the span
  double bubble_fraction = 0;      // book: bubble_s / span_s
  std::optional<double> des_span_s;
  std::optional<double> des_bubble_s;
  std::optional<double> des_bubble_fraction;
  std::vector<std::uint64_t> stage_memory_bytes;  // per stage, per chip
  std::int64_t worst_stage = 0;                   // the stage whose memory is the candidate's
};

struct PreparedCandidate;  // sim/capacity/candidate_evaluation.hpp

struct CandidateResult {
  Candidate candidate;
  std::optional<std::string> rejected;  // why it cannot run (a dim that does not divide, HBM overflow by N bytes)

  MemoryByKind memory;  // per chip
  std::uint64_t memory_per_chip_bytes = 0;
  std::uint64_t hbm_bytes = 0;  // capacity per chip
  bool fits_hbm = false;

  double book_step_s = 0;
  std::optional<double> des_step_s;  // set once simulated
  StepBreakdown breakdown;           // closed form
  std::optional<StepBound> bound;    // the largest part of the breakdown (the bubble is not one); none until evaluated

  double model_flops_per_step =
      0;           // useful FLOPs of the whole step (6 N tokens plus attention in training, N the matmul params)
  double mfu = 0;  // of the des step time when simulated, else of the book's
  double tokens_per_s_per_chip = 0;
  double token_latency_s = 0;                     // decode: one step; prefill: the step
  std::optional<double> cost_per_million_tokens;  // USD, with price_per_chip_hour

  std::optional<PipelineFigures> pipeline;  // set when the candidate has pipeline axes (more than one stage)

  // Why the simulation failed, when it did (plan search keeps the candidate at its book rank).
  std::optional<std::string> des_failed;

  // The des's DCN seconds (once simulated; docs/overlap-pipeline-dcn.md): per op of the layer program, its transfers
  // between slices on the critical chip outside that chip's compute and ICI transfers, times its repeats; with
  // pipeline stages, the schedule graph's critical chip's DCN seconds.
  std::optional<double> des_dcn_s;
  // A mixture of experts' routed rows over capacity, as a fraction of tokens x top_k (docs/overlap-pipeline-dcn.md,
  // "Mixture of experts"); 0 for a dense model.
  double dropped_fraction = 0;
  // Once simulated: per op of the layer program (model_program.hpp), its simulated span, first task start to last
  // task end, for one run of it: with pipeline stages in program order, else in the first layer of the layers in
  // sequence (docs/capacity.md, "Overlap in the step"); `podsim model run` lists them.
  std::vector<double> des_op_s;
  // Once simulated, without pipeline stages: where the des step went (DesStepBreakdown).
  std::optional<DesStepBreakdown> des_breakdown;

  // With a goal (docs/capacity.md, "Goals"): the time to train, cost, energy, goodput and the constraints missed.
  std::optional<GoalFigures> goal;

  // Plan search: the candidate's mirror images, folded into it (the same hardware, slice, microbatches and remat on
  // the default mesh, with mesh axes of equal size and wraparound swapped: the same program up to a symmetry of the
  // slice, so the same figures; docs/capacity.md, "Mirror images"). Their parallelisms, in enumeration order.
  std::vector<Parallelism> mirrors;

  // What evaluate_candidate_book made of the candidate (its expanded step program and that program planned for the
  // closed form), kept for the des and the op rows so that neither expands nor plans it again; null when the
  // candidate could not be planned, or once a caller let it go (the plan search keeps it for the candidates it
  // simulates only).
  std::shared_ptr<const PreparedCandidate> prepared;

  // The step time used for ranking and the derived figures: des when simulated, else book.
  double step_s() const { return des_step_s.value_or(book_step_s); }
};

}  // namespace podsim
