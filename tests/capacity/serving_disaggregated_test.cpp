// Disaggregated serving end to end (sim/capacity/serving_disaggregated.hpp, docs/serving.md "Disaggregated serving"):
// one request alone through a prefill and a decode replica of LLaMA 3 8B on v5e 2x2 slices, its TTFT the sum of the
// prefill step, the KV transfer worked from the preset's figures by hand, and the decode replica's first step; each
// pool built as its own scenario.
#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/serving_disaggregated.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/scenario/serving_pools.hpp"

namespace podsim {
namespace {

// One request (prompt 1024, 4 output tokens) at time 0: a closed loop of one client and one request.
std::string disaggregated_test_scenario(const std::string& kv_link) {
  return R"({"name": "dis", "hardware": "tpu-v5e", "model": {"preset": "llama3-8b"},
    "workload": {"mode": "serve", "traffic": {"arrival": "closed", "concurrency": 1, "requests": 1,
                 "prompt_tokens": {"fixed": 1024}, "output_tokens": {"fixed": 4}}},
    "serving": {"disaggregated": {
      "prefill": {"slice": {"shape": [2, 2], "dcn": {"latency": "50us"}}, "mesh": "X=2,Y=2",
                  "parallelism": {"tensor": ["X", "Y"]}},
      "decode": {"slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2", "parallelism": {"tensor": ["X", "Y"]}},
      "kv_link": ")" +
         kv_link + R"("}}})";
}

// The step one replica of `pool` takes for `batch`: its own step model, as the run builds it.
double disaggregated_test_step(const ScenarioSpec& spec, const ServingPoolSpec& pool, const BatchSignature& batch) {
  const ScenarioSpec pool_spec = serving_pool_scenario(spec, pool);
  const ServingReplicaModel model(pool_spec, serving_plan_candidate(pool_spec, ""), std::nullopt, StepEvaluator::book);
  return model.step_model().step_s(batch);
}

BatchSignature disaggregated_test_chunk(std::int64_t tokens, std::int64_t context) {
  BatchSignature batch;
  batch.prefill_tokens = tokens;
  batch.prefill_chunks = {PrefillChunk{tokens, context}};
  return batch;
}

TEST(ServingDisaggregated, ARequestAloneTakesPrefillTransferAndTheDecodeReplicasFirstStep) {
  const ScenarioSpec spec = load_scenario_text(disaggregated_test_scenario("dcn"), "dis.json");
  const ServingOutcome out = run_serving_scenario(spec, ServingRunOptions{});
  ASSERT_EQ(out.run.completed.size(), 1u);
  const DisaggregatedSpec& pools = *spec.serve->disaggregated;
  // The prefill replica computes the 1024-token prompt in one step (the budget is 2048).
  const double prefill = disaggregated_test_step(spec, pools.prefill, disaggregated_test_chunk(1024, 0));
  // LLaMA 3 8B's KV per token: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes (bf16) = 131,072 bytes; the prompt's
  // 1024 tokens are 134,217,728 bytes. A 2x2 replica's DCN link: 4 chips x 3.125e9 B/s (the v5e preset's egress per
  // chip) = 1.25e10 B/s, so 10.737 ms, after the 50 us latency the prefill pool gives.
  const double transfer = 134217728.0 / 1.25e10 + 50e-6;
  // The decode replica computes the last prompt token again (a one-token chunk at context 1023) and samples the first.
  const double first = disaggregated_test_step(spec, pools.decode, disaggregated_test_chunk(1, 1023));
  const RequestLatency latency = request_latency(out.run.completed[0]);
  EXPECT_NEAR(latency.ttft_s, prefill + transfer + first, 1e-9);
  ASSERT_EQ(out.run.transfers.size(), 1u);
  EXPECT_EQ(out.run.transfers[0].bytes, 134217728u);
  EXPECT_NEAR(out.run.transfers[0].start_s, prefill, 1e-9);
  EXPECT_NEAR(out.run.transfers[0].end_s - out.run.transfers[0].start_s, transfer, 1e-9);
  // Then three decode steps at contexts 1024, 1025 and 1026.
  double decodes = 0;
  for (const std::int64_t context : {1024, 1025, 1026}) {
    BatchSignature decode;
    decode.decode_seqs = 1;
    decode.decode_context_sum = context;
    decode.decode_context_max = context;
    decodes += disaggregated_test_step(spec, pools.decode, decode);
  }
  EXPECT_NEAR(latency.e2e_s, prefill + transfer + first + decodes, 1e-9);
  // Chips: both pools'.
  EXPECT_EQ(out.deployment.chips(), 8);
  ASSERT_TRUE(out.deployment.disaggregated.has_value());
  EXPECT_EQ(out.deployment.disaggregated->kv_bytes_per_token, 131072u);
  EXPECT_DOUBLE_EQ(out.deployment.disaggregated->prefill.kv_link_Bps, 1.25e10);
}

TEST(ServingDisaggregated, OverIciTheLinkIsOneIciLinkPerChip) {
  // kv_link ici: 4 chips x 4.5e10 B/s (the v5e preset's ICI bandwidth per link and direction) = 1.8e11 B/s, and the
  // preset's hop latency of 1 us: 134,217,728 bytes in 745.7 us + 1 us.
  const ScenarioSpec spec = load_scenario_text(disaggregated_test_scenario("ici"), "dis.json");
  const ServingOutcome out = run_serving_scenario(spec, ServingRunOptions{});
  ASSERT_EQ(out.run.transfers.size(), 1u);
  EXPECT_NEAR(out.run.transfers[0].end_s - out.run.transfers[0].start_s, 134217728.0 / 1.8e11 + 1e-6, 1e-9);
}

TEST(ServingDisaggregated, APlanNameIsRefused) {
  const ScenarioSpec spec = load_scenario_text(disaggregated_test_scenario("dcn"), "dis.json");
  ServingRunOptions options;
  options.plan = "tp4";
  try {
    run_serving_scenario(spec, options);
    FAIL() << "no error";
  } catch (const ServingRunError& e) {  // the option, not a flag: the CLI says --plan (ServeDisaggregatedCli)
    EXPECT_EQ(e.field(), ServingRunOptions::Field::plan);
    EXPECT_EQ(e.message(), "a disaggregated scenario's pools give their parallelism, got: tp4");
  }
}

}  // namespace
}  // namespace podsim
