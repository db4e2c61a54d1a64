// The traffic of a serving run (docs/serving-model.md, "Traffic"): when requests arrive and how long their prompts
// and answers are, as `vllm bench serve` draws them. A typed spec, its verifier, and the generators the serving
// driver calls: the whole request list for open-loop and trace traffic, one request at a time for a closed loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/serving/random.hpp"
#include "models/serving/request.hpp"

namespace podsim {

// Arrival laws. Open-loop gaps are drawn one after another; the first request arrives after one gap, as the newest
// `vllm bench serve` sends it (older releases send it at 0), and the sum of the gaps is not rescaled.
struct PoissonArrivals {
  double rate_per_s = 1.0;  // gaps ~ Exponential(rate_per_s)
};
struct GammaArrivals {
  double rate_per_s = 1.0;
  double burstiness = 1.0;  // the shape k: gaps ~ Gamma(k, 1 / (rate_per_s k)); 1 is Poisson, < 1 burstier
};
struct ConstantArrivals {
  double rate_per_s = 1.0;  // request i (from 1) arrives at i / rate_per_s
};
struct ClosedLoopArrivals {
  std::int64_t concurrency = 1;  // requests in flight: one is submitted when one finishes (no arrival times)
};
struct TraceRow {
  double arrival_s = 0.0;
  std::int64_t prompt_tokens = 1;
  std::int64_t output_tokens = 1;
};
struct TraceArrivals {
  std::vector<TraceRow> rows;  // arrival times non-decreasing; lengths from the rows
};
using ArrivalLaw = std::variant<PoissonArrivals, GammaArrivals, ConstantArrivals, ClosedLoopArrivals, TraceArrivals>;

// Name of the law as the scenario spells it: "poisson", "gamma", "constant", "closed", "trace".
std::string arrival_law_name(const ArrivalLaw& law);

// Token-count laws. Every draw is an integer in [1, kMaxRequestTokens].
struct FixedTokens {
  std::int64_t tokens = 1;
};
struct UniformTokens {
  std::int64_t min_tokens = 1;  // inclusive
  std::int64_t max_tokens = 1;  // inclusive
};
// The mean of the token counts is `mean` (not the mean of the underlying normal): ln N ~ Normal(mu, sigma^2) with
// mu = ln(mean) - sigma^2 / 2. A draw is rounded to the nearest integer (halves away from zero), at least 1 and cut
// to kMaxRequestTokens.
struct LognormalTokens {
  double mean = 1.0;
  double sigma = 0.0;
};
using TokenLaw = std::variant<FixedTokens, UniformTokens, LognormalTokens>;

struct TrafficSpec {
  ArrivalLaw arrival = PoissonArrivals{};
  // Exactly one bounds the run (a trace may have neither: all its rows). duration_s keeps arrivals at or before
  // it (a closed loop submits until then); requests keeps the first so many.
  std::optional<double> duration_s;
  std::optional<std::int64_t> requests;
  // Required unless the arrival is a trace, which gives its own lengths (and then they must be absent).
  std::optional<TokenLaw> prompt_tokens;
  std::optional<TokenLaw> output_tokens;
  std::uint64_t seed = 0;
};

// Throws InputError at the field's JSON pointer under /workload/traffic for every rule of docs/serving-model.md
// "Constraints" (e.g. `/workload/traffic/rate_per_s: must be > 0, got: 0`).
void verify_traffic(const TrafficSpec& spec);

// Draws token counts from one law (of a verified spec) on its own stream.
class TokenSampler {
 public:
  TokenSampler(TokenLaw law, std::uint64_t seed);
  std::int64_t next();

 private:
  TokenLaw law_;
  Rng rng_;
  double lognormal_mu_ = 0.0;
};

// The requests of an open-loop or trace spec (verified first), ids 0, 1, ... in arrival order. Arrivals draw from
// stream_seed(seed, 0), prompt lengths from stream 1, output lengths from stream 2. Throws InputError at
// /workload/traffic/duration_s if a random law draws more than kMaxDrawnRequests arrivals within duration_s, and
// InternalError for a closed loop (use ClosedLoop).
std::vector<Request> generate_requests(const TrafficSpec& spec);

// A closed loop of `concurrency` clients with no think time (`vllm bench serve --max-concurrency` at an infinite
// rate): the driver submits start() at time 0 and calls next(now) each time a request finishes.
class ClosedLoop {
 public:
  // `spec` is verified here; its arrival must be ClosedLoopArrivals.
  explicit ClosedLoop(const TrafficSpec& spec);

  // The first min(concurrency, requests) requests, arriving at 0.
  std::vector<Request> start();

  // The request submitted at `now_s` when one finishes, or nothing once the bound is reached: `requests` submitted
  // in all, or now_s past duration_s. Throws InputError at /workload/traffic/duration_s past kMaxDrawnRequests.
  std::optional<Request> next(double now_s);

  std::int64_t submitted() const { return submitted_; }

 private:
  Request make(double now_s);

  TrafficSpec spec_;
  std::int64_t concurrency_ = 1;
  TokenSampler prompts_;
  TokenSampler outputs_;
  std::int64_t submitted_ = 0;
};

}  // namespace podsim
