// run_model_scenario (`podsim run` of a model-level scenario): the step of a 2-layer model on one chip against its
// compute roofline worked by hand, the step as the sum of the op rows x repeats, the same figures as the plan
// search's for the same candidate, the step breakdown, and the refusals.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/model_run.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

// D 1024, F 4096 (gated), N = K = 8 heads of H 128, V 32768, L 2; 8192 tokens at T 2048, no remat, one microbatch;
// v5p's nominal figures (without its calibration: the attention kernel's rate), as the closed forms below.
std::string scenario(const std::string& slice, const std::string& plans, const std::string& extra = "") {
  return R"({"name": "two-layers", "hardware": {"preset": "tpu-v5p", "calibrated": false}, "slice": {"shape": )" +
         slice + R"(},
    "model": {"layers": 2, "d_model": 1024, "d_ff": 4096, "heads": 8, "kv_heads": 8, "head_dim": 128,
              "vocab": 32768},
    "workload": {"mode": "train", "batch_tokens": 8192, "seq_len": 2048}, )" +
         extra + R"("plans": )" + plans + "}";
}

RunOptions plan_option(const std::string& plan) {
  RunOptions options;
  options.plan = plan;
  return options;
}

const std::string kOneChip = R"([{"name": "one-chip", "parallelism": {}}])";

TEST(ModelRun, TwoLayersOnOneChipRunAtTheirRooflineAsWorkedByHand) {
  const ScenarioSpec spec = load_scenario_text(scenario("[1, 1, 1]", kOneChip), "two-layers.json");
  const ScenarioRun run = run_model_scenario(spec);
  ASSERT_EQ(run.plans.size(), 1u);
  ASSERT_TRUE(run.plans[0].candidate);
  const CandidateResult& r = *run.plans[0].candidate;
  ASSERT_FALSE(r.rejected) << *r.rejected;
  ASSERT_TRUE(r.des_step_s);
  // Matmul parameters per layer: Wq D x NH = 1,048,576, Wkv D x 2KH = 2,097,152, Wo 1,048,576, Wg, Wu, Wd D x F =
  // 4,194,304 each: 16,777,216; the unembedding V D = 33,554,432 (the input embedding is a lookup). Matmul FLOPs
  // per token: 6 x (2 x 16,777,216 + 33,554,432) = 402,653,184; attention 12 T N H L = 12 x 2048 x 1024 x 2 =
  // 50,331,648. Over 8192 tokens: 3.71085e12 FLOPs, all compute-bound on one v5p (4.59e14 FLOP/s): 8.0846 ms.
  const double flops = (6.0 * (2 * 16777216.0 + 33554432.0) + 12.0 * 2048 * 1024 * 2) * 8192;
  const double compute_s = flops / 4.59e14;
  EXPECT_NEAR(r.breakdown.compute_s, compute_s, 1e-9 * compute_s);
  double compute_rows = 0, book_rows = 0, des_rows = 0;
  for (const OpRun& op : run.plans[0].ops) {
    ASSERT_TRUE(op.simulated) << op.name;
    const auto n = static_cast<double>(op.repeats);
    if (op.bound == Bound::compute) compute_rows += op.book_time_s * n;
    book_rows += op.book_time_s * n;
    des_rows += op.des_time_s * n;
  }
  EXPECT_NEAR(compute_rows, compute_s, 1e-9 * compute_s);
  // The book's step is its ops' times x repeats. The des's op rows are the first layer's spans (the step runs its
  // layers in sequence, docs/capacity.md): ops whose inputs are ready together share the chip, so their spans
  // overlap and add up to more than the step.
  EXPECT_NEAR(r.book_step_s, book_rows, 1e-12 * book_rows);
  EXPECT_GE(des_rows, *r.des_step_s);
  // One chip moves nothing: every task of the des lasts its op's roofline, so des = book, and the step breakdown is
  // all compute.
  EXPECT_NEAR(*r.des_step_s, r.book_step_s, 1e-9 * r.book_step_s);
  const CriticalChipBreakdown& b = run.plans[0].step_breakdown;
  EXPECT_NEAR(b.compute_s, *r.des_step_s, 1e-12 * *r.des_step_s);
  EXPECT_EQ(b.exposed_communication_s, 0.0);
  EXPECT_EQ(b.bubble_s, 0.0);
  EXPECT_EQ(b.dcn_s, 0.0);
}

TEST(ModelRun, RepeatsCountLayersForTheLayerAndOnceForTheEdges) {
  const ScenarioSpec spec = load_scenario_text(scenario("[1, 1, 1]", kOneChip), "two-layers.json");
  const ScenarioRun run = run_model_scenario(spec);
  bool saw_layer = false, saw_edge = false;
  for (const OpRun& op : run.plans[0].ops) {
    if (op.name == "q") {  // a layer's forward matmul: L x microbatches = 2
      EXPECT_EQ(op.repeats, 2);
      EXPECT_EQ(op.phase, "forward");
      EXPECT_EQ(op.place, "layer");
      saw_layer = true;
    }
    if (op.name == "logits") {  // the unembedding: once per microbatch
      EXPECT_EQ(op.repeats, 1);
      EXPECT_EQ(op.place, "last");
      saw_edge = true;
    }
  }
  EXPECT_TRUE(saw_layer);
  EXPECT_TRUE(saw_edge);
}

TEST(ModelRun, StepIsThePlanSearchsForTheSameCandidate) {
  // Four chips, data over X and fsdp over Y: gradient all-reduces and weight gathers in the step.
  const ScenarioSpec spec = load_scenario_text(
      scenario("[2, 2, 1]", R"([{"name": "dp-fsdp", "parallelism": {"data": ["X"], "fsdp": ["Y"]}}])"),
      "two-layers.json");
  const ScenarioRun run = run_model_scenario(spec);
  ASSERT_EQ(run.plans.size(), 1u);
  ASSERT_TRUE(run.plans[0].candidate);
  const CandidateResult& r = *run.plans[0].candidate;
  ASSERT_TRUE(r.des_step_s);
  PlanSearchOptions options;
  options.top_k = 1;
  const PlanSearchResult search = search_plans(spec, options);
  ASSERT_EQ(search.ranked.size(), 1u);
  ASSERT_TRUE(search.ranked[0].des_step_s);
  EXPECT_DOUBLE_EQ(r.book_step_s, search.ranked[0].book_step_s);
  EXPECT_DOUBLE_EQ(*r.des_step_s, *search.ranked[0].des_step_s);
  EXPECT_DOUBLE_EQ(r.mfu, search.ranked[0].mfu);
  // The step breakdown adds up to the des step and has communication in it.
  const CriticalChipBreakdown& b = run.plans[0].step_breakdown;
  EXPECT_NEAR(b.compute_s + b.exposed_communication_s + b.bubble_s + b.dcn_s, *r.des_step_s, 1e-12 * *r.des_step_s);
  EXPECT_GT(b.exposed_communication_s, 0.0);
}

TEST(ModelRun, RunsOnlyThePlanAskedFor) {
  const ScenarioSpec spec = load_scenario_text(
      scenario("[1, 1, 1]", R"([{"name": "a", "parallelism": {}}, {"name": "b", "parallelism": {}}])"),
      "two-layers.json");
  const ScenarioRun run = run_model_scenario(spec, plan_option("b"));
  ASSERT_EQ(run.plans.size(), 1u);
  EXPECT_EQ(run.plans[0].name, "b");
  try {
    run_model_scenario(spec, plan_option("c"));
    FAIL() << "expected RunError";
  } catch (const RunError& e) {
    EXPECT_EQ(e.field(), RunOptions::Field::plan);
    EXPECT_STREQ(e.what(), "unknown plan, got: c (plans: a, b)");
  }
}

TEST(ModelRun, IsARunOfTheOneRunResultWithItsReportsAndTrace) {
  // Two plans on one chip (no communication): the same step, so the first listed is the fastest.
  const ScenarioSpec spec = load_scenario_text(
      scenario("[1, 1, 1]", R"([{"name": "a", "parallelism": {}}, {"name": "b", "parallelism": {}}])"),
      "two-layers.json");
  RunOptions options;
  options.keep_timeline = true;
  options.plan = "b";
  const ScenarioRun run = run_model_scenario(spec, options);
  EXPECT_EQ(run.level, RunLevel::model);
  ASSERT_EQ(run.plans.size(), 1u);
  const PlanRun& plan = run.plans[0];
  ASSERT_TRUE(plan.candidate);
  ASSERT_TRUE(plan.candidate->des_step_s);
  EXPECT_FALSE(plan.candidate->prepared);  // let go once the op rows are made
  // The PlanRun's own figures are the candidate's step: its des and book, its fit, under program order.
  EXPECT_EQ(plan.des_time_s, *plan.candidate->des_step_s);
  EXPECT_EQ(plan.book_time_s, plan.candidate->book_step_s);
  EXPECT_EQ(plan.step_time_s(), *plan.candidate->des_step_s);
  EXPECT_EQ(plan.memory_per_chip_bytes, plan.candidate->memory_per_chip_bytes);
  EXPECT_TRUE(plan.fits_hbm);
  EXPECT_EQ(plan.schedule, "program-order");
  // One report family: the JSON says its level, and the trace writer of any run writes its simulated step.
  EXPECT_EQ(report::run_report_json(run)["level"], "model");
  EXPECT_EQ(report::run_trace_problem(run), "");
  std::ostringstream trace;
  report::write_run_trace(run, trace);
  EXPECT_TRUE(nlohmann::json::parse(trace.str()).contains("traceEvents"));
  // Without keeping the timeline there is nothing to trace, and both plans compare by their step time in force.
  const ScenarioRun both = run_model_scenario(spec);
  ASSERT_EQ(both.plans.size(), 2u);
  EXPECT_NE(report::run_trace_problem(both), "");
  EXPECT_EQ(report::compare_plans(both).fastest, std::optional<std::size_t>(0));
  EXPECT_EQ(report::compare_plans(both).fastest_fitting, std::optional<std::size_t>(0));
}

TEST(ModelRun, RefusesASearchPointingToPlan) {
  const ScenarioSpec spec = load_scenario_text(
      scenario("[2, 2, 1]", "[]", R"("search": {"parallelism": ["data", "fsdp"]}, )"), "two-layers.json");
  try {
    run_model_scenario(spec);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("two-layers.json: /search"), std::string::npos) << what;
    EXPECT_NE(what.find("`podsim plan two-layers.json`"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace podsim
