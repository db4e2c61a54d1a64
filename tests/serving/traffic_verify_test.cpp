// Every rule of verify_traffic (docs/serving-model.md, "Constraints") on a spec that breaks it and nothing else,
// with the exact location and message.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/traffic.hpp"

namespace podsim {
namespace {

TrafficSpec traffic_verify_good_spec() {
  TrafficSpec spec;
  spec.arrival = PoissonArrivals{10.0};
  spec.requests = 100;
  spec.prompt_tokens = FixedTokens{100};
  spec.output_tokens = FixedTokens{20};
  return spec;
}

TrafficSpec traffic_verify_trace_spec() {
  TrafficSpec spec;
  spec.arrival = TraceArrivals{{{0.0, 100, 10}, {1.0, 200, 20}}};
  return spec;
}

struct TrafficVerifyCase {
  std::string name;
  std::function<void(TrafficSpec&)> break_it;
  std::string where;
  std::string message;
  bool trace = false;
};

const double kTrafficVerifyNan = std::numeric_limits<double>::quiet_NaN();
const double kTrafficVerifyInf = std::numeric_limits<double>::infinity();

std::vector<TrafficVerifyCase> traffic_verify_cases() {
  const std::string t = "/workload/traffic";
  return {
      {"rate nan", [](TrafficSpec& s) { s.arrival = PoissonArrivals{kTrafficVerifyNan}; }, t + "/rate_per_s",
       "must be a finite number, got: nan"},
      {"rate inf", [](TrafficSpec& s) { s.arrival = ConstantArrivals{kTrafficVerifyInf}; }, t + "/rate_per_s",
       "must be a finite number, got: inf"},
      {"rate zero", [](TrafficSpec& s) { s.arrival = PoissonArrivals{0.0}; }, t + "/rate_per_s", "must be > 0, got: 0"},
      {"rate negative",
       [](TrafficSpec& s) {
         s.arrival = GammaArrivals{-2.0, 1.0};
       },
       t + "/rate_per_s", "must be > 0, got: -2"},
      {"rate tiny", [](TrafficSpec& s) { s.arrival = PoissonArrivals{1e-7}; }, t + "/rate_per_s",
       "must be at least 1e-06 requests per second, got: 1e-07"},
      {"burstiness zero",
       [](TrafficSpec& s) {
         s.arrival = GammaArrivals{1.0, 0.0};
       },
       t + "/burstiness", "must be > 0, got: 0"},
      {"burstiness nan",
       [](TrafficSpec& s) {
         s.arrival = GammaArrivals{1.0, kTrafficVerifyNan};
       },
       t + "/burstiness", "must be a finite number, got: nan"},
      {"concurrency zero", [](TrafficSpec& s) { s.arrival = ClosedLoopArrivals{0}; }, t + "/concurrency",
       "must be at least 1, got: 0"},
      {"concurrency huge", [](TrafficSpec& s) { s.arrival = ClosedLoopArrivals{10000001}; }, t + "/concurrency",
       "must be at most 10000000, got: 10000001"},
      {"no bound", [](TrafficSpec& s) { s.requests.reset(); }, t,
       "exactly one of duration_s and requests is required, got: neither"},
      {"both bounds", [](TrafficSpec& s) { s.duration_s = 10.0; }, t,
       "exactly one of duration_s and requests is required, got: both"},
      {"requests zero", [](TrafficSpec& s) { s.requests = 0; }, t + "/requests", "must be at least 1, got: 0"},
      {"requests huge", [](TrafficSpec& s) { s.requests = 10000001; }, t + "/requests",
       "must be at most 10000000, got: 10000001"},
      {"duration zero",
       [](TrafficSpec& s) {
         s.requests.reset();
         s.duration_s = 0.0;
       },
       t + "/duration_s", "must be > 0, got: 0"},
      {"duration inf",
       [](TrafficSpec& s) {
         s.requests.reset();
         s.duration_s = kTrafficVerifyInf;
       },
       t + "/duration_s", "must be a finite number, got: inf"},
      {"expected count huge",
       [](TrafficSpec& s) {
         s.requests.reset();
         s.duration_s = 2e6;  // 10 per second: 2e7 requests expected
       },
       t + "/duration_s", "rate_per_s x duration_s must be at most 10000000 requests, got: 2e+07"},
      {"prompt law missing", [](TrafficSpec& s) { s.prompt_tokens.reset(); }, t + "/prompt_tokens",
       "is required for arrival \"poisson\", got: nothing"},
      {"output law missing", [](TrafficSpec& s) { s.output_tokens.reset(); }, t + "/output_tokens",
       "is required for arrival \"poisson\", got: nothing"},
      {"fixed zero", [](TrafficSpec& s) { s.prompt_tokens = FixedTokens{0}; }, t + "/prompt_tokens/fixed",
       "must be at least 1, got: 0"},
      {"fixed huge", [](TrafficSpec& s) { s.output_tokens = FixedTokens{16777217}; }, t + "/output_tokens/fixed",
       "must be at most 16777216, got: 16777217"},
      {"uniform below one",
       [](TrafficSpec& s) {
         s.prompt_tokens = UniformTokens{0, 5};
       },
       t + "/prompt_tokens/uniform", "bounds must be at least 1, got: [0, 5]"},
      {"uniform huge",
       [](TrafficSpec& s) {
         s.prompt_tokens = UniformTokens{1, 20000000};
       },
       t + "/prompt_tokens/uniform", "bounds must be at most 16777216, got: [1, 20000000]"},
      {"uniform reversed",
       [](TrafficSpec& s) {
         s.output_tokens = UniformTokens{5, 3};
       },
       t + "/output_tokens/uniform", "the lower bound must not exceed the upper bound, got: [5, 3]"},
      {"lognormal mean nan",
       [](TrafficSpec& s) {
         s.prompt_tokens = LognormalTokens{kTrafficVerifyNan, 1.0};
       },
       t + "/prompt_tokens/lognormal/mean", "must be a finite number, got: nan"},
      {"lognormal mean below one",
       [](TrafficSpec& s) {
         s.prompt_tokens = LognormalTokens{0.5, 1.0};
       },
       t + "/prompt_tokens/lognormal/mean", "must be at least 1, got: 0.5"},
      {"lognormal mean huge",
       [](TrafficSpec& s) {
         s.prompt_tokens = LognormalTokens{2e7, 1.0};
       },
       t + "/prompt_tokens/lognormal/mean", "must be at most 16777216, got: 2e+07"},
      {"lognormal sigma negative",
       [](TrafficSpec& s) {
         s.output_tokens = LognormalTokens{100.0, -0.1};
       },
       t + "/output_tokens/lognormal/sigma", "must be >= 0, got: -0.1"},
      {"lognormal sigma inf",
       [](TrafficSpec& s) {
         s.output_tokens = LognormalTokens{100.0, kTrafficVerifyInf};
       },
       t + "/output_tokens/lognormal/sigma", "must be a finite number, got: inf"},
      {"lognormal sigma huge",
       [](TrafficSpec& s) {
         s.output_tokens = LognormalTokens{100.0, 11.0};
       },
       t + "/output_tokens/lognormal/sigma", "must be at most 10, got: 11"},
      {"trace empty", [](TrafficSpec& s) { s.arrival = TraceArrivals{}; }, t + "/trace",
       "a trace needs at least one row, got: 0 rows", true},
      {"trace with law", [](TrafficSpec& s) { s.prompt_tokens = FixedTokens{5}; }, t + "/prompt_tokens",
       "a trace gives its own lengths, got: a law", true},
      {"trace both bounds",
       [](TrafficSpec& s) {
         s.requests = 1;
         s.duration_s = 1.0;
       },
       t, "a trace takes at most one of duration_s and requests, got: both", true},
      {"trace arrival nan",
       [](TrafficSpec& s) { std::get<TraceArrivals>(s.arrival).rows[1].arrival_s = kTrafficVerifyNan; },
       t + "/trace/1/arrival_s", "must be a finite number, got: nan", true},
      {"trace arrival negative", [](TrafficSpec& s) { std::get<TraceArrivals>(s.arrival).rows[0].arrival_s = -1.0; },
       t + "/trace/0/arrival_s", "must be >= 0, got: -1", true},
      {"trace arrival earlier", [](TrafficSpec& s) { std::get<TraceArrivals>(s.arrival).rows[0].arrival_s = 2.5; },
       t + "/trace/1/arrival_s", "must not be earlier than the previous row's 2.5, got: 1", true},
      {"trace prompt zero", [](TrafficSpec& s) { std::get<TraceArrivals>(s.arrival).rows[1].prompt_tokens = 0; },
       t + "/trace/1/prompt_tokens", "must be at least 1, got: 0", true},
      {"trace output huge", [](TrafficSpec& s) { std::get<TraceArrivals>(s.arrival).rows[0].output_tokens = 1 << 25; },
       t + "/trace/0/output_tokens", "must be at most 16777216, got: 33554432", true},
  };
}

TEST(TrafficVerify, GoodSpecsPass) {
  EXPECT_NO_THROW(verify_traffic(traffic_verify_good_spec()));
  EXPECT_NO_THROW(verify_traffic(traffic_verify_trace_spec()));
  TrafficSpec closed = traffic_verify_good_spec();
  closed.arrival = ClosedLoopArrivals{4};
  closed.requests.reset();
  closed.duration_s = 60.0;
  EXPECT_NO_THROW(verify_traffic(closed));
  TrafficSpec edge = traffic_verify_good_spec();
  edge.requests.reset();
  edge.duration_s = 1e6;  // 10 per second: exactly 1e7 expected, the bound
  edge.prompt_tokens = UniformTokens{1, 16777216};
  edge.output_tokens = LognormalTokens{1.0, 10.0};
  EXPECT_NO_THROW(verify_traffic(edge));
}

TEST(TrafficVerify, EveryRuleHasItsLocatedMessage) {
  for (const TrafficVerifyCase& c : traffic_verify_cases()) {
    TrafficSpec spec = c.trace ? traffic_verify_trace_spec() : traffic_verify_good_spec();
    c.break_it(spec);
    try {
      verify_traffic(spec);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), c.where) << c.name;
      EXPECT_EQ(e.message(), c.message) << c.name;
      EXPECT_EQ(std::string(e.what()), c.where + ": " + c.message) << c.name;
    }
  }
}

TEST(TrafficVerify, ATraceHasAtMostTenMillionRows) {
  TrafficSpec spec;
  spec.arrival = TraceArrivals{std::vector<TraceRow>(10000001, TraceRow{0.0, 1, 1})};
  try {
    verify_traffic(spec);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/workload/traffic/trace");
    EXPECT_EQ(e.message(), "a trace has at most 10000000 rows, got: 10000001 rows");
  }
}

TEST(TrafficVerify, GeneratorsVerifyFirst) {
  TrafficSpec spec = traffic_verify_good_spec();
  spec.arrival = PoissonArrivals{-1.0};
  EXPECT_THROW(generate_requests(spec), InputError);
  spec.arrival = ClosedLoopArrivals{0};
  EXPECT_THROW(ClosedLoop loop(spec), InputError);
}

}  // namespace
}  // namespace podsim
