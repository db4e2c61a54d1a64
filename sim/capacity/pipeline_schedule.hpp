// A pipeline schedule (docs/overlap-pipeline-dcn.md, "Pipeline parallelism"): in which order each of p stages runs
// the forwards and backwards of m microbatches under GPipe or 1F1B, how many microbatches' activations a stage holds
// at once, and the schedule's span when each stage's forward and backward take given times and activations and
// their gradients take given times to reach the neighbouring stage (the closed form: a recurrence over the tasks in
// dependency order, no contention). Pure values: the des runs the same orders as an event graph (pipeline_graph).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/model/workload.hpp"

namespace podsim {

// The most stage tasks (stages x 2 x microbatches: each microbatch's forward and backward on each stage) a pipeline
// schedule may hold (docs/reliability.md, "Limits that protect the machine"): the closed form keeps about 25 bytes
// a task and the des an event-graph task per chip of the stage; 64 stages of 8,192 microbatches are 1,048,576.
inline constexpr std::int64_t kMaxPipelineTasks = 1'048'576;

// One task of a stage: microbatch `microbatch`'s forward or backward through the stage's layers.
struct PipelineTask {
  enum class Kind { forward, backward };
  Kind kind = Kind::forward;
  std::int64_t microbatch = 0;
};

// The tasks of stage `stage` (0 = first) in the order it runs them. GPipe: forwards 0..m-1, then backwards 0..m-1.
// 1F1B: a warm-up of min(p - stage - 1, m) forwards, then a forward and a backward in turn, then the remaining
// backwards. Throws VerifyError unless stages >= 1, microbatches >= 1 and 0 <= stage < stages.
std::vector<PipelineTask> stage_order(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                      std::int64_t stage);

// The most microbatches whose activations stage `stage` holds at once (a forward done, its backward not yet):
// GPipe m; 1F1B min(p - stage, m). One stage (no pipeline) runs each microbatch's forward and backward in turn: 1.
std::int64_t microbatches_in_flight(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                    std::int64_t stage);

// Calls `visit(stage, task)` for every task of the schedule, each after the tasks it depends on: the stage's
// previous task, the previous stage's forward of the microbatch (for a forward), the next stage's backward of the
// microbatch (for a backward). Same preconditions as stage_order.
void for_each_in_dependency_order(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                  const std::function<void(std::int64_t stage, const PipelineTask& task)>& visit);

// Per-microbatch times of the stages and of the sends between neighbours.
struct PipelineTimes {
  std::vector<double> forward_s;   // per stage: one microbatch's forward
  std::vector<double> backward_s;  // per stage: one microbatch's backward (with the recomputed forward under remat)
  std::vector<double> send_s;      // per boundary s -> s + 1 (stages - 1 of them): an activation, or its gradient back
};

// A schedule's span and bubble. The bubble is the idle time of the busiest stage (the largest m x (F + B)) within
// the span; with equal stages and no send time it is (p - 1)(F + B) and its fraction (p - 1) / (m + p - 1).
struct PipelineSpan {
  double span_s = 0;               // from the first forward's start to the last backward's end
  std::vector<double> busy_s;      // per stage: m x (F + B)
  std::int64_t busiest_stage = 0;  // the first stage with the largest busy_s
  double bubble_s = 0;             // span_s - busy_s[busiest_stage]
  double bubble_fraction = 0;      // bubble_s / span_s (0 for an empty span)
};

// The span by the recurrence: each task starts when the stage's previous task has ended and the task it depends on
// on a neighbouring stage has ended plus that boundary's send time. Throws VerifyError when the vectors do not have
// p, p and p - 1 entries or a time is negative or not finite.
PipelineSpan pipeline_span(PipelineSchedule schedule, std::int64_t microbatches, const PipelineTimes& times);

// The bubble of a span measured elsewhere (the des) for the stage times of `times`.
PipelineSpan pipeline_bubble(double span_s, std::int64_t microbatches, const PipelineTimes& times);

}  // namespace podsim
