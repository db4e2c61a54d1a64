// Memory per chip by kind of a model's step, per pipeline stage.
#include "sim/capacity/step_memory.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "models/model/parallel_fit.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/plan/book_evaluation.hpp"

namespace podsim {
namespace {

// Named apart from models/common/integer.hpp's ceil_div (which divides by 0 differently): a unity batch may hold both.
std::uint64_t step_memory_ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? a : (a + b - 1) / b;
}

std::uint64_t bytes_of(DType dtype) {
  return static_cast<std::uint64_t>(dtype_bits(dtype)) / 8;
}

}  // namespace

std::uint64_t temporaries_peak(PlannedProgram program, const ModelProgram& model) {
  std::set<std::string> saved;
  for (const auto& t : model.saved)
    saved.insert(t.tensor);
  for (auto& buffer : program.buffers) {
    const bool state = buffer.role == PlannedBuffer::Role::declared;
    const bool kept = buffer.role == PlannedBuffer::Role::result && buffer.last_op < 0;
    // A saved tensor's forward buffer is counted with the activations (all layers'), not again here.
    const bool activation = buffer.role == PlannedBuffer::Role::result && buffer.op >= 0 &&
                            model.roles[static_cast<std::size_t>(buffer.op)].phase == ModelPhase::forward &&
                            saved.count(buffer.tensor) > 0;
    if (state || kept || activation) buffer.bytes_per_chip = 0;
  }
  return memory_profile(program, program_order_book_times(program)).peak_bytes;
}

SavedBytes saved_bytes_per_layer(const ModelProgram& model, const PlannedProgram& program) {
  SavedBytes out;
  for (const auto& t : model.saved) {
    std::uint64_t bytes = 0;
    for (const auto& buffer : program.buffers)
      if (buffer.tensor == t.tensor && buffer.role != PlannedBuffer::Role::temporary)
        bytes = std::max(bytes, buffer.bytes_per_chip);
    if (t.tag == LayerTensor::decoder_layer_input) bytes *= static_cast<std::uint64_t>(model.checkpoint_copies);
    (t.placement == TensorPlacement::offload ? out.offloaded : out.device) += bytes;
  }
  return out;
}

std::vector<MemoryByKind> stage_memory(const TransformerDims& dims, const Workload& workload, const ModelProgram& model,
                                       PlannedProgram program) {
  const bool train = workload.mode == WorkloadMode::train;
  const DType weight_dtype = train ? workload.param_dtype : workload.weight_dtype;
  const std::uint64_t fsdp = model.axes.fsdp_shards;
  const std::int64_t stages = model.axes.stages;
  const auto layers = static_cast<std::uint64_t>(dims.layers / stages);  // per stage (they divide: parallel fit)
  std::map<std::string, std::uint64_t> declared;                         // bytes per chip of each declared tensor
  for (const auto& buffer : program.buffers)
    if (buffer.role == PlannedBuffer::Role::declared) declared[buffer.tensor] = buffer.bytes_per_chip;
  const SavedBytes saved = saved_bytes_per_layer(model, program);
  const std::uint64_t temporaries = temporaries_peak(std::move(program), model);
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
    memory.params += step_memory_ceil_div(norms, fsdp) * bytes_of(weight_dtype);
    if (train) {
      memory.grads = memory.params;
      const std::uint64_t local_params = memory.params / bytes_of(weight_dtype);
      memory.optimizer = local_params * optimizer_bytes_per_param(workload.master_weights);
      // What each layer saves for its backward, for every microbatch in flight; offloaded tensors are on the host,
      // less one layer's in flight on the device (the copy out of the layer just made, or back for the next).
      const auto in_flight = static_cast<std::uint64_t>(
          microbatches_in_flight(workload.pipeline_schedule, stages, workload.microbatches, stage));
      memory.activations = saved.device * layers * in_flight + saved.offloaded;
      memory.offloaded = saved.offloaded * layers * in_flight;
    } else if (workload.mode == WorkloadMode::prefill) {
      // The cache the prefill writes: every token's keys and values, sharded with the batch, the sequence and the
      // KV heads.
      // The cache the prefill writes: every token's keys and values, sharded with the batch and the sequence, each
      // chip holding its group's ceil(K / t) KV heads (as the layer's K and V: the heads padded over the tensor axes).
      const std::uint64_t t = model.axes.tensor_shards;
      const auto kv_heads = static_cast<std::uint64_t>(dims.kv_heads);
      const std::uint64_t local_heads = step_memory_ceil_div(kv_heads, t);
      const std::uint64_t per_token = kv_cache_bytes_per_token(dims, workload.kv_dtype) / kv_heads * local_heads;
      memory.kv_cache = step_memory_ceil_div(per_token * workload.tokens_per_step(), model.axes.token_shards);
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

MemoryByKind step_memory(const TransformerDims& dims, const Workload& workload, const ModelProgram& model,
                         PlannedProgram program) {
  const std::vector<MemoryByKind> stages = stage_memory(dims, workload, model, std::move(program));
  return stages[worst_stage(stages)];
}

}  // namespace podsim
