// `podsim import FILE -o SCENARIO.json [--hardware PRESET] [--slice SHAPE]`: a StableHLO module with Shardy
// shardings (what `jax.jit(f).lower(...).as_text()` prints) as a scenario (docs/import.md). The scenario written is
// loaded back through the scenario loader before the command succeeds, so `podsim check` and `podsim run` accept it.
#include <fstream>
#include <iostream>
#include <sstream>

#include "models/common/error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {
namespace {

// `4x2`, `4,2` or `4` -> {4, 2}; throws InputError at --slice.
std::vector<std::int64_t> parse_slice_flag(const std::string& text) {
  std::vector<std::int64_t> shape;
  std::string part;
  std::stringstream in(text);
  while (std::getline(in, part, text.find(',') != std::string::npos ? ',' : 'x')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || v < 1)
      throw InputError("--slice", "expected chips per dim like 4x2, got: \"" + text + "\"");
    shape.push_back(v);
  }
  if (shape.empty() || shape.size() > 3) throw InputError("--slice", "expected 1 to 3 dims, got: \"" + text + "\"");
  return shape;
}

}  // namespace

void add_import_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("import", "Turn a StableHLO module with Shardy shardings into a scenario");
  struct Options {
    std::string file, out, hardware = "tpu-v5e", slice;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("file", opts->file, "The module text (jax.jit(f).lower(...).as_text())")->required();
  cmd->add_option("-o,--output", opts->out, "The scenario file to write")->required();
  cmd->add_option("--hardware", opts->hardware, "Hardware preset (default tpu-v5e)");
  cmd->add_option("--slice", opts->slice, "Slice shape, e.g. 4x2 (default: the mesh's axes on the preset's pod)");
  cmd->callback([&action, opts] {
    action = [opts] {
      std::ifstream in(opts->file, std::ios::binary);
      if (!in) throw InputError(opts->file, "cannot open file");
      std::stringstream text;
      text << in.rdbuf();
      const auto module = import::parse_stablehlo_module(text.str(), opts->file);
      const auto preset = load_hardware_preset(opts->hardware);
      const auto slice = opts->slice.empty() ? import::default_slice(module, preset.pod_shape, "--hardware")
                                             : parse_slice_flag(opts->slice);
      const auto doc = import::scenario_from_module(module, opts->file, opts->hardware, slice);
      const std::string json = doc.dump(2) + "\n";
      load_scenario_text(json, opts->out);  // the scenario must pass the loader's rules before it is written
      std::ofstream out(opts->out, std::ios::binary);
      if (!out || !(out << json)) throw InputError(opts->out, "cannot write file");
      std::cout << "wrote " << opts->out << ": " << module.tensors.size() << " tensors, " << module.ops.size()
                << " ops on a ";
      for (std::size_t i = 0; i < slice.size(); ++i)
        std::cout << (i ? "x" : "") << slice[i];
      std::cout << " " << opts->hardware << " slice\n" << import::approximations_text(module, opts->file);
      return 0;
    };
  });
}

}  // namespace podsim::cli
