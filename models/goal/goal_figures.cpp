// A training goal's figures for one candidate (goal_figures.hpp).
#include "models/goal/goal_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/units.hpp"
#include "models/goal/goodput.hpp"
#include "models/serving/latency_summary.hpp"

namespace podsim {
namespace {

constexpr double kGoalSecondsPerDay = 86400.0;
constexpr double kInfiniteMiss = 1e300;  // a run that never finishes misses by more than any that does

std::string usd_text(double usd) {
  return "$" + format_number(usd);
}

}  // namespace

GoalFigures goal_figures(const GoalSpec& goal, const ReliabilitySpec& reliability, const GoalInputs& in,
                         bool monte_carlo) {
  GoalFigures f;
  f.steps = std::ceil(goal.train_tokens / static_cast<double>(in.batch_tokens));
  const double ideal_s = f.steps * in.step_s;
  const double hosts = static_cast<double>(std::max<std::int64_t>(in.scale.hosts, 1));
  const double checkpoint_s = in.checkpoint_bytes / (hosts * reliability.checkpoint_write_Bps_per_host);
  const double restart_s =
      reliability.restart_s + in.checkpoint_bytes / (hosts * reliability.checkpoint_read_Bps_per_host);
  f.goodput = goodput(ideal_s, checkpoint_s, restart_s, job_failures_per_day(reliability, in.scale));
  f.ideal_days = ideal_s / kGoalSecondsPerDay;
  f.expected_days = f.goodput.expected_s / kGoalSecondsPerDay;
  if (monte_carlo && reliability.monte_carlo_runs > 0) {
    std::vector<double> walls = sample_wall_times(f.goodput, reliability.monte_carlo_runs, reliability.seed);
    if (!walls.empty()) {
      std::sort(walls.begin(), walls.end());
      f.runs = static_cast<std::int64_t>(walls.size());
      f.p50_days = numpy_percentile(walls, 50) / kGoalSecondsPerDay;
      f.p90_days = numpy_percentile(walls, 90) / kGoalSecondsPerDay;
    }
  }
  f.chips_held = in.scale.chips + reliability.spare_slices * in.chips_per_slice;
  const double hours = f.goodput.expected_s / 3600.0;
  f.chip_hours = static_cast<double>(f.chips_held) * hours;
  if (in.price_per_chip_hour) f.cost_usd = f.chip_hours * *in.price_per_chip_hour;
  if (in.power_W > 0) {
    f.energy_kwh = static_cast<double>(in.scale.chips) * in.power_W * hours / 1000.0;
    if (*f.energy_kwh > 0 && std::isfinite(*f.energy_kwh))
      f.tokens_per_joule = goal.train_tokens / (*f.energy_kwh * 3.6e6);
  }

  const bool finishes = std::isfinite(f.expected_days);
  if (goal.deadline_days && !(finishes && f.expected_days <= *goal.deadline_days))
    f.misses.push_back(finishes
                           ? "deadline: " + format_number(f.expected_days) + " days expected > " +
                                 format_number(*goal.deadline_days) + " days (+" +
                                 format_number(f.expected_days - *goal.deadline_days) + " days)"
                           : "deadline: the run never finishes (a failure every " + format_seconds(f.goodput.mtbf_s) +
                                 " against checkpoints of " + format_seconds(checkpoint_s) + " and restarts of " +
                                 format_seconds(restart_s) + ")");
  if (goal.budget_usd && f.cost_usd && !(std::isfinite(*f.cost_usd) && *f.cost_usd <= *goal.budget_usd))
    f.misses.push_back(std::isfinite(*f.cost_usd)
                           ? "budget: " + usd_text(*f.cost_usd) + " > " + usd_text(*goal.budget_usd) + " (+" +
                                 usd_text(*f.cost_usd - *goal.budget_usd) + ")"
                           : std::string("budget: the run never finishes"));
  if (goal.max_chips && f.chips_held > *goal.max_chips)
    f.misses.push_back("chips: " + std::to_string(f.chips_held) + " > " + std::to_string(*goal.max_chips) + " (+" +
                       std::to_string(f.chips_held - *goal.max_chips) + ")");
  const auto excess = [&](double value, double limit) {
    f.worst_miss = std::max(f.worst_miss, std::isfinite(value) ? value / limit - 1.0 : kInfiniteMiss);
  };
  if (goal.deadline_days && !(finishes && f.expected_days <= *goal.deadline_days))
    excess(f.expected_days, *goal.deadline_days);
  if (goal.budget_usd && f.cost_usd && !(*f.cost_usd <= *goal.budget_usd)) excess(*f.cost_usd, *goal.budget_usd);
  if (goal.max_chips && f.chips_held > *goal.max_chips)
    excess(static_cast<double>(f.chips_held), static_cast<double>(*goal.max_chips));
  f.meets = f.misses.empty();
  return f;
}

double objective_value(const GoalFigures& f, GoalObjective objective) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  switch (objective) {
    case GoalObjective::cost:
      return f.cost_usd.value_or(kUnknown);
    case GoalObjective::time:
      return f.expected_days;
    case GoalObjective::chips:
      return static_cast<double>(f.chips_held) + (std::isfinite(f.expected_days) ? f.expected_days / 1e9 : 1.0);
  }
  return kUnknown;
}

}  // namespace podsim
