// `podsim serve --max-rate` (serving_rate.hpp): bracket, then bisect.
#include "sim/capacity/serving_rate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "models/common/error.hpp"
#include "models/serving/request.hpp"

namespace podsim {
namespace {

// The run's rate, or InputError for a law that has none.
double rate_of(const TrafficSpec& traffic) {
  if (const auto* poisson = std::get_if<PoissonArrivals>(&traffic.arrival)) return poisson->rate_per_s;
  if (const auto* gamma = std::get_if<GammaArrivals>(&traffic.arrival)) return gamma->rate_per_s;
  if (const auto* constant = std::get_if<ConstantArrivals>(&traffic.arrival)) return constant->rate_per_s;
  throw InputError("/workload/traffic/arrival",
                   "--max-rate varies the arrival rate: give poisson, gamma or constant arrivals, got: " +
                       arrival_law_name(traffic.arrival));
}

// Halvings below the scenario's rate before the search gives up on finding one that meets the SLO.
constexpr int kMaxHalvings = 20;

}  // namespace

TrafficSpec traffic_at_rate(const TrafficSpec& traffic, double rate_per_s) {
  rate_of(traffic);  // the law has a rate
  TrafficSpec out = traffic;
  std::visit(
      [rate_per_s](auto& law) {
        if constexpr (requires { law.rate_per_s; }) law.rate_per_s = rate_per_s;
      },
      out.arrival);
  return out;
}

MaxRateResult find_max_rate(const ServingReplicaModel& model, const TrafficSpec& traffic, std::int64_t replicas,
                            const Slo& slo, const MaxRateOptions& options) {
  if (slo.empty())
    throw InputError("/slo",
                     "--max-rate finds the highest rate that meets the SLO: give the scenario an \"slo\", got: "
                     "none");
  const double start = rate_of(traffic);
  // Past this rate the run would hold more than kMaxRequests requests (a duration bound scales with the rate).
  const double cap = traffic.duration_s ? static_cast<double>(kMaxRequests) / *traffic.duration_s
                                        : std::numeric_limits<double>::infinity();
  MaxRateResult result;
  std::int64_t runs = 0;
  const auto meets = [&](double rate) {
    ++runs;
    ServingOutcome outcome = model.run(traffic_at_rate(traffic, rate), replicas);
    RatePoint point{rate, outcome.metrics, outcome.checks, true};
    for (const SloCheck& check : point.checks)
      point.meets_slo = point.meets_slo && check.met;
    result.points.push_back(point);
    if (point.meets_slo && (!result.max_rate_per_s || rate > *result.max_rate_per_s)) {
      result.max_rate_per_s = rate;
      result.shown = std::move(outcome);
      result.shown_rate_per_s = rate;
    } else if (!point.meets_slo && !result.max_rate_per_s &&
               (!result.lowest_miss_per_s || rate < *result.lowest_miss_per_s)) {
      result.shown = std::move(outcome);  // none met so far: the lowest rate's run
      result.shown_rate_per_s = rate;
    }
    if (!point.meets_slo && (!result.lowest_miss_per_s || rate < *result.lowest_miss_per_s))
      result.lowest_miss_per_s = rate;
    return point.meets_slo;
  };

  double lo = 0.0, hi = 0.0;  // lo meets (0: none yet), hi misses (0: none yet)
  const double first = std::min(start, cap);
  if (meets(first)) {
    lo = first;
    while (runs < options.max_runs && lo < cap) {
      const double rate = std::min(lo * 2.0, cap);
      if (!meets(rate)) {
        hi = rate;
        break;
      }
      lo = rate;
    }
  } else {
    hi = first;
    for (int halving = 0; halving < kMaxHalvings && runs < options.max_runs; ++halving) {
      const double rate = hi / 2.0;
      if (meets(rate)) {
        lo = rate;
        break;
      }
      hi = rate;
    }
  }
  while (lo > 0 && hi > 0 && runs < options.max_runs && hi - lo > options.relative_precision * lo) {
    const double mid = (lo + hi) / 2.0;
    if (meets(mid))
      lo = mid;
    else
      hi = mid;
  }
  if (result.max_rate_per_s) {
    const double answer = *result.max_rate_per_s;
    for (const double fraction : options.curve_fractions)
      meets(fraction * answer);
  }
  return result;
}

}  // namespace podsim
