// A serving run's latency objectives (`slo` in a scenario): a threshold in seconds on TTFT, TPOT and end-to-end
// latency, each at a percentile of the run. A request is good when it meets every given threshold itself (vLLM's
// goodput); the run meets the SLO when each given percentile is within its threshold.
#pragma once

#include <optional>
#include <string_view>

namespace podsim {

enum class PercentileKey { p50, p90, p99 };

std::string_view percentile_key_name(PercentileKey key);  // "p50", "p90", "p99"
double percentile_of(PercentileKey key);                  // 50, 90, 99

enum class SloMetric { ttft, tpot, e2e };

std::string_view slo_metric_name(SloMetric metric);  // "ttft_s", "tpot_s", "e2e_s", as the scenario keys

struct SloTarget {
  PercentileKey percentile = PercentileKey::p99;
  double seconds = 0.0;
};

struct Slo {
  std::optional<SloTarget> ttft;
  std::optional<SloTarget> tpot;
  std::optional<SloTarget> e2e;

  bool empty() const { return !ttft && !tpot && !e2e; }
};

// Throws InputError at /slo/<metric>/<percentile> (e.g. `/slo/ttft_s/p99: must be > 0, got: 0`).
void verify_slo(const Slo& slo);

}  // namespace podsim
