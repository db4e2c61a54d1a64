// A model-level training scenario's `goal` and `reliability` sections (docs/capacity.md, "Goals" and "Goodput").
#include <string>

#include "models/goal/goal.hpp"
#include "sim/scenario/scenario_json_detail.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim::scenario_detail {

void read_goal(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/goal";
  require_object(ctx, j, p);
  require_known_keys_near(ctx, j, p, {"train_tokens", "deadline_days", "budget_usd", "max_chips", "objective"});
  require_key(ctx, j, p, "train_tokens");
  GoalSpec goal;
  goal.train_tokens = get_number(ctx, j.at("train_tokens"), child(p, "train_tokens"));
  if (j.contains("deadline_days"))
    goal.deadline_days = get_number(ctx, j.at("deadline_days"), child(p, "deadline_days"));
  if (j.contains("budget_usd")) goal.budget_usd = get_number(ctx, j.at("budget_usd"), child(p, "budget_usd"));
  if (j.contains("max_chips")) goal.max_chips = get_int(ctx, j.at("max_chips"), child(p, "max_chips"));
  if (j.contains("objective"))
    goal.objective = get_enum(ctx, j.at("objective"), child(p, "objective"), kGoalObjectiveNames);
  spec.goal = goal;
}

void read_reliability(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/reliability";
  require_object(ctx, j, p);
  require_known_keys_near(
      ctx, j, p,
      {"chip_failures_per_day", "host_failures_per_day", "slice_failures_per_day", "checkpoint_write_Bps_per_host",
       "checkpoint_read_Bps_per_host", "restart_s", "spare_slices", "monte_carlo_runs", "seed"});
  ReliabilitySpec r = default_reliability();
  const std::pair<const char*, double*> numbers[] = {
      {"chip_failures_per_day", &r.chip_failures_per_day},
      {"host_failures_per_day", &r.host_failures_per_day},
      {"slice_failures_per_day", &r.slice_failures_per_day},
      {"checkpoint_write_Bps_per_host", &r.checkpoint_write_Bps_per_host},
      {"checkpoint_read_Bps_per_host", &r.checkpoint_read_Bps_per_host},
      {"restart_s", &r.restart_s}};
  for (const auto& number : numbers)
    if (j.contains(number.first)) *number.second = get_number(ctx, j.at(number.first), child(p, number.first));
  if (j.contains("spare_slices")) r.spare_slices = get_int(ctx, j.at("spare_slices"), child(p, "spare_slices"));
  if (j.contains("monte_carlo_runs"))
    r.monte_carlo_runs = get_int(ctx, j.at("monte_carlo_runs"), child(p, "monte_carlo_runs"));
  if (j.contains("seed")) r.seed = static_cast<std::uint64_t>(get_int(ctx, j.at("seed"), child(p, "seed"), 0));
  spec.reliability = r;
}

}  // namespace podsim::scenario_detail
