// `podsim run SCENARIO...`: runs scenarios and prints a table (or JSON, CSV), a Chrome trace and an HTML report; with
// failure flags, one scenario with those failures beside its run on the whole slice.
#include <iostream>
#include <optional>

#include "models/common/error.hpp"
#include "models/plan/schedule_policy.hpp"
#include "sim/capacity/model_run.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/failure_report.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/scenario/scenario_verify.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/failure_flags.hpp"
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
  FailureFlags failures;  // override the scenario's slice.failed_links, failed_chips and spare_cubes
};

// A run with failures given on the command line and the same scenario's run on the whole slice (docs/topology.md,
// "What a failure costs a step").
struct FailureRuns {
  FailureRequest request;
  ScenarioRun whole;
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

// The outputs of the runs (all of one level): stdout in the chosen format, then the trace of the first scenario and
// the page, both written whole before either replaces its file.
void write_outputs(const std::vector<ScenarioRun>& runs, const RunFlags& flags,
                   const std::optional<FailureRuns>& failures) {
  if (flags.format == "json") {
    nlohmann::json out = report::run_report_json(runs);
    if (failures) out["failures"] = report::failures_json(failures->request, runs.front(), failures->whole);
    std::cout << out.dump(2) << "\n";
  } else if (flags.format == "csv") {
    report::write_run_csv(runs, std::cout);
  } else {
    std::cout << report::run_report_text(runs);
    if (failures) std::cout << "\n" << report::failures_text(failures->request, runs.front(), failures->whole);
  }
  std::optional<report::OutputFile> trace, html;
  if (!flags.trace.empty()) {
    const std::string problem = report::run_trace_problem(runs.front());
    if (!problem.empty()) throw InputError("--trace", problem);
    trace.emplace("--trace", flags.trace);
    report::write_run_trace(runs.front(), trace->stream());
  }
  if (!flags.report.empty()) {
    html.emplace("--report", flags.report);
    report::write_html_report(
        runs, html->stream(),
        failures ? report::failures_html(failures->request, runs.front(), failures->whole) : std::string());
  }
  if (trace) trace->commit();
  if (html) html->commit();
}

// The scenario of `file` with the failures of `request` (the flags given in place of its slice's own), a broken rule
// located at its flag when the flag gave the field at fault, else at the scenario's field (by the verifier).
ScenarioSpec with_flag_failures(ScenarioSpec spec, const FailureRequest& request, const FailureFlags& flags,
                                const std::string& file) {
  const auto refuse = [&](FailureIssue::Field field, const std::string& why) {
    throw InputError(failure_flag(field), why + ", got: " + file);
  };
  if (spec.model)
    refuse(request.links.empty() ? FailureIssue::Field::failed_chips : FailureIssue::Field::failed_links,
           "failures are simulated on an op-level scenario's program; a model-level scenario plans other slices");
  if (spec.slice_shape.empty()) refuse(FailureIssue::Field::failed_links, "failures need the scenario's slice");
  const HardwareSpec& hw = spec.hardware.spec;
  SliceFailures resolved;
  if (const auto issue =
          resolve_slice_failures(Slice(spec.slice_shape, spec.wraparound, spec.twist), request,
                                 cube_pod(hw.wrap_rule, hw.pod_shape, hw.pod_chips, hw.name), true, resolved)) {
    using Field = FailureIssue::Field;
    const bool flag = issue->field == Field::failed_links   ? flags.failed_links.has_value()
                      : issue->field == Field::failed_chips ? flags.failed_chips.has_value()
                                                            : flags.spare_cubes.has_value();
    // A field the scenario gives is located there, by the verifier below.
    if (flag) throw InputError(failure_flag(issue->field), issue->message);
  }
  spec.failed_links = request.links;
  spec.failed_chips = request.chips;
  spec.spare_cubes = request.spare_cubes;
  return verified(std::move(spec));
}

// Runs the one scenario of `flags` with the failure flags, and on the whole slice.
std::pair<ScenarioRun, FailureRuns> run_with_failures(const RunFlags& flags, const RunOptions& options) {
  if (flags.scenarios.size() != 1)
    throw InputError(flags.failures.failed_links   ? "--failed-links"
                     : flags.failures.failed_chips ? "--failed-chips"
                                                   : "--spare-cubes",
                     "the failure flags name the links and chips of one scenario's slice, got: " +
                         std::to_string(flags.scenarios.size()) + " scenarios");
  const std::string& file = flags.scenarios.front();
  ScenarioSpec spec = load_scenario(file);
  if (flags.uncalibrated) drop_calibration(spec);
  FailureRuns failures{failure_request(flags.failures, spec.failure_request()), {}};
  ScenarioSpec whole = spec;
  whole.failed_links.clear();
  whole.failed_chips.clear();
  whole.spare_cubes = 0;
  whole = verified(std::move(whole));
  spec = with_flag_failures(std::move(spec), failures.request, flags.failures, file);
  RunOptions whole_options = options;
  whole_options.keep_timeline = false;
  try {
    ScenarioRun run = run_scenario(spec, options);
    failures.whole = run_scenario(whole, whole_options);
    return {std::move(run), std::move(failures)};
  } catch (const RunError& error) {
    throw at_flag(error, flag_of(error.field()));
  }
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
  add_failure_flags(cmd, flags->failures);
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
      options.keep_timeline = !flags->trace.empty();
      std::vector<ScenarioRun> runs;  // of one level: model-level scenarios (docs/capacity.md) not mixed with the rest
      if (flags->failures.given()) {
        auto [run, failures] = run_with_failures(*flags, options);
        runs.push_back(std::move(run));
        write_outputs(runs, *flags, failures);
        return 0;
      }
      for (const auto& file : flags->scenarios) {
        try {
          ScenarioSpec spec = load_scenario(file);
          if (flags->uncalibrated) drop_calibration(spec);
          if (spec.model) refuse_for_model_level(*flags, file);
          runs.push_back(spec.model ? run_model_scenario(spec, options) : run_scenario(spec, options));
        } catch (const RunError& error) {
          throw at_flag(error, flag_of(error.field()));
        }
        if (runs.back().level != runs.front().level)
          throw InputError(file, "run model-level scenarios and op-level ones in separate commands, got: both");
      }
      write_outputs(runs, *flags, std::nullopt);
      return 0;
    };
  });
}

}  // namespace podsim::cli
