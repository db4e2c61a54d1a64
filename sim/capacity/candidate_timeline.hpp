// The simulated timeline of one capacity-planning candidate's step, kept for its Chrome trace (`podsim plan --trace`,
// docs/capacity.md): the layer program's event graph and the task times the engine published for it and, with
// pipeline stages, the schedule's event graph, what each of its tasks is, and its published task times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/topology/slice.hpp"
#include "sim/capacity/pipeline_graph.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/run/memory_timeline.hpp"

namespace podsim {

// The layer program as simulated: with pipeline stages once in program order (each op once; the step counts an op
// `repeats` times), else its first `layers` layers in sequence under dataflow-hbm (docs/capacity.md, "Overlap in the
// step"; an op of a layer copy is named `NAME_lK`).
struct LayerProgramTimeline {
  std::int64_t layers = 1;            // layer copies simulated in sequence (0: the pipeline's program order)
  std::vector<std::string> op_names;  // per op index (Task::op)
  std::vector<std::int64_t> repeats;  // per op index: how many times a step runs the model op it runs
  std::shared_ptr<const EventGraph> graph;
  std::shared_ptr<const SimulationResult> simulation;
  std::shared_ptr<const MemoryTimeline> memory;
  std::shared_ptr<const Slice> slice;  // one slice's (the network may hold several)
};

// The pipeline schedule as the engine ran it.
struct PipelineTimeline {
  PipelineGraphSpec spec;                // chips per stage, per-stage forward and backward times, schedule
  std::vector<PipelineGraphTask> roles;  // per task of `graph`: stage, place, microbatch, pass, send target
  EventGraph graph;
  SimulationResult simulation;
  std::int64_t layers = 0;       // the model's L: stage s holds layers s L/p to (s + 1) L/p - 1
  std::vector<double> tail_s;    // per stage: its work after the last backward (gradient sync, optimizer)
  std::int64_t slice_chips = 0;  // chips per slice (chip ids past it are on further slices)
};

struct CandidateTimeline {
  LayerProgramTimeline layer_program;
  std::optional<PipelineTimeline> pipeline;  // set for a candidate with pipeline stages
};

}  // namespace podsim
