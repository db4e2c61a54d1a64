// A training goal's figures in `podsim plan`'s reports (goal_report.hpp).
#include "sim/report/goal_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/plan_report.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;

json finite_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json optional_or_null(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

std::string days_text(double days) {
  return std::isfinite(days) ? format_number(days) : "never";
}

std::string usd_short(double usd) {
  if (!std::isfinite(usd)) return "-";
  if (usd >= 1e6) return "$" + format_number(usd / 1e6) + "M";
  if (usd >= 1e3) return "$" + format_number(usd / 1e3) + "k";
  return "$" + format_number(usd);
}

// 15e12 as `15T tokens`, 8e9 as `8B tokens`.
std::string tokens_text(double tokens) {
  if (tokens >= 1e12) return format_number(tokens / 1e12) + "T tokens";
  if (tokens >= 1e9) return format_number(tokens / 1e9) + "B tokens";
  return format_number(tokens) + " tokens";
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace

void add_goal_json(json& c, const std::optional<GoalFigures>& figures) {
  if (!figures) {
    c["time_to_train_days"] = {{"ideal", nullptr}, {"expected", nullptr}, {"p90", nullptr}};
    for (const char* key :
         {"chip_hours", "cost_usd", "energy_kwh", "goodput", "meets_goal", "chips_held", "tokens_per_joule"})
      c[key] = nullptr;
    c["misses"] = json::array();
    return;
  }
  const GoalFigures& f = *figures;
  const Goodput& g = f.goodput;
  c["time_to_train_days"] = {{"ideal", finite_or_null(f.ideal_days)},
                             {"expected", finite_or_null(f.expected_days)},
                             {"p90", optional_or_null(f.p90_days)},
                             {"p50", optional_or_null(f.p50_days)},
                             {"monte_carlo_runs", f.runs}};
  c["chip_hours"] = finite_or_null(f.chip_hours);
  c["cost_usd"] = optional_or_null(f.cost_usd);
  c["energy_kwh"] = optional_or_null(f.energy_kwh);
  c["goodput"] = {{"fraction", g.fraction},
                  {"checkpoint_interval_s", finite_or_null(g.interval_s)},
                  {"lost_to_checkpoints_s", finite_or_null(g.lost_to_checkpoints_s)},
                  {"lost_to_failures_s", finite_or_null(g.lost_to_failures_s)},
                  {"young_interval_s", finite_or_null(g.young_interval_s)},
                  {"mtbf_s", finite_or_null(g.mtbf_s)},
                  {"checkpoint_s", g.checkpoint_s},
                  {"restart_s", g.restart_s},
                  {"expected_failures", finite_or_null(g.expected_failures)},
                  {"failures_per_day", g.failures_per_day}};
  c["meets_goal"] = f.meets;
  c["misses"] = f.misses;
  c["chips_held"] = f.chips_held;
  c["tokens_per_joule"] = optional_or_null(f.tokens_per_joule);
}

std::vector<std::string> goal_headers(bool priced) {
  std::vector<std::string> out = {"days", "days p90", "goodput"};
  if (priced) out.push_back("cost");
  out.push_back("MWh");
  out.push_back("goal");
  return out;
}

std::vector<std::string> goal_cells(const std::optional<GoalFigures>& figures, bool priced) {
  if (!figures) return std::vector<std::string>(goal_headers(priced).size(), "-");
  const GoalFigures& f = *figures;
  std::vector<std::string> out = {days_text(f.expected_days), f.p90_days ? days_text(*f.p90_days) : "-",
                                  percent_text(f.goodput.fraction)};
  if (priced) out.push_back(f.cost_usd ? usd_short(*f.cost_usd) : "-");
  out.push_back(f.energy_kwh && std::isfinite(*f.energy_kwh) ? format_number(*f.energy_kwh / 1e3) : "-");
  out.push_back(f.meets ? "met" : joined(f.misses));
  return out;
}

std::vector<std::string> goal_csv_headers() {
  return {"time_to_train_ideal_days",
          "time_to_train_expected_days",
          "time_to_train_p90_days",
          "chip_hours",
          "cost_usd",
          "energy_kwh",
          "goodput_fraction",
          "checkpoint_interval_s",
          "meets_goal",
          "misses"};
}

std::vector<std::string> goal_csv_cells(const std::optional<GoalFigures>& figures) {
  if (!figures) return std::vector<std::string>(goal_csv_headers().size(), "");
  const GoalFigures& f = *figures;
  const auto number = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
  const auto optional = [&](const std::optional<double>& v) { return v ? number(*v) : std::string(); };
  std::string misses = joined(f.misses);
  if (misses.find_first_of(",\"\n") != std::string::npos) {
    std::string quoted = "\"";
    for (const char ch : misses)
      quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    misses = quoted + "\"";
  }
  return {number(f.ideal_days),       number(f.expected_days),
          optional(f.p90_days),       number(f.chip_hours),
          optional(f.cost_usd),       optional(f.energy_kwh),
          number(f.goodput.fraction), number(f.goodput.interval_s),
          f.meets ? "true" : "false", misses};
}

std::string goal_answer_text(const ScenarioSpec& spec, const PlanSearchResult& search) {
  if (!spec.goal) return "";
  const GoalSpec& goal = *spec.goal;
  std::string out = "goal: train " + tokens_text(goal.train_tokens);
  if (goal.deadline_days) out += fmt::format(" within {} days", format_number(*goal.deadline_days));
  if (goal.budget_usd) out += fmt::format(", budget {}", usd_short(*goal.budget_usd));
  if (goal.max_chips) out += fmt::format(", at most {} chips", *goal.max_chips);
  out += fmt::format("; objective {}\n", kGoalObjectiveNames.name(objective_of(goal, priced(spec))));
  if (search.ranked.empty() || !search.ranked.front().goal) return out + "answer: no candidate fits\n";
  const CandidateResult& best = search.ranked.front();
  const GoalFigures& f = *best.goal;
  // The microbatches and remat too when the candidates differ in them, as the next ones' labels say.
  const VaryingFields varying = varying_fields(search);
  const std::string what = fmt::format(
      "{} {} ({} chips{}), {}{}{}", best.candidate.hardware.name, slice_text(best.candidate), best.candidate.chips(),
      f.chips_held > best.candidate.chips() ? fmt::format(", {} held", f.chips_held) : "",
      best.candidate.parallelism.to_string(),
      varying.microbatches ? fmt::format(", {} microbatches", best.candidate.microbatches) : "",
      varying.remat ? ", remat " + remat_text(best.candidate.remat) : "");
  const std::string figures = fmt::format("{} days expected ({} ideal, goodput {}{}){}", days_text(f.expected_days),
                                          days_text(f.ideal_days), percent_text(f.goodput.fraction),
                                          f.p90_days ? ", p90 " + days_text(*f.p90_days) + " days" : std::string(),
                                          f.cost_usd ? ", " + usd_short(*f.cost_usd) : std::string());
  out += f.meets ? "answer: " + what + ": " + figures + "\n"
                 : "answer: no candidate meets the goal; the nearest, " + what + ": " + figures + ", misses " +
                       joined(f.misses) + "\n";
  // Why the next ones lose: their misses, or what they cost more (or take longer, or hold more chips) than the answer.
  for (std::size_t i = 1; i < std::min<std::size_t>(3, search.ranked.size()); ++i) {
    const CandidateResult& r = search.ranked[i];
    if (!r.goal) continue;
    const GoalFigures& g = *r.goal;
    std::vector<std::string> why;
    if (!g.meets && f.meets) why.push_back("misses " + joined(g.misses));
    if (g.cost_usd && f.cost_usd)
      why.push_back(
          fmt::format("{}{}", *g.cost_usd >= *f.cost_usd ? "+" : "-", usd_short(std::abs(*g.cost_usd - *f.cost_usd))));
    if (std::isfinite(g.expected_days) && std::isfinite(f.expected_days))
      why.push_back(fmt::format("{:+.3g} days", g.expected_days - f.expected_days));
    why.push_back(fmt::format("{:+d} chips", g.chips_held - f.chips_held));
    out += fmt::format("  #{} {} ({} chips): {}\n", i + 1, candidate_label(r.candidate, varying), r.candidate.chips(),
                       joined(why));
  }
  return out;
}

}  // namespace podsim::report
