// A decoder-only transformer's dimensions and its closed-form accounting (../shared/reference/CAPACITY_MODELS.md,
// the scaling book's conventions): parameters by kind, FLOPs per token, KV-cache bytes per token and the bytes
// a training step holds. docs/models.md states every formula.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/common/dtype.hpp"
#include "models/common/field_error.hpp"
#include "models/model/remat.hpp"

namespace podsim {

enum class MlpKind {
  gated,  // three matrices: gate, up, down (LLaMA, Mistral, Mixtral)
  plain,  // two: up, down (GPT-3)
};

// "gated", "plain".
std::string_view mlp_kind_name(MlpKind kind);
MlpKind parse_mlp_kind(std::string_view text);  // VerifyError naming the choices

struct TransformerDims {
  std::int64_t layers = 0;
  std::int64_t d_model = 0;
  std::int64_t d_ff = 0;  // per expert for a mixture of experts
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t vocab = 0;
  bool tied_embeddings = false;
  MlpKind mlp = MlpKind::gated;
  std::int64_t experts = 1;            // 1: a dense MLP
  std::int64_t experts_per_token = 1;  // experts each token goes through
};

// The dims a rule can be about, named as the scenario's `model` keys are.
enum class DimsField { layers, d_model, d_ff, heads, kv_heads, head_dim, vocab, experts, experts_per_token };
using DimsError = FieldError<DimsField>;

// The key of a field: "layers", "d_model", ... "experts_per_token".
std::string_view dims_field_name(DimsField field);

// Throws DimsError: every count >= 1 and at most 2^31 (`must be >= 1, got: 0`), heads a multiple of kv_heads,
// experts_per_token <= experts.
void verify_dims(const TransformerDims& dims);

// Parameter counts. Norms are two D-vectors per layer and one final D-vector; a mixture of experts adds a router
// (D x experts) per layer to its MLP.
struct ParamCounts {
  std::uint64_t attention = 0;  // L x (2 D N H + 2 D K H): Q and O, K and V
  std::uint64_t mlp = 0;        // L x (3 or 2) D F x experts, plus the routers
  std::uint64_t embedding = 0;  // V D, twice when untied (the unembedding)
  std::uint64_t norms = 0;      // (2 L + 1) D
  std::uint64_t total = 0;      // all of the above
  std::uint64_t active = 0;     // what one token goes through: total less the experts it skips
};

ParamCounts count_params(const TransformerDims& dims);

// FLOPs per token: 2 per active parameter forward, 6 in training (forward plus a backward of two matmuls per
// forward one), and the attention products at sequence length T: 4 T N H per layer forward, 12 T N H in training,
// without causal masking's halving.
struct FlopsPerToken {
  double forward = 0;
  double forward_with_attention = 0;
  double train = 0;
  double train_with_attention = 0;
};

FlopsPerToken flops_per_token(const TransformerDims& dims, std::int64_t seq_len);

// The parameters a token's matmuls multiply, PaLM's N in its model FLOPs (6 N + 12 L N H T per token in training):
// the active parameters less the input embedding table (a lookup, no matmul) and the norms (elementwise), with the
// unembedding's V D counted once, tied or untied. That is active - embedding + V D - norms.
std::uint64_t matmul_params(const TransformerDims& dims);

// The model FLOPs per token that MFU counts (docs/capacity.md, "MFU"): flops_per_token's formulas on
// matmul_params instead of the active parameters, so that they never exceed what the matmuls execute.
FlopsPerToken model_flops_per_token(const TransformerDims& dims, std::int64_t seq_len);

// Keys and values of every layer for one token: 2 L K H values of `dtype`.
std::uint64_t kv_cache_bytes_per_token(const TransformerDims& dims, DType dtype);

// The scaling book's count of [tokens, d_model]-sized intermediates a layer keeps without rematerialisation, the
// activations of `podsim model describe` (the plan counts each policy's tensors from the layer's ops instead).
inline constexpr std::int64_t kNoRematTensorsPerLayer = 20;

struct TrainingSetup {
  std::uint64_t batch_tokens = 0;   // tokens per step (batch x sequence); 0: activations not counted
  DType param_dtype = DType::bf16;  // parameters and gradients
  DType activation_dtype = DType::bf16;
  bool master_weights = false;  // an fp32 copy of the parameters beside Adam's two fp32 moments
  Remat remat;
};

// Adam's state per parameter: two fp32 moments (8 bytes), and an fp32 master copy of the parameters (4 more) with
// master weights. The one place these bytes are counted: the whole model's training state, a chip's share of it, and
// the update's traffic read it.
constexpr std::uint64_t optimizer_bytes_per_param(bool master_weights) {
  return master_weights ? 12 : 8;
}

// Bytes of the whole model's training state (all chips together).
struct TrainingState {
  std::uint64_t params = 0;       // total params x param dtype
  std::uint64_t grads = 0;        // total params x param dtype
  std::uint64_t optimizer = 0;    // Adam: 8 bytes per param, 12 with master weights
  std::uint64_t activations = 0;  // per remat policy: tensors per layer x batch_tokens x d_model x dtype x layers
  std::uint64_t total = 0;
};

TrainingState training_state_bytes(const TransformerDims& dims, const TrainingSetup& setup);

}  // namespace podsim
