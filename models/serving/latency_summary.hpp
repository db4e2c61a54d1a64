// Mean and percentiles of latency samples as `vllm bench serve` reports them: numpy.percentile's default linear
// interpolation, reproduced step for step. Samples can be counted with a weight, so that the inter-token latencies of
// a long run (one per output token) take memory in proportion to the distinct gaps, not to the tokens.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"

namespace podsim {

// numpy.percentile(x, p) with method "linear" over `sorted` (ascending, non-empty), p in [0, 100]:
// rank = (p / 100) (n - 1), then x[floor] and x[floor + 1] mixed by the fraction as numpy's _lerp does.
double numpy_percentile(const std::vector<double>& sorted, double p);

// A multiset of samples: add(v, c) counts v c times. Consecutive adds of the same value merge into one run.
class WeightedSamples {
 public:
  // Counts `value` `count` >= 1 more times.
  void add(double value, std::int64_t count = 1) {
    if (count < 1) throw InternalError("WeightedSamples: count must be at least 1, got: " + std::to_string(count));
    count_ += count;
    if (!runs_.empty() && runs_.back().first == value) {
      runs_.back().second += count;
    } else {
      runs_.emplace_back(value, count);
    }
  }
  std::int64_t count() const { return count_; }
  const std::vector<std::pair<double, std::int64_t>>& runs() const { return runs_; }  // in the order added

 private:
  std::vector<std::pair<double, std::int64_t>> runs_;
  std::int64_t count_ = 0;
};

struct LatencySummary {
  std::int64_t count = 0;  // samples summarised; every other field is 0 when it is 0 (vLLM prints 0 then)
  double mean = 0.0;       // sum / count
  double p50 = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
};

LatencySummary summarize(std::vector<double> samples);
LatencySummary summarize(const WeightedSamples& samples);

}  // namespace podsim
