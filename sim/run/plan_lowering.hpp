// Lowers one plan of a verified scenario into a timed event graph: matmuls through the case analysis
// (models/plan/matmul_plan.hpp) into collectives plus a roofline-timed compute per chip, explicit collectives and
// reshards through plan_resharding, loads, sends and elementwise ops; data dependencies follow tensor names.
// Also computes each op's closed-form (book) time and the memory each chip holds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/engine/graph_symmetry.hpp"
#include "sim/engine/network.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// The slice, the mesh on it and the engine network of a scenario (shared by all its plans).
struct ScenarioPlatform {
  std::shared_ptr<const Slice> slice;
  std::shared_ptr<const MeshMapping> mapping;
  NetworkSpec network;
  double chip_flops = 0;  // engine host speed: compute tasks carry time x chip_flops
};

// Builds the platform. Throws InputError located in the scenario file.
ScenarioPlatform build_platform(const ScenarioSpec& spec);

// The tensors of a plan as they enter the program: declared ones with the plan's shardings, results as their
// op writes them.
struct LoweredTensor {
  std::string name;
  Shape shape;
  DType dtype = DType::bf16;
  TensorSharding sharding;
  bool declared = true;
  int written_by = -1;              // index of the op that writes this version (-1: declared)
  std::vector<std::string> labels;  // dim labels for printing (`B`, `D`), from the book notation or an einsum
};

struct LoweredPlan {
  PlanRun run;  // ops with their book figures, memory and fit; des figures are filled after simulation
  std::shared_ptr<EventGraph> graph;
  // Phases of the graph (every collective's axis phases, every compute op, every send) for the engine's symmetry
  // path, which checks them and falls back to the full simulation when they do not hold.
  std::shared_ptr<GraphSymmetry> symmetry;
  std::vector<LoweredTensor> tensors;
  // Per op, bytes per chip it holds only while it runs: a matmul's gathered operands.
  std::vector<std::uint64_t> temporary_bytes;
};

// Lowers `plan` (nullptr: the scenario's own shardings, named "default"). Throws InputError located at the op,
// plan or tensor whose rule fails (an axis that does not shard the tensor in this plan, a matmul the planner
// rejects, a sub-axis collective, ...).
LoweredPlan lower_plan(const ScenarioSpec& spec, const ScenarioPlatform& platform, const ScenarioPlan* plan);

}  // namespace podsim
