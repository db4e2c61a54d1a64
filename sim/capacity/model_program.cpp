// Model -> scenario program: the tensors of one layer and the edges with shardings from the parallelism, and the ops
// of a step in the order they run (docs/parallelism.md states every convention used here). The builder's other parts:
// model_program_layer.cpp, model_program_moe.cpp, model_program_remat.cpp (model_program_builder.hpp).
#include "sim/capacity/model_program.hpp"

#include <algorithm>
#include <utility>

#include "models/model/parallel_fit.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/model_program_builder.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim::model_expansion {

Builder::Builder(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                 const ScenarioOptions& options)
    : dims_(dims), w_(workload) {
  spec_.name = "model";
  spec_.hardware = candidate.hardware;
  spec_.slice_shape = candidate.slice;
  if (!candidate.wraparound.empty()) spec_.wrap = WrapChoice{WrapMode::listed, candidate.wraparound};
  spec_.twist = candidate.twist;
  spec_.slice_count = candidate.slices;
  spec_.dcn_bandwidth_Bps = candidate.dcn_bandwidth_Bps;
  spec_.dcn_latency_s = candidate.dcn_latency_s;
  spec_.mesh = candidate.mesh;
  spec_.options = options;
  spec_.options.verify_values = false;
  if (!candidate.mesh.text.empty()) {
    NamedMesh named = parse_mesh_spec(candidate.mesh.text);
    mesh_name_ = named.name;
    mesh_ = std::move(named.mesh);
  } else {
    mesh_name_ = candidate.mesh.name.empty() ? std::string(kDefaultMeshName) : candidate.mesh.name;
    mesh_ = candidate.mesh.mesh.is_empty()
                ? default_mesh(Slice(candidate.slice, std::vector<bool>(candidate.slice.size())))
                : candidate.mesh.mesh;
  }
  const Parallelism& p = candidate.parallelism;
  verify_parallel_fit(dims, workload, p, mesh_);
  tokens_ = batch_axes(p);
  data_ = p.of(ParallelKind::data);
  fsdp_ = p.of(ParallelKind::fsdp);
  seq_ = p.of(ParallelKind::sequence);
  tensor_ = p.of(ParallelKind::tensor);
  expert_ = p.of(ParallelKind::expert);
  // Dispatched tokens: the capacity slots of every expert over the token axes, expert axes minor (the all-to-all
  // moves them onto the experts dim).
  dispatch_ = concat(concat(concat(data_, fsdp_), seq_), expert_);
  slot_axes_ = concat(concat(data_, fsdp_), seq_);
  axes_.tokens = tokens_;
  axes_.pipeline = p.of(ParallelKind::pipeline);
  axes_.token_shards = shards(tokens_);
  axes_.fsdp_shards = shards(fsdp_);
  axes_.tensor_shards = shards(tensor_);
  axes_.stages = static_cast<std::int64_t>(shards(axes_.pipeline));
  repeats_ = step_repeats(dims, workload);
  placements_ = tensor_placements(workload.remat);
}

ModelProgram Builder::build() {
  if (w_.mode == WorkloadMode::train)
    train();
  else
    serve();
  ModelProgram out;
  out.spec = verified(std::move(spec_));
  out.repeats = std::move(op_repeats_);
  out.roles = std::move(op_roles_);
  out.state = std::move(state_);
  out.saved = std::move(saved_);
  out.checkpoint_copies = std::max<std::int64_t>(1, w_.remat.checkpoints_per_layer);
  out.axes = std::move(axes_);
  return out;
}

// Shardy text of a sharding on the candidate's mesh: one axis list per dim, then the unreduced axes.
std::string Builder::sharding(const std::vector<Axes>& dims, const Axes& unreduced) const {
  std::string text = "<@" + mesh_name_ + ", [";
  for (std::size_t d = 0; d < dims.size(); ++d) {
    text += d > 0 ? ", {" : "{";
    for (std::size_t i = 0; i < dims[d].size(); ++i)
      text += (i > 0 ? ", \"" : "\"") + dims[d][i] + "\"";
    text += "}";
  }
  text += "]";
  if (!unreduced.empty()) {
    // Shardy lists unreduced axes in mesh order.
    Axes ordered = unreduced;
    std::sort(ordered.begin(), ordered.end(),
              [&](const std::string& a, const std::string& b) { return mesh_.axis_index(a) < mesh_.axis_index(b); });
    text += ", unreduced={";
    for (std::size_t i = 0; i < ordered.size(); ++i)
      text += (i > 0 ? ", \"" : "\"") + ordered[i] + "\"";
    text += "}";
  }
  return text + ">";
}

void Builder::tensor(const std::string& name, Shape shape, DType dtype, const std::vector<Axes>& dims,
                     const Axes& unreduced) {
  ScenarioTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.sharding.text = sharding(dims, unreduced);
  spec_.tensors.push_back(std::move(t));
}

// A weight (`count` of them in the model) and, in training, its Adam update's state: a byte view of the shard,
// [..., 11] (15 with master weights), whose read and write move what Adam moves per parameter (docs).
void Builder::weight(const std::string& name, Shape shape, const std::vector<Axes>& dims, std::int64_t count) {
  weight_dims_[name] = dims;
  const DType dtype = w_.mode == WorkloadMode::train ? w_.param_dtype : w_.weight_dtype;
  tensor(name, shape, dtype, dims);
  const bool tied = name == "emb" && dims_.tied_embeddings;
  state_.push_back({name, ModelStateTensor::Kind::weight, count, place_, tied});
  if (w_.mode != WorkloadMode::train) return;
  weights_.push_back({name, count, place_});
  Shape view = shape;
  view.push_back(adam_view_bytes());
  std::vector<Axes> view_dims = dims;
  view_dims.emplace_back();
  tensor("adam_" + name, view, DType::int8, view_dims);
  state_.push_back({"adam_" + name, ModelStateTensor::Kind::optimizer, count, place_, tied});
}

ScenarioOp& Builder::op(const std::string& name, OpKind kind, OpDetail detail, const std::string& out,
                        std::int64_t repeat, std::vector<std::string> after) {
  ScenarioOp o;
  o.name = name;
  o.kind = kind;
  o.detail = std::move(detail);
  o.out = out;
  o.after = std::move(after);
  spec_.program.push_back(std::move(o));
  op_repeats_.push_back(repeat);
  op_roles_.push_back({place_, phase_});
  return spec_.program.back();
}

ScenarioOp& Builder::matmul(const std::string& out, const std::string& lhs, const std::string& rhs,
                            const std::string& einsum, const std::vector<Axes>& out_dims, std::int64_t repeat,
                            const Axes& unreduced) {
  MatmulOp m;
  m.lhs = lhs;
  m.rhs = rhs;
  m.einsum_text = einsum;
  // Quantized training and serving (MaxText's AQT): the layers' weight products, forward and backward, at the
  // quantized peak; the logits (the last place) stay bf16, as MaxText leaves them.
  if (place_ == ModelPlace::layer) m.compute_dtype = quantized_matmul_dtype(w_.quantization);
  ScenarioSharding s;
  s.text = sharding(out_dims, unreduced);
  m.out_sharding = std::move(s);
  return op(out, OpKind::matmul, std::move(m), out, repeat);
}

// A weight's gradient under gradient accumulation: each microbatch's matmul leaves partial sums over the token
// axes, reduce-scattered onto the fsdp shard and summed over the expert and sequence axes at once (`repeat` times);
// the data axes stay unreduced while the microbatches accumulate, and are all-reduced once per step
// (`per_step` times: once per layer).
void Builder::weight_gradient(const std::string& out, const std::string& lhs, const std::string& rhs,
                              const std::string& einsum, const std::vector<Axes>& out_dims, std::int64_t repeat,
                              std::int64_t per_step) {
  matmul(out, lhs, rhs, einsum, out_dims, repeat, data_);
  if (data_.empty()) return;
  const ModelPhase phase = phase_;
  phase_ = ModelPhase::step;
  collective(out + "_sum", OpKind::all_reduce, out, data_, out, per_step);
  phase_ = phase;
}

void Builder::elementwise(const std::string& name, const std::string& in, const std::string& out, double flops,
                          std::int64_t repeat, std::vector<std::string> after, double passes) {
  ElementwiseOp e{in, flops};
  e.tensor_passes = passes;
  op(name, OpKind::elementwise, std::move(e), out, repeat, std::move(after));
}

// A causal flash attention's pass over `context` keys per query: an elementwise op of its FLOPs that a calibrated
// des times by the preset's attention curves (models/hardware/calibration.hpp).
void Builder::attention(const std::string& name, const std::string& in, const std::string& out, double flops,
                        AttentionPass pass, std::int64_t context, std::int64_t repeat, std::vector<std::string> after) {
  op(name, OpKind::elementwise, ElementwiseOp{in, flops, pass, context}, out, repeat, std::move(after));
}

void Builder::collective(const std::string& name, OpKind kind, const std::string& in, const Axes& axes,
                         const std::string& out, std::int64_t repeat, int dim, std::vector<std::string> after,
                         int from_dim, int to_dim) {
  op(name, kind, CollectiveOp{.tensor = in, .axes = axes, .dim = dim, .from_dim = from_dim, .to_dim = to_dim}, out,
     repeat, std::move(after));
}

// The layer's weights, Megatron-style on the tensor axes and ZeRO-3 on the fsdp axes.
void Builder::layer_weights() {
  const std::int64_t D = dims_.d_model, L = dims_.layers;
  weight("Wq", {D, dims_.heads * dims_.head_dim}, {fsdp_, tensor_}, L);
  // Keys and values [D, K, 2H]: the KV heads over the tensor axes, padded when there are fewer heads than tensor
  // ranks, so that each chip holds its group's ceil(K / t) heads, as the frameworks replicate them.
  weight("Wkv", {D, dims_.kv_heads, 2 * dims_.head_dim}, {fsdp_, tensor_, {}}, L);
  weight("Wo", {dims_.heads * dims_.head_dim, D}, {tensor_, fsdp_}, L);
  if (moe()) {
    const std::int64_t E = dims_.experts, F = dims_.d_ff;
    weight("Wr", {D, E}, {fsdp_, {}}, L);
    if (dims_.mlp == MlpKind::gated) weight("Weg", {E, D, F}, {expert_, fsdp_, tensor_}, L);
    weight("Weu", {E, D, F}, {expert_, fsdp_, tensor_}, L);
    weight("Wed", {E, F, D}, {expert_, tensor_, fsdp_}, L);
    return;
  }
  if (dims_.mlp == MlpKind::gated) weight("Wg", {D, dims_.d_ff}, {fsdp_, tensor_}, L);
  weight("Wu", {D, dims_.d_ff}, {fsdp_, tensor_}, L);
  weight("Wd", {dims_.d_ff, D}, {tensor_, fsdp_}, L);
}

// How `tokens` tokens' routed rows land on the experts (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the
// slots per expert that size the buffers, the all-to-alls and the expert matmuls (dense: every group's capacity,
// padded; dropless: the busiest expert shard's routed rows per expert).
ExpertLoad Builder::load(std::int64_t tokens) const {
  return expert_load(w_, tokens, dims_.experts_per_token, dims_.experts, static_cast<std::int64_t>(shards(expert_)));
}

std::uint64_t Builder::shards(const Axes& axes) const {
  std::uint64_t size = 1;
  for (const auto& axis : axes)
    size *= static_cast<std::uint64_t>(mesh_.axis_size(axis));
  return size;
}

void Builder::at(ModelPlace place, ModelPhase phase) {
  place_ = place;
  phase_ = phase;
}

void Builder::train() {
  const auto tokens = static_cast<std::int64_t>(w_.tokens_per_pass());
  at(ModelPlace::layer, ModelPhase::forward);
  layer_weights();
  at(ModelPlace::first, ModelPhase::forward);
  embedding(tokens, tokens_, repeats_.edge);
  at(ModelPlace::layer, ModelPhase::forward);
  layer_forward(tokens, w_.seq_len, false);
  at(ModelPlace::last, ModelPhase::forward);
  unembedding(tokens, tokens_, repeats_.edge, true);
  at(ModelPlace::layer, ModelPhase::backward);
  layer_backward(tokens);
  at(ModelPlace::first, ModelPhase::backward);
  embedding_backward(repeats_.edge);
  optimizer();
}

void Builder::serve() {
  const bool decode = w_.mode == WorkloadMode::decode;
  const auto tokens = static_cast<std::int64_t>(w_.tokens_per_pass());  // a decode's batch, a prefill's batch x context
  at(ModelPlace::layer, ModelPhase::forward);
  layer_weights();
  at(ModelPlace::first, ModelPhase::forward);
  embedding(tokens, tokens_, 1);
  at(ModelPlace::layer, ModelPhase::forward);
  layer_forward(tokens, w_.context, decode);
  // Logits of the last position of each sequence only.
  at(ModelPlace::last, ModelPhase::forward);
  unembedding(w_.batch, concat(concat(data_, fsdp_), expert_), 1, false);
}

}  // namespace podsim::model_expansion

namespace podsim {

StepRepeats step_repeats(const TransformerDims& dims, const Workload& workload) {
  StepRepeats r;
  if (workload.mode != WorkloadMode::train) {
    r.layer_forward = dims.layers;
    r.layer_backward = 0;
    r.edge = 1;
    r.layer_update = 0;
    return r;
  }
  r.layer_forward = dims.layers * workload.microbatches;
  r.layer_backward = dims.layers * workload.microbatches;
  r.edge = workload.microbatches;
  r.layer_update = dims.layers;
  return r;
}

ModelProgram expand_model(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
                          const ScenarioOptions& options) {
  Workload effective = workload;
  if (workload.mode == WorkloadMode::train) {
    effective.microbatches = candidate.microbatches;
    effective.remat = candidate.remat;
  }
  return model_expansion::Builder(dims, effective, candidate, options).build();
}

}  // namespace podsim
