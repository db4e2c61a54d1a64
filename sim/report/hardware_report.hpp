// What `podsim hardware` prints: the list of presets, and one preset with every figure, its unit, source
// and alternatives, plus the figures derived from them (MXU peak, critical intensities). Human text and
// the versioned JSON object ("schema": "podsim/1").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/scenario/hardware_json.hpp"

namespace podsim {

// One line per preset in the list: name and one-line description (or why it failed to load).
struct PresetSummary {
  std::string name;
  std::string description;
};

// Summaries of every preset in `config_dir`; a preset that fails to load is listed with "invalid: ...".
std::vector<PresetSummary> summarize_hardware_presets(const std::string& config_dir = default_config_dir());

std::string format_hardware_list(const std::vector<PresetSummary>& presets);
nlohmann::json hardware_list_json(const std::vector<PresetSummary>& presets);

// A figure's value in human units ("45 GB/s", "16 GiB", "197 TFLOP/s", "1 us", "4").
std::string format_figure_value(double value, const std::string& unit);

// One preset: its figures, derived figures, calibration (each figure with its source, each curve with the range it
// holds over: docs/hardware-model.md, "Calibration") and sources. The JSON's "preset" holds "calibration": null for a
// preset without one.
std::string format_hardware_preset(const HardwarePreset& preset);
nlohmann::json hardware_preset_json(const HardwarePreset& preset);

}  // namespace podsim
