// Names and rules of the serving SLO.
#include "models/serving/slo.hpp"

#include <cmath>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {

std::string_view percentile_key_name(PercentileKey key) {
  switch (key) {
    case PercentileKey::p50:
      return "p50";
    case PercentileKey::p90:
      return "p90";
    case PercentileKey::p99:
      return "p99";
  }
  return "p99";
}

double percentile_of(PercentileKey key) {
  switch (key) {
    case PercentileKey::p50:
      return 50.0;
    case PercentileKey::p90:
      return 90.0;
    case PercentileKey::p99:
      return 99.0;
  }
  return 99.0;
}

std::string_view slo_metric_name(SloMetric metric) {
  switch (metric) {
    case SloMetric::ttft:
      return "ttft_s";
    case SloMetric::tpot:
      return "tpot_s";
    case SloMetric::e2e:
      return "e2e_s";
  }
  return "e2e_s";
}

void verify_slo(const Slo& slo) {
  const std::pair<SloMetric, const std::optional<SloTarget>*> targets[] = {
      {SloMetric::ttft, &slo.ttft}, {SloMetric::tpot, &slo.tpot}, {SloMetric::e2e, &slo.e2e}};
  for (const auto& [metric, target] : targets) {
    if (!target->has_value()) continue;
    const std::string where =
        "/slo/" + std::string(slo_metric_name(metric)) + "/" + std::string(percentile_key_name((*target)->percentile));
    const double seconds = (*target)->seconds;
    if (!std::isfinite(seconds)) throw InputError(where, "must be a finite number, got: " + exact_number(seconds));
    if (seconds <= 0) throw InputError(where, "must be > 0, got: " + exact_number(seconds));
  }
}

}  // namespace podsim
