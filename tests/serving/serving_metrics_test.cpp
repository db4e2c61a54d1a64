// Latency metrics of models/serving/serving_metrics.hpp and latency_summary.hpp against numbers worked by hand:
// numpy's percentiles of small arrays, a request alone, a four-request run with an SLO, and the SLO's rules.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/scheduler.hpp"
#include "models/serving/serving_metrics.hpp"

namespace podsim {
namespace {

TEST(LatencySummary, PercentilesMatchNumpyLinear) {
  const std::vector<double> x = {1, 2, 3, 4};
  // rank = p/100 (n - 1): 1.5 -> 2.5; 2.7 -> 3 + 0.7 = 3.7 (numpy computes 4 - 1 x 0.3, exactly the double 3.7);
  // 2.97 -> 3.97; the ends are the extremes.
  EXPECT_EQ(numpy_percentile(x, 50), 2.5);
  EXPECT_EQ(numpy_percentile(x, 90), 3.7);
  EXPECT_DOUBLE_EQ(numpy_percentile(x, 99), 3.97);
  EXPECT_EQ(numpy_percentile(x, 0), 1.0);
  EXPECT_EQ(numpy_percentile(x, 100), 4.0);
  // numpy.percentile's documentation example: rank 0.4 x 4 = 1.6 -> 20 + 0.6 x 15 = 29.
  EXPECT_DOUBLE_EQ(numpy_percentile({15, 20, 35, 40, 50}, 40), 29.0);
  EXPECT_EQ(numpy_percentile({7.5}, 99), 7.5);
}

TEST(LatencySummary, SummaryOfSamplesAndOfNone) {
  const LatencySummary s = summarize(std::vector<double>{4, 1, 3, 2});
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_EQ(s.p50, 2.5);
  EXPECT_EQ(s.p90, 3.7);
  const LatencySummary none = summarize(std::vector<double>{});
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.mean, 0.0);
  EXPECT_EQ(none.p99, 0.0);
}

TEST(LatencySummary, WeightedSamplesAreTheExpandedMultiset) {
  WeightedSamples w;
  for (int i = 0; i < 3; ++i)
    w.add(0.5);  // consecutive equal values: one run
  w.add(0.25, 2);
  w.add(1.0);
  w.add(0.5, 2);
  EXPECT_EQ(w.runs().size(), 4u);
  EXPECT_EQ(w.count(), 8);
  // Sorted: 0.25 0.25 0.5 0.5 0.5 0.5 0.5 1.0. Mean 4 / 8; p50 at rank 3.5 is 0.5; p90 at rank 6.3 is
  // 0.5 + 0.3 x 0.5 = 0.65; p99 at rank 6.93 is 1 - 0.07 x 0.5 = 0.965.
  const LatencySummary s = summarize(w);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.mean, 0.5);
  EXPECT_EQ(s.p50, 0.5);
  EXPECT_DOUBLE_EQ(s.p90, 0.65);
  EXPECT_DOUBLE_EQ(s.p99, 0.965);
  const LatencySummary expanded = summarize(std::vector<double>{0.5, 0.5, 0.5, 0.25, 0.25, 1.0, 0.5, 0.5});
  EXPECT_EQ(s.p90, expanded.p90);
  EXPECT_EQ(s.p99, expanded.p99);
  EXPECT_THROW(w.add(0.5, 0), InternalError);
}

TEST(ServingMetrics, ARequestAlone) {
  const Request request{0, 1.0, 100, 4};
  const std::vector<double> tokens = {1.5, 1.75, 2.0, 2.25};
  const RequestRecord record = request_record(request, tokens);
  EXPECT_EQ(record.output_tokens, 4);
  const RequestLatency latency = request_latency(record);
  // TTFT 1.5 - 1 = 0.5; E2E 2.25 - 1 = 1.25; TPOT (1.25 - 0.5) / 3 = 0.25; three gaps of 0.25.
  EXPECT_EQ(latency.ttft_s, 0.5);
  EXPECT_EQ(latency.e2e_s, 1.25);
  ASSERT_TRUE(latency.tpot_s.has_value());
  EXPECT_EQ(*latency.tpot_s, 0.25);
  EXPECT_EQ(inter_token_latencies(tokens), (std::vector<double>{0.25, 0.25, 0.25}));
  EXPECT_THROW(request_record(request, {0.5}), InternalError);  // a token before the arrival
  EXPECT_THROW(request_record(request, {}), InternalError);
}

TEST(ServingMetrics, OneTokenHasNoTpotAndCountsAsZeroForGoodput) {
  const RequestLatency latency = request_latency(RequestRecord{0, 0.0, 0.3, 0.3, 10, 1});
  EXPECT_FALSE(latency.tpot_s.has_value());
  Slo slo;
  slo.tpot = SloTarget{PercentileKey::p99, 1e-9};
  EXPECT_TRUE(request_meets_slo(latency, slo));
  slo.ttft = SloTarget{PercentileKey::p50, 0.2};
  EXPECT_FALSE(request_meets_slo(latency, slo));
}

TEST(ServingMetrics, SingleRequestAloneHasThePrefillStepAsTtftAndTheDecodeStepAsTpot) {
  // A driver in miniature: steps with a prefill take 0.25 s, decode-only steps 0.0625 s.
  SchedulerConfig config;
  config.kv_capacity_blocks = 100;
  Scheduler scheduler(config);
  ServingRecorder recorder;
  const Request request{0, 0.0, 200, 5};
  recorder.arrived(request);
  scheduler.add_request(request);
  double now = 0;
  while (scheduler.has_work()) {
    const BatchSignature signature = batch_signature(scheduler.schedule());
    now += signature.prefill_tokens > 0 ? 0.25 : 0.0625;
    for (const std::int64_t id : scheduler.finish_step().emitted)
      recorder.token(id, now);
  }
  const std::vector<RequestRecord> done = recorder.completed();
  ASSERT_EQ(done.size(), 1u);
  const RequestLatency latency = request_latency(done[0]);
  EXPECT_EQ(latency.ttft_s, 0.25);
  EXPECT_EQ(*latency.tpot_s, 0.0625);
  EXPECT_EQ(latency.e2e_s, 0.25 + 4 * 0.0625);
  const LatencySummary itl = summarize(recorder.itl_samples());
  EXPECT_EQ(itl.count, 4);
  EXPECT_EQ(itl.p99, 0.0625);
}

// Four requests (arrival; token times):
//   0: 0;    0.5 1.0 1.5 2.0 2.5   TTFT 0.5   E2E 2.5   TPOT 2/4 = 0.5
//   1: 1;    1.25 1.75 2.25        TTFT 0.25  E2E 1.25  TPOT 1/2 = 0.5
//   2: 2;    3.0                   TTFT 1     E2E 1     no TPOT
//   3: 2;    2.5 3.0 3.5 4.0       TTFT 0.5   E2E 2     TPOT 1.5/3 = 0.5
// Every gap is 0.5 (4 + 2 + 3 = 9 of them); 13 output tokens; the last token at 4 s.
ServingRecorder serving_metrics_test_run() {
  ServingRecorder r;
  r.arrived(Request{0, 0.0, 10, 5});
  r.token(0, 0.5);
  r.arrived(Request{1, 1.0, 20, 3});
  r.token(0, 1.0);
  r.token(1, 1.25);
  r.token(0, 1.5);
  r.token(1, 1.75);
  r.token(0, 2.0);
  r.arrived(Request{2, 2.0, 30, 1});
  r.arrived(Request{3, 2.0, 40, 4});
  r.token(1, 2.25);
  r.token(0, 2.5);
  r.token(3, 2.5);
  r.token(2, 3.0);
  r.token(3, 3.0);
  r.token(3, 3.5);
  r.token(3, 4.0);
  return r;
}

TEST(ServingMetrics, AFourRequestRunWorkedByHand) {
  const ServingRecorder recorder = serving_metrics_test_run();
  EXPECT_EQ(recorder.arrived_count(), 4);
  EXPECT_EQ(recorder.completed_count(), 4);
  const std::vector<RequestRecord> done = recorder.completed();
  ASSERT_EQ(done.size(), 4u);
  EXPECT_EQ(done[3].first_token_s, 2.5);
  EXPECT_EQ(done[3].last_token_s, 4.0);
  Slo slo;
  slo.ttft = SloTarget{PercentileKey::p90, 0.6};
  slo.tpot = SloTarget{PercentileKey::p99, 0.5};
  const ServingMetrics m = serving_metrics(done, recorder.itl_samples(), 2, slo);
  EXPECT_EQ(m.requests, 4);
  EXPECT_EQ(m.output_tokens, 13);
  EXPECT_EQ(m.duration_s, 4.0);
  EXPECT_EQ(m.requests_per_s, 1.0);
  EXPECT_EQ(m.output_tokens_per_s, 3.25);
  EXPECT_EQ(m.output_tokens_per_s_per_chip, 1.625);
  // TTFT sorted 0.25 0.5 0.5 1: mean 0.5625, p50 0.5, p90 (rank 2.7) 0.85, p99 (rank 2.97) 0.985.
  EXPECT_EQ(m.ttft_s.mean, 0.5625);
  EXPECT_EQ(m.ttft_s.p50, 0.5);
  EXPECT_DOUBLE_EQ(m.ttft_s.p90, 0.85);
  EXPECT_DOUBLE_EQ(m.ttft_s.p99, 0.985);
  // TPOT over the three requests with more than one token, all 0.5.
  EXPECT_EQ(m.tpot_s.count, 3);
  EXPECT_EQ(m.tpot_s.p99, 0.5);
  // E2E sorted 1 1.25 2 2.5: mean 1.6875, p50 1.625, p90 2.35, p99 2.485.
  EXPECT_EQ(m.e2e_s.mean, 1.6875);
  EXPECT_EQ(m.e2e_s.p50, 1.625);
  EXPECT_DOUBLE_EQ(m.e2e_s.p90, 2.35);
  EXPECT_DOUBLE_EQ(m.e2e_s.p99, 2.485);
  EXPECT_EQ(m.itl_s.count, 9);
  EXPECT_EQ(m.itl_s.mean, 0.5);
  // Request 2's TTFT of 1 s misses 0.6 s; the others meet both: 3 good of 4 over 4 s.
  EXPECT_EQ(m.goodput_requests_per_s, 0.75);
  EXPECT_EQ(m.slo_attainment, 0.75);
  // The run's p90 TTFT 0.85 misses 0.6 by 0.25; its p99 TPOT 0.5 meets 0.5 (<=).
  const std::vector<SloCheck> checks = check_slo(m, slo);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].metric, SloMetric::ttft);
  EXPECT_EQ(checks[0].percentile, PercentileKey::p90);
  EXPECT_FALSE(checks[0].met);
  EXPECT_DOUBLE_EQ(checks[0].actual_s, 0.85);
  EXPECT_DOUBLE_EQ(checks[0].miss_s, 0.25);
  EXPECT_EQ(checks[1].metric, SloMetric::tpot);
  EXPECT_TRUE(checks[1].met);
  EXPECT_EQ(checks[1].miss_s, 0.0);
  // Without an SLO every completed request is good.
  const ServingMetrics open = serving_metrics(done, recorder.itl_samples(), 1, Slo{});
  EXPECT_EQ(open.goodput_requests_per_s, 1.0);
  EXPECT_EQ(open.slo_attainment, 1.0);
  EXPECT_TRUE(check_slo(open, Slo{}).empty());
}

TEST(ServingMetrics, NoCompletedRequestMeansZeros) {
  Slo slo;
  slo.tpot = SloTarget{PercentileKey::p50, 0.1};
  const ServingMetrics m = serving_metrics({}, WeightedSamples{}, 4, slo);
  EXPECT_EQ(m.requests, 0);
  EXPECT_EQ(m.duration_s, 0.0);
  EXPECT_EQ(m.requests_per_s, 0.0);
  EXPECT_EQ(m.slo_attainment, 0.0);
  // A TPOT threshold with no request of two tokens or more is met (actual 0).
  const std::vector<SloCheck> checks = check_slo(m, slo);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks[0].met);
  EXPECT_THROW(serving_metrics({}, WeightedSamples{}, 0, slo), InternalError);
}

TEST(ServingMetrics, RecorderRefusesWhatADriverMustNotReport) {
  ServingRecorder r;
  EXPECT_THROW(r.token(0, 1.0), InternalError);  // not arrived
  r.arrived(Request{0, 0.0, 10, 1});
  EXPECT_THROW(r.arrived(Request{0, 0.0, 10, 1}), InternalError);
  EXPECT_THROW(r.token(0, -0.5), InternalError);  // before its arrival
  r.token(0, 1.0);
  EXPECT_THROW(r.token(0, 2.0), InternalError);  // a second token of a one-token request
  EXPECT_THROW(r.arrived(Request{-1, 0.0, 10, 1}), InternalError);
}

TEST(Slo, NamesAndPercentiles) {
  EXPECT_EQ(kPercentileKeyNames.name(PercentileKey::p90), "p90");
  EXPECT_EQ(kPercentileKeyNames.parse("P99"), PercentileKey::p99);
  EXPECT_EQ(percentile_of(PercentileKey::p50), 50.0);
  EXPECT_EQ(percentile_of(PercentileKey::p99), 99.0);
  EXPECT_EQ(kSloMetricNames.name(SloMetric::e2e), "e2e_s");
  EXPECT_EQ(kSloMetricNames.parse("tpot_s"), SloMetric::tpot);
  EXPECT_TRUE(Slo{}.empty());
  const LatencySummary s{4, 2.5, 2.0, 3.0, 4.0};
  EXPECT_EQ(summary_percentile(s, PercentileKey::p50), 2.0);
  EXPECT_EQ(summary_percentile(s, PercentileKey::p90), 3.0);
  EXPECT_EQ(summary_percentile(s, PercentileKey::p99), 4.0);
}

TEST(SloVerify, EveryRuleHasItsLocatedMessage) {
  struct Case {
    std::function<void(Slo&)> set;
    std::string where;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](Slo& s) {
         s.ttft = SloTarget{PercentileKey::p99, 0.0};
       },
       "/slo/ttft_s/p99", "must be > 0, got: 0"},
      {[](Slo& s) {
         s.tpot = SloTarget{PercentileKey::p50, -0.05};
       },
       "/slo/tpot_s/p50", "must be > 0, got: -0.05"},
      {[](Slo& s) {
         s.e2e = SloTarget{PercentileKey::p90, std::numeric_limits<double>::quiet_NaN()};
       },
       "/slo/e2e_s/p90", "must be a finite number, got: nan"},
      {[](Slo& s) {
         s.e2e = SloTarget{PercentileKey::p90, std::numeric_limits<double>::infinity()};
       },
       "/slo/e2e_s/p90", "must be a finite number, got: inf"},
  };
  Slo good;
  good.ttft = SloTarget{PercentileKey::p99, 1.0};
  good.tpot = SloTarget{PercentileKey::p99, 0.05};
  EXPECT_NO_THROW(verify_slo(good));
  for (const Case& c : cases) {
    Slo slo;
    c.set(slo);
    try {
      verify_slo(slo);
      ADD_FAILURE() << c.where << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), c.where);
      EXPECT_EQ(e.message(), c.message);
    }
  }
}

}  // namespace
}  // namespace podsim
