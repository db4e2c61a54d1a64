// Model loaders: dims keys with the nearest valid key for a typo, rules located at their key, presets by path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/scenario/model_json.hpp"

namespace podsim {
namespace {

std::string error_of(const nlohmann::json& section) {
  try {
    model_dims_from_json(section, "s.json: /model");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelJson, DimsKeys) {
  const TransformerDims d = model_dims_from_json(
      nlohmann::json::parse(R"({"layers": 2, "d_model": 64, "d_ff": 256, "heads": 4, "vocab": 100, "mlp": "plain"})"),
      "s.json: /model");
  EXPECT_EQ(d.kv_heads, 4);   // defaults to the heads
  EXPECT_EQ(d.head_dim, 16);  // d_model / heads
  EXPECT_EQ(d.mlp, MlpKind::plain);
  EXPECT_EQ(error_of(nlohmann::json::parse(R"({"layers": 2, "d_modle": 64})")),
            "s.json: /model/d_modle: unknown key, got: \"d_modle\" (did you mean \"d_model\"?)");
  EXPECT_EQ(error_of(nlohmann::json::parse(R"({"layers": 2, "d_model": 64, "d_ff": 256, "heads": 4})")),
            "s.json: /model: missing key \"vocab\"");
  EXPECT_EQ(error_of(nlohmann::json::parse(
                R"({"layers": 2, "d_model": 64, "d_ff": 256, "heads": 4, "kv_heads": 3, "vocab": 100})")),
            "s.json: /model/kv_heads: heads (4) must be a multiple of kv_heads, got: 3");
  EXPECT_EQ(error_of(nlohmann::json::parse(R"({"layers": -1, "d_model": 64, "d_ff": 256, "heads": 4, "vocab": 100})")),
            "s.json: /model/layers: must be >= 1, got: -1");
  EXPECT_EQ(error_of(nlohmann::json::parse(R"({"layers": 2.5})")),
            "s.json: /model/layers: must be an integer, got: 2.5");
}

TEST(ModelJson, EveryShippedPresetLoadsAndNamesItsFile) {
  const auto presets = list_model_presets();
  ASSERT_GE(presets.size(), 6u);
  for (const auto& name : presets) {
    const ModelPreset preset = load_model_preset(name);
    EXPECT_EQ(preset.name, name);
    EXPECT_FALSE(preset.description.empty()) << name;
  }
  EXPECT_EQ(load_model_preset(default_model_dir() + "/llama3-8b.json").dims.layers, 32);
}

}  // namespace
}  // namespace podsim
