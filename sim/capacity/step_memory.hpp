// Memory per chip of a model's step by kind (docs/parallelism.md, "Memory per chip"): the model state from the
// expanded program's declared tensors (times their count), activations by remat policy for one microbatch in
// flight (per stage with pipeline axes), the KV cache, and the temporaries at the peak of the layer program's
// closed-form memory profile.
#pragma once

#include <cstddef>
#include <vector>

#include "models/model/transformer.hpp"
#include "models/model/workload.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/planned_program.hpp"
#include "sim/run/candidate_result.hpp"

namespace podsim {

// Memory per chip of each pipeline stage, first to last (one entry without pipeline axes): the weights, gradients
// and optimizer state of the stage's L / p layers (the embedding table on the first stage, the unembedding, the
// final norm and a tied table on the last), the activations of its layers for each microbatch in flight
// (microbatches_in_flight: GPipe m, 1F1B min(p - s, m), 1 without stages), and the layer program's temporaries.
// `program` is `model`'s planned program (taken by value: the temporaries are measured on it with the model state
// left out); `workload` the effective one (the candidate's microbatches and remat). The layers divide by the stages
// (verify_parallel_fit).
// The shard counts are the model's own (model.axes).
std::vector<MemoryByKind> stage_memory(const TransformerDims& dims, const Workload& workload, const ModelProgram& model,
                                       PlannedProgram program);

// The first stage with the largest total (0 for an empty list).
std::size_t worst_stage(const std::vector<MemoryByKind>& stages);

// The worst stage's memory (the whole step's without pipeline axes).
MemoryByKind step_memory(const TransformerDims& dims, const Workload& workload, const ModelProgram& model,
                         PlannedProgram program);

// Peak bytes per chip of the buffers the layer program creates (gathered weights, partial sums, intermediates),
// under the closed form's program-order timeline: declared tensors (the model state, counted by kind), results
// nothing reads (weight gradients, counted as grads) and the forward buffers of the tensors the layer saves for its
// backward (counted as activations) are left out.
std::uint64_t temporaries_peak(PlannedProgram program, const ModelProgram& model);

// Bytes per chip one layer saves for its backward for one microbatch (model.saved, at the planned shardings; the
// layer input K times under K checkpoints per layer): on the device, and offloaded to the host.
struct SavedBytes {
  std::uint64_t device = 0;
  std::uint64_t offloaded = 0;
};
SavedBytes saved_bytes_per_layer(const ModelProgram& model, const PlannedProgram& program);

}  // namespace podsim
