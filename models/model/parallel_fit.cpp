// The divisibility rules of a parallelism assignment (docs/parallelism.md, "Constraints").
#include "models/model/parallel_fit.hpp"

#include <algorithm>

#include "models/common/error.hpp"
#include "models/common/join.hpp"

namespace podsim {
namespace {

std::int64_t product(const std::vector<std::string>& axes, const Mesh& mesh) {
  std::int64_t size = 1;
  for (const auto& axis : axes)
    size *= mesh.axis_size(axis);
  return size;
}

// `what (value) must be a multiple of the WHO axes A,B (size)` unless `axes` divide `value`.
void require_multiple(const std::string& what, std::int64_t value, const std::string& who,
                      const std::vector<std::string>& axes, const Mesh& mesh) {
  const std::int64_t size = product(axes, mesh);
  if (size > 1 && value % size != 0)
    throw VerifyError(what + " (" + std::to_string(value) + ") must be a multiple of the " + who + " axes " +
                      join(axes, ",") + " (" + std::to_string(size) + ")");
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

std::vector<std::string> batch_axes(const Parallelism& parallelism) {
  std::vector<std::string> axes;
  append(axes, parallelism.of(ParallelKind::data));
  append(axes, parallelism.of(ParallelKind::fsdp));
  append(axes, parallelism.of(ParallelKind::expert));
  append(axes, parallelism.of(ParallelKind::sequence));
  return axes;
}

std::vector<std::string> kv_tensor_axes(const Parallelism& parallelism, const Mesh& mesh, std::int64_t kv_heads) {
  std::vector<std::string> axes;
  std::int64_t size = 1;
  for (const auto& axis : parallelism.of(ParallelKind::tensor)) {
    size *= mesh.axis_size(axis);
    if (kv_heads % size != 0) break;
    axes.push_back(axis);
  }
  return axes;
}

void verify_parallel_fit(const TransformerDims& dims, const Workload& workload, const Parallelism& parallelism,
                         const Mesh& mesh) {
  verify_parallelism(parallelism, mesh);
  const auto& tensor = parallelism.of(ParallelKind::tensor);
  const auto& fsdp = parallelism.of(ParallelKind::fsdp);
  const auto& sequence = parallelism.of(ParallelKind::sequence);
  const auto& expert = parallelism.of(ParallelKind::expert);
  const auto& pipeline = parallelism.of(ParallelKind::pipeline);
  if (!pipeline.empty() && workload.mode != WorkloadMode::train)
    throw VerifyError("pipeline axes " + join(pipeline, ",") +
                      ": pipeline stages apply to training steps; assign the axes to another kind");
  require_multiple("layers", dims.layers, "pipeline", pipeline, mesh);
  if (!expert.empty() && dims.experts <= 1)
    throw VerifyError("expert axes " + join(expert, ",") +
                      " need a mixture-of-experts model (experts > 1), got: experts " + std::to_string(dims.experts));
  require_multiple("experts", dims.experts, "expert", expert, mesh);
  require_multiple("heads", dims.heads, "tensor", tensor, mesh);
  require_multiple("d_ff", dims.d_ff, "tensor", tensor, mesh);
  require_multiple("d_model", dims.d_model, "fsdp", fsdp, mesh);
  const std::vector<std::string> tokens_axes = batch_axes(parallelism);
  const auto at_least_one = [](const char* what, std::int64_t value) {
    if (value < 1) throw VerifyError(std::string(what) + " must be at least 1, got: " + std::to_string(value));
  };
  if (workload.mode == WorkloadMode::train) {
    at_least_one("batch_tokens", static_cast<std::int64_t>(std::min<std::uint64_t>(workload.batch_tokens, 1)));
    at_least_one("seq_len", workload.seq_len);
  } else {
    at_least_one("batch", workload.batch);
    at_least_one("context", workload.context);
  }
  switch (workload.mode) {
    case WorkloadMode::train: {
      if (workload.microbatches < 1 || workload.batch_tokens % static_cast<std::uint64_t>(workload.microbatches) != 0)
        throw VerifyError("batch_tokens (" + std::to_string(workload.batch_tokens) +
                          ") must be a multiple of microbatches (" + std::to_string(workload.microbatches) + ")");
      const auto per_microbatch = static_cast<std::int64_t>(workload.tokens_per_pass());
      require_multiple("tokens per microbatch", per_microbatch, "data, fsdp, expert and sequence", tokens_axes, mesh);
      require_multiple("seq_len", workload.seq_len, "sequence", sequence, mesh);
      break;
    }
    case WorkloadMode::prefill: {
      std::vector<std::string> sequences = parallelism.of(ParallelKind::data);
      append(sequences, fsdp);
      append(sequences, expert);
      require_multiple("batch", workload.batch, "data, fsdp and expert", sequences, mesh);
      require_multiple("context", workload.context, "sequence", sequence, mesh);
      break;
    }
    case WorkloadMode::decode:
      if (!sequence.empty())
        throw VerifyError("sequence axes " + join(sequence, ",") +
                          ": decode processes one token per sequence; assign the axes to another kind");
      require_multiple("batch", workload.batch, "data, fsdp and expert", tokens_axes, mesh);
      break;
  }
}

std::optional<SliceAxisIssue> slice_axis_issue(const Parallelism& parallelism, const std::string& slice_axis) {
  const std::string carries = "the slice axis " + slice_axis + " carries data, fsdp or pipeline parallelism";
  for (std::size_t k = 0; k < kParallelKinds; ++k) {
    const auto kind = static_cast<ParallelKind>(k);
    const auto& axes = parallelism.of(kind);
    const auto found = std::find(axes.begin(), axes.end(), slice_axis);
    if (found == axes.end()) continue;
    const auto index = static_cast<std::size_t>(found - axes.begin());
    const std::string name(kParallelKindNames.name(kind));
    if (kind != ParallelKind::data && kind != ParallelKind::fsdp && kind != ParallelKind::pipeline)
      return SliceAxisIssue{kind, index,
                            carries + " (" + name + " parallelism over the DCN is not modelled), got: " + name};
    if (index != 0)
      return SliceAxisIssue{kind, index,
                            "the slice axis " + slice_axis + " comes first among the " + name +
                                " axes (it is the mesh's major axis), got: it at position " + std::to_string(index)};
    return std::nullopt;
  }
  return SliceAxisIssue{std::nullopt, 0,
                        carries + " when there are several slices, got: " + slice_axis + " unassigned"};
}

}  // namespace podsim
