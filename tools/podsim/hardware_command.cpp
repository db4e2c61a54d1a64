// `podsim hardware [NAME | --list] [--json] [--override JSON]`: lists the presets (no name, or --list), or shows one
// with every figure, its unit, source and alternatives. An unknown name is bad input (exit 2), and so are --list with
// a name and --override without one.
#include <iostream>
#include <memory>
#include <string>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>  // to print the report's JSON
#pragma GCC diagnostic pop

#include "models/common/error.hpp"
#include "sim/report/hardware_report.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {

namespace {

struct HardwareOptions {
  std::string name;
  std::string overrides;
  bool json = false;
  bool list = false;
};

int run_hardware(const HardwareOptions& options) {
  if (options.list && !options.name.empty())
    throw InputError("--list", "lists every preset: give it without a preset's name, got: " + options.name);
  if (options.name.empty() && !options.overrides.empty())
    throw InputError("--override",
                     "changes one preset's figures: name the preset (podsim hardware NAME --override "
                     "JSON), got: none");
  if (options.name.empty()) {
    const auto presets = summarize_hardware_presets();
    if (options.json)
      std::cout << hardware_list_json(presets).dump(2) << "\n";
    else
      std::cout << format_hardware_list(presets);
    return 0;
  }
  const auto preset = options.overrides.empty()
                          ? load_hardware_preset_full(options.name)
                          : load_hardware_preset_full(options.name, options.overrides, "--override");
  if (options.json)
    std::cout << hardware_preset_json(preset).dump(2) << "\n";
  else
    std::cout << format_hardware_preset(preset);
  return 0;
}

}  // namespace

void add_hardware_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<HardwareOptions>();
  auto* sub = app.add_subcommand("hardware", "List hardware presets, or show one preset's figures and sources");
  sub->add_option("preset", options->name, "Preset name (e.g. tpu-v5e) or path to a preset JSON file");
  sub->add_flag("--list", options->list, "List the presets (as without a name)");
  sub->add_flag("--json", options->json, "Print JSON (\"schema\": \"podsim/1\")");
  sub->add_option(
      "--override", options->overrides,
      "JSON object of the preset's shape merged over it, e.g. '{\"ici\": {\"bandwidth_Bps\": \"50GB/s\"}}'");
  sub->callback([options, &action] { action = [options] { return run_hardware(*options); }; });
}

}  // namespace podsim::cli
