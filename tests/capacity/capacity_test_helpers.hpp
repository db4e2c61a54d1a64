// Shared builders of the capacity tests: models, workloads and candidates on the hardware presets.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tests/support/model_dims.hpp"

namespace podsim::capacity_test {

using test::llama3_70b;
using test::llama3_8b;

// A small dense model whose every dim divides the small slices of the tests.
inline TransformerDims small_model() {
  TransformerDims d;
  d.layers = 4;
  d.d_model = 1024;
  d.d_ff = 4096;
  d.heads = 8;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.vocab = 32768;
  return d;
}

// A small mixture of experts: 4 experts of F 2048, 2 per token, 2 layers.
inline TransformerDims small_moe() {
  TransformerDims d = small_model();
  d.layers = 2;
  d.d_ff = 2048;
  d.experts = 4;
  d.experts_per_token = 2;
  return d;
}

inline Workload training(std::uint64_t batch_tokens, std::int64_t seq_len) {
  Workload w;
  w.mode = WorkloadMode::train;
  w.batch_tokens = batch_tokens;
  w.seq_len = seq_len;
  return w;
}

inline CapacityProblem problem(const TransformerDims& dims, const Workload& workload) {
  CapacityProblem p;
  p.model.name = "test";
  p.model.dims = dims;
  p.workload = workload;
  return p;
}

// `kinds[i]` is the kind of mesh axis i (X, Y, Z: one per slice dim).
inline Candidate candidate(const std::string& hardware, const Shape& slice, const std::vector<ParallelKind>& kinds,
                           std::int64_t checkpoints_per_layer = 0, std::int64_t microbatches = 1) {
  Candidate c;
  c.hardware = load_hardware_preset_full(hardware);
  c.slice = slice;
  static const char* const kNames[] = {"X", "Y", "Z"};
  for (std::size_t i = 0; i < kinds.size(); ++i)
    c.parallelism.of(kinds[i]).push_back(kNames[i]);
  c.remat.checkpoints_per_layer = checkpoints_per_layer;
  c.microbatches = microbatches;
  return c;
}

// The candidate without its preset's calibration: the des built from the preset's figures, to compare with the book
// (docs/hardware-model.md, "Calibration").
inline Candidate uncalibrated(Candidate c) {
  c.hardware.spec.calibration.reset();
  return c;
}

// A model program with its planned program (the planner with no calibration).
struct PlannedModel {
  ModelProgram model;
  PlannedProgram program;
};

inline PlannedModel plan_model(ModelProgram model) {
  const Slice slice(model.spec.slice_shape, model.spec.wraparound);
  const MeshMapping mapping(model.spec.mesh.mesh, slice, model.spec.mesh.axis_dims);
  PlannedProgram program = plan_program(model.spec, PlanTopology{slice, mapping}, nullptr);
  return {std::move(model), std::move(program)};
}

// The planned op named `name`.
inline const PlannedOp& planned_op(const PlannedModel& p, const std::string& name) {
  for (const auto& o : p.program.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no op " + name);
}

}  // namespace podsim::capacity_test
