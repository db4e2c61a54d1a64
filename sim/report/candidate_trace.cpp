// One candidate's trace: the pipeline schedule's, or the layer program's through the `podsim run` trace writer.
#include "sim/report/candidate_trace.hpp"

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "sim/run/run_result.hpp"

namespace podsim::report {

void write_candidate_trace(const CandidateTimeline& timeline, const CandidateTraceInfo& info, std::ostream& out,
                           const PipelineTraceOptions& pipeline_options, const TraceOptions& options) {
  if (timeline.pipeline) {
    write_pipeline_trace(*timeline.pipeline, info, out, pipeline_options);
    return;
  }
  const LayerProgramTimeline& layers = timeline.layer_program;
  if (!layers.graph || !layers.simulation) throw InternalError("candidate trace: the candidate was not simulated");
  ScenarioRun run;
  run.name = info.scenario;
  run.slice = layers.slice;
  PlanRun plan;
  plan.name = layers.layers > 0
                  ? fmt::format("candidate {}: {} (its first {} layers in sequence, dataflow-hbm)", info.rank,
                                info.candidate, layers.layers)
                  : fmt::format("candidate {}: {} (layer program, each op once)", info.rank, info.candidate);
  for (std::size_t i = 0; i < layers.op_names.size(); ++i) {
    OpRun op;
    op.name = layers.op_names[i];
    op.op_id = static_cast<std::int32_t>(i);
    plan.ops.push_back(std::move(op));
  }
  plan.graph = layers.graph;
  plan.simulation = layers.simulation;
  plan.memory_timeline = layers.memory;
  plan.des_time_s = layers.simulation->makespan_s;
  if (layers.memory) plan.peak_chip = layers.memory->peak_chip;
  run.plans.push_back(std::move(plan));
  write_chrome_trace(run, out, options);
}

}  // namespace podsim::report
