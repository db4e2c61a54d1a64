// Per-request latencies and a run's aggregates, defined as `vllm bench serve` defines them (docs/serving-model.md,
// "Metrics"): TTFT, TPOT, inter-token latencies and end-to-end latency; their mean, p50, p90, p99; throughput,
// goodput and SLO attainment. The driver records arrivals and token times; everything else is computed here.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/serving/latency_summary.hpp"
#include "models/serving/request.hpp"
#include "models/serving/slo.hpp"

namespace podsim {

// A request that produced all its output tokens. Times in seconds from the start of the run (time 0).
struct RequestRecord {
  std::int64_t id = 0;
  double arrival_s = 0.0;
  double first_token_s = 0.0;
  double last_token_s = 0.0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
};

struct RequestLatency {
  double ttft_s = 0.0;           // first token - arrival
  double e2e_s = 0.0;            // last token - arrival
  std::optional<double> tpot_s;  // (e2e - ttft) / (output - 1), only for output > 1
};

RequestLatency request_latency(const RequestRecord& record);

// The record of a request from its arrival and the times of all its tokens (non-decreasing, at least one).
RequestRecord request_record(const Request& request, const std::vector<double>& token_times_s);

// Its inter-token latencies: the gaps between consecutive token times (output - 1 samples).
std::vector<double> inter_token_latencies(const std::vector<double>& token_times_s);

// vLLM's goodput test: every given threshold met by this request alone (<=; the percentile key plays no part).
// A request with one output token has no TPOT and counts as TPOT 0, as vLLM counts it.
bool request_meets_slo(const RequestLatency& latency, const Slo& slo);

// Collects a run's records as the driver reports arrivals and tokens, with the inter-token gaps pooled as weighted
// samples (the requests that decode in one step share their gap). Ids are dense from 0, as the traffic makes them.
class ServingRecorder {
 public:
  void arrived(const Request& request);                        // at request.arrival_s
  void token(std::int64_t id, double time_s);                  // one output token of request `id` at time_s
  std::vector<RequestRecord> completed() const;                // requests with all their tokens, by id
  const WeightedSamples& itl_samples() const { return itl_; }  // every gap of every request recorded so far
  std::int64_t arrived_count() const { return arrived_; }
  std::int64_t completed_count() const { return completed_; }

 private:
  struct State {
    Request request;
    double first_token_s = 0.0;
    double last_token_s = 0.0;
    std::int64_t tokens = 0;
    bool arrived = false;
  };

  std::vector<State> states_;
  WeightedSamples itl_;
  std::int64_t arrived_ = 0;
  std::int64_t completed_ = 0;
};

struct ServingMetrics {
  std::int64_t requests = 0;       // completed
  std::int64_t output_tokens = 0;  // sum over completed requests
  double duration_s = 0.0;         // from time 0 (the traffic's clock start) to the last token of the run
  LatencySummary ttft_s;
  LatencySummary tpot_s;  // over requests with more than one output token
  LatencySummary itl_s;   // over every inter-token gap
  LatencySummary e2e_s;
  double requests_per_s = 0.0;       // requests / duration_s
  double output_tokens_per_s = 0.0;  // output_tokens / duration_s
  double output_tokens_per_s_per_chip = 0.0;
  double goodput_requests_per_s = 0.0;  // requests meeting every SLO threshold / duration_s
  double slo_attainment = 0.0;          // their fraction of the completed requests (1 with an empty SLO)
};

// Aggregates of the completed requests. `chips` >= 1 is the deployment's chip count.
ServingMetrics serving_metrics(const std::vector<RequestRecord>& completed, const WeightedSamples& itl,
                               std::int64_t chips, const Slo& slo);

// The summary's p50, p90 or p99.
double summary_percentile(const LatencySummary& summary, PercentileKey key);
// The run's TTFT, TPOT or E2E summary.
const LatencySummary& metric_summary(const ServingMetrics& metrics, SloMetric metric);

// One SLO threshold against the run's percentile.
struct SloCheck {
  SloMetric metric = SloMetric::ttft;
  PercentileKey percentile = PercentileKey::p99;
  double target_s = 0.0;
  double actual_s = 0.0;  // the run's percentile of the metric
  bool met = false;       // actual_s <= target_s
  double miss_s = 0.0;    // actual_s - target_s when missed, else 0
};

// The given thresholds in the order ttft, tpot, e2e. A TPOT threshold with no request of two or more tokens is met.
std::vector<SloCheck> check_slo(const ServingMetrics& metrics, const Slo& slo);

}  // namespace podsim
