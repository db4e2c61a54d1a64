// Goodput of a long training run with failures, checkpoints and restarts (docs/capacity.md, "Goodput"): the job stops
// at any failure of its chips, hosts or slices (independent, exponential), restarts (restart_s and reading its last
// checkpoint back) and redoes the work since that checkpoint. Closed forms of Young (1974) and Daly (2006), and a
// Monte Carlo of the same process over the whole run.
#pragma once

#include <cstdint>
#include <vector>

#include "models/goal/goal.hpp"

namespace podsim {

// The parts of a job that fail: its chips and hosts (spare slices excluded: they do not run).
struct JobScale {
  std::int64_t chips = 0;
  std::int64_t hosts = 0;
};

// Failures a day of the whole job: chips x (chip rate + slice rate) + hosts x host rate.
double job_failures_per_day(const ReliabilitySpec& reliability, const JobScale& scale);

// Young's interval between checkpoints (compute time), sqrt(2 delta M): delta the checkpoint's write time, M the mean
// time between failures, both in seconds (Young 1974, "A first order approximation to the optimum checkpoint
// interval", CACM 17(9)).
double young_interval_s(double checkpoint_s, double mtbf_s);

// Daly's higher-order optimum (Daly 2006, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), eq. 37): sqrt(2 delta M) [1 + sqrt(delta / (2M)) / 3 + (delta / (2M)) / 9] - delta for
// delta < 2M, else M.
double daly_interval_s(double checkpoint_s, double mtbf_s);

// Daly's expected wall time (eq. 13) of `work_s` of computation checkpointed every `interval_s` of it:
// M e^(R/M) (e^((tau + delta)/M) - 1) work / tau; infinity when it overflows.
double expected_wall_s(double work_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s);

struct Goodput {
  double failures_per_day = 0;
  double mtbf_s = 0;                 // 86,400 / failures_per_day (infinity without failures)
  double checkpoint_s = 0;           // delta: one checkpoint's write
  double restart_s = 0;              // R: restart_s plus reading the checkpoint back
  double interval_s = 0;             // Daly's optimum, the interval used (the whole run without failures)
  double young_interval_s = 0;       // Young's, for comparison
  double ideal_s = 0;                // the work: steps x step time
  double expected_s = 0;             // expected_wall_s at interval_s (the ideal without failures)
  double fraction = 1;               // ideal_s / expected_s
  double lost_to_checkpoints_s = 0;  // (ideal / interval) x delta: the checkpoints of the work, written once each
  double lost_to_failures_s = 0;     // the rest of the loss: work redone after failures, and restarts
  double expected_failures = 0;      // expected_s / mtbf_s
};

// The closed form for `ideal_s` of work. Without failures no checkpoint is taken: expected = ideal, fraction 1.
Goodput goodput(double ideal_s, double checkpoint_s, double restart_s, double failures_per_day);

// `runs` draws of the whole run's wall time (seconds): the work in segments of `g.interval_s` (the last one
// shorter), each followed by a checkpoint of `g.checkpoint_s`; a failure (exponential, mean g.mtbf_s) in a segment or
// its checkpoint loses the segment, then a restart of `g.restart_s` (during which failures may strike again).
// Deterministic for a seed. With interval_s = ideal_s / k its mean is expected_wall_s. Empty without failures, and
// when the closed form's fraction is below 1% (a run that would draw almost without end).
std::vector<double> sample_wall_times(const Goodput& g, std::int64_t runs, std::uint64_t seed);

}  // namespace podsim
