// A candidate's layer as ops: one layer's forward and backward (attention, the dense MLP), the token embedding and the
// logits at the edges, and the optimizer's updates (docs/parallelism.md, docs/capacity.md).
#include "sim/capacity/model_program_builder.hpp"

#include <string>
#include <vector>

namespace podsim::model_expansion {

// One layer's forward over `tokens` tokens attending to `context` positions; `kv_cache`: decode reads the cache.
// The residual stream ([tokens, D]: the layer's input, the out and down projections' outputs) has d_model over the
// tensor axes, as MaxText's activation_embed rule shards it (Megatron's sequence parallelism): the row-parallel
// products reduce-scatter onto it and the next column-parallel product gathers it back.
void Builder::layer_forward(std::int64_t tokens, std::int64_t context, bool kv_cache) {
  const std::int64_t r = repeats_.layer_forward;
  const std::vector<Axes> residual = {tokens_, tensor_};
  const std::int64_t K = dims_.kv_heads, H = dims_.head_dim;
  tensor("x", {tokens, dims_.d_model}, w_.activation_dtype, residual);
  values_["x"] = ForwardValue{{}, {}, LayerTensor::decoder_layer_input, {}};
  elementwise("norm1", "x", "xn", kNormFlops + 1, r, {}, kNormPasses);
  made("xn", 1, {"x"});
  const std::string xn = whole_d("xn", r);
  matmul("q", xn, "Wq", "BD,DN->BN", {tokens_, tensor_}, r);
  made("q", 1, {xn}, LayerTensor::query_proj);
  matmul("kv", xn, "Wkv", "BD,DKJ->BKJ", {tokens_, tensor_, {}}, r);
  made("kv", 1, {xn}, LayerTensor::key_proj);
  std::string keys = "kv";
  if (!seq_.empty()) {
    // Context parallelism: the attention gathers the keys and values of the whole sequence (saved as the
    // projection made them: the gather is the attention's).
    collective("kv_gather", OpKind::all_gather, "kv", seq_, "kv_full", r);
    keys = "kv_full";
    made("kv_full", 1, {"kv"});
  }
  std::vector<std::string> after = {keys == "kv" ? "kv" : "kv_gather"};
  if (kv_cache) {
    const std::int64_t batch = w_.batch;
    tensor("kv_cache", {batch, context, K, 2 * H}, w_.kv_dtype,
           {concat(concat(data_, fsdp_), expert_), {}, tensor_, {}});
    state_.push_back({"kv_cache", ModelStateTensor::Kind::kv_cache, dims_.layers});
    op("kv_read", OpKind::load, LoadOp{"kv_cache"}, "", r);
    after.push_back("kv_read");
  }
  // Flash attention: the score and value products, 2 T H FLOPs each per query element, fused, no T x T tensor; its
  // residuals for the backward are its output and the softmax's logsumexp [tokens, N] in f32.
  // A decode step's one query per sequence reads the whole cache: no causal square, no attention kernel curve.
  if (kv_cache)
    elementwise("attention", "q", "a", 4.0 * static_cast<double>(context), r, after);
  else
    attention("attention", "q", "a", 4.0 * static_cast<double>(context), AttentionPass::forward, context, r, after);
  if (w_.mode == WorkloadMode::train) {
    tensor("a_lse", {tokens, dims_.heads}, DType::f32, {tokens_, tensor_});
    spec_.tensors.back().transient = true;
  }
  made("a", 1, {"q", keys}, LayerTensor::context,
       w_.mode == WorkloadMode::train ? std::vector<std::string>{"a_lse"} : std::vector<std::string>{});
  matmul("o", "a", "Wo", "BN,ND->BD", residual, r);
  made("o", 1, {"a"}, LayerTensor::out_proj);
  elementwise("norm2", "o", "hn", kNormFlops + 1, r, {}, kNormPasses);
  made("hn", 1, {"x", "o"});
  const std::string hn = whole_d("hn", r);
  if (moe()) {
    moe_forward(tokens, hn);
    return;
  }
  const bool gated = dims_.mlp == MlpKind::gated;
  if (gated) {
    matmul("hg", hn, "Wg", "BD,DF->BF", {tokens_, tensor_}, r);
    made("hg", 1, {hn}, LayerTensor::mlpwi_0);
  }
  matmul("hu", hn, "Wu", "BD,DF->BF", {tokens_, tensor_}, r);
  made("hu", 1, {hn}, LayerTensor::mlpwi_1);
  elementwise("act", gated ? "hg" : "hu", "g", kActivationFlops, r,
              gated ? std::vector<std::string>{"hu"} : std::vector<std::string>{}, gated ? kGatedActPasses : 2);
  made("g", 1, gated ? std::vector<std::string>{"hg", "hu"} : std::vector<std::string>{"hu"});
  matmul("y", "g", "Wd", "BF,FD->BD", residual, r);
  made("y", 1, {"g"}, LayerTensor::mlpwo);
}

// The layer's backward: two matmuls per forward matmul, the attention products' backward (twice the forward's).
// Every forward value it reads goes through `use`, which recomputes what the remat policy did not save.
void Builder::layer_backward(std::int64_t tokens) {
  const std::int64_t r = repeats_.layer_backward;
  const std::vector<Axes> residual = {tokens_, tensor_};
  const std::int64_t K = dims_.kv_heads, H = dims_.head_dim;
  const bool gated = dims_.mlp == MlpKind::gated;
  if (moe()) {
    moe_backward(tokens);
  } else {
    tensor("dy", {tokens, dims_.d_model}, w_.activation_dtype, residual);
    const std::string dy = gathered_gradient("dy", r);
    weight_gradient("dWd", use("g"), dy, "BF,BD->FD", {tensor_, fsdp_}, r, repeats_.layer_update);
    matmul("dg", dy, bw("Wd"), "BD,FD->BF", {tokens_, tensor_}, r);
    // The activation's backward reads the gate's and the up projection's outputs.
    const std::vector<std::string> mlp_in =
        gated ? std::vector<std::string>{"hg", "hu"} : std::vector<std::string>{"hu"};
    for (const auto& value : mlp_in)
      use(value);
    elementwise("act_bwd", "dg", "dh", kBackwardFlops, r, makers(mlp_in),
                gated ? kGatedActBwdPasses : kPlainActBwdPasses);
    const std::string hn = use(tensor_.empty() ? "hn" : "hn_full");
    if (gated) weight_gradient("dWg", hn, "dh", "BD,BF->DF", {fsdp_, tensor_}, r, repeats_.layer_update);
    weight_gradient("dWu", hn, "dh", "BD,BF->DF", {fsdp_, tensor_}, r, repeats_.layer_update);
    // dhn = dh_g Wg^T + dh_u Wu^T: the gate's product stays partial sums, the up product's reduction adds both.
    if (gated) matmul("dhn_g", "dh", bw("Wg"), "BF,DF->BD", {tokens_, {}}, r, tensor_);
    matmul("dhn", "dh", bw("Wu"), "BF,DF->BD", residual, r);
  }
  // The second norm's backward reads its input, the residual x + o.
  use("x");
  use("o");
  elementwise("norm2_bwd", "dhn", "do", kBackwardFlops, r, makers({"o"}), kNormBwdPasses);
  const std::string d_o = gathered_gradient("do", r);
  weight_gradient("dWo", use("a"), d_o, "BN,BD->ND", {tensor_, fsdp_}, r, repeats_.layer_update);
  matmul("da", d_o, bw("Wo"), "BD,ND->BN", {tokens_, tensor_}, r);
  // The attention's backward reads the queries, keys and values, and its own output and logsumexp.
  const std::string keys = use(seq_.empty() ? "kv" : "kv_full");
  use("q");
  attention("attention_bwd", "da", "dq", 8.0 * static_cast<double>(w_.seq_len), AttentionPass::backward, w_.seq_len, r,
            makers({"q", keys, "a"}));
  if (seq_.empty()) {
    // dK and dV (their FLOPs are in attention_bwd's): written once, as the kernel writes them.
    elementwise("dkv", keys, "dkv", 0, r, {"attention_bwd"});
  } else {
    // Each chip's queries leave partial sums for the keys of the whole sequence: reduce-scattered back.
    tensor("dkv_partial", {tokens, K, 2 * H}, w_.activation_dtype, {concat(data_, fsdp_), tensor_, {}}, seq_);
    collective("dkv", OpKind::reduce_scatter, "dkv_partial", seq_, "dkv", r, 0, {"attention_bwd"});
  }
  const std::string xn = use(tensor_.empty() ? "xn" : "xn_full");
  weight_gradient("dWq", xn, "dq", "BD,BN->DN", {fsdp_, tensor_}, r, repeats_.layer_update);
  weight_gradient("dWkv", xn, "dkv", "BD,BKJ->DKJ", {fsdp_, tensor_, {}}, r, repeats_.layer_update);
  matmul("dxn_kv", "dkv", bw("Wkv"), "BKJ,DKJ->BD", {tokens_, {}}, r, tensor_);
  matmul("dxn", "dq", bw("Wq"), "BN,DN->BD", residual, r);
  elementwise("norm1_bwd", "dxn", "dx", kBackwardFlops, r, {}, kNormBwdPasses);
}

// The token embedding: a lookup of this chip's vocab rows (after gathering the fsdp shards), partial sums over
// the tensor axes all-reduced (Megatron's vocab-parallel embedding).
void Builder::embedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat) {
  const std::int64_t D = dims_.d_model, V = dims_.vocab;
  weight("emb", {V, D}, {tensor_, fsdp_}, 1);
  std::vector<std::string> after;
  if (!fsdp_.empty()) {
    collective("emb_gather", OpKind::all_gather, "emb", fsdp_, "emb_full", repeat);
    after.push_back("emb_gather");
  }
  tensor("e_rows", {tokens, D}, w_.activation_dtype, {token_axes, {}}, tensor_);
  elementwise("embed", "e_rows", "e", 0, repeat, after);
  if (!tensor_.empty()) collective("embed_sum", OpKind::all_reduce, "e", tensor_, "x0", repeat);
}

// Logits over the vocab sharded on the tensor axes; in training the loss and its gradient, then the backward.
void Builder::unembedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat, bool backward) {
  const std::int64_t D = dims_.d_model, V = dims_.vocab;
  std::string table = "emb", einsum = "BD,VD->BV", grad_einsum = "BV,VD->BD", dw_einsum = "BD,BV->VD";
  std::vector<Axes> table_dims = {tensor_, fsdp_};
  if (!dims_.tied_embeddings) {
    weight("Wun", {D, V}, {fsdp_, tensor_}, 1);
    table = "Wun";
    einsum = "BD,DV->BV";
    grad_einsum = "BV,DV->BD";
    dw_einsum = "BD,BV->DV";
    table_dims = {fsdp_, tensor_};
  }
  tensor("hf", {tokens, D}, w_.activation_dtype, {token_axes, {}});
  matmul("logits", "hf", table, einsum, {token_axes, tensor_}, repeat);
  if (!backward) return;
  phase_ = ModelPhase::backward;
  // The softmax cross-entropy and its gradient, written over the logits (XLA's fusion reuses their buffer: the
  // logits are dead once their gradient exists).
  elementwise("loss", "logits", "logits", kLossFlops, repeat);
  weight_gradient("dWun", "hf", "logits", dw_einsum, table_dims, repeat, 1);
  matmul("dhf", "logits", table, grad_einsum, {token_axes, {}}, repeat);
}

// The embedding's gradient: rows scattered into a [V, D] table of partial sums over the token axes, reduce-
// scattered onto the fsdp shard and all-reduced over the expert and sequence axes each microbatch, and over the
// data axes once per step (gradient accumulation, as weight_gradient).
void Builder::embedding_backward(std::int64_t repeat) {
  tensor("demb_partial", {dims_.vocab, dims_.d_model}, w_.param_dtype, {tensor_, {}}, tokens_);
  std::string current = "demb_partial";
  if (!fsdp_.empty()) {
    collective("demb_scatter", OpKind::reduce_scatter, current, fsdp_, "demb", repeat, 1);
    current = "demb";
  }
  const Axes rest = concat(expert_, seq_);
  if (!rest.empty()) {
    collective("demb_sum", OpKind::all_reduce, current, rest, "demb", repeat);
    current = "demb";
  }
  if (data_.empty()) return;
  phase_ = ModelPhase::step;
  collective("demb_data_sum", OpKind::all_reduce, current, data_, "demb", 1);
}

void Builder::optimizer() {
  phase_ = ModelPhase::step;
  for (const auto& [name, count, place] : weights_) {
    place_ = place;
    elementwise("adam_" + name, "adam_" + name, "adam_" + name, kAdamFlops, count);
  }
}

}  // namespace podsim::model_expansion
