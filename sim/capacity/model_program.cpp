// Model -> scenario program: the tensors of one layer and the edges with shardings from the parallelism, and the ops
// of a step in the order they run (docs/parallelism.md states every convention used here).
#include "sim/capacity/model_program.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "models/model/parallel_fit.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace {

using Axes = std::vector<std::string>;

// FLOPs per element of the elementwise ops (docs/parallelism.md, "Elementwise ops"): small and HBM-bound on TPUs.
constexpr double kNormFlops = 4;        // RMSNorm: square, sum, scale, multiply
constexpr double kActivationFlops = 4;  // SiLU and the gate's product (or GELU)
constexpr double kBackwardFlops = 6;    // the backward of a norm or an activation
constexpr double kLossFlops = 8;        // softmax cross-entropy and its gradient
constexpr double kAdamFlops = 1;
// HBM traffic of the fused elementwise ops, in arrays of their input's size: each array the op is a function of is
// read once and each it makes is written once (docs/parallelism.md, "Elementwise ops").
constexpr double kNormPasses = 4;         // the residual add fused with the RMSNorm: reads the stream and the branch,
                                          // writes the new stream and the norm
constexpr double kNormBwdPasses = 4;      // reads the norm's gradient, its input and the stream's gradient; writes one
constexpr double kGatedActPasses = 3;     // reads the gate and up projections, writes their product
constexpr double kGatedActBwdPasses = 5;  // reads the product's gradient and both projections, writes both gradients
constexpr double kPlainActBwdPasses = 3;  // reads the gradient and the projection, writes one
constexpr double kMaskFlops = 4;  // a dense MoE dispatch's mask: one-hot, position count, capacity test, weight // per
                                  // byte of the update's byte view: about 11 FLOPs per parameter

Axes concat(const Axes& a, const Axes& b) {
  Axes out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

class Builder {
 public:
  Builder(const TransformerDims& dims, const Workload& workload, const Candidate& candidate,
          const ScenarioOptions& options)
      : dims_(dims), w_(workload) {
    spec_.name = "model";
    spec_.hardware = candidate.hardware;
    spec_.slice_shape = candidate.slice;
    if (!candidate.wraparound.empty()) spec_.wrap = WrapChoice{WrapMode::listed, candidate.wraparound};
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
    repeats_ = step_repeats(dims, workload);
    placements_ = tensor_placements(workload.remat);
  }

  ModelProgram build() {
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
    return out;
  }

 private:
  // Shardy text of a sharding on the candidate's mesh: one axis list per dim, then the unreduced axes.
  std::string sharding(const std::vector<Axes>& dims, const Axes& unreduced = {}) const {
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

  void tensor(const std::string& name, Shape shape, DType dtype, const std::vector<Axes>& dims,
              const Axes& unreduced = {}) {
    ScenarioTensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.sharding.text = sharding(dims, unreduced);
    spec_.tensors.push_back(std::move(t));
  }

  // A weight (`count` of them in the model) and, in training, its Adam update's state: a byte view of the shard,
  // [..., 11] (15 with master weights), whose read and write move what Adam moves per parameter (docs).
  void weight(const std::string& name, Shape shape, const std::vector<Axes>& dims, std::int64_t count) {
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

  // Bytes Adam reads and writes per parameter, halved (an elementwise op reads and writes its tensor): parameters
  // read and written, gradients read, two fp32 moments read and written (and an fp32 master copy).
  std::int64_t adam_view_bytes() const {
    const std::int64_t p = dtype_bits(w_.param_dtype) / 8;
    const std::int64_t moved = 3 * p + 16 + (w_.master_weights ? 8 : 0);
    return (moved + 1) / 2;
  }

  ScenarioOp& op(const std::string& name, OpKind kind, OpDetail detail, const std::string& out, std::int64_t repeat,
                 std::vector<std::string> after = {}) {
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

  ScenarioOp& matmul(const std::string& out, const std::string& lhs, const std::string& rhs, const std::string& einsum,
                     const std::vector<Axes>& out_dims, std::int64_t repeat, const Axes& unreduced = {}) {
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
  void weight_gradient(const std::string& out, const std::string& lhs, const std::string& rhs,
                       const std::string& einsum, const std::vector<Axes>& out_dims, std::int64_t repeat,
                       std::int64_t per_step) {
    matmul(out, lhs, rhs, einsum, out_dims, repeat, data_);
    if (data_.empty()) return;
    const ModelPhase phase = phase_;
    phase_ = ModelPhase::step;
    collective(out + "_sum", OpKind::all_reduce, out, data_, out, per_step);
    phase_ = phase;
  }

  void elementwise(const std::string& name, const std::string& in, const std::string& out, double flops,
                   std::int64_t repeat, std::vector<std::string> after = {}, double passes = 2) {
    ElementwiseOp e{in, flops};
    e.tensor_passes = passes;
    op(name, OpKind::elementwise, std::move(e), out, repeat, std::move(after));
  }

  // A causal flash attention's pass over `context` keys per query: an elementwise op of its FLOPs that a calibrated
  // des times by the preset's attention curves (models/hardware/calibration.hpp).
  void attention(const std::string& name, const std::string& in, const std::string& out, double flops,
                 AttentionPass pass, std::int64_t context, std::int64_t repeat, std::vector<std::string> after) {
    op(name, OpKind::elementwise, ElementwiseOp{in, flops, pass, context}, out, repeat, std::move(after));
  }

  void collective(const std::string& name, OpKind kind, const std::string& in, const Axes& axes, const std::string& out,
                  std::int64_t repeat, int dim = -1, std::vector<std::string> after = {}, int from_dim = -1,
                  int to_dim = -1) {
    CollectiveOp c;
    c.tensor = in;
    c.axes = axes;
    c.dim = dim;
    c.from_dim = from_dim;
    c.to_dim = to_dim;
    op(name, kind, std::move(c), out, repeat, std::move(after));
  }

  // The layer's weights, Megatron-style on the tensor axes and ZeRO-3 on the fsdp axes.
  void layer_weights() {
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

  bool moe() const { return dims_.experts > 1; }

  // How `tokens` tokens' routed rows land on the experts (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the
  // slots per expert that size the buffers, the all-to-alls and the expert matmuls (dense: every group's capacity,
  // padded; dropless: the busiest expert shard's routed rows per expert).
  ExpertLoad load(std::int64_t tokens) const {
    std::int64_t shards = 1;
    for (const auto& axis : expert_)
      shards *= mesh_.axis_size(axis);
    return expert_load(w_, tokens, dims_.experts_per_token, dims_.experts, shards);
  }

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
            std::optional<LayerTensor> tag = std::nullopt, std::vector<std::string> also = {}) {
    ForwardValue v;
    for (std::size_t i = spec_.program.size() - ops; i < spec_.program.size(); ++i)
      v.ops.push_back(i);
    v.inputs = std::move(inputs);
    v.tag = tag;
    v.also = std::move(also);
    values_[value] = std::move(v);
  }

  // Where the value lives between the forward and the backward: its tag's placement; a value without a tag (a norm's
  // or the activation's output) is saved only when the policy saves everything ("none").
  // The norm's output `value` ([tokens, D] with D over the tensor axes) gathered whole for the column-parallel products
  // that read it (Megatron's sequence parallelism: one all-gather shared by the products, as XLA shares it), or
  // `value` itself without tensor axes. The gathered copy is never saved: the backward gathers it again.
  std::string whole_d(const std::string& value, std::int64_t repeat) {
    if (tensor_.empty()) return value;
    const std::string out = value + "_full";
    collective(value + "_gather", OpKind::all_gather, value, tensor_, out, repeat);
    made(out, 1, {value});
    values_[out].regathered = true;
    return out;
  }

  // The residual stream's gradient `name` gathered whole over the tensor axes once for the two backward products that
  // read it (the weight's gradient and the input's), as XLA shares one gather; `name` itself without tensor axes.
  std::string gathered_gradient(const std::string& name, std::int64_t repeat) {
    if (tensor_.empty()) return name;
    collective(name + "_gather", OpKind::all_gather, name, tensor_, name + "_full", repeat);
    return name + "_full";
  }

  TensorPlacement placement(const ForwardValue& v) const {
    if (v.regathered) return TensorPlacement::remat;
    // K and V are one fused projection here: saved when either is, where key_proj says (value_proj's place when
    // key_proj is recomputed).
    if (v.tag == LayerTensor::key_proj && placement_of(placements_, LayerTensor::key_proj) == TensorPlacement::remat)
      return placement_of(placements_, LayerTensor::value_proj);
    if (v.tag) return placement_of(placements_, *v.tag);
    return w_.remat.recomputes() ? TensorPlacement::remat : TensorPlacement::device;
  }

  // The tensor the backward reads for `value`: the forward's, when saved (recorded in saved_ once), else a
  // recomputed copy (made once, by clones of its ops placed before the first backward op that needs it).
  std::string use(const std::string& value) {
    if (const auto found = backward_name_.find(value); found != backward_name_.end()) return found->second;
    const auto v = values_.find(value);
    if (v == values_.end()) return value;  // a declared tensor of the backward (dy, ...)
    const TensorPlacement where = placement(v->second);
    if (where != TensorPlacement::remat) {
      saved_.push_back({value, where, v->second.tag});
      for (const auto& also : v->second.also)
        saved_.push_back({also, where, v->second.tag});
      backward_name_[value] = value;
      return value;
    }
    std::map<std::string, std::string> renamed;
    for (const auto& input : v->second.inputs)
      renamed[input] = use(input);
    for (const std::size_t index : v->second.ops)
      recompute(index, renamed, !v->second.regathered);
    backward_name_[value] = renamed.at(value);
    return renamed.at(value);
  }

  // Clones the forward op `index` into the backward, reading `renamed` values (and the weight gathered for the
  // backward), writing `NAME_re`; adds its out to `renamed`.
  // `recomputed`: false for a gathered copy's gather (a backward collective, not recomputed work).
  void recompute(std::size_t index, std::map<std::string, std::string>& renamed, bool recomputed) {
    ScenarioOp o = spec_.program[index];
    const auto read = [&](const std::string& t) {
      const auto r = renamed.find(t);
      if (r != renamed.end()) return r->second;
      return is_weight(t) ? backward_weight(t) : t;
    };
    o.name += "_re";
    std::visit(
        [&](auto& d) {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, MatmulOp>) {
            d.lhs = read(d.lhs);
            d.rhs = read(d.rhs);
          } else if constexpr (std::is_same_v<D, ElementwiseOp> || std::is_same_v<D, CollectiveOp> ||
                               std::is_same_v<D, LoadOp>) {
            d.tensor = read(d.tensor);
          }
        },
        o.detail);
    for (auto& after : o.after)
      if (const auto clone = cloned_op_.find(after); clone != cloned_op_.end()) after = clone->second;
    const std::string out = o.out + "_re";
    cloned_op_[spec_.program[index].name] = o.name;
    renamed[o.out] = out;
    o.out = out;
    o.inputs.clear();
    spec_.program.push_back(std::move(o));
    op_repeats_.push_back(repeats_.layer_backward);
    op_roles_.push_back({ModelPlace::layer, ModelPhase::backward, recomputed});
  }

  bool is_weight(const std::string& name) const { return weight_dims_.count(name) > 0; }

  // The weight the backward's ops read: under FSDP, once a recomputed op has gathered it (explicitly, over the fsdp
  // axes), the backward's own products read that gathered copy too, as XLA gathers a weight once per backward.
  std::string backward_weight(const std::string& weight) {
    if (fsdp_.empty() || phase_ != ModelPhase::backward) return weight;
    if (const auto g = gathered_.find(weight); g != gathered_.end()) return g->second;
    const std::vector<Axes>& dims = weight_dims_.at(weight);
    if (std::none_of(dims.begin(), dims.end(), [&](const Axes& a) { return a == fsdp_; })) return weight;
    const std::string out = weight + "_bwd";
    collective(weight + "_gather_bwd", OpKind::all_gather, weight, fsdp_, out, repeats_.layer_backward);
    gathered_[weight] = out;
    return out;
  }

  // A weight a backward op reads: the gathered copy when a recomputation gathered it.
  std::string bw(const std::string& weight) const {
    const auto g = gathered_.find(weight);
    return g == gathered_.end() ? weight : g->second;
  }

  bool dense_dispatch() const { return w_.moe_dispatch == MoeDispatch::dense; }

  // A mixture of experts' MLP forward (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the router; each token's
  // rows put into its experts' buffers [E, slots, D] (dense: the one-hot dispatch einsum into every group's capacity
  // slots; dropless: the routed rows sorted by expert), the all-to-all over the expert axes, the experts' MLPs as
  // batched matmuls over the experts dim, and the results combined back (the reverse all-to-all, then the combine
  // einsum or the weighted sum of each token's k rows).
  void moe_forward(std::int64_t tokens, const std::string& hn) {
    const ExpertLoad routed = load(tokens);
    const std::int64_t r = repeats_.layer_forward, E = dims_.experts, slots = routed.slots, D = dims_.d_model;
    const bool gated = dims_.mlp == MlpKind::gated, dense = dense_dispatch();
    matmul("router", hn, "Wr", "BD,DE->BE", {tokens_, {}}, r);
    made("router", 1, {hn});
    tensor("xe_rows", {E, slots, D}, w_.activation_dtype, {{}, dispatch_, {}});
    // `value`: the last dispatch op's output (what the backward reads), made by the op `maker`; `send`: the buffer
    // [E, slots, D] the all-to-all sends (the dense einsum's [E, G, C, D] output seen at its slots).
    std::string value = "xe_send", maker = "route", send = "xe_send";
    std::vector<std::string> inputs = {hn, "router"};
    if (dense) {
      dense_masks(routed, r);
      tensor("hn_groups", {routed.groups, routed.group_tokens, D}, w_.activation_dtype, {dispatch_, {}, {}});
      matmul("xe_disp", "hn_groups", "dispatch_mask", "GSD,GSEC->EGCD", {{}, dispatch_, {}, {}}, r);
      value = maker = "xe_disp";
      send = "xe_rows";
      inputs = {hn, "dispatch_mask"};
    } else {
      elementwise("route", "xe_rows", "xe_send", 0, r, {"router"});
    }
    std::size_t dispatch_ops = 1;
    if (!expert_.empty()) {
      collective("dispatch", OpKind::all_to_all, send, expert_, "xe", r, -1, after_if(maker, value, send), 1, 0);
      value = "xe";
      maker = "dispatch";
      send = "xe";
      ++dispatch_ops;
    }
    made(value, dispatch_ops, inputs);
    const std::string xe = send;
    const std::vector<Axes> hidden = {expert_, slot_axes_, tensor_};
    if (gated) {
      after(matmul("hg", xe, "Weg", "ECD,EDF->ECF", hidden, r), maker, value, xe);
      made("hg", 1, {value}, LayerTensor::mlpwi_0);
    }
    after(matmul("hu", xe, "Weu", "ECD,EDF->ECF", hidden, r), maker, value, xe);
    made("hu", 1, {value}, LayerTensor::mlpwi_1);
    elementwise("act", gated ? "hg" : "hu", "g", kActivationFlops, r,
                gated ? std::vector<std::string>{"hu"} : std::vector<std::string>{}, gated ? kGatedActPasses : 2);
    made("g", 1, gated ? std::vector<std::string>{"hg", "hu"} : std::vector<std::string>{"hu"});
    matmul("ye", "g", "Wed", "ECF,EFD->ECD", {expert_, slot_axes_, {}}, r);
    made("ye", 1, {"g"}, LayerTensor::mlpwo);
    std::string ye = "ye", ye_maker = "ye";
    if (!expert_.empty()) {
      collective("combine_a2a", OpKind::all_to_all, ye, expert_, "ye_back", r, -1, {}, 0, 1);
      ye = "ye_back";
      ye_maker = "combine_a2a";
      made("ye_back", 1, {"ye"});
    }
    if (dense) {
      // The combine einsum: each token's output summed over its experts' slots, weighted by the combine mask.
      tensor("ye_groups", {E, routed.groups, routed.group_capacity, D}, w_.activation_dtype, {{}, dispatch_, {}, {}});
      matmul("y", "ye_groups", "combine_mask", "EGCD,GSEC->GSD", {dispatch_, {}, {}}, r).after.push_back(ye_maker);
    } else {
      elementwise("combine", ye, "y", 2, r);
    }
  }

  // The dense dispatch's one-hot masks [G, S, E, C] in HBM, made from the router's top-k as MaxText's generate_masks
  // makes them: the combine mask (the router's weight on each token's kept slot, 0 elsewhere) and the dispatch mask
  // (its 0/1 copy). The groups are spread over the token axes.
  void dense_masks(const ExpertLoad& routed, std::int64_t r) {
    const Shape shape = {routed.groups, routed.group_tokens, dims_.experts, routed.group_capacity};
    tensor("mask_rows", shape, w_.activation_dtype, {dispatch_, {}, {}, {}});
    elementwise("masks", "mask_rows", "combine_mask", kMaskFlops, r, {"router"});
    made("combine_mask", 1, {"router"});
    elementwise("dispatch_mask", "combine_mask", "dispatch_mask", 1, r);
    made("dispatch_mask", 1, {"combine_mask"});
  }

  // Orders `o` after the op `made_by` when `o` reads a stand-in (`read` != `made`) instead of that op's output.
  static void after(ScenarioOp& o, const std::string& made_by, const std::string& made, const std::string& read) {
    if (made != read) o.after.push_back(made_by);
  }

  // Ops to order after `op` when `read` stands in for its output `made`.
  static std::vector<std::string> after_if(const std::string& op, const std::string& made, const std::string& read) {
    return made == read ? std::vector<std::string>{} : std::vector<std::string>{op};
  }

  // The ops that made `values` for the backward (their recomputed clones, else their forward ops): what a backward op
  // that reads them besides its own operand waits for. A declared value (the layer input) has none.
  std::vector<std::string> makers(const std::vector<std::string>& values) const {
    std::vector<std::string> out;
    for (const auto& value : values) {
      const auto v = values_.find(value);
      if (v == values_.end() || v->second.ops.empty()) continue;
      const std::string& op = spec_.program[v->second.ops.back()].name;
      const auto clone = cloned_op_.find(op);
      out.push_back(clone == cloned_op_.end() ? op : clone->second);
    }
    return out;
  }

  // Its backward: the combine's gradient (dense: the combine einsum's two gradients, to the experts' outputs and to
  // the combine mask; dropless: the weighted sum's) sent to the experts like the tokens, two matmuls per expert
  // matmul, the inputs' gradients sent back and summed per token (dense: the dispatch einsum's gradient).
  void moe_backward(std::int64_t tokens) {
    const ExpertLoad routed = load(tokens);
    const std::int64_t r = repeats_.layer_backward, E = dims_.experts, slots = routed.slots, D = dims_.d_model;
    const std::int64_t G = routed.groups, S = routed.group_tokens, C = routed.group_capacity;
    const bool gated = dims_.mlp == MlpKind::gated, dense = dense_dispatch();
    // The combine's backward reads the experts' outputs (the router's gradient) and the router's weights (in the
    // combine mask, under dense).
    const std::string combined = expert_.empty() ? "ye" : "ye_back";
    use(combined);
    tensor("dye_rows", {E, slots, D}, w_.activation_dtype, {{}, dispatch_, {}});
    // `dye_value` made by the op `dye_made`; the expert matmuls read `dye` (a stand-in when the two differ).
    std::string dye = "dye_send", dye_value = "dye_send", dye_made = "combine_bwd";
    if (dense) {
      const std::string mask = use("combine_mask");
      const std::vector<std::string> ye_made = makers({combined});
      tensor("dy_groups", {G, S, D}, w_.activation_dtype, {dispatch_, {}, {}});
      matmul("dye_disp", "dy_groups", mask, "GSD,GSEC->EGCD", {{}, dispatch_, {}, {}}, r);
      matmul("dcombine_mask", "ye_groups", "dy_groups", "EGCD,GSD->GSEC", {dispatch_, {}, {}, {}}, r).after = ye_made;
      dye = "dye_rows";
      dye_value = dye_made = "dye_disp";
    } else {
      use("router");
      elementwise("combine_bwd", "dye_rows", "dye_send", 2, r, makers({combined, "router"}));
    }
    if (!expert_.empty()) {
      collective("combine_a2a_bwd", OpKind::all_to_all, dye, expert_, "dye", r, -1, after_if(dye_made, dye_value, dye),
                 1, 0);
      dye = dye_value = "dye";
      dye_made = "combine_a2a_bwd";
    }
    const std::vector<Axes> hidden = {expert_, slot_axes_, tensor_};
    after(matmul("dWed", use("g"), dye, "ECF,ECD->EFD", {expert_, tensor_, fsdp_}, r), dye_made, dye_value, dye);
    after(matmul("dg", dye, bw("Wed"), "ECD,EFD->ECF", hidden, r), dye_made, dye_value, dye);
    // The activation's backward reads the gate's and the up projection's outputs.
    const std::vector<std::string> mlp_in =
        gated ? std::vector<std::string>{"hg", "hu"} : std::vector<std::string>{"hu"};
    for (const auto& value : mlp_in)
      use(value);
    elementwise("act_bwd", "dg", "dh", kBackwardFlops, r, makers(mlp_in),
                gated ? kGatedActBwdPasses : kPlainActBwdPasses);
    // The expert weights' gradients read the dispatched tokens (under dense without expert axes, the einsum's output
    // seen at its slots).
    const std::string xe_value = !expert_.empty() ? "xe" : dense ? "xe_disp" : "xe_send";
    const std::string xe_used = use(xe_value);
    const std::string xe = dense && expert_.empty() ? "xe_rows" : xe_used;
    const std::string xe_made = makers({xe_value})[0];
    if (gated) after(matmul("dWeg", xe, "dh", "ECD,ECF->EDF", {expert_, fsdp_, tensor_}, r), xe_made, xe_used, xe);
    after(matmul("dWeu", xe, "dh", "ECD,ECF->EDF", {expert_, fsdp_, tensor_}, r), xe_made, xe_used, xe);
    if (gated) matmul("dxe_g", "dh", bw("Weg"), "ECF,EDF->ECD", {expert_, slot_axes_, {}}, r, tensor_);
    matmul("dxe", "dh", bw("Weu"), "ECF,EDF->ECD", {expert_, slot_axes_, {}}, r);
    std::string dxe_made = "dxe";
    if (!expert_.empty()) {
      collective("dispatch_bwd", OpKind::all_to_all, "dxe", expert_, "dxe_back", r, -1, {}, 0, 1);
      dxe_made = "dispatch_bwd";
    }
    // The router's gradient (its logits' gradient from the combine weights), and each token's k rows summed (dense:
    // by the dispatch einsum's gradient, [G, S, D], handed to the residual stream's [tokens, D] by `unroute`).
    tensor("drouter", {tokens, E}, w_.activation_dtype, {tokens_, {}});
    const std::string hn = use(tensor_.empty() ? "hn" : "hn_full");
    ScenarioOp& router_gradient = matmul("dWr", hn, "drouter", "BD,BE->DE", {fsdp_, {}}, r);
    if (dense) router_gradient.after.push_back("dcombine_mask");
    std::string unrouted_after = dxe_made;
    double unroute_flops = static_cast<double>(dims_.experts_per_token);
    if (dense) {
      const std::string mask = use("dispatch_mask");
      tensor("dxe_groups", {E, G, C, D}, w_.activation_dtype, {{}, dispatch_, {}, {}});
      matmul("dhn_groups", "dxe_groups", mask, "EGCD,GSEC->GSD", {dispatch_, {}, {}}, r).after.push_back(dxe_made);
      unrouted_after = "dhn_groups";
      unroute_flops = 0;
    }
    tensor("dhn_rows", {tokens, D}, w_.activation_dtype, {tokens_, tensor_});
    elementwise("unroute", "dhn_rows", "dhn", unroute_flops, r, {unrouted_after});
  }

  // One layer's forward over `tokens` tokens attending to `context` positions; `kv_cache`: decode reads the cache.
  // The residual stream ([tokens, D]: the layer's input, the out and down projections' outputs) has d_model over the
  // tensor axes, as MaxText's activation_embed rule shards it (Megatron's sequence parallelism): the row-parallel
  // products reduce-scatter onto it and the next column-parallel product gathers it back.
  void layer_forward(std::int64_t tokens, std::int64_t context, bool kv_cache) {
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
  void layer_backward(std::int64_t tokens) {
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
    attention("attention_bwd", "da", "dq", 8.0 * static_cast<double>(w_.seq_len), AttentionPass::backward, w_.seq_len,
              r, makers({"q", keys, "a"}));
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
  void embedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat) {
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
  void unembedding(std::int64_t tokens, const Axes& token_axes, std::int64_t repeat, bool backward) {
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
  void embedding_backward(std::int64_t repeat) {
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

  void optimizer() {
    phase_ = ModelPhase::step;
    for (const auto& [name, count, place] : weights_) {
      place_ = place;
      elementwise("adam_" + name, "adam_" + name, "adam_" + name, kAdamFlops, count);
    }
  }

  void at(ModelPlace place, ModelPhase phase) {
    place_ = place;
    phase_ = phase;
  }

  void train() {
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

  void serve() {
    const bool decode = w_.mode == WorkloadMode::decode;
    const std::int64_t tokens = decode ? w_.batch : w_.batch * w_.context;
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

  const TransformerDims& dims_;
  const Workload& w_;
  ScenarioSpec spec_;
  std::string mesh_name_;
  Mesh mesh_;
  Axes tokens_, data_, fsdp_, seq_, tensor_, expert_, dispatch_, slot_axes_;
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

}  // namespace

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
  return Builder(dims, effective, candidate, options).build();
}

}  // namespace podsim
