// The serving metrics of serving_metrics.hpp, as vllm/benchmarks/serve.py's calculate_metrics computes them.
#include "models/serving/serving_metrics.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"

namespace podsim {

RequestLatency request_latency(const RequestRecord& record) {
  RequestLatency latency;
  latency.ttft_s = record.first_token_s - record.arrival_s;
  latency.e2e_s = record.last_token_s - record.arrival_s;
  if (record.output_tokens > 1)
    latency.tpot_s = (latency.e2e_s - latency.ttft_s) / static_cast<double>(record.output_tokens - 1);
  return latency;
}

RequestRecord request_record(const Request& request, const std::vector<double>& token_times_s) {
  if (token_times_s.empty() || !std::is_sorted(token_times_s.begin(), token_times_s.end()) ||
      token_times_s.front() < request.arrival_s)
    throw InternalError("request " + std::to_string(request.id) +
                        ": token times must be non-decreasing, at least one, none before the arrival");
  return RequestRecord{request.id,           request.arrival_s,     token_times_s.front(),
                       token_times_s.back(), request.prompt_tokens, static_cast<std::int64_t>(token_times_s.size())};
}

std::vector<double> inter_token_latencies(const std::vector<double>& token_times_s) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < token_times_s.size(); ++i)
    gaps.push_back(token_times_s[i] - token_times_s[i - 1]);
  return gaps;
}

bool request_meets_slo(const RequestLatency& latency, const Slo& slo) {
  if (slo.ttft && latency.ttft_s > slo.ttft->seconds) return false;
  if (slo.tpot && latency.tpot_s.value_or(0.0) > slo.tpot->seconds) return false;
  if (slo.e2e && latency.e2e_s > slo.e2e->seconds) return false;
  return true;
}

void ServingRecorder::arrived(const Request& request) {
  if (request.id < 0 || request.id >= kMaxDrawnRequests)
    throw InternalError("ServingRecorder: request id outside [0, " + std::to_string(kMaxDrawnRequests) +
                        "), got: " + std::to_string(request.id));
  const auto index = static_cast<std::size_t>(request.id);
  if (index >= states_.size()) states_.resize(index + 1);
  if (states_[index].arrived)
    throw InternalError("ServingRecorder: request " + std::to_string(request.id) + " arrived twice");
  states_[index].request = request;
  states_[index].arrived = true;
  ++arrived_;
}

void ServingRecorder::token(std::int64_t id, double time_s) {
  const auto index = static_cast<std::size_t>(id);
  if (id < 0 || index >= states_.size() || !states_[index].arrived)
    throw InternalError("ServingRecorder: a token of request " + std::to_string(id) + ", which has not arrived");
  State& state = states_[index];
  const double previous_s = state.tokens == 0 ? state.request.arrival_s : state.last_token_s;
  if (!(time_s >= previous_s))
    throw InternalError("ServingRecorder: a token of request " + std::to_string(id) + " at " + std::to_string(time_s) +
                        " s, before its arrival or its previous token at " + std::to_string(previous_s) + " s");
  if (state.tokens == state.request.output_tokens)
    throw InternalError("ServingRecorder: request " + std::to_string(id) + " emitted more than its " +
                        std::to_string(state.request.output_tokens) + " tokens");
  if (state.tokens == 0) {
    state.first_token_s = time_s;
  } else {
    itl_.add(time_s - state.last_token_s);
  }
  state.last_token_s = time_s;
  state.tokens += 1;
  if (state.tokens == state.request.output_tokens) ++completed_;
}

std::vector<RequestRecord> ServingRecorder::completed() const {
  std::vector<RequestRecord> out;
  out.reserve(static_cast<std::size_t>(completed_));
  for (const State& s : states_) {
    if (!s.arrived || s.tokens < s.request.output_tokens) continue;
    out.push_back(RequestRecord{s.request.id, s.request.arrival_s, s.first_token_s, s.last_token_s,
                                s.request.prompt_tokens, s.request.output_tokens});
  }
  return out;
}

ServingMetrics serving_metrics(const std::vector<RequestRecord>& completed, const WeightedSamples& itl,
                               std::int64_t chips, const Slo& slo) {
  if (chips < 1) throw InternalError("serving metrics need at least one chip, got: " + std::to_string(chips));
  ServingMetrics m;
  std::vector<double> ttft, tpot, e2e;
  ttft.reserve(completed.size());
  e2e.reserve(completed.size());
  std::int64_t good = 0;
  for (const RequestRecord& record : completed) {
    const RequestLatency latency = request_latency(record);
    ttft.push_back(latency.ttft_s);
    e2e.push_back(latency.e2e_s);
    if (latency.tpot_s) tpot.push_back(*latency.tpot_s);
    if (request_meets_slo(latency, slo)) ++good;
    m.output_tokens += record.output_tokens;
    m.duration_s = std::max(m.duration_s, record.last_token_s);
  }
  m.requests = static_cast<std::int64_t>(completed.size());
  m.ttft_s = summarize(std::move(ttft));
  m.tpot_s = summarize(std::move(tpot));
  m.itl_s = summarize(itl);
  m.e2e_s = summarize(std::move(e2e));
  if (m.duration_s > 0) {
    m.requests_per_s = static_cast<double>(m.requests) / m.duration_s;
    m.output_tokens_per_s = static_cast<double>(m.output_tokens) / m.duration_s;
    m.output_tokens_per_s_per_chip = m.output_tokens_per_s / static_cast<double>(chips);
    m.goodput_requests_per_s = static_cast<double>(good) / m.duration_s;
  }
  if (m.requests > 0) m.slo_attainment = static_cast<double>(good) / static_cast<double>(m.requests);
  return m;
}

double summary_percentile(const LatencySummary& summary, PercentileKey key) {
  return key == PercentileKey::p50 ? summary.p50 : key == PercentileKey::p90 ? summary.p90 : summary.p99;
}

const LatencySummary& metric_summary(const ServingMetrics& metrics, SloMetric metric) {
  return metric == SloMetric::ttft ? metrics.ttft_s : metric == SloMetric::tpot ? metrics.tpot_s : metrics.e2e_s;
}

std::vector<SloCheck> check_slo(const ServingMetrics& metrics, const Slo& slo) {
  std::vector<SloCheck> checks;
  for (const SloMetric metric : kSloMetrics) {
    const std::optional<SloTarget>& target = slo.target(metric);
    if (!target) continue;
    SloCheck check;
    check.metric = metric;
    check.percentile = target->percentile;
    check.target_s = target->seconds;
    check.actual_s = summary_percentile(metric_summary(metrics, metric), target->percentile);
    check.met = check.actual_s <= check.target_s;
    check.miss_s = check.met ? 0.0 : check.actual_s - check.target_s;
    checks.push_back(check);
  }
  return checks;
}

}  // namespace podsim
