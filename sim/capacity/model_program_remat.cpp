// The forward's values and the backward's reads (docs/capacity.md, "Rematerialisation"): what the remat policy saves
// is read as the forward left it; the rest is recomputed by clones of the ops that made it.
#include "sim/capacity/model_program_builder.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace podsim::model_expansion {

// Records that the last `ops` ops made `value` from `inputs`.
void Builder::made(const std::string& value, std::size_t ops, std::vector<std::string> inputs,
                   std::optional<LayerTensor> tag, std::vector<std::string> also) {
  ForwardValue v;
  for (std::size_t i = spec_.program.size() - ops; i < spec_.program.size(); ++i)
    v.ops.push_back(i);
  v.inputs = std::move(inputs);
  v.tag = tag;
  v.also = std::move(also);
  values_[value] = std::move(v);
}

// The norm's output `value` ([tokens, D] with D over the tensor axes) gathered whole for the column-parallel products
// that read it (Megatron's sequence parallelism: one all-gather shared by the products, as XLA shares it), or
// `value` itself without tensor axes. The gathered copy is never saved: the backward gathers it again.
std::string Builder::whole_d(const std::string& value, std::int64_t repeat) {
  if (tensor_.empty()) return value;
  const std::string out = value + "_full";
  collective(value + "_gather", OpKind::all_gather, value, tensor_, out, repeat);
  made(out, 1, {value});
  values_[out].regathered = true;
  return out;
}

// The residual stream's gradient `name` gathered whole over the tensor axes once for the two backward products that
// read it (the weight's gradient and the input's), as XLA shares one gather; `name` itself without tensor axes.
std::string Builder::gathered_gradient(const std::string& name, std::int64_t repeat) {
  if (tensor_.empty()) return name;
  collective(name + "_gather", OpKind::all_gather, name, tensor_, name + "_full", repeat);
  return name + "_full";
}

// Where the value lives between the forward and the backward: its tag's placement; a value without a tag (a norm's
// or the activation's output) is saved only when the policy saves everything ("none").
TensorPlacement Builder::placement(const ForwardValue& v) const {
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
std::string Builder::use(const std::string& value) {
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
void Builder::recompute(std::size_t index, std::map<std::string, std::string>& renamed, bool recomputed) {
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

// The weight the backward's ops read: under FSDP, once a recomputed op has gathered it (explicitly, over the fsdp
// axes), the backward's own products read that gathered copy too, as XLA gathers a weight once per backward.
std::string Builder::backward_weight(const std::string& weight) {
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
std::string Builder::bw(const std::string& weight) const {
  const auto g = gathered_.find(weight);
  return g == gathered_.end() ? weight : g->second;
}

// Orders `o` after the op `made_by` when `o` reads a stand-in (`read` != `made`) instead of that op's output.
void Builder::after(ScenarioOp& o, const std::string& made_by, const std::string& made, const std::string& read) {
  if (made != read) o.after.push_back(made_by);
}

// Ops to order after `op` when `read` stands in for its output `made`.
std::vector<std::string> Builder::after_if(const std::string& op, const std::string& made, const std::string& read) {
  return made == read ? std::vector<std::string>{} : std::vector<std::string>{op};
}

// The ops that made `values` for the backward (their recomputed clones, else their forward ops): what a backward op
// that reads them besides its own operand waits for. A declared value (the layer input) has none.
std::vector<std::string> Builder::makers(const std::vector<std::string>& values) const {
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

}  // namespace podsim::model_expansion
