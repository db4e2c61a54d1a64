// `podsim serve --max-rate` (docs/serving.md, "The highest rate a deployment sustains"): the highest arrival rate at
// which a deployment still meets its SLO, by bisection, each probe a run of the scenario's traffic at that rate.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/serving/serving_metrics.hpp"
#include "models/serving/slo.hpp"
#include "models/serving/traffic.hpp"
#include "sim/capacity/serving_run.hpp"

namespace podsim {

struct MaxRateOptions {
  double relative_precision = 0.01;  // stop once the bracket [meets, misses] is this narrow relative to its lower end
  std::int64_t max_runs = 30;        // and after this many runs whatever the bracket
  // Once the answer is found, runs at these fractions of it too: the bisection's probes crowd near the answer, these
  // draw the throughput-latency curve below it.
  std::vector<double> curve_fractions = {0.25, 0.5, 0.75};
};

// One probe: the rate, what its run measured, and whether it met every SLO check.
struct RatePoint {
  double rate_per_s = 0.0;
  ServingMetrics metrics;
  std::vector<SloCheck> checks;
  bool meets_slo = false;
};

struct MaxRateResult {
  // The highest probed rate that met the SLO; nullopt when none did (the lowest probed rate is then points' least).
  std::optional<double> max_rate_per_s;
  std::optional<double> lowest_miss_per_s;  // the least probed rate that missed (nullopt: none missed up to the cap)
  std::vector<RatePoint> points;            // in the order probed
  // The whole run at max_rate_per_s, or (when no rate met the SLO) at the lowest rate probed.
  std::optional<ServingOutcome> shown;
  double shown_rate_per_s = 0;  // the rate of `shown`
};

// `traffic` with its rate set to `rate_per_s` (poisson, gamma or constant arrivals); its bound (duration or request
// count) kept. Throws InputError at /workload/traffic/arrival for a closed loop or a trace.
TrafficSpec traffic_at_rate(const TrafficSpec& traffic, double rate_per_s);

// The scenario's traffic law at rates chosen by bisection on `model` with `replicas` replicas: from the scenario's
// rate, doubling (or halving) until the SLO flips, then halving the bracket. A rate whose run would exceed the request
// limit (kMaxRequests) is not probed: the cap is then the answer's upper end. Throws InputError at /slo when the
// scenario gives no SLO, at /workload/traffic/arrival for a law without a rate, and what the runs throw.
MaxRateResult find_max_rate(const ServingReplicaModel& model, const TrafficSpec& traffic, std::int64_t replicas,
                            const Slo& slo, const MaxRateOptions& options = {});

}  // namespace podsim
