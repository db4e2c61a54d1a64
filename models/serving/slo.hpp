// A serving run's latency objectives (`slo` in a scenario): a threshold in seconds on TTFT, TPOT and end-to-end
// latency, each at a percentile of the run. A request is good when it meets every given threshold itself (vLLM's
// goodput); the run meets the SLO when each given percentile is within its threshold.
#pragma once

#include <array>
#include <optional>

#include "models/common/enum_names.hpp"

namespace podsim {

enum class PercentileKey { p50, p90, p99 };

inline constexpr EnumNames<PercentileKey, 3> kPercentileKeyNames{
    "percentile", {{{"p50", PercentileKey::p50}, {"p90", PercentileKey::p90}, {"p99", PercentileKey::p99}}}};

// 50, 90 or 99.
double percentile_of(PercentileKey key);

enum class SloMetric { ttft, tpot, e2e };

// The scenario's keys under `slo`.
inline constexpr EnumNames<SloMetric, 3> kSloMetricNames{
    "slo metric", {{{"ttft_s", SloMetric::ttft}, {"tpot_s", SloMetric::tpot}, {"e2e_s", SloMetric::e2e}}}};
inline constexpr std::array<SloMetric, 3> kSloMetrics = {SloMetric::ttft, SloMetric::tpot, SloMetric::e2e};

struct SloTarget {
  PercentileKey percentile = PercentileKey::p99;
  double seconds = 0.0;
};

struct Slo {
  std::optional<SloTarget> ttft;
  std::optional<SloTarget> tpot;
  std::optional<SloTarget> e2e;

  bool empty() const { return !ttft && !tpot && !e2e; }
  const std::optional<SloTarget>& target(SloMetric metric) const {
    return metric == SloMetric::ttft ? ttft : metric == SloMetric::tpot ? tpot : e2e;
  }
};

// Throws InputError at /slo/<metric>/<percentile> (e.g. `/slo/ttft_s/p99: must be > 0, got: 0`).
void verify_slo(const Slo& slo);

}  // namespace podsim
