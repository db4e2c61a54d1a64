// `podsim serve SCENARIO.json [--model book|des] [--plan NAME] [--max-rate] [--json | --csv] [--report FILE.html]
// [--trace FILE]`: a serving scenario's requests through its replicas on SimGrid, with their latencies, throughput,
// goodput and SLO checks; with --max-rate, the highest arrival rate that meets the SLO, by bisection (docs/serving.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/serving_rate.hpp"
#include "sim/capacity/serving_run.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/serving_report.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct ServeFlags {
  std::string scenario;
  std::string model = "book";
  std::string plan;
  bool json = false;
  bool csv = false;
  std::string report;
  std::string trace;
  bool uncalibrated = false;
  bool max_rate = false;
};

std::string flag_of(ServingRunOptions::Field field) {
  switch (field) {
    case ServingRunOptions::Field::plan:
      return "--plan";
  }
  return "--plan";
}

int serve(const ServeFlags& flags) {
  if (flags.model != "book" && flags.model != "des")
    throw InputError("--model", "the step model is built from book or des steps, got: " + flags.model);
  if (flags.json && flags.csv) throw InputError("--csv", "give --json or --csv, not both");
  report::check_outputs({{"--report", flags.report}, {"--trace", flags.trace}}, {{"scenario", flags.scenario}});
  std::optional<report::OutputFile> html, trace;
  if (!flags.report.empty()) html.emplace("--report", flags.report);
  if (!flags.trace.empty()) trace.emplace("--trace", flags.trace);
  ScenarioSpec spec = load_scenario(flags.scenario);
  if (flags.uncalibrated) drop_calibration(spec);
  const StepEvaluator evaluator = flags.model == "des" ? StepEvaluator::des : StepEvaluator::book;
  ServingReport serving;
  ServingOutcome outcome;
  if (flags.max_rate) {
    if (!spec.serve)
      throw InputError(flags.scenario + ": /workload/mode",
                       "--max-rate needs a serving scenario (workload mode \"serve\"), got: none");
    if (spec.serve->disaggregated)
      throw InputError("--max-rate",
                       "probes co-located deployments for now, got: " + flags.scenario + " (serving.disaggregated)");
    const ServingReplicaModel model(spec, serving_plan_candidate(spec, flags.plan), std::nullopt, evaluator);
    MaxRateResult rates = find_max_rate(model, spec.serve->traffic, spec.serve->replicas, spec.serve->slo);
    outcome = std::move(*rates.shown);
    if (html || trace) {  // the probes keep no step series: the run shown again with it (the same run, bit for bit)
      outcome = model.run(traffic_at_rate(spec.serve->traffic, rates.shown_rate_per_s), spec.serve->replicas, true);
    }
    serving.rate_points = std::move(rates.points);
    serving.max_rate_per_s = rates.max_rate_per_s;
    serving.lowest_miss_per_s = rates.lowest_miss_per_s;
  } else {
    ServingRunOptions options;
    options.evaluator = evaluator;
    options.plan = flags.plan;
    options.keep_steps = html || trace;
    outcome = at_flags<ServingRunOptions::Field>([&] { return run_serving_scenario(spec, options); }, flag_of);
  }
  serving.scenario = spec.name;
  serving.source_file = flags.scenario;
  serving.traffic = std::move(outcome.traffic);
  serving.deployment = std::move(outcome.deployment);
  serving.run = std::move(outcome.run);
  serving.metrics = outcome.metrics;
  serving.slo = outcome.slo;
  serving.checks = std::move(outcome.checks);
  if (flags.json)
    std::cout << serving_json(serving) << "\n";
  else if (flags.csv)
    write_serving_csv(serving, std::cout);
  else
    std::cout << serving_rate_text(serving) << serving_text(serving);
  if (html) write_serving_html(serving, html->stream());
  if (trace) write_serving_trace(serving, trace->stream());
  if (html) html->commit();
  if (trace) trace->commit();
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "serve", "Serving: a scenario's requests through continuous-batching replicas, latencies, goodput and SLOs");
  auto flags = std::make_shared<ServeFlags>();
  cmd->add_option("scenario", flags->scenario, "A serving scenario (workload mode \"serve\", JSON)")->required();
  cmd->add_option("--model", flags->model,
                  "How a replica's step is timed: book (closed form) or des (simulated grid points)")
      ->capture_default_str();
  cmd->add_option("--plan", flags->plan, "The scenario plan each replica runs (default: its only plan)");
  cmd->add_flag("--json", flags->json, "Print JSON (\"schema\": \"podsim/1\")");
  cmd->add_flag("--csv", flags->csv, "Print CSV, one row per request");
  cmd->add_flag("--max-rate", flags->max_rate,
                "Find the highest arrival rate the deployment serves within the scenario's SLO (bisection; each "
                "probe a run), and show the run at that rate");
  cmd->add_flag("--uncalibrated", flags->uncalibrated,
                "Time steps with the presets' figures, without their calibration (docs/hardware-model.md)");
  cmd->add_option("--report", flags->report, "Write a self-contained HTML report to this file");
  cmd->add_option("--trace", flags->trace,
                  "Write a Chrome trace (open in Perfetto) of the replicas' steps and the requests to this file");
  cmd->callback([flags, &action] { action = [flags] { return serve(*flags); }; });
}

}  // namespace podsim::cli
