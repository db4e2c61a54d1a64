// A mixture of experts' MLP as ops, forward and backward: the router, the dispatch (dense or dropless), the
// all-to-alls over the expert axes and the experts' batched matmuls (docs/overlap-pipeline-dcn.md, "Mixture of
// experts").
#include "sim/capacity/model_program_builder.hpp"

#include <string>
#include <vector>

namespace podsim::model_expansion {

// A mixture of experts' MLP forward (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the router; each token's
// rows put into its experts' buffers [E, slots, D] (dense: the one-hot dispatch einsum into every group's capacity
// slots; dropless: the routed rows sorted by expert), the all-to-all over the expert axes, the experts' MLPs as
// batched matmuls over the experts dim, and the results combined back (the reverse all-to-all, then the combine
// einsum or the weighted sum of each token's k rows).
void Builder::moe_forward(std::int64_t tokens, const std::string& hn) {
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
void Builder::dense_masks(const ExpertLoad& routed, std::int64_t r) {
  const Shape shape = {routed.groups, routed.group_tokens, dims_.experts, routed.group_capacity};
  tensor("mask_rows", shape, w_.activation_dtype, {dispatch_, {}, {}, {}});
  elementwise("masks", "mask_rows", "combine_mask", kMaskFlops, r, {"router"});
  made("combine_mask", 1, {"router"});
  elementwise("dispatch_mask", "combine_mask", "dispatch_mask", 1, r);
  made("dispatch_mask", 1, {"combine_mask"});
}

// Its backward: the combine's gradient (dense: the combine einsum's two gradients, to the experts' outputs and to
// the combine mask; dropless: the weighted sum's) sent to the experts like the tokens, two matmuls per expert
// matmul, the inputs' gradients sent back and summed per token (dense: the dispatch einsum's gradient).
void Builder::moe_backward(std::int64_t tokens) {
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
    collective("combine_a2a_bwd", OpKind::all_to_all, dye, expert_, "dye", r, -1, after_if(dye_made, dye_value, dye), 1,
               0);
    dye = dye_value = "dye";
    dye_made = "combine_a2a_bwd";
  }
  const std::vector<Axes> hidden = {expert_, slot_axes_, tensor_};
  after(matmul("dWed", use("g"), dye, "ECF,ECD->EFD", {expert_, tensor_, fsdp_}, r), dye_made, dye_value, dye);
  after(matmul("dg", dye, bw("Wed"), "ECD,EFD->ECF", hidden, r), dye_made, dye_value, dye);
  // The activation's backward reads the gate's and the up projection's outputs.
  const std::vector<std::string> mlp_in = gated ? std::vector<std::string>{"hg", "hu"} : std::vector<std::string>{"hu"};
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

}  // namespace podsim::model_expansion
