// A pipeline schedule as an event graph (docs/overlap-pipeline-dcn.md, "Pipeline parallelism"): on every chip of
// every stage, one compute task per microbatch's forward and backward in the stage's order, and between neighbouring
// stages one transfer per chip and microbatch (the activation forward, its gradient back) from a chip to the chip
// of the next (or previous) stage at the same place in the stage. The engine simulates it like any event graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/ids.hpp"
#include "models/model/workload.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// The chips of each stage: stage = the row-major index over `pipeline_axes` (in the listed order) of a chip's mesh
// coordinates, and within a stage the chips in row-major order over the other mesh axes, so that chips[s][r] and
// chips[s + 1][r] differ in their pipeline coordinates only. With `slices` > 1 (docs/overlap-pipeline-dcn.md) the
// mesh's first axis is the slice index, `mapping` places the other axes on one slice of M chips, and the chip at
// slice s is s * M + its place in the slice. Throws VerifyError on an axis not on the mesh.
std::vector<std::vector<ChipId>> stage_chips(const Mesh& mesh, const MeshMapping& mapping,
                                             const std::vector<std::string>& pipeline_axes, std::int64_t slices = 1);

struct PipelineGraphSpec {
  std::vector<std::vector<ChipId>> chips;  // per stage, as stage_chips gives them (the same count in each)
  std::vector<double> forward_s;           // per stage, one microbatch
  std::vector<double> backward_s;          // per stage, one microbatch
  std::uint64_t send_bytes = 0;            // per chip and microbatch, each way
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t microbatches = 1;
  double chip_flops = 1e15;  // the engine's host speed: a task of t seconds carries t x chip_flops FLOPs
  std::int32_t num_chips = 0;
};

// What one task of the pipeline graph is, for reports (the trace): the stage that computes or sends it, the chip's
// place in its stage (chips[stage][place]), the microbatch and the pass, and for a send the stage it goes to.
struct PipelineGraphTask {
  std::int32_t stage = 0;
  std::int32_t place = 0;
  std::int64_t microbatch = 0;
  PipelineTask::Kind pass = PipelineTask::Kind::forward;
  std::int32_t to_stage = -1;  // a send: the neighbouring stage (stage + 1 forward, stage - 1 backward); -1: compute
};

// The event graph. Each compute depends on the chip's previous task and on the transfer that brings its input (a
// forward on stage s > 0: the activation from stage s - 1; a backward on stage s < p - 1: the gradient from stage
// s + 1); each transfer on the compute that produced what it sends. Task `op` is the stage, `step` the microbatch;
// with `roles`, roles[t] says what task t is (one entry per task, replacing its contents). Throws VerifyError when the
// vectors disagree with the number of stages or the stages have different chip counts.
EventGraph pipeline_graph(const PipelineGraphSpec& spec, std::vector<PipelineGraphTask>* roles = nullptr);

}  // namespace podsim
