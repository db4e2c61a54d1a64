// `podsim calibrate MEASUREMENTS.csv --hardware PRESET [-o OVERLAY.json] [--json] [--slice SHAPE] [--benchmark NAME]`:
// fits the calibration the measurement rows constrain (a measurement CSV, or a table of the accelerator-microbenchmarks
// suite, told apart by its header) (docs/hardware-model.md, "Calibration"), prints every row before and after, and
// writes an overlay usable wherever a preset file is (`podsim collective --hardware OVERLAY.json`, a scenario's
// "hardware": "OVERLAY.json").
#include <filesystem>
#include <iostream>

#include "models/common/error.hpp"
#include "sim/calibrate/calibration_fit.hpp"
#include "sim/calibrate/microbenchmark_table.hpp"
#include "sim/report/calibration_report.hpp"
#include "sim/report/output_file.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct CalibrateFlags {
  std::string measurements;
  std::string hardware;
  std::string output;
  std::string slice;
  std::string benchmark;
  bool json = false;
};

// The overlay's base as it must be written in the overlay: a preset name as is, a preset file relative to the
// overlay's folder (the loader resolves it from there).
std::string base_for(const std::string& hardware, const std::string& output) {
  if (!is_preset_path(hardware)) return hardware;
  const std::filesystem::path folder = std::filesystem::absolute(output).parent_path();
  return std::filesystem::relative(std::filesystem::absolute(hardware), folder).string();
}

}  // namespace

void add_calibrate_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit the des's calibration (step cost, link, MXU and HBM efficiency) to measured times");
  auto flags = std::make_shared<CalibrateFlags>();
  cmd->add_option("measurements", flags->measurements, "Measurement CSV (docs/hardware-model.md, \"Calibration\")")
      ->required();
  cmd->add_option("--hardware", flags->hardware, "Preset name or file the measurements were taken on")->required();
  cmd->add_option("-o,--output", flags->output, "Write the overlay (a hardware file: base preset + calibration)");
  cmd->add_flag("--json", flags->json, "Print one JSON object (schema podsim/1)");
  cmd->add_option(
      "--slice", flags->slice,
      "Microbenchmark suite tables: the slice its collective rows ran on (e.g. 4x4; they give only ici_size)");
  cmd->add_option(
      "--benchmark", flags->benchmark,
      "Microbenchmark suite tables: the benchmark (default: from the file name t_BENCHMARK_XXXXXXXXXX.csv)");
  cmd->callback([&action, flags] {
    action = [flags] {
      report::check_outputs({{"--output", flags->output}},
                            {{"measurements", flags->measurements}, {"--hardware", flags->hardware}});
      const HardwarePreset preset = cli::hardware_flag([&] { return load_hardware_preset_full(flags->hardware); });
      const std::optional<std::string> text = read_json_file(flags->measurements);
      if (!text) throw InputError(flags->measurements, "cannot open file");
      std::vector<Measurement> rows;
      std::vector<std::string> skipped;
      if (is_microbenchmark_table(*text)) {
        MicrobenchmarkOptions options;
        options.benchmark = flags->benchmark;
        if (!flags->slice.empty()) options.slice = located("--slice", [&] { return parse_shape(flags->slice); });
        MicrobenchmarkTable table = read_microbenchmark_table(*text, flags->measurements, options);
        rows = std::move(table.rows);
        skipped = std::move(table.skipped);
      } else {
        if (!flags->slice.empty() || !flags->benchmark.empty())
          throw InputError(flags->slice.empty() ? "--benchmark" : "--slice",
                           "only a microbenchmark suite table takes it (a measurement CSV names its own), got: " +
                               flags->measurements);
        rows = read_measurements(*text, flags->measurements);
      }
      // A file may hold rows of several chips and scenario rows (for podsim validate): the fit takes the rows of
      // --hardware's preset (or naming none) of kind collective, matmul or copy, and says which it skipped.
      std::vector<Measurement> used;
      for (const Measurement& row : rows) {
        if (predicted_by_validate(row.kind))
          skipped.push_back(row.id + (row.kind == MeasurementKind::serving ? " (a serving row" : " (a scenario row") +
                            ": podsim validate predicts it)");
        else if (!row.hardware.empty() && row.hardware != preset.spec.name)
          skipped.push_back(row.id + " (hardware " + row.hardware + ", not " + preset.spec.name + ")");
        else
          used.push_back(row);
      }
      std::string name;
      if (!flags->output.empty()) {
        name = std::filesystem::path(flags->output).stem().string();
        if (std::filesystem::path(flags->output).extension() != ".json")
          throw InputError("--output", "an overlay is a .json file (its name is the preset's), got: " + flags->output);
        if (name == preset.spec.name || name == std::filesystem::path(flags->hardware).stem().string())
          throw InputError("--output", "the overlay needs a name of its own (not its base's), got: " + flags->output);
      }
      const CalibrationFit fit = fit_calibration(used, preset.spec, "podsim calibrate on " + flags->measurements);
      if (flags->json) {
        nlohmann::json out = report::calibration_fit_json(fit, preset.spec.name);
        out["skipped"] = skipped;
        std::cout << out.dump(2) << "\n";
      } else {
        std::cout << report::calibration_fit_text(fit, flags->measurements, preset.spec.name);
        for (const std::string& row : skipped)
          std::cout << "skipped " << row << "\n";
      }
      if (!flags->output.empty()) {
        report::OutputFile out("--output", flags->output);
        out.stream() << report::calibration_overlay_json(fit, name, base_for(flags->hardware, flags->output),
                                                         flags->measurements)
                            .dump(2)
                     << "\n";
        out.commit();
        if (!flags->json)
          std::cout << "wrote " << flags->output << ": use it as --hardware " << flags->output << " or \"hardware\": \""
                    << flags->output << "\" in a scenario\n";
      }
      return 0;
    };
  });
}

}  // namespace podsim::cli
