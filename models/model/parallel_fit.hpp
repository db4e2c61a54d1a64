// Whether a parallelism assignment fits a model and its workload (docs/parallelism.md): the dims each kind shards
// must divide by the product of the kind's axes (the layers by the pipeline stages). A hand-written plan that breaks a
// rule is bad input (exit 2); the plan search lists such a candidate as rejected with the same message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/model/parallelism.hpp"
#include "models/model/transformer.hpp"
#include "models/model/workload.hpp"
#include "models/sharding/mesh.hpp"

namespace podsim {

// The mesh axes that shard the tokens of activations: data, then fsdp, then expert, then sequence (major to minor;
// sequence last so that gathering it gives whole sequences back). Empty for none.
std::vector<std::string> batch_axes(const Parallelism& parallelism);

// The longest prefix of the tensor axes whose size product divides kv_heads: the axes that shard the key and value
// heads (the rest replicate them, as Megatron replicates KV heads when there are fewer of them than ranks).
std::vector<std::string> kv_tensor_axes(const Parallelism& parallelism, const Mesh& mesh, std::int64_t kv_heads);

// Checks verify_parallelism, then the divisibility rules of docs/parallelism.md ("Constraints"). Throws
// VerifyError naming the dim, the axes and both sizes: `heads (64) must be a multiple of the tensor axes Y,Z
// (128)`; `layers (30) must be a multiple of the pipeline axes X (4)`.
void verify_parallel_fit(const TransformerDims& dims, const Workload& workload, const Parallelism& parallelism,
                         const Mesh& mesh);

// What is wrong with the slice axis `slice_axis` of a model over several slices (docs/overlap-pipeline-dcn.md,
// "Model-level scenarios over several slices"): it must carry data, fsdp or pipeline parallelism (tensor, sequence
// and expert parallelism over the DCN are not modelled: their collectives run every layer, and the expert
// all-to-all across slices is refused), listed first among its kind's axes (it is the mesh's major axis).
struct SliceAxisIssue {
  std::optional<ParallelKind> kind;  // the kind it is listed under; nullopt: under none
  std::size_t index = 0;             // its place in that kind's list
  std::string message;               // `the slice axis DCN carries data, fsdp or pipeline parallelism ..., got: ...`
};
std::optional<SliceAxisIssue> slice_axis_issue(const Parallelism& parallelism, const std::string& slice_axis);

}  // namespace podsim
