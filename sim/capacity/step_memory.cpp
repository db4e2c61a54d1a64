// Memory per chip by kind of a model's step.
#include "sim/capacity/step_memory.hpp"

#include <utility>

#include "models/model/parallel_fit.hpp"
#include "sim/plan/book_evaluation.hpp"

namespace podsim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? a : (a + b - 1) / b;
}

std::uint64_t bytes_of(DType dtype) {
  return static_cast<std::uint64_t>(dtype_bits(dtype)) / 8;
}

std::uint64_t product(const std::vector<std::string>& axes, const Mesh& mesh) {
  std::uint64_t size = 1;
  for (const auto& axis : axes)
    size *= static_cast<std::uint64_t>(mesh.axis_size(axis));
  return size;
}

}  // namespace

std::uint64_t temporaries_peak(PlannedProgram program) {
  for (auto& buffer : program.buffers) {
    const bool state = buffer.role == PlannedBuffer::Role::declared;
    const bool kept = buffer.role == PlannedBuffer::Role::result && buffer.last_op < 0;
    if (state || kept) buffer.bytes_per_chip = 0;
  }
  return memory_profile(program, program_order_book_times(program)).peak_bytes;
}

MemoryByKind step_memory(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                         const ModelProgram& model, PlannedProgram program) {
  MemoryByKind memory;
  const Mesh& mesh = model.spec.mesh.mesh;
  const Parallelism& p = candidate.parallelism;
  const bool train = workload.mode == WorkloadMode::train;
  const DType weight_dtype = train ? workload.param_dtype : workload.weight_dtype;
  const std::uint64_t fsdp = product(p.of(ParallelKind::fsdp), mesh);
  for (const auto& state : model.state) {
    std::uint64_t bytes = 0;
    for (const auto& buffer : program.buffers)
      if (buffer.role == PlannedBuffer::Role::declared && buffer.tensor == state.tensor) bytes = buffer.bytes_per_chip;
    const std::uint64_t all = bytes * static_cast<std::uint64_t>(state.count);
    if (state.kind == ModelStateTensor::Kind::weight) memory.params += all;
    if (state.kind == ModelStateTensor::Kind::kv_cache) memory.kv_cache += all;
  }
  // Norms: (2 L + 1) D-vectors, sharded over the fsdp axes.
  memory.params +=
      ceil_div(static_cast<std::uint64_t>((2 * dims.layers + 1) * dims.d_model), fsdp) * bytes_of(weight_dtype);
  if (train) {
    memory.grads = memory.params;
    const std::uint64_t local_params = memory.params / bytes_of(weight_dtype);
    memory.optimizer = local_params * (workload.master_weights ? 12 : 8);
    const std::uint64_t tokens = workload.batch_tokens / static_cast<std::uint64_t>(workload.microbatches);
    const std::uint64_t local_tokens = ceil_div(tokens, product(batch_axes(p), mesh));
    const auto per_layer = static_cast<std::uint64_t>(
        workload.remat.checkpoints_per_layer > 0 ? workload.remat.checkpoints_per_layer : kNoRematTensorsPerLayer);
    memory.activations = per_layer * static_cast<std::uint64_t>(dims.layers) * local_tokens *
                         static_cast<std::uint64_t>(dims.d_model) * bytes_of(workload.activation_dtype);
  } else if (workload.mode == WorkloadMode::prefill) {
    // The cache the prefill writes: every token's keys and values, sharded with the batch, the sequence and the KV
    // heads.
    const std::uint64_t shards = product(batch_axes(p), mesh) * product(kv_tensor_axes(p, mesh, dims.kv_heads), mesh);
    memory.kv_cache = ceil_div(kv_cache_bytes_per_token(dims, workload.kv_dtype) * workload.tokens_per_step(), shards);
  }
  memory.temporaries = temporaries_peak(std::move(program));
  return memory;
}

}  // namespace podsim
