// Hardware presets (configs/*.json): parse -> verify -> build into a HardwarePreset (hardware_preset.hpp),
// keeping every figure's source and alternatives for display. Scenarios and the CLI may override any figure
// with a JSON object of the preset's own shape (docs/hardware-model.md, "Overrides").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "models/common/error.hpp"
#include "sim/scenario/hardware_preset.hpp"

namespace podsim {

// A preset that is not there: an unknown preset name (`hardware: unknown preset "tpu-v9" (known: ...)`) or a
// preset file that cannot be opened (`FILE: cannot open file`). Callers that name the preset in their own terms
// (a scenario's /hardware) catch it by type.
class PresetNotFoundError : public InputError {
 public:
  PresetNotFoundError(const std::string& where, const std::string& message, bool by_name)
      : InputError(where, message), by_name_(by_name) {}
  bool is_name() const { return by_name_; }  // an unknown name (else a file that cannot be opened)

 private:
  bool by_name_;
};

// Whether `name_or_path` is a path to a preset file (it has a '/' or ends in ".json") rather than a name.
bool is_preset_path(const std::string& name_or_path);

// The presets folder: $PODSIM_CONFIG_DIR if set; else, installed, PREFIX/share/podsim/configs for the nearest ancestor
// PREFIX of the program (or the Python module) that has one; else the repository's configs/ (compiled in).
std::string default_config_dir();

// Preset names (file stems of *.json in `config_dir`), sorted. Throws InputError when `config_dir` is not a folder.
std::vector<std::string> list_hardware_presets(const std::string& config_dir = default_config_dir());

// The stems of the *.json files directly in `dir`, sorted (none when it cannot be read): the preset names of a
// preset folder.
std::vector<std::string> list_json_stems(const std::string& dir);

// Loads a preset by name ("tpu-v5e", looked up in `config_dir`) or by path (anything with a '/' or ending in
// ".json"). A file with a "base" key is an overlay (`podsim calibrate -o`; docs/hardware-model.md, "Calibration"):
// its base preset (a name, or a path relative to the overlay) with the overlay's sections merged over it, its
// calibration replacing the base's. `overrides`, when given, is an object of the preset's shape merged over it; its
// errors are located at `overrides_where` (e.g. "scenarios/a.json: /hardware/overrides"). Throws PresetNotFoundError,
// or InputError `FILE: /POINTER: RULE, got: VALUE`.
HardwarePreset load_hardware_preset_full(const std::string& name_or_path, const nlohmann::json* overrides = nullptr,
                                         const std::string& overrides_where = "",
                                         const std::string& config_dir = default_config_dir());

// The same with overrides given as JSON text (`podsim hardware --override`); text that does not parse is an
// InputError `OVERRIDES_WHERE: invalid JSON: ...`.
HardwarePreset load_hardware_preset_full(const std::string& name_or_path, const std::string& overrides_text,
                                         const std::string& overrides_where);

// The same, keeping only the model values.
HardwareSpec load_hardware_preset(const std::string& name_or_path, const nlohmann::json* overrides = nullptr,
                                  const std::string& overrides_where = "");

// The steps, for tests and for loaders that already hold parsed JSON.
// parse: the file's text as JSON; throws InputError `FILE: invalid JSON: ...` (PresetNotFoundError when the file
// cannot be opened).
nlohmann::json parse_hardware_file(const std::string& path);
// verify: checks `doc` against the preset schema and returns its figures (not yet `spec`). `where` is the
// file name errors start with. Throws InputError `WHERE: /POINTER: RULE, got: VALUE`.
HardwarePreset verify_hardware_json(const nlohmann::json& doc, const std::string& where);
// Checks an overrides object (same shape; a figure may be a bare value) without merging it.
void verify_hardware_overrides(const nlohmann::json& overrides, const std::string& where);
// An overlay (`podsim calibrate -o`, docs/hardware-model.md, "Calibration"): {"name", "description", "base", and
// "sources", "calibration", "chip", "ici", "slice", "dcn", "host" as needed}. Returns the base preset's document (a
// name in `config_dir`, or a path relative to the overlay's folder) with the overlay's sections merged over it as
// overrides, its calibration replacing the base's whole, its name and description, and both sets of sources. A document
// without "base" is returned as it is.
nlohmann::json resolve_hardware_overlay(const nlohmann::json& doc, const std::string& path,
                                        const std::string& config_dir);
// Merges verified overrides over a verified preset document: a bare value replaces a figure's value (source
// "override", the preset's value kept as an alternative); a figure object replaces the figure.
nlohmann::json merge_hardware_overrides(const nlohmann::json& doc, const nlohmann::json& overrides);
// The message of a nlohmann exception's what() without its `[json.exception.KIND.ID] ` tag.
std::string json_exception_message(const std::string& json_what);
// Turns the what() of a nlohmann exception ("[json.exception.type_error.302] (/chip/x) type must be number,
// but is string", pointer present with JSON_DIAGNOSTICS) into InputError `WHERE: /chip/x: type must be ...`.
InputError input_error_from_json(const std::string& where, const std::string& json_what);
// build: fills preset.spec from its figures.
void build_hardware_spec(HardwarePreset& preset);

}  // namespace podsim
