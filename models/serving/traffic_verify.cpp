// The rules of a TrafficSpec (docs/serving-model.md, "Constraints"), each an InputError at the field's JSON pointer
// with the rule and the value: every count the generators size a vector by is bounded here first.
#include <cmath>
#include <string>
#include <string_view>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "models/serving/traffic.hpp"

namespace podsim {
namespace {

constexpr double kMinRatePerS = 1e-6;  // one request in 11.6 days: gaps stay finite for any count we allow
constexpr double kMaxLognormalSigma = 10.0;

std::string traffic_field(std::string_view field) {
  return "/workload/traffic/" + std::string(field);
}

void verify_traffic_positive(const std::string& where, double value) {
  if (!std::isfinite(value)) throw InputError(where, "must be a finite number, got: " + exact_number(value));
  if (value <= 0) throw InputError(where, "must be > 0, got: " + exact_number(value));
}

void verify_traffic_rate(double rate_per_s) {
  const std::string where = traffic_field("rate_per_s");
  verify_traffic_positive(where, rate_per_s);
  if (rate_per_s < kMinRatePerS)
    throw InputError(where, "must be at least 1e-06 requests per second, got: " + exact_number(rate_per_s));
}

void verify_traffic_count(const std::string& where, std::int64_t value, std::int64_t max) {
  if (value < 1) throw InputError(where, "must be at least 1, got: " + std::to_string(value));
  if (value > max)
    throw InputError(where, "must be at most " + std::to_string(max) + ", got: " + std::to_string(value));
}

std::string uniform_bounds_text(const UniformTokens& law) {
  return "[" + std::to_string(law.min_tokens) + ", " + std::to_string(law.max_tokens) + "]";
}

void verify_traffic_token_law(const std::string& where, const TokenLaw& law) {
  if (const auto* fixed = std::get_if<FixedTokens>(&law)) {
    verify_traffic_count(where + "/fixed", fixed->tokens, kMaxRequestTokens);
  } else if (const auto* uniform = std::get_if<UniformTokens>(&law)) {
    const std::string at = where + "/uniform";
    if (uniform->min_tokens < 1)
      throw InputError(at, "bounds must be at least 1, got: " + uniform_bounds_text(*uniform));
    if (uniform->max_tokens > kMaxRequestTokens)
      throw InputError(at, "bounds must be at most " + std::to_string(kMaxRequestTokens) +
                               ", got: " + uniform_bounds_text(*uniform));
    if (uniform->min_tokens > uniform->max_tokens)
      throw InputError(at, "the lower bound must not exceed the upper bound, got: " + uniform_bounds_text(*uniform));
  } else {
    const auto& lognormal = std::get<LognormalTokens>(law);
    const std::string mean_at = where + "/lognormal/mean";
    if (!std::isfinite(lognormal.mean))
      throw InputError(mean_at, "must be a finite number, got: " + exact_number(lognormal.mean));
    if (lognormal.mean < 1) throw InputError(mean_at, "must be at least 1, got: " + exact_number(lognormal.mean));
    if (lognormal.mean > static_cast<double>(kMaxRequestTokens))
      throw InputError(
          mean_at, "must be at most " + std::to_string(kMaxRequestTokens) + ", got: " + exact_number(lognormal.mean));
    const std::string sigma_at = where + "/lognormal/sigma";
    if (!std::isfinite(lognormal.sigma))
      throw InputError(sigma_at, "must be a finite number, got: " + exact_number(lognormal.sigma));
    if (lognormal.sigma < 0) throw InputError(sigma_at, "must be >= 0, got: " + exact_number(lognormal.sigma));
    if (lognormal.sigma > kMaxLognormalSigma)
      throw InputError(sigma_at, "must be at most 10, got: " + exact_number(lognormal.sigma));
  }
}

void verify_traffic_trace(const TraceArrivals& trace) {
  const std::string where = traffic_field("trace");
  if (trace.rows.empty()) throw InputError(where, "a trace needs at least one row, got: 0 rows");
  if (trace.rows.size() > static_cast<std::size_t>(kMaxRequests))
    throw InputError(where, "a trace has at most " + std::to_string(kMaxRequests) +
                                " rows, got: " + std::to_string(trace.rows.size()) + " rows");
  double previous_s = 0.0;
  for (std::size_t i = 0; i < trace.rows.size(); ++i) {
    const TraceRow& row = trace.rows[i];
    const std::string at = where + "/" + std::to_string(i) + "/";
    if (!std::isfinite(row.arrival_s))
      throw InputError(at + "arrival_s", "must be a finite number, got: " + exact_number(row.arrival_s));
    if (row.arrival_s < 0) throw InputError(at + "arrival_s", "must be >= 0, got: " + exact_number(row.arrival_s));
    if (row.arrival_s < previous_s)
      throw InputError(at + "arrival_s", "must not be earlier than the previous row's " + exact_number(previous_s) +
                                             ", got: " + exact_number(row.arrival_s));
    previous_s = row.arrival_s;
    verify_traffic_count(at + "prompt_tokens", row.prompt_tokens, kMaxRequestTokens);
    verify_traffic_count(at + "output_tokens", row.output_tokens, kMaxRequestTokens);
  }
}

// The law's own fields; returns its rate (0 when it has none).
double verify_traffic_arrival(const ArrivalLaw& arrival) {
  if (const auto* poisson = std::get_if<PoissonArrivals>(&arrival)) {
    verify_traffic_rate(poisson->rate_per_s);
    return poisson->rate_per_s;
  }
  if (const auto* gamma = std::get_if<GammaArrivals>(&arrival)) {
    verify_traffic_rate(gamma->rate_per_s);
    verify_traffic_positive(traffic_field("burstiness"), gamma->burstiness);
    return gamma->rate_per_s;
  }
  if (const auto* constant = std::get_if<ConstantArrivals>(&arrival)) {
    verify_traffic_rate(constant->rate_per_s);
    return constant->rate_per_s;
  }
  if (const auto* closed = std::get_if<ClosedLoopArrivals>(&arrival)) {
    verify_traffic_count(traffic_field("concurrency"), closed->concurrency, kMaxRequests);
    return 0.0;
  }
  verify_traffic_trace(std::get<TraceArrivals>(arrival));
  return 0.0;
}

void verify_traffic_bounds(const TrafficSpec& spec, double rate_per_s) {
  const bool trace = std::holds_alternative<TraceArrivals>(spec.arrival);
  if (spec.duration_s && spec.requests) {
    if (trace) throw InputError("/workload/traffic", "a trace takes at most one of duration_s and requests, got: both");
    throw InputError("/workload/traffic", "exactly one of duration_s and requests is required, got: both");
  }
  if (!spec.duration_s && !spec.requests && !trace)
    throw InputError("/workload/traffic", "exactly one of duration_s and requests is required, got: neither");
  if (spec.requests) verify_traffic_count(traffic_field("requests"), *spec.requests, kMaxRequests);
  if (spec.duration_s) {
    const std::string where = traffic_field("duration_s");
    verify_traffic_positive(where, *spec.duration_s);
    const double expected = rate_per_s * *spec.duration_s;
    if (expected > static_cast<double>(kMaxRequests))
      throw InputError(where, "rate_per_s x duration_s must be at most " + std::to_string(kMaxRequests) +
                                  " requests, got: " + exact_number(expected));
  }
}

void verify_traffic_lengths(const TrafficSpec& spec) {
  const bool trace = std::holds_alternative<TraceArrivals>(spec.arrival);
  const std::pair<const char*, const std::optional<TokenLaw>*> laws[] = {{"prompt_tokens", &spec.prompt_tokens},
                                                                         {"output_tokens", &spec.output_tokens}};
  for (const auto& [name, law] : laws) {
    const std::string where = traffic_field(name);
    if (trace && law->has_value()) throw InputError(where, "a trace gives its own lengths, got: a law");
    if (!trace && !law->has_value())
      throw InputError(where, "is required for arrival \"" + arrival_law_name(spec.arrival) + "\", got: nothing");
    if (law->has_value()) verify_traffic_token_law(where, **law);
  }
}

}  // namespace

void verify_traffic(const TrafficSpec& spec) {
  const double rate_per_s = verify_traffic_arrival(spec.arrival);
  verify_traffic_bounds(spec, rate_per_s);
  verify_traffic_lengths(spec);
}

}  // namespace podsim
