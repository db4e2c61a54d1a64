// The builder behind expand_model (model_program.hpp): one object that writes a candidate's step program op by op.
// Its parts live by what they decide: model_program.cpp (tensors, shardings, ops, the step's order),
// model_program_layer.cpp (a layer's forward and backward, the embedding, the unembedding, the optimizer),
// model_program_moe.cpp (a mixture of experts' MLP), model_program_remat.cpp (the forward's values and which of them
// the backward reads as saved or recomputes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/capacity/model_program.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::model_expansion {

using Axes = std::vector<std::string>;

// FLOPs per element of the elementwise ops (docs/parallelism.md, "Elementwise ops"): small and HBM-bound on TPUs.
inline constexpr double kNormFlops = 4;        // RMSNorm: square, sum, scale, multiply
inline constexpr double kActivationFlops = 4;  // SiLU and the gate's product (or GELU)
inline constexpr double kBackwardFlops = 6;    // the backward of a norm or an activation
inline constexpr double kLossFlops = 8;        // softmax cross-entropy and its gradient
inline constexpr double kAdamFlops = 1;
// HBM traffic of the fused elementwise ops, in arrays of their input's size: each array the op is a function of is
// read once and each it makes is written once (docs/parallelism.md, "Elementwise ops").
inline constexpr double kNormPasses = 4;  // the residual add fused with the RMSNorm: reads the stream and the branch,
                                          // writes the new stream and the norm
inline constexpr double kNormBwdPasses =
    4;  // reads the norm's gradient, its input and the stream's gradient; writes one
inline constexpr double kGatedActPasses = 3;  // reads the gate and up projections, writes their product
inline constexpr double kGatedActBwdPasses =
    5;  // reads the product's gradient and both projections, writes both gradients
inline constexpr double kPlainActBwdPasses = 3;  // reads the gradient and the projection, writes one
inline constexpr double kMaskFlops = 4;  // a dense MoE dispatch's mask: one-hot, position count, capacity test, weight
                                         // // per byte of the update's byte view: about 11 FLOPs per parameter

inline Axes concat(const Axes& a, const Axes& b) {
  Axes out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

class Builder {
 public:
  Builder(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
          const ScenarioOptions& options);

  ModelProgram build();

 private:
  // Shardy text of a sharding on the candidate's mesh: one axis list per dim, then the unreduced axes.
  std::string sharding(const std::vector<Axes>& dims, const Axes& unreduced = {}) const;

  void tensor(const std::string& name, Shape shape, DType dtype, const std::vector<Axes>& dims,
              const Axes& unreduced = {});

  // A weight (`count` of them in the model) and, in training, its Adam update's state: a byte view of the shard,
  // [..., 11] (15 with master weights), whose read and write move what Adam moves per parameter (docs).
  void weight(const std::string& name, Shape shape, const std::vector<Axes>& dims, std::int64_t count);

  // Bytes Adam reads and writes per parameter, halved (an elementwise op reads and writes its tensor): parameters
  // read and written, gradients read, Adam's state (optimizer_bytes_per_param) read and written.
  std::int64_t adam_view_bytes() const {
    const std::int64_t p = dtype_bits(w_.param_dtype) / 8;
    const auto moved = 3 * p + 2 * static_cast<std::int64_t>(optimizer_bytes_per_param(w_.master_weights));
    return (moved + 1) / 2;
  }

  ScenarioOp& op(const std::string& name, OpKind kind, OpDetail detail, const std::string& out, std::int64_t repeat,
                 std::vector<std::string> after = {});

  ScenarioOp& matmul(const std::string& out, const std::string& lhs, const std::string& rhs, const std::string& einsum,
                     const std::vector<Axes>& out_dims, std::int64_t repeat, const Axes& unreduced = {});

  // A weight's gradient under gradient accumulation: each microbatch's matmul leaves partial sums over the token
  // axes, reduce-scattered onto the fsdp shard and summed over the expert and sequence axes at once (`repeat` times);
  // the data axes stay unreduced while the microbatches accumulate, and are all-reduced once per step
  // (`per_step` times: once per layer).
  void weight_gradient(const std::string& out, const std::string& lhs, const std::string& rhs,
                       const std::string& einsum, const std::vector<Axes>& out_dims, std::int64_t repeat,
                       std::int64_t per_step);

  void elementwise(const std::string& name, const std::string& in, const std::string& out, double flops,
                   std::int64_t repeat, std::vector<std::string> after = {}, double passes = 2);

  // A causal flash attention's pass over `context` keys per query: an elementwise op of its FLOPs that a calibrated
  // des times by the preset's attention curves (models/hardware/calibration.hpp).
  void attention(const std::string& name, const std::string& in, const std::string& out, double flops,
                 AttentionPass pass, std::int64_t context, std::int64_t repeat, std::vector<std::string> after);

  void collective(const std::string& name, OpKind kind, const std::string& in, const Axes& axes, const std::string& out,
                  std::int64_t repeat, int dim = -1, std::vector<std::string> after = {}, int from_dim = -1,
                  int to_dim = -1);

  // The layer's weights, Megatron-style on the tensor axes and ZeRO-3 on the fsdp axes.
  void layer_weights();

  bool moe() const { return dims_.experts > 1; }

  // How `tokens` tokens' routed rows land on the experts (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the
  // slots per expert that size the buffers, the all-to-alls and the expert matmuls (dense: every group's capacity,
  // padded; dropless: the busiest expert shard's routed rows per expert).
  ExpertLoad load(std::int64_t tokens) const;

  // How many shards `axes` make on the mesh: the product of their sizes.
  std::uint64_t shards(const Axes& axes) const;

  // --- The forward's values and the backward's reads (docs/capacity.md, "Rematerialisation") ---
  //
  // Each value of a layer's forward is recorded with the ops that make it, the values they read and the MaxText name
  // it carries (if any). The backward asks for the values it reads through `use`: a value the policy saves is read as
  // the forward left it (on the device, or brought back from the host); any other is recomputed in the backward by
  // clones of the ops that made it, from values that are themselves saved or recomputed. So a policy's recomputed
  // work and its saved bytes are counted from the layer's own ops, and a value the backward never reads is never
  // saved.

  struct ForwardValue {
    std::vector<std::size_t> ops;     // indices into spec_.program of the ops that make it, in order
    std::vector<std::string> inputs;  // the values those ops read (the weights are not values)
    std::optional<LayerTensor> tag;   // MaxText's checkpoint name
    std::vector<std::string> also;    // declared tensors saved with it (the attention's logsumexp)
    bool regathered = false;          // a gathered copy of another value: never saved, gathered again
  };

  // Records that the last `ops` ops made `value` from `inputs`.
  void made(const std::string& value, std::size_t ops, std::vector<std::string> inputs,
            std::optional<LayerTensor> tag = std::nullopt, std::vector<std::string> also = {});

  // The norm's output `value` ([tokens, D] with D over the tensor axes) gathered whole for the column-parallel products
  // that read it (Megatron's sequence parallelism: one all-gather shared by the products, as XLA shares it), or
  // `value` itself without tensor axes. The gathered copy is never saved: the backward gathers it again.
  std::string whole_d(const std::string& value, std::int64_t repeat);

  // The residual stream's gradient `name` gathered whole over the tensor axes once for the two backward products that
  // read it (the weight's gradient and the input's), as XLA shares one gather; `name` itself without tensor axes.
  std::string gathered_gradient(const std::string& name, std::int64_t repeat);

  // Where the value lives between the forward and the backward: its tag's placement; a value without a tag (a norm's
  // or the activation's output) is saved only when the policy saves everything ("none").
  TensorPlacement placement(const ForwardValue& v) const;

  // The tensor the backward reads for `value`: the forward's, when saved (recorded in saved_ once), else a
  // recomputed copy (made once, by clones of its ops placed before the first backward op that needs it).
  std::string use(const std::string& value);

  // Clones the forward op `index` into the backward, reading `renamed` values (and the weight gathered for the
  // backward), writing `NAME_re`; adds its out to `renamed`.
  // `recomputed`: false for a gathered copy's gather (a backward collective, not recomputed work).
  void recompute(std::size_t index, std::map<std::string, std::string>& renamed, bool recomputed);

  bool is_weight(const std::string& name) const { return weight_dims_.count(name) > 0; }

  // The weight the backward's ops read: under FSDP, once a recomputed op has gathered it (explicitly, over the fsdp
  // axes), the backward's own products read that gathered copy too, as XLA gathers a weight once per backward.
  std::string backward_weight(const std::string& weight);

  // A weight a backward op reads: the gathered copy when a recomputation gathered it.
  std::string bw(const std::string& weight) const;

  bool dense_dispatch() const { return w_.moe_dispatch == MoeDispatch::dense; }

  // A mixture of experts' MLP forward (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the router; each token's
  // rows put into its experts' buffers [E, slots, D] (dense: the one-hot dispatch einsum into every group's capacity
  // slots; dropless: the routed rows sorted by expert), the all-to-all over the expert axes, the experts' MLPs as
  // batched matmuls over the experts dim, and the results combined back (the reverse all-to-all, then the combine
  // einsum or the weighted sum of each token's k rows).
  void moe_forward(std::int64_t tokens, const std::string& hn);

  // The dense dispatch's one-hot masks [G, S, E, C] in HBM, made from the router's top-k as MaxText's generate_masks
  // makes them: the combine mask (the router's weight on each token's kept slot, 0 elsewhere) and the dispatch mask
  // (its 0/1 copy). The groups are spread over the token axes.
  void dense_masks(const ExpertLoad& routed, std::int64_t r);

  // Orders `o` after the op `made_by` when `o` reads a stand-in (`read` != `made`) instead of that op's output.
  static void after(ScenarioOp& o, const std::string& made_by, const std::string& made, const std::string& read);

  // Ops to order after `op` when `read` stands in for its output `made`.
  static std::vector<std::string> after_if(const std::string& op, const std::string& made, const std::string& read);

  // The ops that made `values` for the backward (their recomputed clones, else their forward ops): what a backward op
  // that reads them besides its own operand waits for. A declared value (the layer input) has none.
  std::vector<std::string> makers(const std::vector<std::string>& values) const;

  // Its backward: the combine's gradient (dense: the combine einsum's two gradients, to the experts' outputs and to
  // the combine mask; dropless: the weighted sum's) sent to the experts like the tokens, two matmuls per expert
  // matmul, the inputs' gradients sent back and summed per token (dense: the dispatch einsum's gradient).
  void moe_backward(std::int64_t tokens);

  // One layer's forward over `tokens` tokens attending to `context` positions; `kv_cache`: decode reads the cache.
  // The residual stream ([tokens, D]: the layer's input, the out and down projections' outputs) has d_model over the
  // tensor axes, as MaxText's activation_embed rule shards it (Megatron's sequence parallelism): the row-parallel
  // products reduce-scatter onto it and the next column-parallel product gathers it back.
  void layer_forward(std::int64_t tokens, std::int64_t context, bool kv_cache);

  // The layer's backward: two matmuls per forward matmul, the attention products' backward (twice the forward's).
  // Every forward value it reads goes through `use`, which recomputes what the remat policy did not save.
  void layer_backward(std::int64_t tokens);

  // The token embedding: a lookup of this chip's vocab rows (after gathering the fsdp shards), partial sums over
  // the tensor axes all-reduced (Megatron's vocab-parallel embedding).
  void embedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat);

  // Logits over the vocab sharded on the tensor axes; in training the loss and its gradient, then the backward.
  void unembedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat, bool backward);

  // The embedding's gradient: rows scattered into a [V, D] table of partial sums over the token axes, reduce-
  // scattered onto the fsdp shard and all-reduced over the expert and sequence axes each microbatch, and over the
  // data axes once per step (gradient accumulation, as weight_gradient).
  void embedding_backward(std::int64_t repeat);

  void optimizer();

  void at(ModelPlace place, ModelPhase phase);

  void train();

  void serve();

  const TransformerDims& dims_;
  const Workload& w_;
  ScenarioSpec spec_;
  std::string mesh_name_;
  Mesh mesh_;
  Axes tokens_, data_, fsdp_, seq_, tensor_, expert_, dispatch_, slot_axes_;
  ModelAxes axes_;  // what the program's memory and pipeline read of the parallelism
  StepRepeats repeats_;
  TensorPlacements placements_;                           // of the layer's named tensors, by the remat policy
  std::map<std::string, ForwardValue> values_;            // the layer's forward values
  std::map<std::string, std::string> backward_name_;      // value -> the tensor the backward reads for it
  std::map<std::string, std::string> cloned_op_;          // forward op -> its recomputed clone
  std::map<std::string, std::string> gathered_;           // weight -> its copy gathered for the backward
  std::map<std::string, std::vector<Axes>> weight_dims_;  // weight -> its sharding's axes per dim
  std::vector<SavedTensor> saved_;
  std::vector<std::int64_t> op_repeats_;
  std::vector<ModelOpRole> op_roles_;
  std::vector<ModelStateTensor> state_;
  struct TrainedWeight {
    std::string name;
    std::int64_t count;
    ModelPlace place;
  };
  std::vector<TrainedWeight> weights_;    // trained weights, their counts and places
  ModelPlace place_ = ModelPlace::layer;  // of the ops and weights being written
  ModelPhase phase_ = ModelPhase::forward;
};

}  // namespace podsim::model_expansion
