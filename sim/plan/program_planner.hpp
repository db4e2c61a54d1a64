// Plans one plan of a verified scenario into a PlannedProgram: matmuls through the case analysis
// (models/plan/matmul_plan.hpp), explicit collectives and reshards through plan_resharding, loads, sends and
// elementwise ops; the closed form of every step, and the buffers every step reads, creates and frees.
#pragma once

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/plan/planned_program.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// The slice and the mesh on it: what planning needs of the platform.
struct PlanTopology {
  const Slice& slice;
  const MeshMapping& mapping;
  // Closed form only: the collectives' requests carry no chip groups (the event graph needs them, evaluate_book
  // does not; plan search screens thousands of candidates on slices of thousands of chips this way).
  bool book_only = false;
  // Several slices over the DCN (docs/overlap-pipeline-dcn.md): `slice` and `mapping` describe one slice, the mesh axis
  // kSliceAxisName runs over the slices, and every other axis's groups repeat in every slice.
  std::int32_t slices = 1;
  double dcn_bandwidth_Bps = 0;  // per chip, with the scenario's override
  double dcn_latency_s = 0;
};

// Plans `plan` (nullptr: the scenario's own shardings, named "default"). Throws InputError located at the op,
// plan or tensor whose rule fails (an axis that does not shard the tensor in this plan, a matmul the planner
// rejects, a sub-axis collective, a chip without ICI asked to move data, ...).
PlannedProgram plan_program(const ScenarioSpec& spec, const PlanTopology& topology, const ScenarioPlan* plan);

}  // namespace podsim
