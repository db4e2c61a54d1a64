// The serving driver on SimGrid (sim/engine/serving_simulation.hpp) with step models whose times are set by hand, so
// that every request's times can be worked out step by step.
#include "sim/engine/serving_simulation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/common/error.hpp"

namespace podsim {
namespace {

// 10 ms for a step with any prefill tokens, 2 ms for a step of decodes only.
double serving_test_prefill_or_decode(const BatchSignature& batch) {
  return batch.prefill_tokens > 0 ? 0.010 : 0.002;
}

SchedulerConfig serving_test_scheduler(std::int64_t blocks = 1 << 20) {
  SchedulerConfig config;
  config.max_num_seqs = 64;
  config.max_num_batched_tokens = 4096;
  config.kv_block_tokens = 16;
  config.kv_capacity_blocks = blocks;
  return config;
}

TrafficSpec serving_test_trace(const std::vector<TraceRow>& rows) {
  TrafficSpec traffic;
  traffic.arrival = TraceArrivals{rows};
  return traffic;
}

ServingRunSpec serving_test_run(const TrafficSpec& traffic, int replicas, StepTimeFn step) {
  ServingRunSpec spec;
  spec.traffic = traffic;
  for (int r = 0; r < replicas; ++r)
    spec.replicas.push_back(ServingReplicaSpec{serving_test_scheduler(), step});
  return spec;
}

TEST(ServingSimulation, ARequestAloneTakesItsPrefillThenOneDecodeStepPerToken) {
  // Prompt 100, 5 output tokens, arriving at 0.5 s: one prefill step (10 ms) ends with the first token, then four
  // decode steps of 2 ms: TTFT 10 ms, E2E 10 + 4 x 2 = 18 ms, TPOT (18 - 10) / 4 = 2 ms.
  const ServingRunResult run =
      simulate_serving(serving_test_run(serving_test_trace({{0.5, 100, 5}}), 1, serving_test_prefill_or_decode));
  ASSERT_EQ(run.completed.size(), 1u);
  const RequestRecord& r = run.completed[0];
  EXPECT_DOUBLE_EQ(r.arrival_s, 0.5);
  EXPECT_NEAR(r.first_token_s - r.arrival_s, 0.010, 1e-12);
  EXPECT_NEAR(r.last_token_s - r.arrival_s, 0.018, 1e-12);
  const RequestLatency latency = request_latency(r);
  ASSERT_TRUE(latency.tpot_s.has_value());
  EXPECT_NEAR(*latency.tpot_s, 0.002, 1e-12);
  ASSERT_EQ(run.steps.size(), 5u);
  EXPECT_EQ(run.steps[0].prefill_tokens, 100);
  EXPECT_EQ(run.steps[1].batch_tokens, 1);
  EXPECT_NEAR(run.end_s, 0.518, 1e-12);
  // The pooled gaps: four of 2 ms.
  EXPECT_EQ(run.itl.count(), 4);
}

TEST(ServingSimulation, AStaticBatchFinishesAtKnownSteps) {
  // Four requests at t = 0, prompts of 10, outputs 1 to 4, 1 ms per step whatever the batch: step 1 prefills all four
  // (each samples its first token at 1 ms; the one-token request is done), then each decode step gives every running
  // request one token: a request of k tokens finishes at k ms.
  const StepTimeFn one_ms = [](const BatchSignature&) { return 0.001; };
  const ServingRunResult run = simulate_serving(
      serving_test_run(serving_test_trace({{0, 10, 1}, {0, 10, 2}, {0, 10, 3}, {0, 10, 4}}), 1, one_ms));
  ASSERT_EQ(run.completed.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(run.completed[k].first_token_s, 0.001, 1e-12) << k;
    EXPECT_NEAR(run.completed[k].last_token_s, 0.001 * static_cast<double>(k + 1), 1e-12) << k;
  }
  ASSERT_EQ(run.steps.size(), 4u);
  EXPECT_EQ(run.steps[0].batch_seqs, 4);
  EXPECT_EQ(run.steps[1].batch_seqs, 3);  // the one-token request left after step 1
  EXPECT_EQ(run.steps[3].batch_seqs, 1);
}

TEST(ServingSimulation, AClosedLoopObeysLittlesLaw) {
  // 8 clients, no think time, 200 requests of prompt 64 and 16 output tokens: the mean number in the system is 8 at
  // every instant while the loop is full, so throughput x mean E2E = 8 (Little's law), up to the drain at the end
  // (the last 8 requests run with fewer beside them): within 5%.
  TrafficSpec traffic;
  traffic.arrival = ClosedLoopArrivals{8};
  traffic.requests = 200;
  traffic.prompt_tokens = FixedTokens{64};
  traffic.output_tokens = FixedTokens{16};
  const StepTimeFn step = [](const BatchSignature& b) { return 0.001 + 1e-5 * static_cast<double>(b.total_tokens()); };
  const ServingRunResult run = simulate_serving(serving_test_run(traffic, 1, step));
  ASSERT_EQ(run.completed.size(), 200u);
  double e2e = 0;
  for (const RequestRecord& r : run.completed)
    e2e += r.last_token_s - r.arrival_s;
  e2e /= 200.0;
  const double throughput = 200.0 / run.end_s;
  EXPECT_NEAR(throughput * e2e, 8.0, 0.4);
  // Never more than 8 in flight: every step's batch holds at most 8.
  for (const ServingStepSample& s : run.steps)
    EXPECT_LE(s.batch_seqs, 8);
}

TEST(ServingSimulation, RoundRobinAlternatesAndLeastOutstandingFillsTheIdleReplica) {
  // Four requests 1 ms apart, each long (100 tokens at 2 ms a decode step), two replicas: round robin sends
  // requests 0 and 2 to replica 0, 1 and 3 to replica 1; least outstanding does the same here (each new request goes
  // to the replica with fewer unfinished, the lower index on a tie).
  const TrafficSpec traffic = serving_test_trace({{0, 10, 100}, {0.001, 10, 100}, {0.002, 10, 100}, {0.003, 10, 100}});
  for (const Routing routing : {Routing::round_robin, Routing::least_outstanding}) {
    ServingRunSpec spec = serving_test_run(traffic, 2, serving_test_prefill_or_decode);
    spec.routing = routing;
    const ServingRunResult run = simulate_serving(spec);
    ASSERT_EQ(run.replicas.size(), 2u);
    EXPECT_EQ(run.replicas[0].requests, 2);
    EXPECT_EQ(run.replicas[1].requests, 2);
  }
  // Three short requests then a fourth once the first has finished: least outstanding sends the fourth to replica 0
  // (nothing left there), round robin to replica 1.
  const TrafficSpec later = serving_test_trace({{0, 10, 1}, {0, 10, 100}, {0, 10, 100}, {0.05, 10, 100}});
  ServingRunSpec lor = serving_test_run(later, 2, serving_test_prefill_or_decode);
  lor.routing = Routing::least_outstanding;
  const ServingRunResult by_lor = simulate_serving(lor);
  // Request 0 (replica 0) finishes at 10 ms; at 50 ms replica 0 holds request 2, replica 1 request 1: a tie, replica 0.
  EXPECT_EQ(by_lor.replicas[0].requests, 3);
  ServingRunSpec rr = serving_test_run(later, 2, serving_test_prefill_or_decode);
  const ServingRunResult by_rr = simulate_serving(rr);
  EXPECT_EQ(by_rr.replicas[1].requests, 2);
}

TEST(ServingSimulation, AFullCachePreemptsAndEveryRequestStillFinishes) {
  // A cache of 8 blocks of 16 tokens (128 tokens) and three requests of prompt 32 and 40 output tokens at t = 0:
  // each needs ceil(71 / 16) = 5 blocks at its end, so the three cannot all hold their KV: the scheduler preempts, and
  // the run drains all three.
  ServingRunSpec spec =
      serving_test_run(serving_test_trace({{0, 32, 40}, {0, 32, 40}, {0, 32, 40}}), 1, serving_test_prefill_or_decode);
  spec.replicas[0].scheduler = serving_test_scheduler(8);
  const ServingRunResult run = simulate_serving(spec);
  EXPECT_EQ(run.completed.size(), 3u);
  EXPECT_GT(run.replicas[0].preemptions, 0);
  EXPECT_LE(run.replicas[0].kv_peak_blocks, 8);
}

TEST(ServingSimulation, ARequestNoReplicaCanHoldIsAnErrorNamingIt) {
  // 4 blocks of 16 tokens: a prompt of 100 can never fit.
  ServingRunSpec spec =
      serving_test_run(serving_test_trace({{0, 10, 2}, {0.1, 100, 2}}), 1, serving_test_prefill_or_decode);
  spec.replicas[0].scheduler = serving_test_scheduler(4);
  try {
    simulate_serving(spec);
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_NE(std::string(e.what()).find("request 1"), std::string::npos) << e.what();
  }
}

TEST(ServingSimulation, AStepModelThatGivesNoTimeIsAnInternalError) {
  const StepTimeFn zero = [](const BatchSignature&) { return 0.0; };
  EXPECT_THROW(simulate_serving(serving_test_run(serving_test_trace({{0, 10, 2}}), 1, zero)), InternalError);
  const StepTimeFn nan = [](const BatchSignature&) { return std::nan(""); };
  EXPECT_THROW(simulate_serving(serving_test_run(serving_test_trace({{0, 10, 2}}), 1, nan)), InternalError);
}

TEST(ServingSimulation, TheSameSeedGivesTheSameRun) {
  TrafficSpec traffic;
  traffic.arrival = PoissonArrivals{50.0};
  traffic.requests = 300;
  traffic.prompt_tokens = UniformTokens{16, 512};
  traffic.output_tokens = UniformTokens{1, 64};
  traffic.seed = 7;
  const StepTimeFn step = [](const BatchSignature& b) { return 0.002 + 2e-5 * static_cast<double>(b.total_tokens()); };
  const ServingRunResult a = simulate_serving(serving_test_run(traffic, 2, step));
  const ServingRunResult b = simulate_serving(serving_test_run(traffic, 2, step));
  ASSERT_EQ(a.completed.size(), 300u);
  ASSERT_EQ(a.completed.size(), b.completed.size());
  for (std::size_t i = 0; i < a.completed.size(); ++i) {
    EXPECT_EQ(a.completed[i].first_token_s, b.completed[i].first_token_s) << i;
    EXPECT_EQ(a.completed[i].last_token_s, b.completed[i].last_token_s) << i;
  }
  EXPECT_EQ(a.end_s, b.end_s);
}

TEST(ServingSimulation, ARunWithoutItsStepSeriesHasTheSameRequests) {
  // keep_steps only decides whether the iterations are listed: the requests, the gaps and the totals are the run's.
  TrafficSpec traffic;
  traffic.arrival = PoissonArrivals{40.0};
  traffic.requests = 200;
  traffic.prompt_tokens = UniformTokens{16, 256};
  traffic.output_tokens = UniformTokens{1, 32};
  traffic.seed = 3;
  const StepTimeFn step = [](const BatchSignature& b) { return 0.003 + 1e-5 * static_cast<double>(b.total_tokens()); };
  ServingRunSpec kept = serving_test_run(traffic, 2, step);
  ServingRunSpec dropped = kept;
  dropped.keep_steps = false;
  const ServingRunResult a = simulate_serving(kept);
  const ServingRunResult b = simulate_serving(dropped);
  EXPECT_TRUE(b.steps.empty());
  ASSERT_EQ(a.completed.size(), b.completed.size());
  for (std::size_t i = 0; i < a.completed.size(); ++i)
    EXPECT_EQ(a.completed[i].last_token_s, b.completed[i].last_token_s) << i;
  EXPECT_EQ(a.itl.runs(), b.itl.runs());
  std::int64_t steps = 0;
  for (std::size_t r = 0; r < a.replicas.size(); ++r) {
    EXPECT_EQ(a.replicas[r].steps, b.replicas[r].steps);
    steps += b.replicas[r].steps;
  }
  EXPECT_EQ(static_cast<std::int64_t>(a.steps.size()), steps);
}

// Disaggregated serving: `prefill` replicas then `decode` ones, each with its link of `link_Bps` each way; KV of 1000
// bytes per prompt token, `latency_s` per transfer.
ServingRunSpec serving_test_disaggregated(const TrafficSpec& traffic, int prefill, int decode, StepTimeFn step,
                                          double link_Bps, double latency_s) {
  ServingRunSpec spec;
  spec.traffic = traffic;
  for (int r = 0; r < prefill + decode; ++r)
    spec.replicas.push_back(ServingReplicaSpec{serving_test_scheduler(), step, link_Bps});
  DisaggregatedRunSpec& kv = spec.disaggregated.emplace();
  kv.prefill_replicas = prefill;
  kv.kv_bytes_per_token = 1000;
  kv.kv_latency_s = latency_s;
  return spec;
}

TEST(ServingSimulation, DisaggregatedRequestAloneWaitsForItsPrefillItsTransferAndOneDecodeStep) {
  // Prompt 100, 5 output tokens, arriving at 0.5 s. The prefill replica's step (10 ms, a prefill) ends at 0.510 s;
  // its KV, 100 x 1000 bytes, crosses a link of 1e7 B/s in 10 ms after 1 ms of latency: at the decode replica at
  // 0.521 s. There the last prompt token is computed again (a one-token chunk: a prefill step, 10 ms) and samples the
  // first token at 0.531 s: TTFT 31 ms = 10 + 1 + 10 + 10. Four decode steps of 2 ms follow: E2E 39 ms.
  const ServingRunResult run = simulate_serving(serving_test_disaggregated(serving_test_trace({{0.5, 100, 5}}), 1, 1,
                                                                           serving_test_prefill_or_decode, 1e7, 0.001));
  ASSERT_EQ(run.completed.size(), 1u);
  const RequestRecord& r = run.completed[0];
  EXPECT_NEAR(r.first_token_s - r.arrival_s, 0.031, 1e-9);
  EXPECT_NEAR(r.last_token_s - r.arrival_s, 0.039, 1e-9);
  EXPECT_EQ(r.output_tokens, 5);
  ASSERT_EQ(run.transfers.size(), 1u);
  EXPECT_EQ(run.transfers[0].bytes, 100000u);
  EXPECT_EQ(run.transfers[0].from, 0);
  EXPECT_EQ(run.transfers[0].to, 1);
  EXPECT_NEAR(run.transfers[0].start_s, 0.510, 1e-9);
  EXPECT_NEAR(run.transfers[0].end_s, 0.521, 1e-9);
  EXPECT_EQ(run.prefill_replicas, 1);
  // The prefill replica stepped once (its one token is not the client's), the decode one five times: the one-token
  // chunk at context 99, then four decodes.
  ASSERT_EQ(run.replicas.size(), 2u);
  EXPECT_EQ(run.replicas[0].steps, 1);
  EXPECT_EQ(run.replicas[1].steps, 5);
  ASSERT_EQ(run.steps.size(), 6u);
  EXPECT_EQ(run.steps[0].prefill_tokens, 100);
  EXPECT_EQ(run.steps[1].replica, 1);
  EXPECT_EQ(run.steps[1].prefill_tokens, 1);
  EXPECT_EQ(run.itl.count(), 4);
  EXPECT_NEAR(run.end_s, 0.539, 1e-9);
}

TEST(ServingSimulation, TwoTransfersOverOneLinkTakeTwiceAsLongAsOne) {
  // No latency, links of 1e7 B/s. One request of prompt 100: its 1e5 bytes take 10 ms. Two at once (one prefill step
  // computes both prompts, so both transfers start together over the same egress and ingress): each gets half the
  // link, 20 ms.
  const StepTimeFn one_ms = [](const BatchSignature&) { return 0.001; };
  const ServingRunResult one =
      simulate_serving(serving_test_disaggregated(serving_test_trace({{0, 100, 2}}), 1, 1, one_ms, 1e7, 0));
  ASSERT_EQ(one.transfers.size(), 1u);
  EXPECT_NEAR(one.transfers[0].end_s - one.transfers[0].start_s, 0.010, 1e-9);
  const ServingRunResult two = simulate_serving(
      serving_test_disaggregated(serving_test_trace({{0, 100, 2}, {0, 100, 2}}), 1, 1, one_ms, 1e7, 0));
  ASSERT_EQ(two.transfers.size(), 2u);
  for (const KvTransferSample& t : two.transfers) {
    EXPECT_NEAR(t.start_s, 0.001, 1e-9);
    EXPECT_NEAR(t.end_s - t.start_s, 0.020, 1e-9);
  }
  // Into two decode replicas (least outstanding: one each) the ingresses are apart, but the prefill's egress is
  // shared: still 20 ms each.
  const ServingRunResult spread = simulate_serving(
      serving_test_disaggregated(serving_test_trace({{0, 100, 2}, {0, 100, 2}}), 1, 2, one_ms, 1e7, 0));
  ASSERT_EQ(spread.transfers.size(), 2u);
  EXPECT_NE(spread.transfers[0].to, spread.transfers[1].to);
  for (const KvTransferSample& t : spread.transfers)
    EXPECT_NEAR(t.end_s - t.start_s, 0.020, 1e-9);
  // From two prefill replicas (round robin: one each) into two decode replicas, nothing is shared: 10 ms each.
  const ServingRunResult apart = simulate_serving(
      serving_test_disaggregated(serving_test_trace({{0, 100, 2}, {0, 100, 2}}), 2, 2, one_ms, 1e7, 0));
  ASSERT_EQ(apart.transfers.size(), 2u);
  for (const KvTransferSample& t : apart.transfers)
    EXPECT_NEAR(t.end_s - t.start_s, 0.010, 1e-9);
}

TEST(ServingSimulation, DisaggregatedClosedLoopAndManyRequestsAllFinish) {
  // A closed loop of 4 clients, 40 requests of prompt 50 and 3 tokens, over 2 prefill and 3 decode replicas: every
  // request finishes with its three tokens, every prompt's KV moved once.
  TrafficSpec traffic;
  traffic.arrival = ClosedLoopArrivals{4};
  traffic.requests = 40;
  traffic.prompt_tokens = FixedTokens{50};
  traffic.output_tokens = FixedTokens{3};
  const ServingRunResult run =
      simulate_serving(serving_test_disaggregated(traffic, 2, 3, serving_test_prefill_or_decode, 1e8, 1e-4));
  ASSERT_EQ(run.completed.size(), 40u);
  EXPECT_EQ(run.transfers.size(), 40u);
  for (const RequestRecord& r : run.completed)
    EXPECT_EQ(r.output_tokens, 3);
  std::int64_t decoded = 0;
  for (std::size_t r = 2; r < run.replicas.size(); ++r)
    decoded += run.replicas[r].requests;
  EXPECT_EQ(decoded, 40);
}

TEST(ServingSimulation, DisaggregatedNeedsBothPools) {
  ServingRunSpec spec =
      serving_test_disaggregated(serving_test_trace({{0, 10, 2}}), 1, 1, serving_test_prefill_or_decode, 1e7, 0);
  spec.disaggregated->prefill_replicas = 2;
  try {
    simulate_serving(spec);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/serving/disaggregated: needs a prefill and a decode replica at least, got: 2 prefill of 2 replicas");
  }
}

}  // namespace
}  // namespace podsim
