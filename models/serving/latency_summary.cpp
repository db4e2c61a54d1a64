// numpy's linear percentile over plain and weighted samples.
#include "models/serving/latency_summary.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

// numpy.lib.function_base._lerp: a + (b - a) t, computed from b when t >= 0.5 so that t = 1 gives b exactly.
double numpy_lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

// numpy's linear method over n sorted samples, `at(i)` the i-th smallest.
template <typename At>
double linear_percentile(std::int64_t n, double p, At&& at) {
  if (n < 1 || !(p >= 0.0 && p <= 100.0))
    throw InternalError("percentile needs samples and p in [0, 100], got: " + std::to_string(n) + " samples, p " +
                        std::to_string(p));
  const double rank = (p / 100.0) * static_cast<double>(n - 1);
  const double below = std::floor(rank);
  const auto previous = static_cast<std::int64_t>(below);
  const std::int64_t next = std::min(previous + 1, n - 1);
  return numpy_lerp(at(previous), at(next), rank - below);
}

}  // namespace

double numpy_percentile(const std::vector<double>& sorted, double p) {
  return linear_percentile(static_cast<std::int64_t>(sorted.size()), p,
                           [&](std::int64_t i) { return sorted[static_cast<std::size_t>(i)]; });
}

LatencySummary summarize(std::vector<double> samples) {
  LatencySummary summary;
  if (samples.empty()) return summary;
  std::sort(samples.begin(), samples.end());
  double sum = 0.0;
  for (const double v : samples)
    sum += v;
  summary.count = static_cast<std::int64_t>(samples.size());
  summary.mean = sum / static_cast<double>(summary.count);
  summary.p50 = numpy_percentile(samples, 50);
  summary.p90 = numpy_percentile(samples, 90);
  summary.p99 = numpy_percentile(samples, 99);
  return summary;
}

LatencySummary summarize(const WeightedSamples& samples) {
  LatencySummary summary;
  if (samples.count() == 0) return summary;
  std::vector<std::pair<double, std::int64_t>> runs = samples.runs();
  std::sort(runs.begin(), runs.end());
  // ends[i]: how many samples are <= runs[i].first, so the i-th smallest sample is the first run with ends > i.
  std::vector<std::int64_t> ends(runs.size());
  std::int64_t total = 0;
  double sum = 0.0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    total += runs[i].second;
    ends[i] = total;
    sum += runs[i].first * static_cast<double>(runs[i].second);
  }
  const auto at = [&](std::int64_t rank) {
    const auto it = std::upper_bound(ends.begin(), ends.end(), rank);
    return runs[static_cast<std::size_t>(it - ends.begin())].first;
  };
  summary.count = total;
  summary.mean = sum / static_cast<double>(total);
  summary.p50 = linear_percentile(total, 50, at);
  summary.p90 = linear_percentile(total, 90, at);
  summary.p99 = linear_percentile(total, 99, at);
  return summary;
}

}  // namespace podsim
