// The rules of a goal and of a reliability section, and the reliability defaults (docs/capacity.md, "Goodput").
#include "models/goal/goal.hpp"

#include <cmath>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {
namespace {

void require_positive(const std::string& where, double value, double most) {
  if (!std::isfinite(value) || !(value > 0))
    throw InputError(where, "must be a finite number > 0, got: " + exact_number(value));
  if (value > most) throw InputError(where, "must be at most " + exact_number(most) + ", got: " + exact_number(value));
}

void require_non_negative(const std::string& where, double value, double most) {
  if (!std::isfinite(value) || value < 0)
    throw InputError(where, "must be a finite number >= 0, got: " + exact_number(value));
  if (value > most) throw InputError(where, "must be at most " + exact_number(most) + ", got: " + exact_number(value));
}

}  // namespace

ReliabilitySpec default_reliability() {
  // No TPU source gives failure rates per chip, host or slice (docs/capacity.md, "Goodput", lists what was read): the
  // rates are Meta's LLaMA 3 405B run on GPUs (Dubey et al. 2024, arXiv:2407.21783, section 3.3.4, Table 5): 419
  // unexpected interruptions in 54 days on 16,384 GPUs in 2,048 hosts of 8, i.e. 884,736 chip-days and 110,592
  // host-days. Chip causes (faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17, silent data corruption 6,
  // thermal interface and sensor 6): 268 per chip-day. Host causes (NIC 7, SSD 3, power supply 3, chassis 2, IO
  // expansion board 2, CPU 2, system memory 2, unplanned host maintenance 32): 53 per host-day. Job-wide causes
  // (network switch and cable 35, collective watchdog timeouts 7, software bugs 54, dependencies 2): 98, per
  // chip-day, as Google's Gemini report says the mean time between failures falls in proportion to accelerators.
  ReliabilitySpec r;
  r.chip_failures_per_day = 268.0 / 884736.0;
  r.host_failures_per_day = 53.0 / 110592.0;
  r.slice_failures_per_day = 98.0 / 884736.0;
  // Orbax's published save and restore times of 70B and 405B checkpoints on TPU v5p, per host (derived: the
  // benchmark's host count and checkpoint size; docs/capacity.md, "Goodput").
  r.checkpoint_write_Bps_per_host = 8e8;
  r.checkpoint_read_Bps_per_host = 8.6e8;
  // Between Google's published recovery times (under a minute with multi-tier checkpointing in memory, up to 30
  // minutes from Cloud Storage at scale), excluding the checkpoint's read.
  r.restart_s = 600;
  r.spare_slices = 0;
  r.monte_carlo_runs = 1000;
  r.seed = 0;
  return r;
}

GoalObjective objective_of(const GoalSpec& goal, bool priced) {
  return goal.objective.value_or(priced ? GoalObjective::cost : GoalObjective::time);
}

void verify_goal(const GoalSpec& goal) {
  require_positive("/goal/train_tokens", goal.train_tokens, 1e18);
  if (goal.deadline_days) require_positive("/goal/deadline_days", *goal.deadline_days, 1e5);
  if (goal.budget_usd) require_positive("/goal/budget_usd", *goal.budget_usd, 1e15);
  if (goal.max_chips && *goal.max_chips < 1)
    throw InputError("/goal/max_chips", "must be at least 1, got: " + std::to_string(*goal.max_chips));
}

void verify_reliability(const ReliabilitySpec& r) {
  require_non_negative("/reliability/chip_failures_per_day", r.chip_failures_per_day, 1e3);
  require_non_negative("/reliability/host_failures_per_day", r.host_failures_per_day, 1e3);
  require_non_negative("/reliability/slice_failures_per_day", r.slice_failures_per_day, 1e3);
  require_positive("/reliability/checkpoint_write_Bps_per_host", r.checkpoint_write_Bps_per_host, 1e15);
  require_positive("/reliability/checkpoint_read_Bps_per_host", r.checkpoint_read_Bps_per_host, 1e15);
  require_non_negative("/reliability/restart_s", r.restart_s, 1e7);
  if (r.spare_slices < 0 || r.spare_slices > 10000)
    throw InputError("/reliability/spare_slices", "must be in [0, 10000], got: " + std::to_string(r.spare_slices));
  if (r.monte_carlo_runs < 0 || r.monte_carlo_runs > 1000000)
    throw InputError("/reliability/monte_carlo_runs",
                     "must be in [0, 1000000], got: " + std::to_string(r.monte_carlo_runs));
}

}  // namespace podsim
