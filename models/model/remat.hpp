// How a training step keeps a layer's activations for its backward pass (docs/capacity.md, "Rematerialisation"):
// MaxText's named remat policies (../shared/reference/MAXTEXT_MODEL.md, table 1), a custom placement of each of the
// layer's nine named tensors (recomputed, kept in HBM or offloaded to host memory), podsim's own "none" (nothing
// recomputed) and the scaling book's K checkpoints per layer. Plain values and the policy table; what each policy
// keeps and recomputes in a concrete layer is decided where the layer is built (sim/capacity/model_program.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "models/common/enum_names.hpp"

namespace podsim {

enum class RematPolicy {
  none,  // podsim's own: every value the backward reads is kept, nothing recomputed (MaxText's "none" is "full")
  full,
  minimal,
  minimal_with_context,
  save_dot_except_mlpwi,
  save_dot_except_mlp,
  save_dot_with_context_except_mlp,
  save_qkv_proj,
  qkv_proj_offloaded,
  save_out_proj,
  minimal_offloaded,
  custom,
};

inline constexpr EnumNames<RematPolicy, 13> kRematPolicyNames{
    "remat policy",
    {{
        {"none", RematPolicy::none},
        {"full", RematPolicy::full},
        {"minimal", RematPolicy::minimal},
        {"minimal_with_context", RematPolicy::minimal_with_context},
        {"save_dot_except_mlpwi", RematPolicy::save_dot_except_mlpwi},
        {"save_dot_except_mlp", RematPolicy::save_dot_except_mlp},
        {"save_dot_with_context_except_mlp", RematPolicy::save_dot_with_context_except_mlp},
        {"save_qkv_proj", RematPolicy::save_qkv_proj},
        {"qkv_proj_offloaded", RematPolicy::qkv_proj_offloaded},
        {"save_out_proj", RematPolicy::save_out_proj},
        {"minimal_offloaded", RematPolicy::minimal_offloaded},
        {"custom", RematPolicy::custom},
        {"minimal_flash", RematPolicy::minimal_with_context},  // MaxText's deprecated alias
    }}};

// The layer's tensors that MaxText names with checkpoint_name (MAXTEXT_MODEL.md §2), in the order of the forward.
enum class LayerTensor {
  decoder_layer_input,  // the layer's input x [tokens, D]
  query_proj,           // Q [tokens, N H]
  key_proj,             // K [tokens, K H]
  value_proj,           // V [tokens, K H]
  context,              // the attention's output O [tokens, N H] and its logsumexp [tokens, N] (f32)
  out_proj,             // O Wo [tokens, D]
  mlpwi_0,              // the gate's pre-activation [tokens, F]
  mlpwi_1,              // the up projection [tokens, F]
  mlpwo,                // the down projection's output [tokens, D]
};

inline constexpr std::size_t kLayerTensorCount = 9;

inline constexpr EnumNames<LayerTensor, kLayerTensorCount> kLayerTensorNames{
    "layer tensor",
    {{
        {"decoder_layer_input", LayerTensor::decoder_layer_input},
        {"query_proj", LayerTensor::query_proj},
        {"key_proj", LayerTensor::key_proj},
        {"value_proj", LayerTensor::value_proj},
        {"context", LayerTensor::context},
        {"out_proj", LayerTensor::out_proj},
        {"mlpwi_0", LayerTensor::mlpwi_0},
        {"mlpwi_1", LayerTensor::mlpwi_1},
        {"mlpwo", LayerTensor::mlpwo},
    }}};

// Where a saved tensor lives between the forward and the backward.
enum class TensorPlacement {
  remat,    // not saved: recomputed in the backward from what is
  device,   // saved in HBM
  offload,  // saved in host memory: copied out after the forward makes it, back before the backward reads it
};

inline constexpr EnumNames<TensorPlacement, 3> kTensorPlacementNames{"tensor placement",
                                                                     {{
                                                                         {"remat", TensorPlacement::remat},
                                                                         {"device", TensorPlacement::device},
                                                                         {"offload", TensorPlacement::offload},
                                                                     }}};

using TensorPlacements = std::array<TensorPlacement, kLayerTensorCount>;

// MaxText's defaults for `custom`: the layer input on the device, every other tensor recomputed.
TensorPlacements default_custom_placements();

struct Remat {
  RematPolicy policy = RematPolicy::none;
  // > 0: the scaling book's abstraction instead of a policy: K [tokens, d_model] checkpoints per layer kept, the rest
  // of the layer recomputed (as "full" recomputes it). 0: the policy decides.
  std::int64_t checkpoints_per_layer = 0;
  TensorPlacements custom = default_custom_placements();  // policy custom only

  // Whether the backward recomputes anything of the forward (every policy but "none"; K checkpoints do).
  bool recomputes() const { return checkpoints_per_layer > 0 || policy != RematPolicy::none; }
};

bool operator==(const Remat& a, const Remat& b);

// Where each named tensor lives under `remat` (MAXTEXT_MODEL.md, table 1): "none" keeps every tensor on the device;
// K checkpoints per layer keep the layer input only, as "full" does. A policy says what may be saved; what is saved is
// what the backward then reads (decided with the layer's ops).
TensorPlacements tensor_placements(const Remat& remat);

// `placement` of `tensor` in a placement array.
inline TensorPlacement placement_of(const TensorPlacements& placements, LayerTensor tensor) {
  return placements[static_cast<std::size_t>(tensor)];
}

// Short text for tables and titles: "none", "full", "2/layer", "custom(input:offload, query_proj:device)" (custom
// lists the tensors that differ from its defaults).
std::string remat_text(const Remat& remat);

}  // namespace podsim
