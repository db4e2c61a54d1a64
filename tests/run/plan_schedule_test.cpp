// Scheduling policies on the README's scenario: under dataflow, fsdp's two 8 GiB all-gathers run at once and the
// plan does not fit a 16 GiB v5e; under the HBM-limited policy down's gather waits for up and it fits, and the time
// shows the wait; program order runs one op after another on each chip.
#include <gtest/gtest.h>

#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

PlanRun fsdp_under(SchedulePolicy policy) {
  RunOptions options;
  options.plan = "fsdp";
  options.schedule = policy;
  const ScenarioRun run =
      run_scenario(load_scenario(std::string(PODSIM_SOURCE_DIR) + "/scenarios/examples/mlp-v5e-4x4.json"), options);
  return run.plans.front();
}

const OpRun& op(const PlanRun& plan, const std::string& name) {
  for (const auto& o : plan.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no op " + name);
}

// Per chip: x 32 MiB, W1 and W2 512 MiB shards, each gathered 8 GiB, h 128 MiB, y 32 MiB.
constexpr std::uint64_t kDeclared = 32 * MiB + 2 * 512 * MiB;

TEST(PlanSchedule, DataflowRunsBothGathersAtOnceAndDoesNotFit) {
  const PlanRun plan = fsdp_under(SchedulePolicy::dataflow);
  EXPECT_EQ(plan.schedule, "dataflow");
  // Both gathered weights, the shards and up's h: 1056 MiB + 16 GiB + 128 MiB.
  EXPECT_EQ(plan.memory_per_chip_bytes, kDeclared + 16 * GiB + 128 * MiB);
  EXPECT_FALSE(plan.fits_hbm);
  EXPECT_LT(op(plan, "down").des_start_s, op(plan, "up").des_end_s);
  ASSERT_GE(plan.alive_at_peak.size(), 2u);
  EXPECT_EQ(plan.alive_at_peak[0].bytes, 8 * GiB);
  EXPECT_EQ(plan.alive_at_peak[1].bytes, 8 * GiB);
}

TEST(PlanSchedule, TheHbmLimitMakesDownWaitForUpAndTheTimeShowsIt) {
  const PlanRun limited = fsdp_under(SchedulePolicy::dataflow_hbm);
  const PlanRun free = fsdp_under(SchedulePolicy::dataflow);
  EXPECT_EQ(limited.schedule, "dataflow-hbm");
  ASSERT_EQ(limited.waits.size(), 1u);
  EXPECT_EQ(limited.waits[0].op, "down");
  EXPECT_EQ(limited.waits[0].after, "up");
  EXPECT_GE(op(limited, "down").des_start_s, op(limited, "up").des_end_s);
  EXPECT_TRUE(limited.fits_hbm);
  // down's gather overlaps gelu: the shards, W2 gathered, and h as up and gelu write it.
  EXPECT_EQ(limited.memory_per_chip_bytes, kDeclared + 8 * GiB + 2 * 128 * MiB);
  EXPECT_GT(limited.des_time_s, free.des_time_s);
  EXPECT_EQ(limited.simulations, 2);
}

TEST(PlanSchedule, ProgramOrderMatchesTheClosedFormMemory) {
  const PlanRun plan = fsdp_under(SchedulePolicy::program_order);
  EXPECT_EQ(plan.schedule, "program-order");
  // down, after gelu has ended: the shards, h (gelu), W2 gathered and y.
  EXPECT_EQ(plan.memory_per_chip_bytes, kDeclared + 128 * MiB + 8 * GiB + 32 * MiB);
  EXPECT_EQ(plan.memory_per_chip_bytes, plan.book_memory_per_chip_bytes);
  EXPECT_GE(op(plan, "gelu").des_start_s, op(plan, "up").des_end_s);
  EXPECT_GE(op(plan, "down").des_start_s, op(plan, "gelu").des_end_s);
}

}  // namespace
}  // namespace podsim
