// Model loaders (docs/models.md): presets under configs/models/ (every figure with its source, like the hardware
// presets), Hugging Face config.json files (LLaMA, Mistral and Mixtral keys), and the dims keys a scenario's
// `model` section may hold. Every error names the file, the JSON pointer, the rule and the value.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/scenario/model_preset.hpp"

namespace podsim {

// configs/models (PODSIM_CONFIG_DIR/models when that is set).
std::string default_model_dir();

// Preset names (file stems), sorted.
std::vector<std::string> list_model_presets(const std::string& model_dir = default_model_dir());

// A preset by name, or a preset file by path. Throws PresetNotFoundError for an unknown name (listing the presets,
// with the nearest as a hint) or a file that cannot be opened; InputError located in the file for a rule.
ModelPreset load_model_preset(const std::string& name_or_path, const std::string& model_dir = default_model_dir());

// A Hugging Face config.json: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads and
// vocab_size are required; num_key_value_heads (default: the heads), head_dim (default: hidden_size / heads),
// tie_word_embeddings (default false), num_local_experts and num_experts_per_tok (default 1) are read; the MLP is
// gated for the LLaMA, Mistral and Mixtral model types and plain for GPT-2 style ones. Other keys are ignored.
ModelPreset load_hf_config(const std::string& path);

// The same from the config's parsed JSON, `path` naming it in messages (the fuzz harness's entry point).
ModelPreset hf_config_from_json(const nlohmann::json& doc, const std::string& path);

// The dims keys of a `model` section (layers, d_model, d_ff, heads, kv_heads, head_dim, vocab, tied_embeddings,
// mlp, experts, experts_per_token) at `where` (e.g. "a.json: /model"). Unknown keys are errors naming the nearest
// valid key.
TransformerDims model_dims_from_json(const nlohmann::json& section, const std::string& where);

// The dims keys model_dims_from_json reads, in the order docs/models.md lists them.
const std::vector<std::string>& model_dims_keys();

}  // namespace podsim
