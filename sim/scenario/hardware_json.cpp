// Hardware preset loader. parse: file -> JSON. verify: JSON -> figures with sources (hardware_json_verify.cpp). build:
// figures -> HardwareSpec (hardware_json_build.cpp). Here the preset folder, the parse, the merge of overrides
// (verified on their own first, so their errors point into the overrides) and the load that runs the steps in order.
#include "sim/scenario/hardware_json.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "sim/scenario/json_text.hpp"

namespace podsim {
namespace {

using nlohmann::json;

// One figure merged: a bare value keeps the preset's figure as an alternative.
json merge_figure(const json& base, const json& patch) {
  if (patch.is_object()) {
    json merged = patch;
    if (!merged.contains("source")) merged["source"] = "override";
    return merged;
  }
  json merged = {{"value", patch}, {"source", "override"}};
  if (base.is_object() && base.contains("value")) {
    json alts = json::array();
    json previous = {{"value", base.at("value")}, {"source", base.value("source", "preset")}};
    previous["note"] = "preset default";
    alts.push_back(previous);
    if (base.contains("alternatives"))
      for (const auto& a : base.at("alternatives"))
        alts.push_back(a);
    merged["alternatives"] = alts;
  }
  return merged;
}

}  // namespace

std::string json_exception_message(const std::string& json_what) {
  const auto close = json_what.find("] ");
  if (json_what.rfind("[json.exception.", 0) != 0 || close == std::string::npos) return json_what;
  return json_what.substr(close + 2);
}

namespace {

// The file this code was loaded from: the podsim program, or the Python module's extension (a shared object).
std::filesystem::path loaded_from() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&default_config_dir), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const std::filesystem::path object = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec && object.extension() == ".so") return object;
  }
  std::error_code ec;
  const std::filesystem::path program = std::filesystem::canonical("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : program;
}

}  // namespace

std::string default_config_dir() {
  if (const char* env = std::getenv("PODSIM_CONFIG_DIR"); env != nullptr && *env != '\0') return env;
  // Installed (docs/install.md): PREFIX/share/podsim/configs, PREFIX an ancestor of the program (PREFIX/bin/podsim)
  // or of the Python module (PREFIX/lib/python3/dist-packages/podsim/_podsim.so).
  std::error_code ec;
  for (std::filesystem::path dir = loaded_from().parent_path(); !dir.empty(); dir = dir.parent_path()) {
    const std::filesystem::path configs = dir / "share" / "podsim" / "configs";
    if (std::filesystem::is_directory(configs, ec)) return configs.string();
    if (dir == dir.root_path()) break;
  }
  return PODSIM_CONFIG_DIR;  // the source tree's, compiled in: a program run from its build folder
}

std::vector<std::string> list_hardware_presets(const std::string& config_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(config_dir, ec))
    throw InputError("hardware",
                     "the presets folder is not there (podsim looks in $PODSIM_CONFIG_DIR, then in "
                     "PREFIX/share/podsim/configs of an installed program, then in the source tree's "
                     "configs/; docs/install.md), got: " +
                         config_dir);
  return list_json_stems(config_dir);
}

std::vector<std::string> list_json_stems(const std::string& config_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(config_dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_preset_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos ||
         (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
}

json parse_hardware_file(const std::string& path) {
  const auto text = read_json_file(path);
  if (!text) throw PresetNotFoundError(path, "cannot open file", false);
  check_json_text(*text, path);
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    throw InputError(path, "invalid JSON: " + json_exception_message(e.what()));
  }
}

json merge_hardware_overrides(const json& doc, const json& overrides) {
  json merged = doc;
  for (const auto& [section, fields] : overrides.items()) {
    json& target = merged[section];
    if (!target.is_object()) target = json::object();
    for (const auto& [key, value] : fields.items()) {
      if (section == "slice") {
        target[key] = value;
      } else if (section == "calibration" &&
                 (key == "link_efficiency" || key == "mxu_efficiency" || key == "attention_forward_efficiency" ||
                  key == "attention_backward_efficiency" || key == "note")) {
        target[key] = value;  // a curve is replaced as a whole
      } else if (section == "chip" && key == "peak_flops") {
        json& peaks = target[key];
        if (!peaks.is_object()) peaks = json::object();
        for (const auto& [dtype, figure] : value.items())
          peaks[dtype] = merge_figure(peaks.contains(dtype) ? peaks.at(dtype) : json(), figure);
      } else {
        target[key] = merge_figure(target.contains(key) ? target.at(key) : json(), value);
      }
    }
  }
  return merged;
}

HardwarePreset load_hardware_preset_full(const std::string& name_or_path, const json* overrides,
                                         const std::string& overrides_where, const std::string& config_dir) {
  std::string path = name_or_path;
  if (!is_preset_path(name_or_path)) {
    const auto known = list_hardware_presets(config_dir);
    if (std::find(known.begin(), known.end(), name_or_path) == known.end())
      throw PresetNotFoundError("hardware",
                                "unknown preset \"" + name_or_path + "\" (known: " + join(known, ", ") + ")", true);
    path = (std::filesystem::path(config_dir) / (name_or_path + ".json")).string();
  }
  json doc = resolve_hardware_overlay(parse_hardware_file(path), path, config_dir);
  HardwarePreset preset = verify_hardware_json(doc, path);
  const std::string stem = std::filesystem::path(path).stem().string();
  if (preset.name != stem)
    throw InputError(path + ": /name", "must match the file name \"" + stem + "\", got: \"" + preset.name + "\"");
  if (overrides != nullptr) {
    verify_hardware_overrides(*overrides, overrides_where);
    const std::string where =
        path + " with overrides from " + (overrides_where.empty() ? "overrides" : overrides_where);
    preset = verify_hardware_json(merge_hardware_overrides(doc, *overrides), where);
  }
  preset.path = path;
  build_hardware_spec(preset);
  return preset;
}

HardwarePreset load_hardware_preset_full(const std::string& name_or_path, const std::string& overrides_text,
                                         const std::string& overrides_where) {
  check_json_text(overrides_text, overrides_where);
  json overrides;
  try {
    overrides = json::parse(overrides_text);
  } catch (const json::parse_error& e) {
    throw InputError(overrides_where, "invalid JSON: " + json_exception_message(e.what()));
  }
  return load_hardware_preset_full(name_or_path, &overrides, overrides_where);
}

HardwareSpec load_hardware_preset(const std::string& name_or_path, const json* overrides,
                                  const std::string& overrides_where) {
  return load_hardware_preset_full(name_or_path, overrides, overrides_where).spec;
}

}  // namespace podsim
