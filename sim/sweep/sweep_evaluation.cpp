// A point: resolve its scenario, load and verify it (named `SWEEP#point N` in messages), then evaluate every plan
// by the closed form (planned without chip groups, as plan search screens) or by run_scenario (simulated), or for
// a model-level scenario run the plan search and keep its best candidates.
#include "sim/sweep/sweep_evaluation.hpp"

#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>

#include "models/common/error.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/plan/book_evaluation.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/run/scenario_platform.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/sweep/sweep_points.hpp"

namespace podsim {
namespace {

using Json = nlohmann::ordered_json;

Json plan_entry(std::optional<double> des_time_s, double book_time_s, std::uint64_t memory_per_chip_bytes,
                bool fits_hbm, const std::string& busiest_link, std::optional<double> mfu) {
  Json entry;
  entry["des_time_s"] = des_time_s ? Json(*des_time_s) : Json(nullptr);
  entry["book_time_s"] = book_time_s;
  entry["memory_per_chip_bytes"] = memory_per_chip_bytes;
  entry["fits_hbm"] = fits_hbm;
  entry["busiest_link"] = busiest_link.empty() ? Json(nullptr) : Json(busiest_link);
  entry["mfu"] = mfu ? Json(*mfu) : Json(nullptr);
  return entry;
}

// What the sweep report needs (its Pareto front, its HBM line), after the keys above, whose order is the contract:
// the chips of the plan's slice and the HBM capacity per chip (0: the chip has no figure).
void add_size(Json& entry, std::int64_t chips, std::uint64_t hbm_bytes) {
  entry["chips"] = chips;
  entry["hbm_bytes"] = hbm_bytes;
}

// Every plan by the closed form: planned once, evaluated in program order (sim/plan/book_evaluation.hpp).
Json book_plans(const ScenarioSpec& spec) {
  const ScenarioPlatform platform = build_platform(spec);
  PlanTopology topology = platform.topology();
  topology.book_only = true;
  std::vector<const ScenarioPlan*> plans;
  if (spec.plans.empty()) plans.push_back(nullptr);
  for (const auto& plan : spec.plans)
    plans.push_back(&plan);
  Json out = Json::object();
  for (const ScenarioPlan* plan : plans) {
    const PlannedProgram program = plan_program(spec, topology, plan);
    const BookEvaluation book = evaluate_book(program);
    Json entry = plan_entry(std::nullopt, program.book_time_s, book.memory.peak_bytes, book.fits_hbm, "", std::nullopt);
    add_size(entry, platform.slice->num_chips(), program.hbm_bytes);
    out[program.name] = std::move(entry);
  }
  return out;
}

Json simulated_plans(const ScenarioSpec& spec) {
  const ScenarioRun run = run_scenario(spec);
  Json out = Json::object();
  for (const PlanRun& plan : run.plans) {
    Json entry = plan_entry(plan.des_time_s, plan.book_time_s, plan.memory_per_chip_bytes, plan.fits_hbm,
                            plan.busiest_link, std::nullopt);
    add_size(entry, run.slice ? run.slice->num_chips() : 0, plan.hbm_bytes);
    out[plan.name] = std::move(entry);
  }
  return out;
}

// The plan search's best candidates (screened by the closed form; simulated unless --model book).
Json searched_plans(const ScenarioSpec& spec, SweepModel model) {
  PlanSearchOptions options;
  options.simulate = model != SweepModel::book;
  options.top_k = options.simulate ? kSweepRankedCandidates : 0;
  options.parallel = 1;  // a sweep's workers are already one per core, each with its own memory
  const PlanSearchResult search = search_plans(spec, options);
  Json out = Json::object();
  for (std::size_t i = 0; i < search.ranked.size() && i < kSweepRankedCandidates; ++i) {
    const CandidateResult& r = search.ranked[i];
    Json entry = plan_entry(r.des_step_s, r.book_step_s, r.memory_per_chip_bytes, r.fits_hbm, "", r.mfu);
    // Every field in the label (the plan when it comes from one), so labels read alike whatever a search varies;
    // microbatches and remat in training only (serving has neither).
    const bool training = !spec.workload || spec.workload->mode == WorkloadMode::train;
    const report::VaryingFields varying{!r.candidate.plan.empty(), true, training, training};
    entry["candidate"] = report::candidate_label(r.candidate, varying);
    if (!training) entry["token_latency_s"] = r.token_latency_s;  // decode: one step; prefill: the step
    add_size(entry, r.candidate.chips(), r.hbm_bytes);
    entry["cost_per_million_tokens"] = r.cost_per_million_tokens ? Json(*r.cost_per_million_tokens) : Json(nullptr);
    if (r.goal) {  // a goal's figures (docs/capacity.md, "Goals"), as `podsim plan --json` gives them
      const GoalFigures& g = *r.goal;
      entry["time_to_train_days"] = std::isfinite(g.expected_days) ? Json(g.expected_days) : Json(nullptr);
      entry["cost_usd"] = g.cost_usd && std::isfinite(*g.cost_usd) ? Json(*g.cost_usd) : Json(nullptr);
      entry["energy_kwh"] = g.energy_kwh && std::isfinite(*g.energy_kwh) ? Json(*g.energy_kwh) : Json(nullptr);
      entry["meets_goal"] = g.meets;
    }
    out["rank" + std::to_string(i + 1)] = std::move(entry);
  }
  return out;
}

}  // namespace

std::string_view sweep_model_name(SweepModel model) {
  switch (model) {
    case SweepModel::book:
      return "book";
    case SweepModel::des:
      return "des";
    case SweepModel::both:
      return "both";
  }
  return "book";
}

std::string evaluate_point(const SweepSpec& spec, std::size_t point, SweepModel model, bool uncalibrated) {
  Json line;
  line["point"] = point;
  Json params = Json::object();
  for (auto& [pointer, value] : point_params(spec, point))
    params[pointer] = std::move(value);
  line["params"] = std::move(params);
  std::optional<std::string> text;
  Json plans = Json::object();
  std::optional<std::string> error;
  try {
    text = resolve_point(spec, point).dump();
    ScenarioSpec scenario = load_scenario_text(*text, point_name(spec, point), spec.base_folder);
    if (uncalibrated) drop_calibration(scenario);
    if (scenario.model)
      plans = searched_plans(scenario, model);
    else
      plans = model == SweepModel::book ? book_plans(scenario) : simulated_plans(scenario);
  } catch (const Error& e) {
    error = e.what();
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  }
  // A point whose values cannot be applied has no scenario text: its hash covers its parameters instead.
  line["hash"] = content_hash(text ? *text : line["params"].dump());
  line["model"] = std::string(sweep_model_name(model));
  if (uncalibrated) line["uncalibrated"] = true;
  line["error"] = error ? Json(*error) : Json(nullptr);
  line["plans"] = error ? Json::object() : std::move(plans);
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace podsim
