// `podsim check [PATH...] [--json] [--uncalibrated]`: runs every scenario's `expect` list; exit 1 on any miss, 2 on bad
// input.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "models/common/error.hpp"
#include "sim/capacity/candidate_checks.hpp"
#include "sim/capacity/serving_run.hpp"
#include "sim/capacity/serving_search.hpp"
#include "sim/report/check_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {
namespace {

// Scenario files named by `paths`: files as given, folders searched for *.json (sorted).
std::vector<std::string> scenario_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    if (std::filesystem::is_directory(path)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file() && entry.path().extension() == ".json") found.push_back(entry.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) throw InputError(path, "no scenario files (*.json) in this folder");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(path);
    }
  }
  return files;
}

}  // namespace

void add_check_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("check", "Run every scenario's expect list; exit 1 if any check misses");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto uncalibrated = std::make_shared<bool>(false);
  cmd->add_option("paths", *paths, "Scenario files or folders (default: scenarios)");
  cmd->add_flag("--json", *json,
                "Print one JSON object (schema podsim/1): every scenario's `podsim run` object, with its checks, and "
                "the counts");
  cmd->add_flag("--uncalibrated", *uncalibrated,
                "Simulate with the presets' figures, without their calibration (docs/hardware-model.md)");
  cmd->callback([&action, paths, json, uncalibrated] {
    action = [paths, json, uncalibrated] {
      const auto files = scenario_files(paths->empty() ? std::vector<std::string>{"scenarios"} : *paths);
      int passed = 0, failed = 0, scenarios_without_checks = 0;
      nlohmann::json scenarios = nlohmann::json::array();
      for (const auto& file : files) {
        ScenarioSpec spec = load_scenario(file);
        if (*uncalibrated) drop_calibration(spec);
        ScenarioRun run;
        if (spec.model) {
          // A model-level scenario's expectations are figures of its model and of its plans' candidates, by the
          // closed forms (a candidate is simulated only when a des step time is expected).
          run.name = spec.name;
          run.file = spec.source_file;
          run.checks = evaluate_model_checks(spec);
          // A serving scenario's run is its requests through its replicas (or, with a search, every deployment
          // searched): simulated, so that a scenario that cannot run fails its check (its expectations are of its
          // model, for now).
          if (spec.serve && spec.search)
            search_serving(spec, ServingSearchOptions{});
          else if (spec.serve)
            run_serving_scenario(spec, ServingRunOptions{StepEvaluator::book, "", false});
        } else {
          run = run_scenario(spec);
        }
        if (*json) {
          scenarios.push_back(report::run_report_json(run));
        } else {
          std::cout << report::check_lines(run);
          if (run.checks.empty()) std::cout << "NOTE  " << file << ": no expect list\n";
        }
        if (run.checks.empty()) ++scenarios_without_checks;
        for (const auto& check : run.checks)
          (check.passed ? passed : failed) += 1;
      }
      if (*json)
        std::cout << nlohmann::json({{"schema", "podsim/1"},
                                     {"scenarios", scenarios},
                                     {"passed", passed},
                                     {"failed", failed},
                                     {"checks_passed", failed == 0}})
                         .dump(2)
                  << "\n";
      else
        std::cout << passed << " passed, " << failed << " failed\n";
      return failed > 0 ? 1 : 0;
    };
  });
}

}  // namespace podsim::cli
