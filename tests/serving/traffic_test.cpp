// Request generation of models/serving/traffic.hpp: arrival times worked by hand for constant traffic, the laws'
// moments for random traffic (200,000 requests, five standard errors), lengths, streams, traces and the closed loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/traffic.hpp"

namespace podsim {
namespace {

TrafficSpec traffic_test_spec(ArrivalLaw arrival, std::int64_t requests) {
  TrafficSpec spec;
  spec.arrival = std::move(arrival);
  spec.requests = requests;
  spec.prompt_tokens = FixedTokens{100};
  spec.output_tokens = FixedTokens{20};
  spec.seed = 1;
  return spec;
}

std::vector<double> traffic_test_gaps(const std::vector<Request>& requests) {
  std::vector<double> gaps;
  double previous = 0;
  for (const Request& r : requests) {
    gaps.push_back(r.arrival_s - previous);
    previous = r.arrival_s;
  }
  return gaps;
}

struct TrafficTestMoments {
  double mean = 0;
  double variance = 0;
};

TrafficTestMoments traffic_test_moments(const std::vector<double>& x) {
  double sum = 0;
  for (const double v : x)
    sum += v;
  const double mean = sum / static_cast<double>(x.size());
  double squares = 0;
  for (const double v : x)
    squares += (v - mean) * (v - mean);
  return {mean, squares / static_cast<double>(x.size() - 1)};
}

TEST(Traffic, ConstantArrivalsComeAfterOneGapThenEveryGap) {
  const std::vector<Request> r = generate_requests(traffic_test_spec(ConstantArrivals{10.0}, 5));
  ASSERT_EQ(r.size(), 5u);
  // Request i (from 1) at i / 10 s: the first after one gap, not at 0.
  const double expected[] = {0.1, 0.2, 0.3, 0.4, 0.5};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r[i].id, static_cast<std::int64_t>(i));
    EXPECT_EQ(r[i].arrival_s, expected[i]);
    EXPECT_EQ(r[i].prompt_tokens, 100);
    EXPECT_EQ(r[i].output_tokens, 20);
  }
}

TEST(Traffic, DurationKeepsArrivalsAtOrBeforeIt) {
  TrafficSpec spec = traffic_test_spec(ConstantArrivals{10.0}, 1);
  spec.requests.reset();
  spec.duration_s = 1.0;
  const std::vector<Request> r = generate_requests(spec);
  ASSERT_EQ(r.size(), 10u);  // 0.1, ..., 1.0 (10 / 10 is exactly 1)
  EXPECT_EQ(r.back().arrival_s, 1.0);
}

TEST(Traffic, PoissonFirstArrivalIsOneExponentialDraw) {
  const TrafficSpec spec = traffic_test_spec(PoissonArrivals{4.0}, 3);
  const std::vector<Request> r = generate_requests(spec);
  Rng arrivals(stream_seed(spec.seed, 0));
  const double first = arrivals.exponential(4.0);
  EXPECT_EQ(r[0].arrival_s, first);
  EXPECT_EQ(r[1].arrival_s, first + arrivals.exponential(4.0));
  EXPECT_GT(r[0].arrival_s, 0.0);
}

TEST(Traffic, PoissonGapsHaveMeanAndVarianceOfTheRate) {
  const double rate = 50;
  const std::vector<Request> r = generate_requests(traffic_test_spec(PoissonArrivals{rate}, 200000));
  const TrafficTestMoments m = traffic_test_moments(traffic_test_gaps(r));
  const double n = 200000;
  // Exponential gaps: mean 1/rate, variance 1/rate^2, kurtosis 9.
  EXPECT_NEAR(m.mean, 1 / rate, 5 * (1 / rate) / std::sqrt(n));
  EXPECT_NEAR(m.variance, 1 / (rate * rate), 5 * (1 / (rate * rate)) * std::sqrt(8 / n));
}

TEST(Traffic, PoissonCountWithinDurationIsRateTimesDuration) {
  TrafficSpec spec = traffic_test_spec(PoissonArrivals{100.0}, 1);
  spec.requests.reset();
  spec.duration_s = 1000.0;
  const std::vector<Request> r = generate_requests(spec);
  // N(1000 s) ~ Poisson(100000): standard deviation sqrt(100000) = 316.
  EXPECT_NEAR(static_cast<double>(r.size()), 100000, 5 * std::sqrt(100000.0));
  EXPECT_LE(r.back().arrival_s, 1000.0);
}

TEST(Traffic, GammaBurstinessSetsTheGapsCoefficientOfVariation) {
  const double rate = 20, k = 0.25, n = 200000;
  const std::vector<Request> r = generate_requests(traffic_test_spec(GammaArrivals{rate, k}, 200000));
  const TrafficTestMoments m = traffic_test_moments(traffic_test_gaps(r));
  // Gamma(k, 1/(rate k)): mean 1/rate; variance k / (rate k)^2 = 1 / (rate^2 k), so CV^2 = 1/k = 4; kurtosis 3 + 6/k.
  const double variance = 1 / (rate * rate * k);
  EXPECT_NEAR(m.mean, 1 / rate, 5 * std::sqrt(variance / n));
  EXPECT_NEAR(m.variance, variance, 5 * variance * std::sqrt((2 + 6 / k) / n));
}

TEST(Traffic, UniformLengthsAreInclusiveIntegers) {
  TrafficSpec spec = traffic_test_spec(PoissonArrivals{1.0}, 200000);
  spec.prompt_tokens = UniformTokens{10, 20};
  const std::vector<Request> r = generate_requests(spec);
  std::vector<double> prompts;
  for (const Request& q : r)
    prompts.push_back(static_cast<double>(q.prompt_tokens));
  EXPECT_EQ(*std::min_element(prompts.begin(), prompts.end()), 10);
  EXPECT_EQ(*std::max_element(prompts.begin(), prompts.end()), 20);
  // 11 values: mean 15, variance (11^2 - 1) / 12 = 10.
  EXPECT_NEAR(traffic_test_moments(prompts).mean, 15, 5 * std::sqrt(10 / 200000.0));
}

TEST(Traffic, LognormalMeanIsTheMeanOfTheTokenCounts) {
  TrafficSpec spec = traffic_test_spec(PoissonArrivals{1.0}, 200000);
  spec.output_tokens = LognormalTokens{1000.0, 0.5};
  const std::vector<Request> r = generate_requests(spec);
  std::vector<double> outputs;
  for (const Request& q : r)
    outputs.push_back(static_cast<double>(q.output_tokens));
  // mu = ln 1000 - 0.125: mean 1000, sd 1000 sqrt(e^0.25 - 1) = 533.0; rounding moves the mean by far less.
  const double sd = 1000 * std::sqrt(std::exp(0.25) - 1);
  EXPECT_NEAR(traffic_test_moments(outputs).mean, 1000, 5 * sd / std::sqrt(200000.0));
  // Median e^mu = 1000 e^-0.125 = 882.497: half the draws below it.
  const auto below = std::count_if(outputs.begin(), outputs.end(), [](double x) { return x < 882.497; });
  EXPECT_NEAR(below / 200000.0, 0.5, 5 * std::sqrt(0.25 / 200000));
}

TEST(Traffic, LognormalDrawsAreRoundedAndAtLeastOne) {
  TrafficSpec spec = traffic_test_spec(PoissonArrivals{1.0}, 2000);
  spec.prompt_tokens = LognormalTokens{7.0, 0.0};  // sigma 0: every draw e^(ln 7) = 7 within an ulp, rounded to 7
  spec.output_tokens = LognormalTokens{1.0, 3.0};  // most of the mass below 0.5: floored at 1
  const std::vector<Request> r = generate_requests(spec);
  std::int64_t ones = 0;
  for (const Request& q : r) {
    EXPECT_EQ(q.prompt_tokens, 7);
    EXPECT_GE(q.output_tokens, 1);
    ones += q.output_tokens == 1;
  }
  // P(N < 1.5) = Phi((ln 1.5 - mu) / 3) with mu = -4.5: Phi(1.635) = 0.949.
  EXPECT_NEAR(ones / 2000.0, 0.949, 5 * std::sqrt(0.949 * 0.051 / 2000));
}

TEST(Traffic, SameSeedSameRequestsAndEachLawOnItsOwnStream) {
  TrafficSpec spec = traffic_test_spec(GammaArrivals{5.0, 0.5}, 500);
  spec.prompt_tokens = UniformTokens{1, 4000};
  spec.output_tokens = LognormalTokens{300.0, 1.0};
  const std::vector<Request> a = generate_requests(spec);
  EXPECT_EQ(a, generate_requests(spec));
  TrafficSpec other_seed = spec;
  other_seed.seed = 2;
  EXPECT_NE(a, generate_requests(other_seed));
  // Another output law leaves the arrivals and the prompts as they were.
  TrafficSpec other_outputs = spec;
  other_outputs.output_tokens = FixedTokens{5};
  const std::vector<Request> b = generate_requests(other_outputs);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
    EXPECT_EQ(b[i].output_tokens, 5);
  }
}

TEST(Traffic, TraceRowsAreTheRequests) {
  TrafficSpec spec;
  spec.arrival = TraceArrivals{{{0.0, 100, 10}, {0.5, 200, 20}, {0.5, 300, 30}, {2.0, 400, 40}}};
  std::vector<Request> r = generate_requests(spec);  // neither bound: every row
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[2], (Request{2, 0.5, 300, 30}));
  spec.requests = 2;
  EXPECT_EQ(generate_requests(spec).size(), 2u);
  spec.requests.reset();
  spec.duration_s = 0.5;
  r = generate_requests(spec);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.back().arrival_s, 0.5);
}

TEST(Traffic, ClosedLoopSubmitsConcurrencyAtZeroThenOnePerFinish) {
  TrafficSpec spec = traffic_test_spec(ClosedLoopArrivals{3}, 5);
  ClosedLoop loop(spec);
  const std::vector<Request> first = loop.start();
  ASSERT_EQ(first.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first[i].id, static_cast<std::int64_t>(i));
    EXPECT_EQ(first[i].arrival_s, 0.0);
  }
  const std::optional<Request> fourth = loop.next(1.5);
  ASSERT_TRUE(fourth.has_value());
  EXPECT_EQ(*fourth, (Request{3, 1.5, 100, 20}));
  EXPECT_TRUE(loop.next(2.0).has_value());
  EXPECT_FALSE(loop.next(3.0).has_value());  // five submitted
  EXPECT_EQ(loop.submitted(), 5);
}

TEST(Traffic, ClosedLoopWithDurationStopsSubmittingAfterIt) {
  TrafficSpec spec = traffic_test_spec(ClosedLoopArrivals{8}, 1);
  spec.requests.reset();
  spec.duration_s = 10.0;
  ClosedLoop loop(spec);
  EXPECT_EQ(loop.start().size(), 8u);
  EXPECT_TRUE(loop.next(10.0).has_value());
  EXPECT_FALSE(loop.next(10.5).has_value());
}

TEST(Traffic, ClosedLoopMayNotSubmitWithoutBound) {
  TrafficSpec spec = traffic_test_spec(ClosedLoopArrivals{1}, 1);
  spec.requests.reset();
  spec.duration_s = 1.0;
  ClosedLoop loop(spec);
  loop.start();
  // A server that finishes requests in no time: the loop stops at kMaxDrawnRequests instead of running away.
  try {
    for (std::int64_t i = 0; i < kMaxDrawnRequests; ++i)
      loop.next(0.0);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/workload/traffic/duration_s");
    EXPECT_EQ(e.message(), "at most 20000000 requests may arrive within duration_s, got: more by 0 s");
  }
}

TEST(Traffic, ClosedLoopHasNoArrivalList) {
  EXPECT_THROW(generate_requests(traffic_test_spec(ClosedLoopArrivals{2}, 4)), InternalError);
  EXPECT_THROW(ClosedLoop(traffic_test_spec(PoissonArrivals{1.0}, 4)), InternalError);
}

TEST(Traffic, LawNames) {
  EXPECT_EQ(arrival_law_name(PoissonArrivals{}), "poisson");
  EXPECT_EQ(arrival_law_name(GammaArrivals{}), "gamma");
  EXPECT_EQ(arrival_law_name(ConstantArrivals{}), "constant");
  EXPECT_EQ(arrival_law_name(ClosedLoopArrivals{}), "closed");
  EXPECT_EQ(arrival_law_name(TraceArrivals{}), "trace");
}

}  // namespace
}  // namespace podsim
