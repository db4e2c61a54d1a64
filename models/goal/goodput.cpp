// Young's and Daly's closed forms and the Monte Carlo of a run with failures (goodput.hpp).
#include "models/goal/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/serving/random.hpp"

namespace podsim {

namespace {
constexpr double kSecondsPerDay = 86400.0;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

double job_failures_per_day(const ReliabilitySpec& r, const JobScale& scale) {
  return static_cast<double>(scale.chips) * (r.chip_failures_per_day + r.slice_failures_per_day) +
         static_cast<double>(scale.hosts) * r.host_failures_per_day;
}

double young_interval_s(double checkpoint_s, double mtbf_s) {
  return std::sqrt(2.0 * checkpoint_s * mtbf_s);
}

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = checkpoint_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * checkpoint_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - checkpoint_s;
}

double expected_wall_s(double work_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  const double grow = std::expm1((interval_s + checkpoint_s) / mtbf_s);
  const double wall = mtbf_s * std::exp(restart_s / mtbf_s) * grow * work_s / interval_s;
  return std::isfinite(wall) ? wall : kInfinity;
}

Goodput goodput(double ideal_s, double checkpoint_s, double restart_s, double failures_per_day) {
  Goodput g;
  g.failures_per_day = failures_per_day;
  g.checkpoint_s = checkpoint_s;
  g.restart_s = restart_s;
  g.ideal_s = ideal_s;
  if (!(failures_per_day > 0)) {
    g.mtbf_s = kInfinity;
    g.interval_s = ideal_s;
    g.young_interval_s = kInfinity;
    g.expected_s = ideal_s;
    return g;
  }
  g.mtbf_s = kSecondsPerDay / failures_per_day;
  g.interval_s = daly_interval_s(checkpoint_s, g.mtbf_s);
  g.young_interval_s = young_interval_s(checkpoint_s, g.mtbf_s);
  if (!(g.interval_s > 0)) g.interval_s = g.young_interval_s;  // a checkpoint of no time: Daly's reduces to Young's
  if (!(g.interval_s > 0)) g.interval_s = g.mtbf_s;
  g.expected_s = expected_wall_s(ideal_s, g.interval_s, checkpoint_s, restart_s, g.mtbf_s);
  g.fraction = std::isfinite(g.expected_s) && g.expected_s > 0 ? ideal_s / g.expected_s : 0.0;
  g.lost_to_checkpoints_s = ideal_s / g.interval_s * checkpoint_s;
  g.lost_to_failures_s = g.expected_s - ideal_s - g.lost_to_checkpoints_s;
  g.expected_failures = g.expected_s / g.mtbf_s;
  return g;
}

std::vector<double> sample_wall_times(const Goodput& g, std::int64_t runs, std::uint64_t seed) {
  std::vector<double> out;
  // A run expected to take more than 100 times its work would draw without end (e^(need / M) attempts a segment).
  if (!(g.failures_per_day > 0) || runs <= 0 || !(g.fraction >= 0.01)) return out;
  const double rate = 1.0 / g.mtbf_s;
  // The work in `whole` segments of interval_s, then one of `last` (interval_s when it divides evenly).
  const double segments = std::ceil(g.ideal_s / g.interval_s - 1e-9);
  const double whole = std::max(segments - 1.0, 0.0);
  const double last = g.ideal_s - whole * g.interval_s;
  const double need = g.interval_s + g.checkpoint_s;
  Rng rng(seed);
  out.reserve(static_cast<std::size_t>(runs));
  for (std::int64_t run = 0; run < runs; ++run) {
    double wall = 0.0;
    // Failures are memoryless, so one draw covers every whole segment it outlasts: the time to the next failure,
    // counted from a segment's start, passes floor(f / need) segments, then either ends the whole ones or fails
    // inside the next (a restart follows and that segment starts over).
    double whole_left = whole;
    bool last_done = false;
    while (!last_done) {
      const double failure = rng.exponential(rate);
      if (whole_left > 0) {
        const double passed = std::floor(failure / need);
        if (passed >= whole_left) {
          wall += whole_left * need;
          whole_left = 0;
          continue;  // the last segment draws afresh (memoryless)
        }
        wall += failure;
        whole_left -= passed;
      } else {
        if (failure >= last + g.checkpoint_s) {
          wall += last + g.checkpoint_s;
          last_done = true;
          continue;
        }
        wall += failure;
      }
      while (true) {  // the restart, itself interrupted by failures
        const double again = rng.exponential(rate);
        if (again >= g.restart_s) {
          wall += g.restart_s;
          break;
        }
        wall += again;
      }
    }
    out.push_back(wall);
  }
  return out;
}

}  // namespace podsim
