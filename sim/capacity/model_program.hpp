// A model's step as a scenario program (docs/parallelism.md): one transformer layer (forward, and for training its
// backward) plus the edges (embedding, unembedding and loss, the optimizer update), each op with the number of times
// a step runs it, and every tensor's sharding derived from the candidate's parallelism. The program goes through
// the same verify -> plan_program -> evaluate_book path as a hand-written one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/model/transformer.hpp"
#include "models/model/workload.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Where a piece of the model lives when pipeline stages split it (docs/overlap-pipeline-dcn.md): in every layer
// (each stage runs L / p of them), with the embedding (the first stage), or with the unembedding and the loss (the
// last stage).
enum class ModelPlace { layer, first, last };

// When a step runs an op: in a microbatch's forward, in its backward, or once per step after the last backward
// (the data axes' gradient all-reduces, the optimizer update).
enum class ModelPhase { forward, backward, step };

// A declared tensor that is model state, and how many of it the whole model holds (layers for a layer's weight).
struct ModelStateTensor {
  enum class Kind { weight, optimizer, kv_cache };
  std::string tensor;
  Kind kind = Kind::weight;
  std::int64_t count = 1;
  ModelPlace place = ModelPlace::layer;
  bool tied = false;  // the embedding table that the unembedding also reads: held by the first and the last stage
};

// An op's place and phase; `recompute`: a clone, in the backward, of a forward op whose result the remat policy did not
// save (docs/capacity.md, "Rematerialisation").
struct ModelOpRole {
  ModelPlace place = ModelPlace::layer;
  ModelPhase phase = ModelPhase::forward;
  bool recompute = false;
};

// A tensor of one layer's forward that its backward reads as the forward left it: kept in HBM, or offloaded to host
// memory and brought back (the rest of what the backward reads is recomputed).
struct SavedTensor {
  std::string tensor;
  TensorPlacement placement = TensorPlacement::device;
  std::optional<LayerTensor> tag;  // MaxText's name for it, when it has one
};

// The candidate's parallelism resolved on its mesh, once, by expand_model: the axes the step's memory and its pipeline
// read, and how many shards each makes (the product of their sizes).
struct ModelAxes {
  std::vector<std::string> tokens;    // a token's rows: the data, fsdp, expert and sequence axes (batch_axes)
  std::vector<std::string> pipeline;  // the stages
  std::uint64_t token_shards = 1;     // the batch and the KV cache's tokens split this many ways
  std::uint64_t fsdp_shards = 1;      // the weights' ZeRO-3 shards
  std::uint64_t tensor_shards = 1;    // the heads' (and the KV heads') Megatron shards
  std::int64_t stages = 1;            // pipeline stages
};

struct ModelProgram {
  ScenarioSpec spec;                    // verified; no plans (the shardings are the tensors' own)
  std::vector<std::int64_t> repeats;    // per op of spec.program: how many times one step runs it
  std::vector<ModelOpRole> roles;       // per op of spec.program: its place and phase (pipeline stages read them)
  std::vector<ModelStateTensor> state;  // weights, optimizer state and KV cache among spec.tensors
  std::vector<SavedTensor> saved;       // training: what one layer saves for its backward (per layer, per microbatch)
  std::int64_t checkpoint_copies = 1;   // the scaling book's K checkpoints per layer: the layer input counts K times
  ModelAxes axes;                       // the parallelism resolved on the mesh
};

// The step's program for `dims` and `workload` on `candidate` (its hardware, slice, mesh and parallelism). Throws
// VerifyError when the assignment does not fit the model (verify_parallel_fit's message), InputError when the
// expanded scenario breaks a rule of the verifier.
ModelProgram expand_model(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                          const ScenarioOptions& options);

// The repeats of a step: a layer's forward ops run layers x microbatches times, its backward ops (the recomputed ones
// among them) layers x microbatches, the embedding and unembedding ops microbatches times, the optimizer once per
// weight (layers times for a layer's).
struct StepRepeats {
  std::int64_t layer_forward = 1;
  std::int64_t layer_backward = 1;
  std::int64_t edge = 1;
  std::int64_t layer_update = 1;
};

StepRepeats step_repeats(const TransformerDims& dims, const Workload& workload);

}  // namespace podsim
