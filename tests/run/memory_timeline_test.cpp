// Memory over the simulated timeline per chip: a chip that takes no part in an op (a send between two other chips)
// keeps what the op reads until the op has ended, as the chips that take part do.
#include <gtest/gtest.h>

#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

TEST(MemoryTimeline, ABufferReadByASendLivesUntilTheSendEndsOnEveryChip) {
  // A[I_X, J] bf16 64x64 on 4 chips: 16 x 64 x 2 = 2 KiB per chip. B = elementwise(A), 2 KiB, read last by a send
  // of B's shard from chip 0 to chip 1.
  const ScenarioSpec spec = load_scenario_text(R"({"name": "send", "hardware": "tpu-v5e",
      "slice": {"shape": [4], "wraparound": "none"}, "mesh": "X=4",
      "tensors": {"A": {"shape": [64, 64], "sharding": "A[I_X, J]"}},
      "program": [{"op": "elementwise", "name": "e", "tensor": "A", "out": "B"},
                  {"op": "send", "name": "s", "from": 0, "to": 1, "tensor": "B"}]})",
                                               "send.json");
  const ScenarioRun run = run_scenario(spec);
  const PlanRun& plan = run.plans.front();
  const OpRun& send = plan.ops[1];
  ASSERT_GT(send.des_end_s, send.des_start_s);
  for (std::size_t chip = 0; chip < 4; ++chip) {
    const auto& points = plan.memory_timeline->chips[chip].points;
    // A (2 KiB) always; B (2 KiB) from e's start until the send ends; then A alone.
    EXPECT_EQ(plan.memory_timeline->chips[chip].peak_bytes, 4096u) << "chip " << chip;
    ASSERT_FALSE(points.empty());
    EXPECT_EQ(points.back().bytes, 2048u) << "chip " << chip;
    EXPECT_DOUBLE_EQ(points.back().time_s, send.des_end_s) << "chip " << chip;
  }
}

}  // namespace
}  // namespace podsim
