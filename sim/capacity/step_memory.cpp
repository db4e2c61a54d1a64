// Memory per chip by kind of a model's step, per pipeline stage.
#include "sim/capacity/step_memory.hpp"

#include <map>
#include <string>
#include <utility>

#include "models/model/parallel_fit.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
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

std::vector<MemoryByKind> stage_memory(const TransformerDims& dims, const Workload& workload,
                                       const Candidate& candidate, const ModelProgram& model, PlannedProgram program) {
  const Mesh& mesh = model.spec.mesh.mesh;
  const Parallelism& p = candidate.parallelism;
  const bool train = workload.mode == WorkloadMode::train;
  const DType weight_dtype = train ? workload.param_dtype : workload.weight_dtype;
  const std::uint64_t fsdp = product(p.of(ParallelKind::fsdp), mesh);
  const auto stages = static_cast<std::int64_t>(product(p.of(ParallelKind::pipeline), mesh));
  const auto layers = static_cast<std::uint64_t>(dims.layers / stages);  // per stage (they divide: parallel fit)
  std::map<std::string, std::uint64_t> declared;                         // bytes per chip of each declared tensor
  for (const auto& buffer : program.buffers)
    if (buffer.role == PlannedBuffer::Role::declared) declared[buffer.tensor] = buffer.bytes_per_chip;
  const std::uint64_t temporaries = temporaries_peak(std::move(program));
  std::vector<MemoryByKind> out;
  for (std::int64_t stage = 0; stage < stages; ++stage) {
    MemoryByKind memory;
    const bool first = stage == 0, last = stage == stages - 1;
    for (const auto& state : model.state) {
      const bool here = state.place == ModelPlace::layer || (state.place == ModelPlace::first && first) ||
                        (state.place == ModelPlace::last && last) || (state.tied && last);
      if (!here) continue;
      const auto found = declared.find(state.tensor);
      const std::uint64_t bytes = found == declared.end() ? 0 : found->second;
      // A layer's tensor: one per layer of the stage (count is the model's layers).
      const auto count = static_cast<std::uint64_t>(state.count) / static_cast<std::uint64_t>(stages);
      const std::uint64_t all =
          bytes * (state.place == ModelPlace::layer ? count : static_cast<std::uint64_t>(state.count));
      if (state.kind == ModelStateTensor::Kind::weight) memory.params += all;
      if (state.kind == ModelStateTensor::Kind::kv_cache) memory.kv_cache += all;
    }
    // Norms: two D-vectors per layer, and the final one (on the last stage), sharded over the fsdp axes.
    const std::uint64_t norms = (2 * layers + (last ? 1 : 0)) * static_cast<std::uint64_t>(dims.d_model);
    memory.params += ceil_div(norms, fsdp) * bytes_of(weight_dtype);
    if (train) {
      memory.grads = memory.params;
      const std::uint64_t local_params = memory.params / bytes_of(weight_dtype);
      memory.optimizer = local_params * (workload.master_weights ? 12 : 8);
      const std::uint64_t tokens = workload.batch_tokens / static_cast<std::uint64_t>(workload.microbatches);
      const std::uint64_t local_tokens = ceil_div(tokens, product(batch_axes(p), mesh));
      const auto per_layer = static_cast<std::uint64_t>(
          workload.remat.checkpoints_per_layer > 0 ? workload.remat.checkpoints_per_layer : kNoRematTensorsPerLayer);
      const auto in_flight = static_cast<std::uint64_t>(
          microbatches_in_flight(workload.pipeline_schedule, stages, workload.microbatches, stage));
      memory.activations = per_layer * layers * local_tokens * static_cast<std::uint64_t>(dims.d_model) *
                           bytes_of(workload.activation_dtype) * in_flight;
    } else if (workload.mode == WorkloadMode::prefill) {
      // The cache the prefill writes: every token's keys and values, sharded with the batch, the sequence and the
      // KV heads.
      const std::uint64_t shards = product(batch_axes(p), mesh) * product(kv_tensor_axes(p, mesh, dims.kv_heads), mesh);
      memory.kv_cache =
          ceil_div(kv_cache_bytes_per_token(dims, workload.kv_dtype) * workload.tokens_per_step(), shards);
    }
    memory.temporaries = temporaries;
    out.push_back(memory);
  }
  return out;
}

std::size_t worst_stage(const std::vector<MemoryByKind>& stages) {
  std::size_t worst = 0;
  for (std::size_t s = 1; s < stages.size(); ++s)
    if (stages[s].total() > stages[worst].total()) worst = s;
  return worst;
}

MemoryByKind step_memory(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                         const ModelProgram& model, PlannedProgram program) {
  const std::vector<MemoryByKind> stages = stage_memory(dims, workload, candidate, model, std::move(program));
  return stages[worst_stage(stages)];
}

}  // namespace podsim
