// Transformer accounting: parameters, FLOPs, KV cache and training state, by the formulas of docs/models.md.
#include "models/model/transformer.hpp"

#include <array>

#include "models/common/enum_names.hpp"

namespace podsim {
namespace {

constexpr EnumNames<MlpKind, 2> kMlpKinds{"mlp", {{{"gated", MlpKind::gated}, {"plain", MlpKind::plain}}}};

constexpr std::array<std::string_view, 9> kFieldNames = {
    "layers", "d_model", "d_ff", "heads", "kv_heads", "head_dim", "vocab", "experts", "experts_per_token"};

constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;

using u64 = std::uint64_t;

u64 u(std::int64_t v) {
  return static_cast<u64>(v);
}

}  // namespace

std::string_view mlp_kind_name(MlpKind kind) {
  return kMlpKinds.name(kind);
}

MlpKind parse_mlp_kind(std::string_view text) {
  return kMlpKinds.parse(text);
}

std::string_view dims_field_name(DimsField field) {
  return kFieldNames[static_cast<std::size_t>(field)];
}

void verify_dims(const TransformerDims& dims) {
  const std::array<std::pair<DimsField, std::int64_t>, 9> values = {
      {{DimsField::layers, dims.layers},
       {DimsField::d_model, dims.d_model},
       {DimsField::d_ff, dims.d_ff},
       {DimsField::heads, dims.heads},
       {DimsField::kv_heads, dims.kv_heads},
       {DimsField::head_dim, dims.head_dim},
       {DimsField::vocab, dims.vocab},
       {DimsField::experts, dims.experts},
       {DimsField::experts_per_token, dims.experts_per_token}}};
  for (const auto& [field, value] : values) {
    if (value < 1) throw DimsError(field, "must be >= 1, got: " + std::to_string(value));
    if (value > kMaxDim) throw DimsError(field, "must be at most 2^31, got: " + std::to_string(value));
  }
  if (dims.heads % dims.kv_heads != 0)
    throw DimsError(DimsField::kv_heads, "heads (" + std::to_string(dims.heads) +
                                             ") must be a multiple of kv_heads, got: " + std::to_string(dims.kv_heads));
  if (dims.experts_per_token > dims.experts)
    throw DimsError(DimsField::experts_per_token, "must be at most experts (" + std::to_string(dims.experts) +
                                                      "), got: " + std::to_string(dims.experts_per_token));
}

ParamCounts count_params(const TransformerDims& dims) {
  const u64 L = u(dims.layers), D = u(dims.d_model), F = u(dims.d_ff), N = u(dims.heads), K = u(dims.kv_heads),
            H = u(dims.head_dim), V = u(dims.vocab), E = u(dims.experts);
  const u64 matrices = dims.mlp == MlpKind::gated ? 3 : 2;
  const u64 per_expert = matrices * D * F;
  const u64 router = E > 1 ? D * E : 0;
  ParamCounts p;
  p.attention = L * (2 * D * N * H + 2 * D * K * H);
  p.mlp = L * (per_expert * E + router);
  p.embedding = V * D * (dims.tied_embeddings ? 1 : 2);
  p.norms = (2 * L + 1) * D;
  p.total = p.attention + p.mlp + p.embedding + p.norms;
  p.active = p.total - L * per_expert * (E - u(dims.experts_per_token));
  return p;
}

namespace {

FlopsPerToken flops_of(const TransformerDims& dims, double active, std::int64_t seq_len) {
  const double attention = static_cast<double>(dims.layers) * static_cast<double>(seq_len) *
                           static_cast<double>(dims.heads) * static_cast<double>(dims.head_dim);
  FlopsPerToken f;
  f.forward = 2 * active;
  f.forward_with_attention = f.forward + 4 * attention;
  f.train = 6 * active;
  f.train_with_attention = f.train + 12 * attention;
  return f;
}

}  // namespace

FlopsPerToken flops_per_token(const TransformerDims& dims, std::int64_t seq_len) {
  return flops_of(dims, static_cast<double>(count_params(dims).active), seq_len);
}

std::uint64_t matmul_params(const TransformerDims& dims) {
  const ParamCounts p = count_params(dims);
  return p.active - p.embedding + u(dims.vocab) * u(dims.d_model) - p.norms;
}

FlopsPerToken model_flops_per_token(const TransformerDims& dims, std::int64_t seq_len) {
  return flops_of(dims, static_cast<double>(matmul_params(dims)), seq_len);
}

std::uint64_t kv_cache_bytes_per_token(const TransformerDims& dims, DType dtype) {
  return dtype_bytes(dtype, 2 * u(dims.layers) * u(dims.kv_heads) * u(dims.head_dim));
}

TrainingState training_state_bytes(const TransformerDims& dims, const TrainingSetup& setup) {
  const u64 params = count_params(dims).total;
  TrainingState s;
  s.params = dtype_bytes(setup.param_dtype, params);
  s.grads = dtype_bytes(setup.param_dtype, params);
  s.optimizer = params * optimizer_bytes_per_param(setup.master_weights);
  const u64 per_layer =
      setup.remat.checkpoints_per_layer > 0 ? u(setup.remat.checkpoints_per_layer) : u(kNoRematTensorsPerLayer);
  s.activations =
      dtype_bytes(setup.activation_dtype, per_layer * setup.batch_tokens * u(dims.d_model)) * u(dims.layers);
  s.total = s.params + s.grads + s.optimizer + s.activations;
  return s;
}

}  // namespace podsim
