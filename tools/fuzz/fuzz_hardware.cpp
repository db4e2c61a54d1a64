// Fuzzes the hardware preset loader's steps on JSON text (there is no whole-file text entry point): the text
// as a preset (verify -> build) and as overrides merged over the shipped tpu-v5e preset, as
// load_hardware_preset_full does.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

namespace {

const nlohmann::json& base_preset() {
  static const nlohmann::json doc =
      parse_hardware_file((std::filesystem::path(default_config_dir()) / "tpu-v5e.json").string());
  return doc;
}

}  // namespace

PODSIM_FUZZ_ENTRY {
  const nlohmann::json doc = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;  // the loader turns parse errors into InputError itself
  try {
    HardwarePreset preset = verify_hardware_json(doc, "fuzz.json");
    build_hardware_spec(preset);
  } catch (const Error&) {
  }
  try {
    verify_hardware_overrides(doc, "overrides");
    HardwarePreset preset = verify_hardware_json(merge_hardware_overrides(base_preset(), doc), "merged");
    build_hardware_spec(preset);
  } catch (const Error&) {
  }
  return 0;
}
