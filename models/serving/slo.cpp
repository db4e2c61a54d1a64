// The rules of the serving SLO.
#include "models/serving/slo.hpp"

#include <cmath>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {

double percentile_of(PercentileKey key) {
  return key == PercentileKey::p50 ? 50.0 : key == PercentileKey::p90 ? 90.0 : 99.0;
}

void verify_slo(const Slo& slo) {
  for (const SloMetric metric : kSloMetrics) {
    const std::optional<SloTarget>& target = slo.target(metric);
    if (!target) continue;
    const std::string where = "/slo/" + std::string(kSloMetricNames.name(metric)) + "/" +
                              std::string(kPercentileKeyNames.name(target->percentile));
    if (!std::isfinite(target->seconds))
      throw InputError(where, "must be a finite number, got: " + exact_number(target->seconds));
    if (target->seconds <= 0) throw InputError(where, "must be > 0, got: " + exact_number(target->seconds));
  }
}

}  // namespace podsim
