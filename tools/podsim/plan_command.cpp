// `podsim plan SCENARIO.json [--top K] [--model book|des|both] [--json | --csv] [--report FILE.html]`: the
// candidates a model-level scenario allows, screened by the closed form, the best K simulated, ranked
// (docs/capacity.md).
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {
namespace {

struct PlanFlags {
  std::string scenario;
  std::int64_t top = 10;
  std::string model = "both";
  bool json = false;
  bool csv = false;
  std::string report;
  bool uncalibrated = false;
};

int plan(const PlanFlags& flags) {
  if (flags.model != "book" && flags.model != "des" && flags.model != "both")
    throw InputError("--model", "model must be book, des or both, got: " + flags.model);
  if (flags.top < 0) throw InputError("--top", "must be at least 0, got: " + std::to_string(flags.top));
  if (flags.json && flags.csv) throw InputError("--csv", "give --json or --csv, not both");
  std::ofstream html;
  if (!flags.report.empty()) {
    html.open(flags.report);
    if (!html) throw InputError("--report", "cannot write the file, got: " + flags.report);
  }
  ScenarioSpec spec = load_scenario(flags.scenario);
  if (flags.uncalibrated) drop_calibration(spec);
  PlanSearchOptions options;
  options.top_k = static_cast<std::size_t>(flags.top);
  options.simulate = flags.model != "book";
  PlanSearchResult result = search_plans(spec, options);
  if (flags.model == "des")  // only what the simulation timed (and the simulations that failed)
    std::erase_if(result.ranked, [](const CandidateResult& r) { return !r.des_step_s && !r.des_failed; });
  const report::PlanReport plan_report{spec, result};
  if (flags.json)
    std::cout << report::plan_json(plan_report).dump(2) << "\n";
  else if (flags.csv)
    report::write_plan_csv(plan_report, std::cout);
  else
    std::cout << report::plan_text(plan_report);
  if (flags.json || flags.csv) std::cerr << report::search_summary(result) << "\n";
  if (html.is_open()) report::write_plan_html(plan_report, html);
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "plan", "Capacity planning: screen a model-level scenario's candidates by the closed form, simulate the best");
  auto flags = std::make_shared<PlanFlags>();
  cmd->add_option("scenario", flags->scenario, "A scenario with a model, a workload and a search section (JSON)")
      ->required();
  cmd->add_option("--top", flags->top, "Candidates simulated by the des (0: none)")->capture_default_str();
  cmd->add_option("--model", flags->model,
                  "book: screen only; des: list the simulated candidates; both: all, des beside book")
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print JSON (\"schema\": \"podsim/1\")");
  cmd->add_flag("--uncalibrated", flags->uncalibrated,
                "Simulate with the presets' figures, without their calibration (docs/hardware-model.md)");
  cmd->add_flag("--csv", flags->csv, "Print CSV, one row per candidate");
  cmd->add_option("--report", flags->report, "Write a self-contained HTML report to this file");
  cmd->callback([flags, &action] { action = [flags] { return plan(*flags); }; });
}

}  // namespace podsim::cli
