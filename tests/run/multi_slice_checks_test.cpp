// Model-level scenarios over several slices (docs/overlap-pipeline-dcn.md, "Model-level scenarios over several
// slices") through `podsim check`'s candidate metrics: the DCN seconds of a data-parallel gradient all-reduce by the
// book's formula and by the des, worked by hand; a pipeline's send between slices in the recurrence; the
// dropped_fraction of a mixture of experts; each new metric failing when the value is wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/capacity/candidate_checks.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/plan_candidate.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

// L 4, D 1024, F 4096 (gated), 8 heads of 128, V 2048 (untied): per layer Wq, Wo 1024 x 1024, Wkv 1024 x 2048, Wg,
// Wu, Wd 1024 x 4096 = 16,777,216 parameters; the embedding and the unembedding 2048 x 1024 = 2,097,152 each.
const std::string kSlicesModel =
    R"("model": {"layers": 4, "d_model": 1024, "d_ff": 4096, "heads": 8, "kv_heads": 8, "head_dim": 128,
                 "vocab": 2048})";

// `count` v5p slices of 4 chips (a ring X), DCN latency `latency`, the plan `parallelism`, then `expect`.
// The des in program order (options.schedule), so that its DCN seconds are each phase's own, as worked below (under the
// default the gradients' all-reduces overlap the backward, docs/capacity.md "Overlap in the step").
std::string scenario(int count, const std::string& latency, const std::string& parallelism, const std::string& expect,
                     const std::string& workload_extra = "") {
  const std::string slice = count > 1 ? R"(, "count": )" + std::to_string(count) + R"(, "dcn": {"latency": ")" +
                                            latency + R"("}}, "mesh": "DCN=)" + std::to_string(count) + R"(,X=4")"
                                      : std::string("}");
  // v5p's nominal figures (without its calibration: the attention kernel's rate), as the closed forms below.
  return R"({"name": "slices", "hardware": {"preset": "tpu-v5p", "calibrated": false}, "slice": {"shape": [4], )"
         R"("wraparound": "all")" +
         slice + ", " + kSlicesModel + R"(, "workload": {"mode": "train", "batch_tokens": 16384, "seq_len": 2048)" +
         workload_extra + R"(}, "options": {"schedule": "program-order"}, "plans": [{"name": "p", "parallelism": )" +
         parallelism + R"(}], "expect": [)" + expect + "]}";
}

std::string slices_metric(const std::string& name, const std::string& model, const std::string& value = "0") {
  return R"({"metric": ")" + name + R"(", "plan": "p", "model": ")" + model + R"(", "value": )" + value + "}";
}

double check_number(const CheckResult& check) {
  return std::get<double>(check.value);
}

// 4 layers x 16,777,216 + 2 x 2,097,152 = 71,303,168 parameters, each gradient all-reduced once per step over DCN
// and X: 6 per layer + 2 = 26 all-reduces.
constexpr double kParams = 71303168.0;
constexpr double kAllReduces = 26.0;
constexpr double kWdcn = 6.25e9;  // v5p per chip

// Book: V = 2P bytes, U = V / 4 per chip after the reduce-scatter over X, all-reduced across 2 slices in
// max(2U / W_dcn, 2 L) = P / W_dcn per gradient (the latency term, 2 x 25 us, is below the smallest gradient's 168 us).
// Des: two ring phases per all-reduce, each L + (U / 2) / W_dcn (the host's 4 chips share its NIC of 4 W_dcn).
TEST(MultiSliceChecks, DataParallelGradientAllReduceOverTheDcnByHand) {
  const std::string expect = slices_metric("dcn_s", "book") + "," + slices_metric("dcn_s", "des");
  const auto checks =
      evaluate_model_checks(load_scenario_text(scenario(2, "25us", R"({"data": ["DCN", "X"]})", expect), "s.json"));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_NEAR(check_number(checks[0]), kParams / kWdcn, 1e-12);
  EXPECT_NEAR(check_number(checks[1]), kAllReduces * 2 * 25e-6 + kParams / (2 * kWdcn), 1e-12);
  EXPECT_FALSE(checks[0].passed);  // 0 was expected: both metrics compare
  EXPECT_FALSE(checks[1].passed);
  EXPECT_EQ(checks[0].description, "p: dcn_s (book)");
}

TEST(MultiSliceChecks, TheDcnSecondsPassWhenRightAndAreZeroOnOneSlice) {
  char value[32];
  std::snprintf(value, sizeof(value), "%.17g", kParams / kWdcn);
  const std::string right = slices_metric("dcn_s", "book", value);
  const auto two =
      evaluate_model_checks(load_scenario_text(scenario(2, "25us", R"({"data": ["DCN", "X"]})", right), "s.json"));
  ASSERT_EQ(two.size(), 1u);
  EXPECT_TRUE(two[0].passed);
  const auto one = evaluate_model_checks(load_scenario_text(
      scenario(1, "", R"({"data": ["X"]})", slices_metric("dcn_s", "book") + "," + slices_metric("dcn_s", "des")),
      "s.json"));
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(check_number(one[0]), 0.0);
  EXPECT_EQ(check_number(one[1]), 0.0);
  EXPECT_TRUE(one[0].passed);
}

// FSDP over the slices: the weights are all-gathered and the gradients reduce-scattered across the slices, so the
// book's DCN part is there and the step's breakdown adds up to it with the rest.
TEST(MultiSliceChecks, FsdpOverTheSlicesHasDcnTimeInItsBreakdown) {
  const ScenarioSpec spec = load_scenario_text(scenario(2, "0us", R"({"fsdp": ["DCN"], "data": ["X"]})", ""), "s.json");
  const CandidateResult r = evaluate_candidate_book(capacity_problem(spec), plan_candidate(spec, spec.plans[0]));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  EXPECT_GT(r.breakdown.dcn_s, 0.0);
  EXPECT_NEAR(r.book_step_s, r.breakdown.compute_s + r.breakdown.hbm_s + r.breakdown.ici_s + r.breakdown.dcn_s, 1e-12);
  EXPECT_EQ(r.candidate.chips(), 8);
}

// Pipeline stages on the two slices: each chip sends its part of the activation, [16,384 / 4 tokens, 1024] bf16 =
// 8,388,608 bytes, through its host's NIC at its share: L + bytes / W_dcn. With GPipe and one microbatch the span is
// the recurrence F0 + s + F1 + B1 + s + B0.
TEST(MultiSliceChecks, PipelineSendBetweenSlicesIsTheDcnLatencyPlusBytesOverTheChipsShare) {
  const ScenarioSpec spec = load_scenario_text(
      scenario(2, "40us", R"({"pipeline": ["DCN"], "data": ["X"]})", "", R"(, "pipeline_schedule": "gpipe")"),
      "s.json");
  CandidateResult r = evaluate_candidate_book(capacity_problem(spec), plan_candidate(spec, spec.plans[0]));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  ASSERT_TRUE(r.pipeline);
  const PipelineFigures& f = *r.pipeline;
  EXPECT_EQ(f.send_bytes, 8388608u);
  EXPECT_TRUE(f.send_crosses_dcn);
  const double send = 40e-6 + 8388608.0 / kWdcn;
  EXPECT_NEAR(f.send_s, send, 1e-15);
  EXPECT_NEAR(f.span_s, f.forward_s[0] + send + f.forward_s[1] + f.backward_s[1] + send + f.backward_s[0], 1e-12);
  // The des: the same sends over the NICs; the critical chip (stage 0's) waits on both of them computing nothing.
  simulate_candidate(capacity_problem(spec), r);
  ASSERT_TRUE(r.des_dcn_s);
  EXPECT_NEAR(*r.des_dcn_s, 2 * send, 1e-9);
  ASSERT_TRUE(r.pipeline->des_span_s);
  EXPECT_NEAR(*r.pipeline->des_span_s, f.span_s, 1e-6 * f.span_s);
}

// 4 experts, 2 per token, shares 5:1:1:1, dense dispatch at capacity factor 1: C = S k / 4 per sequence of S, the
// first expert's 5/8 S k routed rows keep S k / 4, the others keep all theirs: 3/8 of the rows are dropped.
TEST(MultiSliceChecks, DroppedFractionOfAMixtureOfExperts) {
  std::string text = scenario(
      1, "", R"({"data": ["X"]})",
      slices_metric("dropped_fraction", "book", "0.375") + "," + slices_metric("dropped_fraction", "book", "0.25"),
      R"(, "moe_dispatch": "dense", "capacity_factor": 1, "expert_histogram": [5, 1, 1, 1])");
  text.replace(text.find(R"("vocab": 2048)"), 13, R"("vocab": 2048, "experts": 4, "experts_per_token": 2)");
  const auto checks = evaluate_model_checks(load_scenario_text(text, "moe.json"));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_DOUBLE_EQ(check_number(checks[0]), 0.375);
  EXPECT_TRUE(checks[0].passed);
  EXPECT_FALSE(checks[1].passed);
}

}  // namespace
}  // namespace podsim
