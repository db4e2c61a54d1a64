// Running scenarios end to end through lowering and simulation: the design card's two-rank matmul, the MLP's three
// plans, and the book's Pop Quiz 2, against values worked by hand.
#include "sim/run/run_scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

std::string good(const std::string& name) {
  return (std::filesystem::path(PODSIM_SOURCE_DIR) / "tests/scenario/good" / name).string();
}

const PlanRun& plan_named(const ScenarioRun& run, const std::string& name) {
  for (const auto& plan : run.plans)
    if (plan.name == name) return plan;
  throw std::runtime_error("no plan " + name);
}

TEST(RunScenario, TwoRankMatmulMovesThirtyTwoBytes) {
  const ScenarioRun run = run_scenario(load_scenario(good("two_rank_matmul.json")));
  ASSERT_EQ(run.plans.size(), 1u);
  const PlanRun& plan = run.plans[0];
  // Reduce-scatter: each rank sends one 2-element f32 row (8 B); all-gather: 8 B each again. 4 messages, 32 bytes.
  EXPECT_EQ(plan.total_link_bytes, 32u);
  EXPECT_EQ(plan.messages, 4u);
  ASSERT_EQ(plan.ops.size(), 3u);
  EXPECT_EQ(plan.ops[0].matmul_case, 3);  // contracted dim split on both operands: partial sums {U_X}
  EXPECT_EQ(plan.ops[1].collectives.size(), 1u);
  EXPECT_EQ(plan.ops[1].collectives[0].kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(plan.ops[1].collectives[0].array_bytes, 16u);
  EXPECT_EQ(plan.ops[2].collectives[0].kind, CollectiveKind::all_gather);
  // Each collective phase is one 8-byte message over one hop: 1 us + 8 / 4.5e10 s; the reduce-scatter then adds
  // the two received f32 elements at the scenario's f32 peak (6.57e13).
  EXPECT_NEAR(plan.ops[1].des_time_s, 1e-6 + 8 / 4.5e10 + 2 / 6.57e13, 1e-18);
  EXPECT_NEAR(plan.ops[2].des_time_s, 1e-6 + 8 / 4.5e10, 1e-18);
  EXPECT_TRUE(run.checks_passed());
  for (const auto& check : run.checks)
    EXPECT_TRUE(check.passed) << check.description;
}

TEST(RunScenario, MlpPlansDifferInMemoryAndTime) {
  constexpr std::uint64_t MiB = 1 << 20;
  const ScenarioSpec spec = load_scenario(good("mlp_v5e_4x4.json"));
  const ScenarioRun run = run_scenario(spec);
  ASSERT_EQ(run.plans.size(), 3u);
  const PlanRun& dp = plan_named(run, "dp");
  const PlanRun& fsdp = plan_named(run, "fsdp");
  // Per chip (bf16): x 2 MiB, W1 and W2 256 MiB each (dp) or 16 MiB each (fsdp), h 4 MiB, y 2 MiB.
  // dp holds both weights, then h as up and gelu write it: 2 + 512 + 4 + 4.
  EXPECT_EQ(dp.memory_per_chip_bytes, 522 * MiB);
  EXPECT_EQ(dp.book_memory_per_chip_bytes, 522 * MiB);
  // fsdp under dataflow (nothing near 16 GiB, so the HBM limit adds no wait): down's all-gather of W2 has no input
  // to wait for and runs beside up's, so both gathered weights are alive during up: 2 + 32 + 256 + 256 + h 4.
  EXPECT_EQ(fsdp.schedule, "dataflow-hbm");
  EXPECT_TRUE(fsdp.waits.empty());
  EXPECT_EQ(fsdp.memory_per_chip_bytes, 550 * MiB);
  // One op after another, the largest moment is down: 2 + 32 + h 4 + W2 gathered 256 + y 2.
  EXPECT_EQ(fsdp.book_memory_per_chip_bytes, 296 * MiB);
  RunOptions in_order;
  in_order.schedule = SchedulePolicy::program_order;
  in_order.plan = "fsdp";
  const ScenarioRun serial = run_scenario(spec, in_order);
  EXPECT_EQ(serial.plans.front().memory_per_chip_bytes, 296 * MiB);
  EXPECT_GE(serial.plans.front().des_time_s, fsdp.des_time_s);
  // dp moves no weights: its matmuls need no communication.
  EXPECT_EQ(dp.ops[1].collectives.size(), 0u);
  EXPECT_GT(fsdp.total_link_bytes, 0u);
  for (const auto& check : run.checks)
    EXPECT_TRUE(check.passed) << check.description;
}

TEST(RunScenario, EveryPlanOfTheSmallMlpComputesTheDenseProduct) {
  // Small tensors: functional mode runs on its own and compares each plan's results with dense einsums.
  const ScenarioRun run = run_scenario(
      load_scenario((std::filesystem::path(PODSIM_TEST_DATA_DIR) / "good/mlp_small_values.json").string()));
  ASSERT_EQ(run.plans.size(), 5u);
  for (const auto& plan : run.plans) {
    ASSERT_TRUE(plan.values_match.has_value()) << plan.name;
    EXPECT_TRUE(*plan.values_match) << plan.name << ": " << plan.values_note;
  }
  EXPECT_TRUE(run.checks_passed());
}

TEST(RunScenario, UnknownPlanIsARunErrorAboutThePlanOption) {
  RunOptions options;
  options.plan = "zero";
  try {
    run_scenario(load_scenario(good("mlp_v5e_4x4.json")), options);
    FAIL();
  } catch (const RunError& e) {
    EXPECT_STREQ(e.what(), "unknown plan, got: zero (plans: dp, fsdp, megatron)");
    EXPECT_EQ(e.field(), RunOptions::Field::plan);
  }
}

}  // namespace
}  // namespace podsim
