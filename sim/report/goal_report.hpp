// A training goal's figures in `podsim plan`'s reports (docs/capacity.md, "Goals"): the keys the JSON adds to each
// candidate, the columns of the text table and the CSV, and the answer line that leads the text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/goal/goal_figures.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::report {

// Adds to a candidate's object the goal's keys (issue 31's contract): "time_to_train_days": {"ideal", "expected",
// "p90"}, "chip_hours", "cost_usd", "energy_kwh", "goodput": {"fraction", "checkpoint_interval_s",
// "lost_to_checkpoints_s", "lost_to_failures_s"}, "meets_goal", "misses"; and beside them "time_to_train_days"
// also "p50" and "monte_carlo_runs", "goodput" also "young_interval_s", "mtbf_s", "checkpoint_s", "restart_s",
// "expected_failures", "failures_per_day", and "chips_held", "tokens_per_joule". Figures are null for a candidate
// without goal figures (rejected), and where unknown (a cost without a price, an energy without a power figure,
// p90 without a Monte Carlo, a time that never ends).
void add_goal_json(nlohmann::json& candidate, const std::optional<GoalFigures>& figures);

// The text table's goal columns: days (expected), days p90, goodput, cost (priced), energy MWh, goal (`met` or the
// misses); and their cells for one candidate.
std::vector<std::string> goal_headers(bool priced);
std::vector<std::string> goal_cells(const std::optional<GoalFigures>& figures, bool priced);

// The CSV's goal columns (the JSON's keys flattened) and one candidate's cells.
std::vector<std::string> goal_csv_headers();
std::vector<std::string> goal_csv_cells(const std::optional<GoalFigures>& figures);

// `goal: 15e12 tokens within 60 days, objective cost` and the answer: the best candidate's days, cost and chips, or
// that none meets (with the nearest's misses); then why the next two lose (their misses, and their cost, days and
// chips against the answer's); empty without a goal.
std::string goal_answer_text(const ScenarioSpec& spec, const PlanSearchResult& search);

// The HTML report's goal section: the answer, then expected days against cost (chips when unpriced), one dot per
// ranked candidate (green when it meets the goal), the Pareto front, and the deadline and budget as dashed lines;
// empty without a goal.
std::string goal_section_html(const ScenarioSpec& spec, const PlanSearchResult& search);

}  // namespace podsim::report
