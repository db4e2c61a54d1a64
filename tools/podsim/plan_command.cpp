// `podsim plan SCENARIO.json [--top K] [--model book|des|both] [--json | --csv] [--report FILE.html]
// [--trace FILE [--candidate N]]`: the candidates a model-level scenario allows, screened by the closed form, the
// best K simulated, ranked (docs/capacity.md); the Chrome trace of one simulated candidate's step. On a serving
// scenario: its deployments searched through the request-level simulation (docs/serving.md, "Search").
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/goal_evaluation.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/capacity/serving_search.hpp"
#include "sim/report/candidate_trace.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/serving_plan_report.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct PlanFlags {
  std::string scenario;
  std::int64_t top = 10;
  std::string model = "both";
  bool json = false;
  bool csv = false;
  std::string report;
  std::string trace;
  std::optional<std::int64_t> candidate;  // rank in the table; the best when not given
  bool uncalibrated = false;
  std::string sort;                  // cost, chips, time or step; empty: the goal's objective, or the step
  std::optional<std::int64_t> rows;  // the text table's ranked rows at most
};

// The N-th candidate of the printed ranking (1-based), simulated again with its timeline kept, written as a trace.
void write_trace(const ScenarioSpec& spec, const PlanSearchResult& result, std::int64_t rank, std::ostream& out) {
  const auto count = static_cast<std::int64_t>(result.ranked.size());
  if (rank > count)
    throw InputError("--candidate",
                     "the ranking has " + std::to_string(count) + " candidates, got: " + std::to_string(rank));
  CandidateResult chosen = result.ranked[static_cast<std::size_t>(rank - 1)];
  if (chosen.des_failed)
    throw InputError("--candidate", "candidate " + std::to_string(rank) +
                                        "'s simulation failed, so it has no trace: " + *chosen.des_failed);
  if (!chosen.des_step_s)
    throw InputError("--candidate",
                     "the trace shows a simulated candidate (the best --top K are simulated; --model "
                     "book simulates none), got: candidate " +
                         std::to_string(rank) + ", not simulated");
  CandidateTimeline timeline;
  simulate_candidate(capacity_problem(spec), chosen, &timeline);
  const report::CandidateTraceInfo info{spec.name, static_cast<std::size_t>(rank),
                                        report::candidate_label(chosen.candidate, report::varying_fields(result)),
                                        chosen.step_s()};
  report::write_candidate_trace(timeline, info, out);
}

std::string flag_of(SortField field) {
  switch (field) {
    case SortField::sort:
      return "--sort";
  }
  return "--sort";
}

// A serving scenario: its deployments searched through `podsim serve`'s simulation (docs/serving.md, "Search").
int plan_serving(const PlanFlags& flags, const ScenarioSpec& spec) {
  if (!flags.report.empty())
    throw InputError("--report",
                     "a serving search writes a table, JSON or CSV; the HTML report is `podsim serve "
                     "--report` of the chosen deployment, got: --report " +
                         flags.report);
  if (!flags.trace.empty())
    throw InputError("--trace",
                     "a serving search has no step to trace; `podsim serve --trace` traces a deployment's "
                     "requests, got: --trace " +
                         flags.trace);
  ServingSearchOptions options;
  options.evaluator = flags.model == "des" ? StepEvaluator::des : StepEvaluator::book;
  const ServingSearchResult result = search_serving(spec, options);
  const report::ServingPlanReport plan_report{spec, result};
  if (flags.json)
    std::cout
        << report::serving_plan_json(plan_report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
        << "\n";
  else if (flags.csv)
    report::write_serving_plan_csv(plan_report, std::cout);
  else
    std::cout << report::serving_plan_text(plan_report);
  if (flags.json || flags.csv) std::cerr << report::serving_search_summary(result) << "\n";
  return 0;
}

int plan(const PlanFlags& flags) {
  if (flags.model != "book" && flags.model != "des" && flags.model != "both")
    throw InputError("--model", "model must be book, des or both, got: " + flags.model);
  if (flags.top < 0) throw InputError("--top", "must be at least 0, got: " + std::to_string(flags.top));
  if (flags.json && flags.csv) throw InputError("--csv", "give --json or --csv, not both");
  if (flags.candidate && flags.trace.empty())
    throw InputError("--candidate", "chooses the candidate --trace writes: give --trace FILE too");
  if (!flags.sort.empty() && !kPlanSortNames.find(flags.sort))
    throw InputError("--sort", "must be cost, chips, time or step, got: " + flags.sort);
  if (flags.rows && *flags.rows < 1)
    throw InputError("--rows", "must be at least 1, got: " + std::to_string(*flags.rows));
  if (flags.candidate && *flags.candidate < 1)
    throw InputError("--candidate", "must be at least 1, got: " + std::to_string(*flags.candidate));
  report::check_outputs({{"--report", flags.report}, {"--trace", flags.trace}}, {{"scenario", flags.scenario}});
  // Opened (as temporary files) before the search, so that a folder that cannot be written is said at once; they
  // replace their files only once both are written whole.
  std::optional<report::OutputFile> html, trace;
  if (!flags.report.empty()) html.emplace("--report", flags.report);
  if (!flags.trace.empty()) trace.emplace("--trace", flags.trace);
  ScenarioSpec spec = load_scenario(flags.scenario);
  if (flags.uncalibrated) drop_calibration(spec);
  if (spec.serve) return plan_serving(flags, spec);
  PlanSearchOptions options;
  options.top_k = static_cast<std::size_t>(flags.top);
  options.simulate = flags.model != "book";
  PlanSearchResult result = search_plans(spec, options);
  if (!flags.sort.empty())
    at_flags<SortField>([&] { sort_ranked(capacity_problem(spec), result.ranked, *kPlanSortNames.find(flags.sort)); },
                        flag_of);
  if (flags.model == "des")  // only what the simulation timed (and the simulations that failed)
    std::erase_if(result.ranked, [](const CandidateResult& r) { return !r.des_step_s && !r.des_failed; });
  const report::PlanReport plan_report{spec, result, flags.rows ? static_cast<std::size_t>(*flags.rows) : SIZE_MAX};
  if (flags.json)
    std::cout << report::plan_json(plan_report).dump(2) << "\n";
  else if (flags.csv)
    report::write_plan_csv(plan_report, std::cout);
  else
    std::cout << report::plan_text(plan_report);
  if (flags.json || flags.csv) std::cerr << report::search_summary(result) << "\n";
  if (html) report::write_plan_html(plan_report, html->stream());
  if (trace) write_trace(spec, result, flags.candidate.value_or(1), trace->stream());
  if (html) html->commit();
  if (trace) trace->commit();
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "plan",
      "Capacity planning: screen a model-level scenario's candidates by the closed form, simulate the best; on a "
      "serving scenario, search its deployments (replicas, slices, parallelism) against its traffic and SLO");
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
  cmd->add_option("--trace", flags->trace,
                  "Write a Chrome trace (open in Perfetto) of one simulated candidate's step to this file");
  cmd->add_option("--sort", flags->sort,
                  "Rank by cost, chips, time or step (default: the goal's objective, else the step time)");
  cmd->add_option("--rows", flags->rows, "Show at most N ranked candidates in the text table (JSON and CSV keep all)");
  cmd->add_option("--candidate", flags->candidate,
                  "With --trace: the candidate traced, its rank in the table (default: 1, the best)");
  cmd->callback([flags, &action] { action = [flags] { return plan(*flags); }; });
}

}  // namespace podsim::cli
