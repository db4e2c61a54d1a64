// `podsim run SCENARIO...`: runs scenarios and prints a table (or JSON, CSV), a Chrome trace and an HTML report.
#include <iostream>
#include <optional>

#include "models/common/error.hpp"
#include "models/plan/schedule_policy.hpp"
#include "sim/capacity/model_run.hpp"
#include "sim/report/candidate_trace.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/model_run_report.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct RunFlags {
  std::vector<std::string> scenarios;
  std::optional<std::string> plan;
  std::string format = "table";
  std::string trace;
  std::string report;
  std::optional<std::string> schedule;
  bool verify_values = false;
  bool uncalibrated = false;
};

std::string flag_of(RunOptions::Field field) {
  switch (field) {
    case RunOptions::Field::plan:
      return "--plan";
  }
  return "--plan";
}

// The options a model-level scenario's run does not take (docs/capacity.md, "`podsim run` of a model-level
// scenario"): its step is simulated by the plan search's code, under program order, without values.
void refuse_for_model_level(const RunFlags& flags, const std::string& file) {
  const auto refuse = [&](const std::string& flag, const std::string& why) {
    throw InputError(flag, why + " for a model-level scenario, got: " + file);
  };
  if (flags.schedule) refuse("--schedule", "the step program runs under program order, no other schedule");
  if (flags.verify_values) refuse("--verify-values", "no functional mode");
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("run", "Run scenarios: every plan simulated and closed-form, side by side");
  auto flags = std::make_shared<RunFlags>();
  cmd->add_option("scenarios", flags->scenarios, "Scenario files (JSON)")->required();
  cmd->add_option("--plan", flags->plan, "Run only this plan");
  cmd->add_option("--format", flags->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--trace", flags->trace, "Write a Chrome trace (open in Perfetto) of one scenario to this file");
  cmd->add_option("--report", flags->report, "Write a self-contained HTML report to this file");
  cmd->add_option("--schedule", flags->schedule,
                  "program-order, dataflow or dataflow-hbm (default: the scenario's options.schedule, else "
                  "dataflow-hbm)");
  cmd->add_flag("--verify-values", flags->verify_values,
                "Functional mode: carry real values and compare each plan's result with a dense reference");
  cmd->add_flag("--uncalibrated", flags->uncalibrated,
                "Simulate with the presets' figures, without their calibration (docs/hardware-model.md)");
  cmd->callback([&action, flags] {
    action = [flags] {
      if (flags->format != "table" && flags->format != "json" && flags->format != "csv")
        throw InputError("--format", "format must be table, json or csv, got: " + flags->format);
      if (!flags->trace.empty() && flags->scenarios.size() != 1)
        throw InputError("--trace", "a trace shows one scenario, got: " + std::to_string(flags->scenarios.size()));
      std::vector<report::OutputPath> inputs;
      for (const auto& file : flags->scenarios)
        inputs.push_back({"scenario", file});
      report::check_outputs({{"--trace", flags->trace}, {"--report", flags->report}}, inputs);
      RunOptions options;
      options.plan = flags->plan;
      options.verify_values = flags->verify_values;
      if (flags->schedule)
        options.schedule = located("--schedule", [&] { return parse_schedule_policy(*flags->schedule); });
      std::vector<ScenarioRun> runs;
      std::vector<ModelScenarioRun> model_runs;  // model-level scenarios (docs/capacity.md): not mixed with the rest
      for (const auto& file : flags->scenarios) {
        try {
          ScenarioSpec spec = load_scenario(file);
          if (flags->uncalibrated) drop_calibration(spec);
          if (spec.model) {
            refuse_for_model_level(*flags, file);
            model_runs.push_back(run_model_scenario(spec, ModelRunOptions{flags->plan, !flags->trace.empty()}));
          } else {
            runs.push_back(run_scenario(spec, options));
          }
        } catch (const RunError& error) {
          throw at_flag(error, flag_of(error.field()));
        }
        if (!runs.empty() && !model_runs.empty())
          throw InputError(file, "run model-level scenarios and op-level ones in separate commands, got: both");
      }
      if (!model_runs.empty()) {
        if (flags->format == "json")
          std::cout << report::model_run_json(model_runs).dump(2) << "\n";
        else if (flags->format == "csv")
          report::write_model_run_csv(model_runs, std::cout);
        else
          std::cout << report::model_run_text(model_runs);
        // Both outputs written whole before either replaces its file.
        std::optional<report::OutputFile> trace, html;
        if (!flags->trace.empty()) {
          const ModelScenarioRun& run = model_runs.front();
          if (run.plans.size() != 1)
            throw InputError("--trace", "a model-level trace shows one plan's step: give --plan NAME, got: " +
                                            std::to_string(run.plans.size()) + " plans");
          const ModelPlanRun& plan = run.plans.front();
          if (!plan.timeline)
            throw InputError("--trace", "the trace shows a simulated step, got: plan " + plan.name +
                                            ", not simulated (" + plan.result.rejected.value_or("") + ")");
          trace.emplace("--trace", flags->trace);
          report::write_candidate_trace(
              *plan.timeline, report::CandidateTraceInfo{run.name, 1, "plan " + plan.name, plan.result.step_s()},
              trace->stream());
        }
        if (!flags->report.empty()) {
          html.emplace("--report", flags->report);
          report::write_model_run_html(model_runs, html->stream());
        }
        if (trace) trace->commit();
        if (html) html->commit();
        return 0;
      }
      if (flags->format == "json") {
        const nlohmann::json json =
            runs.size() == 1 ? report::run_report_json(runs.front()) : report::run_report_json(runs);
        std::cout << json.dump(2) << "\n";
      } else if (flags->format == "csv") {
        report::write_run_csv(runs, std::cout);
      } else {
        std::cout << report::run_report_text(runs);
      }
      // Both outputs written whole before either replaces its file.
      std::optional<report::OutputFile> trace, html;
      if (!flags->trace.empty()) {
        trace.emplace("--trace", flags->trace);
        report::write_chrome_trace(runs.front(), trace->stream());
      }
      if (!flags->report.empty()) {
        html.emplace("--report", flags->report);
        report::write_html_report(runs, html->stream());
      }
      if (trace) trace->commit();
      if (html) html->commit();
      return 0;
    };
  });
}

}  // namespace podsim::cli
