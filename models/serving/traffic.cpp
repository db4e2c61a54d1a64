// Generating the requests of a verified TrafficSpec: arrival gaps, then lengths, each law on its own stream.
#include "models/serving/traffic.hpp"

#include <cmath>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {
namespace {

template <class... Ts>
struct TrafficOverloads : Ts... {
  using Ts::operator()...;
};
// Spelled out: clang before 17 does not deduce an aggregate's template arguments (the fuzz build compiles with clang).
template <class... Ts>
TrafficOverloads(Ts...) -> TrafficOverloads<Ts...>;

constexpr std::uint64_t kArrivalStream = 0;
constexpr std::uint64_t kPromptStream = 1;
constexpr std::uint64_t kOutputStream = 2;

const TrafficSpec& verified_traffic(const TrafficSpec& spec) {
  verify_traffic(spec);
  return spec;
}

[[noreturn]] void throw_too_many_drawn(double time_s) {
  throw InputError("/workload/traffic/duration_s", "at most " + std::to_string(kMaxDrawnRequests) +
                                                       " requests may arrive within duration_s, got: more by " +
                                                       exact_number(time_s) + " s");
}

std::vector<Request> trace_requests(const TrafficSpec& spec, const TraceArrivals& trace) {
  std::vector<Request> out;
  out.reserve(trace.rows.size());
  for (const TraceRow& row : trace.rows) {
    const auto id = static_cast<std::int64_t>(out.size());
    if (spec.requests && id >= *spec.requests) break;
    if (spec.duration_s && row.arrival_s > *spec.duration_s) break;  // rows are in time order
    out.push_back(Request{id, row.arrival_s, row.prompt_tokens, row.output_tokens});
  }
  return out;
}

}  // namespace

std::string arrival_law_name(const ArrivalLaw& law) {
  return std::visit(
      TrafficOverloads{[](const PoissonArrivals&) { return "poisson"; }, [](const GammaArrivals&) { return "gamma"; },
                       [](const ConstantArrivals&) { return "constant"; },
                       [](const ClosedLoopArrivals&) { return "closed"; },
                       [](const TraceArrivals&) { return "trace"; }},
      law);
}

TokenSampler::TokenSampler(TokenLaw law, std::uint64_t seed) : law_(std::move(law)), rng_(seed) {
  if (const auto* lognormal = std::get_if<LognormalTokens>(&law_))
    lognormal_mu_ = std::log(lognormal->mean) - 0.5 * lognormal->sigma * lognormal->sigma;
}

std::int64_t TokenSampler::next() {
  return std::visit(
      TrafficOverloads{[](const FixedTokens& law) { return law.tokens; },
                       [this](const UniformTokens& law) { return rng_.uniform_int(law.min_tokens, law.max_tokens); },
                       [this](const LognormalTokens& law) {
                         const double draw = std::round(rng_.lognormal(lognormal_mu_, law.sigma));
                         if (!(draw >= 1.0)) return std::int64_t{1};
                         if (draw >= static_cast<double>(kMaxRequestTokens)) return kMaxRequestTokens;
                         return static_cast<std::int64_t>(draw);
                       }},
      law_);
}

std::vector<Request> generate_requests(const TrafficSpec& spec) {
  verify_traffic(spec);
  if (const auto* trace = std::get_if<TraceArrivals>(&spec.arrival)) return trace_requests(spec, *trace);
  if (std::holds_alternative<ClosedLoopArrivals>(spec.arrival))
    throw InternalError("generate_requests: a closed loop has no arrival times, drive it with ClosedLoop");

  Rng arrivals(stream_seed(spec.seed, kArrivalStream));
  TokenSampler prompts(*spec.prompt_tokens, stream_seed(spec.seed, kPromptStream));
  TokenSampler outputs(*spec.output_tokens, stream_seed(spec.seed, kOutputStream));
  // The arrival time of request `index` (from 0), given the previous one.
  auto arrival_after = [&](std::int64_t index, double previous_s) {
    return std::visit(
        TrafficOverloads{[&](const PoissonArrivals& law) { return previous_s + arrivals.exponential(law.rate_per_s); },
                         [&](const GammaArrivals& law) {
                           const double scale = 1.0 / (law.rate_per_s * law.burstiness);
                           return previous_s + arrivals.gamma(law.burstiness, scale);
                         },
                         [&](const ConstantArrivals& law) {
                           // i / rate rather than a running sum: no drift over many requests.
                           return static_cast<double>(index + 1) / law.rate_per_s;
                         },
                         [](const auto&) { return 0.0; }},
        spec.arrival);
  };

  std::vector<Request> out;
  if (spec.requests) out.reserve(static_cast<std::size_t>(*spec.requests));
  double time_s = 0.0;
  for (std::int64_t index = 0;; ++index) {
    if (spec.requests && index >= *spec.requests) break;
    time_s = arrival_after(index, time_s);
    if (spec.duration_s && time_s > *spec.duration_s) break;
    if (index >= kMaxDrawnRequests) throw_too_many_drawn(time_s);
    const std::int64_t prompt = prompts.next();
    out.push_back(Request{index, time_s, prompt, outputs.next()});
  }
  return out;
}

ClosedLoop::ClosedLoop(const TrafficSpec& spec)
    : spec_(verified_traffic(spec)),
      prompts_(spec.prompt_tokens.value_or(FixedTokens{}), stream_seed(spec.seed, kPromptStream)),
      outputs_(spec.output_tokens.value_or(FixedTokens{}), stream_seed(spec.seed, kOutputStream)) {
  const auto* closed = std::get_if<ClosedLoopArrivals>(&spec_.arrival);
  if (closed == nullptr)
    throw InternalError("ClosedLoop: the traffic's arrival is " + arrival_law_name(spec_.arrival) + ", not closed");
  concurrency_ = closed->concurrency;
}

Request ClosedLoop::make(double now_s) {
  if (submitted_ >= kMaxDrawnRequests) throw_too_many_drawn(now_s);
  const std::int64_t prompt = prompts_.next();
  Request request{submitted_, now_s, prompt, outputs_.next()};
  ++submitted_;
  return request;
}

std::vector<Request> ClosedLoop::start() {
  std::vector<Request> out;
  if (submitted_ > 0) throw InternalError("ClosedLoop::start called twice");
  std::int64_t first = concurrency_;
  if (spec_.requests && *spec_.requests < first) first = *spec_.requests;
  out.reserve(static_cast<std::size_t>(first));
  for (std::int64_t i = 0; i < first; ++i)
    out.push_back(make(0.0));
  return out;
}

std::optional<Request> ClosedLoop::next(double now_s) {
  if (spec_.requests && submitted_ >= *spec_.requests) return std::nullopt;
  if (spec_.duration_s && now_s > *spec_.duration_s) return std::nullopt;
  return make(now_s);
}

}  // namespace podsim
