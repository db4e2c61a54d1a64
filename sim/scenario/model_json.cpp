// Model presets, Hugging Face configs and dims keys -> TransformerDims, verified.
#include "sim/scenario/model_json.hpp"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/common/join.hpp"
#include "models/common/nearest_name.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim {
namespace {

using nlohmann::json;

const std::vector<std::string> kDimsKeys = {"layers",           "d_model", "d_ff", "heads",           "kv_heads",
                                            "head_dim",         "vocab",   "mlp",  "tied_embeddings", "experts",
                                            "experts_per_token"};

using scenario_detail::escape_key;

std::int64_t count_at(const json& value, const std::string& where) {
  if (!value.is_number_integer() && !value.is_number_unsigned())
    throw InputError(where, "must be an integer, got: " + shown(value));
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > (std::uint64_t{1} << 62))
    throw InputError(where, "must be at most 2^31, got: " + shown(value));
  return value.get<std::int64_t>();
}

bool bool_at(const json& value, const std::string& where) {
  if (!value.is_boolean()) throw InputError(where, "must be true or false, got: " + shown(value));
  return value.get<bool>();
}

MlpKind mlp_at(const json& value, const std::string& where) {
  if (!value.is_string()) throw InputError(where, "must be a string, got: " + shown(value));
  return located(where, [&] { return parse_mlp_kind(value.get<std::string>()); });
}

// Sets one dim from `value`; `at` locates it.
void set_dim(TransformerDims& dims, const std::string& key, const json& value, const std::string& at) {
  if (key == "layers") dims.layers = count_at(value, at);
  if (key == "d_model") dims.d_model = count_at(value, at);
  if (key == "d_ff") dims.d_ff = count_at(value, at);
  if (key == "heads") dims.heads = count_at(value, at);
  if (key == "kv_heads") dims.kv_heads = count_at(value, at);
  if (key == "head_dim") dims.head_dim = count_at(value, at);
  if (key == "vocab") dims.vocab = count_at(value, at);
  if (key == "experts") dims.experts = count_at(value, at);
  if (key == "experts_per_token") dims.experts_per_token = count_at(value, at);
  if (key == "tied_embeddings") dims.tied_embeddings = bool_at(value, at);
  if (key == "mlp") dims.mlp = mlp_at(value, at);
}

// Verifies `dims`, locating a broken rule at `pointer_of(field)`.
template <typename PointerOf>
void verify_located(const TransformerDims& dims, PointerOf pointer_of) {
  try {
    verify_dims(dims);
  } catch (const DimsError& e) {
    throw InputError(pointer_of(std::string(dims_field_name(e.field()))), e.message());
  }
}

void require_object(const json& value, const std::string& where) {
  if (!value.is_object()) throw InputError(where, "must be an object, got: " + shown(value));
}

}  // namespace

std::string default_model_dir() {
  return (std::filesystem::path(default_config_dir()) / "models").string();
}

std::vector<std::string> list_model_presets(const std::string& model_dir) {
  return list_json_stems(model_dir);
}

const std::vector<std::string>& model_dims_keys() {
  return kDimsKeys;
}

TransformerDims model_dims_from_json(const json& section, const std::string& where) {
  require_object(section, where);
  TransformerDims dims;
  for (const auto& [key, value] : section.items()) {
    const std::string at = where + "/" + escape_key(key);
    if (std::find(kDimsKeys.begin(), kDimsKeys.end(), key) == kDimsKeys.end())
      throw InputError(at, "unknown key, got: \"" + key + "\"" + did_you_mean(key, kDimsKeys));
    set_dim(dims, key, value, at);
  }
  for (const char* required : {"layers", "d_model", "d_ff", "heads", "vocab"})
    if (!section.contains(required)) throw InputError(where, std::string("missing key \"") + required + "\"");
  if (!section.contains("kv_heads")) dims.kv_heads = dims.heads;
  if (!section.contains("head_dim") && dims.heads > 0) {
    // Derived only when exact (issue 33, class 4: 4097 over 32 heads was floored to 128 without a word).
    if (dims.d_model % dims.heads != 0)
      throw InputError(where + "/d_model", "must be a multiple of heads (" + std::to_string(dims.heads) +
                                               ") when head_dim is not given (head_dim = d_model / heads), got: " +
                                               std::to_string(dims.d_model));
    dims.head_dim = dims.d_model / dims.heads;
  }
  verify_located(dims, [&](const std::string& key) { return where + "/" + key; });
  return dims;
}

ModelPreset load_model_preset(const std::string& name_or_path, const std::string& model_dir) {
  std::string path = name_or_path;
  if (!is_preset_path(name_or_path)) {
    const auto known = list_model_presets(model_dir);
    if (std::find(known.begin(), known.end(), name_or_path) == known.end()) {
      const std::string names = join(known, ", ");
      throw PresetNotFoundError("model",
                                "unknown model preset, got: \"" + name_or_path + "\"" +
                                    did_you_mean(name_or_path, known) + " (presets: " + names + ")",
                                true);
    }
    path = (std::filesystem::path(model_dir) / (name_or_path + ".json")).string();
  }
  const json doc = parse_hardware_file(path);
  require_object(doc, path);
  for (const auto& [key, value] : doc.items())
    if (key != "name" && key != "description" && key != "sources" && key != "dims" && key != "published")
      throw InputError(path + ": /" + escape_key(key),
                       "unknown key, got: \"" + key + "\"" +
                           did_you_mean(key, {"name", "description", "sources", "dims", "published"}));
  ModelPreset preset;
  preset.origin = path;
  if (!doc.contains("name") || !doc.at("name").is_string()) throw InputError(path + ": /name", "must be a string");
  preset.name = doc.at("name").get<std::string>();
  const std::string stem = std::filesystem::path(path).stem().string();
  if (preset.name != stem)
    throw InputError(path + ": /name", "must match the file name \"" + stem + "\", got: \"" + preset.name + "\"");
  if (doc.contains("description") && doc.at("description").is_string())
    preset.description = doc.at("description").get<std::string>();
  const json sources = doc.value("sources", json::object());
  require_object(sources, path + ": /sources");
  if (!doc.contains("dims")) throw InputError(path, "missing key \"dims\"");
  const json& dims = doc.at("dims");
  require_object(dims, path + ": /dims");
  // Each figure is {"value": V, "source": KEY of "sources", "note"?, "alternatives"?}.
  json values = json::object();
  for (const auto& [key, figure] : dims.items()) {
    const std::string at = path + ": /dims/" + escape_key(key);
    require_object(figure, at);
    if (!figure.contains("value")) throw InputError(at, "missing key \"value\"");
    if (!figure.contains("source") || !figure.at("source").is_string() ||
        !sources.contains(figure.at("source").get<std::string>()))
      throw InputError(at + "/source", "must name an entry of /sources, got: " +
                                           (figure.contains("source") ? shown(figure.at("source")) : "nothing"));
    values[key] = figure.at("value");
  }
  preset.dims = model_dims_from_json(values, path + ": /dims");
  if (doc.contains("published") && doc.at("published").contains("params")) {
    const json& params = doc.at("published").at("params");
    const std::string at = path + ": /published/params";
    require_object(params, at);
    preset.published_params = static_cast<std::uint64_t>(count_at(params.value("value", json()), at + "/value"));
    if (params.contains("source")) {
      if (!params.at("source").is_string())
        throw InputError(at + "/source", "must be a string, got: " + shown(params.at("source")));
      preset.published_params_source = params.at("source").get<std::string>();
    }
  }
  return preset;
}

ModelPreset load_hf_config(const std::string& path) {
  return hf_config_from_json(parse_hardware_file(path), path);
}

ModelPreset hf_config_from_json(const json& doc, const std::string& path) {
  require_object(doc, path);
  auto required = [&](const char* key) -> const json& {
    if (!doc.contains(key))
      throw InputError(path, std::string("missing key \"") + key + "\" (a Hugging Face config.json)");
    return doc.at(key);
  };
  auto at = [&](const char* key) { return path + ": /" + key; };
  TransformerDims dims;
  dims.d_model = count_at(required("hidden_size"), at("hidden_size"));
  dims.d_ff = count_at(required("intermediate_size"), at("intermediate_size"));
  dims.layers = count_at(required("num_hidden_layers"), at("num_hidden_layers"));
  dims.heads = count_at(required("num_attention_heads"), at("num_attention_heads"));
  dims.vocab = count_at(required("vocab_size"), at("vocab_size"));
  dims.kv_heads = doc.contains("num_key_value_heads") && !doc.at("num_key_value_heads").is_null()
                      ? count_at(doc.at("num_key_value_heads"), at("num_key_value_heads"))
                      : dims.heads;
  const bool head_dim_given = doc.contains("head_dim") && !doc.at("head_dim").is_null();
  if (!head_dim_given && dims.heads > 0 && dims.d_model % dims.heads != 0)
    throw InputError(at("hidden_size"), "must be a multiple of num_attention_heads (" + std::to_string(dims.heads) +
                                            ") when head_dim is not given (head_dim = hidden_size / "
                                            "num_attention_heads), got: " +
                                            std::to_string(dims.d_model));
  dims.head_dim =
      head_dim_given ? count_at(doc.at("head_dim"), at("head_dim")) : (dims.heads > 0 ? dims.d_model / dims.heads : 0);
  if (doc.contains("tie_word_embeddings"))
    dims.tied_embeddings = bool_at(doc.at("tie_word_embeddings"), at("tie_word_embeddings"));
  if (doc.contains("num_local_experts")) dims.experts = count_at(doc.at("num_local_experts"), at("num_local_experts"));
  if (doc.contains("num_experts_per_tok"))
    dims.experts_per_token = count_at(doc.at("num_experts_per_tok"), at("num_experts_per_tok"));
  std::string type;
  if (doc.contains("model_type") && !doc.at("model_type").is_null()) {
    if (!doc.at("model_type").is_string())
      throw InputError(at("model_type"), "must be a string such as \"llama\", got: " + shown(doc.at("model_type")));
    type = doc.at("model_type").get<std::string>();
  }
  dims.mlp = type == "gpt2" || type == "gpt_neox" || type == "opt" ? MlpKind::plain : MlpKind::gated;
  const auto key_of = [](const std::string& field) -> std::string {
    if (field == "layers") return "num_hidden_layers";
    if (field == "d_model") return "hidden_size";
    if (field == "d_ff") return "intermediate_size";
    if (field == "heads") return "num_attention_heads";
    if (field == "kv_heads") return "num_key_value_heads";
    if (field == "vocab") return "vocab_size";
    if (field == "experts") return "num_local_experts";
    if (field == "experts_per_token") return "num_experts_per_tok";
    return field;
  };
  verify_located(dims, [&](const std::string& field) { return path + ": /" + key_of(field); });
  ModelPreset preset;
  preset.name = std::filesystem::path(path).stem().string();
  preset.description = "Hugging Face config" + (type.empty() ? std::string() : " (model_type " + type + ")");
  preset.origin = path;
  preset.dims = dims;
  return preset;
}

}  // namespace podsim
