// What a training goal asks of one candidate (docs/capacity.md, "Goals"): its time to train the goal's tokens,
// ideal and expected under failures, its chip-hours, cost and energy, and whether it meets the goal's constraints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/goal/goal.hpp"
#include "models/goal/goodput.hpp"

namespace podsim {

// One candidate as a goal sees it.
struct GoalInputs {
  double step_s = 0;                 // one optimizer step
  std::uint64_t batch_tokens = 0;    // tokens a step trains on
  JobScale scale;                    // its running chips, hosts and slices
  std::int64_t chips_per_slice = 0;  // the chips a spare slice holds
  double checkpoint_bytes = 0;       // parameters and optimizer state, all chips together
  double power_W = 0;                // per chip; 0: no figure (no energy)
  std::optional<double> price_per_chip_hour;
};

struct GoalFigures {
  double steps = 0;  // ceil(train_tokens / batch_tokens)
  double ideal_days = 0;
  double expected_days = 0;
  std::optional<double> p50_days;  // the Monte Carlo's, when it ran
  std::optional<double> p90_days;
  std::int64_t runs = 0;             // Monte Carlo runs drawn
  std::int64_t chips_held = 0;       // running chips plus the spare slices'
  double chip_hours = 0;             // chips_held x expected hours
  std::optional<double> cost_usd;    // chip_hours x price
  std::optional<double> energy_kwh;  // running chips x power x expected hours (spares idle, not counted)
  std::optional<double> tokens_per_joule;
  Goodput goodput;
  bool meets = true;
  std::vector<std::string> misses;  // e.g. `deadline: 72.4 days > 60 days (+12.4 days)`
  double worst_miss = 0;            // the largest relative excess over a constraint (0.2: 20% over); 0 when met
};

// The closed form (and, with reliability.monte_carlo_runs > 0 and `monte_carlo`, the Monte Carlo's p50 and p90)
// of training goal.train_tokens on `inputs`, and the constraints it misses.
GoalFigures goal_figures(const GoalSpec& goal, const ReliabilitySpec& reliability, const GoalInputs& inputs,
                         bool monte_carlo);

// The figure the objective minimises: cost_usd, expected_days, or chips_held (then expected days break ties, so
// the value is chips_held + expected_days / 1e9). Infinity when it is not known (a cost without a price).
double objective_value(const GoalFigures& figures, GoalObjective objective);

}  // namespace podsim
