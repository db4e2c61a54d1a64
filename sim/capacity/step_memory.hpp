// Memory per chip of a model's step by kind (docs/parallelism.md, "Memory per chip"): the model state from the
// expanded program's declared tensors (times their count), activations by remat policy for one microbatch in
// flight, the KV cache, and the temporaries at the peak of the layer program's closed-form memory profile.
#pragma once

#include "models/model/transformer.hpp"
#include "models/model/workload.hpp"
#include "sim/capacity/candidate.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/planned_program.hpp"

namespace podsim {

// `program` is `model`'s planned program (taken by value: the temporaries are measured on it with the model state
// left out); `workload` the effective one (the candidate's microbatches and remat).
MemoryByKind step_memory(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                         const ModelProgram& model, PlannedProgram program);

// Peak bytes per chip of the buffers the layer program creates (gathered weights, partial sums, intermediates),
// under the closed form's program-order timeline: declared tensors (the model state, counted by kind) and results
// nothing reads (weight gradients, counted as grads) are left out.
std::uint64_t temporaries_peak(PlannedProgram program);

}  // namespace podsim
