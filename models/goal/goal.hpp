// A training goal and the reliability of a run at scale (docs/capacity.md, "Goals"): how many tokens to train, by
// when, for how much, on how many chips; and what failures, checkpoints and restarts cost a run of thousands of chips.
#pragma once

#include <cstdint>
#include <optional>

#include "models/common/enum_names.hpp"

namespace podsim {

// What `podsim plan` minimises among the candidates that meet a goal's constraints.
enum class GoalObjective { cost, time, chips };

inline constexpr EnumNames<GoalObjective, 3> kGoalObjectiveNames{
    "objective", {{{"cost", GoalObjective::cost}, {"time", GoalObjective::time}, {"chips", GoalObjective::chips}}}};

// The scenario's `goal`.
struct GoalSpec {
  double train_tokens = 0;                 // tokens to train on, in all (e.g. 15e12)
  std::optional<double> deadline_days;     // the expected time to train must be at most this
  std::optional<double> budget_usd;        // its cost at most this (needs a price)
  std::optional<std::int64_t> max_chips;   // chips held (spare slices included) at most this
  std::optional<GoalObjective> objective;  // not given: objective_of decides
};

// The goal's objective: as given, else the cost when the scenario is priced, else the time.
GoalObjective objective_of(const GoalSpec& goal, bool priced);

// The scenario's `reliability` (docs/capacity.md, "Goodput", gives each default's source). Failures are independent
// and exponential: the job's rate is the sum of its chips' and hosts' rates; any one stops the whole job,
// which restarts from its last checkpoint.
struct ReliabilitySpec {
  double chip_failures_per_day = 0;          // interruptions per chip-day caused by a chip (its HBM, its ICI links)
  double host_failures_per_day = 0;          // per host-day: the host's CPU, memory, NIC, software, maintenance
  double slice_failures_per_day = 0;         // per slice-day: events that take a whole slice (its network, power)
  double checkpoint_write_Bps_per_host = 0;  // bytes/s each host writes a checkpoint to storage
  double checkpoint_read_Bps_per_host = 0;   // bytes/s each host reads one back on a restart
  double restart_s = 0;  // detecting the failure, rescheduling and re-initialising, before reading the checkpoint
  std::int64_t spare_slices = 0;  // slices held idle for failover: paid for and counted in the chips, never stepping
  std::int64_t monte_carlo_runs = 1000;  // runs of the whole training drawn with failures (0: the closed form only)
  std::uint64_t seed = 0;
};

// The defaults when the scenario's `reliability` leaves a key out (docs/capacity.md, "Goodput", sources them).
ReliabilitySpec default_reliability();

// Throws InputError at /goal/<key> for every rule of docs/capacity.md "Goals": train_tokens > 0 and at most 1e18,
// deadline_days and budget_usd > 0 and finite, max_chips >= 1.
void verify_goal(const GoalSpec& goal);

// Throws InputError at /reliability/<key>: rates >= 0 and finite (at most 1e3 a day), bandwidths > 0 and finite,
// restart_s >= 0 and finite, spare_slices in [0, 1e4], monte_carlo_runs in [0, 1e6].
void verify_reliability(const ReliabilitySpec& reliability);

}  // namespace podsim
