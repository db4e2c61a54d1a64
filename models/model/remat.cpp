// MaxText's remat policies as placements of the layer's named tensors (../shared/reference/MAXTEXT_MODEL.md, table 1,
// from maxtext layers/decoders.py get_remat_policy).
#include "models/model/remat.hpp"

#include <initializer_list>

namespace podsim {
namespace {

using T = LayerTensor;
using P = TensorPlacement;

TensorPlacements all(P placement) {
  TensorPlacements out;
  out.fill(placement);
  return out;
}

// The layer input on the device (it is the checkpointed function's argument: always kept), `placement` for each of
// `tensors`, every other tensor recomputed.
TensorPlacements keeping(P placement, std::initializer_list<T> tensors) {
  TensorPlacements out = all(P::remat);
  out[static_cast<std::size_t>(T::decoder_layer_input)] = P::device;
  for (const T tensor : tensors)
    out[static_cast<std::size_t>(tensor)] = placement;
  return out;
}

// MaxText's MIN list: the query, key, value, out, gate, up and down projections (no context).
constexpr std::initializer_list<T> kMinimal = {T::query_proj, T::key_proj, T::value_proj, T::out_proj,
                                               T::mlpwi_0,    T::mlpwi_1,  T::mlpwo};

}  // namespace

TensorPlacements default_custom_placements() {
  return keeping(P::device, {});
}

bool operator==(const Remat& a, const Remat& b) {
  return a.policy == b.policy && a.checkpoints_per_layer == b.checkpoints_per_layer &&
         (a.policy != RematPolicy::custom || a.custom == b.custom);
}

TensorPlacements tensor_placements(const Remat& remat) {
  if (remat.checkpoints_per_layer > 0) return keeping(P::device, {});
  switch (remat.policy) {
    case RematPolicy::none:
      return all(P::device);
    case RematPolicy::full:
      return keeping(P::device, {});
    case RematPolicy::minimal:
      return keeping(P::device, kMinimal);
    case RematPolicy::minimal_with_context: {
      TensorPlacements out = keeping(P::device, kMinimal);
      out[static_cast<std::size_t>(T::context)] = P::device;
      return out;
    }
    case RematPolicy::save_dot_except_mlpwi:
      return keeping(P::device, {T::query_proj, T::key_proj, T::value_proj, T::out_proj, T::mlpwo});
    case RematPolicy::save_dot_except_mlp:
      return keeping(P::device, {T::query_proj, T::key_proj, T::value_proj, T::out_proj});
    case RematPolicy::save_dot_with_context_except_mlp:
      return keeping(P::device, {T::query_proj, T::key_proj, T::value_proj, T::context, T::out_proj});
    case RematPolicy::save_qkv_proj:
      return keeping(P::device, {T::query_proj, T::key_proj, T::value_proj});
    case RematPolicy::qkv_proj_offloaded:
      return keeping(P::offload, {T::query_proj, T::key_proj, T::value_proj});
    case RematPolicy::save_out_proj:
      return keeping(P::device, {T::out_proj});
    case RematPolicy::minimal_offloaded:
      return keeping(P::offload, kMinimal);
    case RematPolicy::custom:
      return remat.custom;
  }
  return all(P::device);
}

std::string remat_text(const Remat& remat) {
  if (remat.checkpoints_per_layer > 0) return std::to_string(remat.checkpoints_per_layer) + "/layer";
  std::string text(kRematPolicyNames.name(remat.policy));
  if (remat.policy != RematPolicy::custom) return text;
  const TensorPlacements defaults = default_custom_placements();
  std::string listed;
  for (std::size_t i = 0; i < kLayerTensorCount; ++i) {
    if (remat.custom[i] == defaults[i]) continue;
    if (!listed.empty()) listed += ", ";
    listed += std::string(kLayerTensorNames.name(static_cast<LayerTensor>(i))) + ":" +
              std::string(kTensorPlacementNames.name(remat.custom[i]));
  }
  return listed.empty() ? text : text + "(" + listed + ")";
}

}  // namespace podsim
