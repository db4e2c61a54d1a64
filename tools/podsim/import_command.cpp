// `podsim import FILE -o SCENARIO.json [--hardware PRESET] [--slice SHAPE] [--function NAME]`: a StableHLO module with
// Shardy shardings (what `jax.jit(f).lower(...).as_text()` prints) or a compiled, partitioned HLO module (what
// `jax.jit(f).lower(...).compile().as_text()` prints; told apart by its `HloModule` header) as a scenario
// (docs/import.md). The scenario written is
// loaded back through the scenario loader before the command succeeds, so `podsim check` and `podsim run` accept it.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/hlo_scenario.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/report/output_file.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

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

// The --slice flag on `preset`'s pods: as many dims as the pod has (a 1-dim slice of a 2-dim pod is written 2x1).
std::vector<std::int64_t> slice_flag(const std::string& text, const HardwareSpec& preset, const std::string& name) {
  auto shape = parse_slice_flag(text);
  const auto& pod = preset.pod_shape;
  if (!pod.empty() && shape.size() != pod.size()) {
    auto padded = shape;
    padded.resize(std::max(pod.size(), shape.size()), 1);
    throw InputError("--slice", name + "'s slices have " + std::to_string(pod.size()) + " dims (its pod is " +
                                    format_dims(pod) + "), got: \"" + text + "\"" +
                                    (shape.size() < pod.size() ? " (give " + format_dims(padded) + ")" : ""));
  }
  return shape;
}

// The flag of an import option a library refusal concerns (import::ImportOptionError), in ImportOption's order.
std::string import_flag_of(import::ImportOption option) {
  static const char* const kFlags[] = {"--slice", "--hardware", "--function"};
  return kFlags[static_cast<std::size_t>(option)];
}

struct ImportOptions {
  std::string file, out, hardware = "tpu-v5e", slice, function;
};

// Writes `json` to `out` once the scenario loader accepts it.
void write_scenario(const std::string& json, const std::string& out_path) {
  load_scenario_text(json, out_path);  // the scenario must pass the loader's rules before it is written
  report::OutputFile out("--output", out_path);
  out.stream() << json;
  out.commit();
}

// The preset's peak FLOP/s by podsim dtype name (what the importers compare a program's dtypes with).
std::map<std::string, double> peaks_of(const HardwareSpec& preset) {
  std::map<std::string, double> peaks;
  for (const auto& [dtype, flops] : preset.chip.peak_flops_by_dtype)
    peaks[std::string(dtype_name(dtype))] = flops;
  return peaks;
}

// The partitioned-HLO path: parse, lay on a slice, build, check, write; lists what was approximated.
int import_hlo(const ImportOptions& opts, const std::string& text) {
  const auto module = import::parse_hlo_module(text, opts.file);
  const auto preset = hardware_flag([&] { return load_hardware_preset(opts.hardware); });
  const auto slice = opts.slice.empty() ? import::hlo_default_slice(module, preset.pod_shape, opts.file, "--hardware")
                                        : slice_flag(opts.slice, preset, opts.hardware);
  const auto imported = import::scenario_from_hlo(module, opts.file, opts.hardware, slice, peaks_of(preset));
  write_scenario(imported.scenario.dump(2) + "\n", opts.out);
  std::cout << "wrote " << opts.out << ": partitioned HLO module " << module.name << ", "
            << imported.scenario["tensors"].size() << " tensors, " << imported.scenario["program"].size()
            << " ops on a " << format_dims(slice) << " " << opts.hardware
            << " slice (device id = chip id, row-major)\n";
  if (!imported.notes.empty()) std::cout << "approximated (docs/import.md, \"Partitioned HLO\"):\n";
  for (const auto& n : imported.notes) {
    std::cout << "  ";
    if (n.line > 0) std::cout << opts.file << ":" << n.line << ": " << n.opcode << " %" << n.name << ": ";
    std::cout << n.how << "\n";
  }
  return 0;
}

// `podsim import FILE -o OUT`: either dialect, by its text.
int import_module(const ImportOptions& opts) {
  report::check_outputs({{"--output", opts.out}}, {{"file", opts.file}});
  // A module's text: up to 1 GiB (a large model's StableHLO is tens of MB).
  const std::optional<std::string> text = read_input_file(opts.file, std::uintmax_t{1} << 30);
  if (!text) throw InputError(opts.file, "cannot open file");
  if (import::looks_like_hlo_module(*text)) {
    if (!opts.function.empty())
      throw InputError("--function", "a partitioned HLO module is imported from its ENTRY computation, got: \"" +
                                         opts.function + "\"");
    return import_hlo(opts, *text);
  }
  const auto module = import::parse_stablehlo_module(*text, opts.file, opts.function);
  const auto preset = hardware_flag([&] { return load_hardware_preset(opts.hardware); });
  const auto slice = opts.slice.empty() ? import::default_slice(module, preset.pod_shape, "--hardware")
                                        : slice_flag(opts.slice, preset, opts.hardware);
  const auto doc = import::scenario_from_module(module, opts.file, opts.hardware, slice, peaks_of(preset));
  write_scenario(doc.dump(2) + "\n", opts.out);
  std::cout << "wrote " << opts.out << ": " << module.tensors.size() << " tensors, " << module.ops.size()
            << " ops on a ";
  std::cout << format_dims(slice) << " " << opts.hardware << " slice\n" << import::approximations_text(doc, opts.file);
  return 0;
}

}  // namespace

void add_import_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "import", "Turn a StableHLO module with Shardy shardings, or a partitioned HLO module, into a scenario");
  auto opts = std::make_shared<ImportOptions>();
  cmd->add_option("file", opts->file,
                  "The module text (jax.jit(f).lower(...).as_text(), or .compile().as_text() for partitioned HLO)")
      ->required();
  cmd->add_option("-o,--output", opts->out, "The scenario file to write")->required();
  cmd->add_option("--hardware", opts->hardware, "Hardware preset (default tpu-v5e)");
  cmd->add_option("--slice", opts->slice, "Slice shape, e.g. 4x2 (default: the mesh's axes on the preset's pod)");
  cmd->add_option("--function", opts->function,
                  "The StableHLO function to import (default: @main, else the module's only public function)");
  cmd->callback([&action, opts] {
    action = [opts] {
      // A refusal of an option (the slice, the hardware, the function) is located at its flag.
      return at_flags([&] { return import_module(*opts); }, import_flag_of);
    };
  });
}

}  // namespace podsim::cli
