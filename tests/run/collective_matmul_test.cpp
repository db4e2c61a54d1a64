// Collective matmul (docs/overlap-pipeline-dcn.md): the planner's loop of N compute steps and N - 1 hops, its book
// time max(N c, c + (N - 1) t), the simulated loop against it, its values, and the rule that refuses it.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "models/common/error.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

struct Planned {
  ScenarioSpec spec;
  std::shared_ptr<Slice> slice;
  std::shared_ptr<MeshMapping> mapping;
  PlannedProgram program;
};

Planned plan_spec(ScenarioSpec spec, const std::string& plan) {
  Planned out;
  out.spec = std::move(spec);
  out.slice = std::make_shared<Slice>(out.spec.slice_shape, out.spec.wraparound);
  out.mapping = std::make_shared<MeshMapping>(out.spec.mesh.mesh, *out.slice, out.spec.mesh.axis_dims);
  out.program = plan_program(out.spec, {*out.slice, *out.mapping}, plan.empty() ? nullptr : out.spec.find_plan(plan));
  return out;
}

std::string jax_stuff() {
  return (std::filesystem::path(PODSIM_SOURCE_DIR) / "scenarios/problem-sets/jax-stuff-collective-matmul.json")
      .string();
}

// The book's example: A[B_X, D_Y] * W[D, F_Y], B, D, F = 1024, 2048, 8192, f32 at 1.9174e13 FLOP/s on a v5e 2x4.
TEST(CollectiveMatmul, TheBooksExampleBecomesFourBlocksAndThreeHops) {
  const Planned p = plan_spec(load_scenario(jax_stuff()), "collective-matmul");
  const PlannedOp& op = p.program.ops.at(0);
  ASSERT_TRUE(op.collective_matmul.has_value());
  const CollectiveMatmulLoop& loop = *op.collective_matmul;
  EXPECT_EQ(loop.steps, 4);
  EXPECT_EQ(loop.axis, "Y");
  EXPECT_EQ(loop.block_bytes, 512u * 512u * 4u);  // A's shard [B/X, D/Y] in 4-byte values
  EXPECT_EQ(loop.hops, 3);                        // Y is a line of 4: the wrap pair 0 -> 3 crosses 3 links
  const double c = 2.0 * 512 * 512 * 2048 / 1.9174e13;
  const double t = 3 * 1e-6 + 1048576 / 4.5e10;
  EXPECT_NEAR(loop.step_compute_s, c, 1e-15);
  EXPECT_NEAR(loop.step_transfer_s, t, 1e-15);
  EXPECT_NEAR(op.book_time_s, 4 * c, 1e-15);  // compute-bound: every hop hides under a block's matmul
  // Steps: hop, block, hop, block, hop, block, block; the blocks are a quarter of the matmul each.
  ASSERT_EQ(op.steps.size(), 7u);
  int permutes = 0, computes = 0;
  for (const PlannedStep& step : op.steps) {
    EXPECT_TRUE(step.in_loop);
    if (step.kind == StepKind::permute) {
      ++permutes;
      EXPECT_EQ(step.bytes, 1048576u);
      ASSERT_EQ(step.sends.size(), 2u);  // one ring per X row
      for (const auto& ring : step.sends)
        EXPECT_EQ(ring.size(), 4u);
    } else {
      ++computes;
      EXPECT_EQ(step.kind, StepKind::compute);
      EXPECT_DOUBLE_EQ(step.flops, 2.0 * 512 * 512 * 2048);
    }
  }
  EXPECT_EQ(permutes, 3);
  EXPECT_EQ(computes, 4);
  EXPECT_EQ(op.steps.back().writes, op.output);
  // The ring sends position j to position j - 1: chip order along Y of the first row is its group.
  const auto& ring = op.steps.front().sends.front();
  for (std::size_t j = 0; j < 4; ++j)
    EXPECT_EQ(ring[j].second, ring[(j + 3) % 4].first);
}

TEST(CollectiveMatmul, TheDefaultPlanGathersFirst) {
  const Planned p = plan_spec(load_scenario(jax_stuff()), "default");
  const PlannedOp& op = p.program.ops.at(0);
  EXPECT_FALSE(op.collective_matmul.has_value());
  ASSERT_EQ(op.steps.size(), 2u);
  EXPECT_EQ(op.steps[0].kind, StepKind::collective);
  EXPECT_NEAR(op.book_time_s, 2.0 * 512 * 2048 * 2048 / 1.9174e13 + 3 * 1048576 / 4.5e10, 1e-15);
}

// A bandwidth-bound loop on a v5e ring of 16 (wraparound: every hop is one link): lhs A[B, D_X] bf16 [8, 1024],
// W[D, F] [1024, 64]. A block is [8, 64] (1024 B): t = 1 us + 1024 / 4.5e10. Its matmul is memory-bound:
// c = (8 x 64 + 64 x 64 + 8 x 64) x 2 B / 8.2e11. t > c, so the loop takes c + 15 t and the simulation, with
// one transfer per link per step, gives the same.
const char* kRing = R"({
  "name": "ring", "hardware": {"preset": "tpu-v5e", "calibrated": false}, "slice": {"shape": [16], "wraparound": "all"}, "mesh": "X=16",
  "tensors": {"A": {"shape": [8, 1024], "sharding": "A[B, D_X]"}, "W": {"shape": [1024, 64], "sharding": "W[D, F]"}},
  "program": [{"op": "matmul", "name": "y", "lhs": "A", "rhs": "W", "einsum": "BD,DF->BF", "out": "Y",
               "out_sharding": "Y[B, F]", "collective_matmul": true}],
  "options": {"verify_values": true}
})";

TEST(CollectiveMatmul, ABandwidthBoundLoopTakesOneBlockAndFifteenHops) {
  const ScenarioSpec spec = load_scenario_text(kRing, "ring.json");
  const double t = 1e-6 + 1024 / 4.5e10;
  const double c = (8.0 * 64 + 64.0 * 64 + 8.0 * 64) * 2 / 8.2e11;
  const Planned p = plan_spec(spec, "");
  ASSERT_TRUE(p.program.ops.at(0).collective_matmul.has_value());
  EXPECT_EQ(p.program.ops[0].collective_matmul->hops, 1);
  EXPECT_NEAR(p.program.ops[0].collective_matmul->step_compute_s, c, 1e-16);
  EXPECT_NEAR(p.program.ops[0].book_time_s, c + 15 * t, 1e-15);
  const ScenarioRun run = run_scenario(spec);
  const PlanRun& plan = run.plans.at(0);
  EXPECT_NEAR(plan.des_time_s, c + 15 * t, 1e-12);
  // Hop i runs over [i t, (i + 1) t] and block i's matmul over [i t, i t + c]: compute 16 c, exposed 15 (t - c).
  EXPECT_NEAR(plan.step_breakdown.compute_s, 16 * c, 1e-12);
  EXPECT_NEAR(plan.step_breakdown.exposed_communication_s, 15 * (t - c), 1e-12);
  EXPECT_NEAR(plan.step_breakdown.bubble_s, 0, 1e-12);
  EXPECT_NEAR(plan.ops[0].exposed_communication_s, 15 * (t - c), 1e-12);
  // The gather it replaces is reported with its 15 hops; the result is the dense product.
  ASSERT_EQ(plan.ops[0].collectives.size(), 1u);
  EXPECT_EQ(plan.ops[0].collectives[0].algorithm, "collective-matmul");
  EXPECT_NEAR(plan.ops[0].collectives[0].book_time_s, 15 * t, 1e-15);
  ASSERT_TRUE(plan.values_match.has_value());
  EXPECT_TRUE(*plan.values_match) << plan.values_note;
}

// The reduce-scatter half (the book's Tmp[B_X, F_Y] *_F W2[F_Y, D] -> Out[B_X, D_Y], here on a v5e ring of 16): the
// local product Out[B, D]{U_X} [8, 256] bf16 is reduce-scattered over X into [8, 16] blocks of 256 B. A block's
// matmul ([8, 64] by [64, 16]) is memory-bound: c = (8 x 64 + 64 x 16 + 8 x 16) x 2 B / 8.2e11; a hop
// t = 1 us + 256 / 4.5e10; an add of a received block a = 128 elements / 1.97e14. The sums travel in a chain of
// 15 hops, each followed by an add, so the loop takes c + 15 (t + a); all 16 matmuls end (16 c) before the first
// sum arrives.
const char* kScatterRing = R"({
  "name": "scatter", "hardware": {"preset": "tpu-v5e", "calibrated": false}, "slice": {"shape": [16], "wraparound": "all"}, "mesh": "X=16",
  "tensors": {"T": {"shape": [8, 1024], "sharding": "T[B, F_X]"}, "W": {"shape": [1024, 256], "sharding": "W[F_X, D]"}},
  "program": [{"op": "matmul", "name": "down", "lhs": "T", "rhs": "W", "einsum": "BF,FD->BD", "out": "Out",
               "out_sharding": "Out[B, D_X]", "collective_matmul": true}],
  "options": {"verify_values": true}
})";

TEST(CollectiveMatmul, AReduceScatteredResultPassesItsSumsAroundTheRing) {
  const ScenarioSpec spec = load_scenario_text(kScatterRing, "scatter.json");
  const double c = (8.0 * 64 + 64.0 * 16 + 8.0 * 16) * 2 / 8.2e11;
  const double t = 1e-6 + 256 / 4.5e10;
  const double a = 128 / 1.97e14;
  const Planned p = plan_spec(spec, "");
  const PlannedOp& op = p.program.ops.at(0);
  ASSERT_TRUE(op.collective_matmul.has_value());
  const CollectiveMatmulLoop& loop = *op.collective_matmul;
  EXPECT_EQ(loop.replaces.kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(loop.block_bytes, 256u);
  EXPECT_NEAR(loop.step_compute_s, c, 1e-18);
  EXPECT_NEAR(loop.step_add_s, a, 1e-21);
  EXPECT_NEAR(op.book_time_s, c + 15 * (t + a), 1e-15);
  // 16 block matmuls, 15 adds, 15 hops; the last add writes the result.
  ASSERT_EQ(op.steps.size(), 46u);
  EXPECT_EQ(op.steps.back().writes, op.output);
  const ScenarioRun run = run_scenario(spec);
  const PlanRun& plan = run.plans.at(0);
  EXPECT_NEAR(plan.des_time_s, c + 15 * (t + a), 1e-12);
  // The chip computes 16 c + 15 a; the hops are hidden only while the matmuls run: exposed 15 t - 15 c.
  EXPECT_NEAR(plan.step_breakdown.compute_s, 16 * c + 15 * a, 1e-12);
  EXPECT_NEAR(plan.step_breakdown.exposed_communication_s, 15 * (t - c), 1e-12);
  EXPECT_NEAR(plan.step_breakdown.bubble_s, 0, 1e-12);
  ASSERT_EQ(plan.ops[0].collectives.size(), 1u);
  EXPECT_EQ(plan.ops[0].collectives[0].kind, CollectiveKind::reduce_scatter);
  ASSERT_TRUE(plan.values_match.has_value());
  EXPECT_TRUE(*plan.values_match) << plan.values_note;
}

TEST(CollectiveMatmul, ThePlanOptionLeavesMatmulsThatGatherNothing) {
  // The first matmul gathers nothing (its contraction is unsharded); the second gathers a over X, the book's case
  // 2 (a's contracting dim is sharded, W2's is not and X already shards W2's free dim).
  const ScenarioSpec spec = load_scenario_text(R"({
    "name": "two", "hardware": "tpu-v5e", "slice": {"shape": [4, 2]}, "mesh": "X=4,Y=2",
    "tensors": {"x": {"shape": [64, 64], "sharding": "x[B_X, D]"}, "W1": {"shape": [64, 64], "sharding": "W1[D, F]"},
                "a": {"shape": [64, 64], "sharding": "a[I, J_X]"}, "W2": {"shape": [64, 64], "sharding": "W2[J, K_X]"}},
    "program": [
      {"op": "matmul", "name": "up", "lhs": "x", "rhs": "W1", "einsum": "BD,DF->BF", "out": "h"},
      {"op": "matmul", "name": "down", "lhs": "a", "rhs": "W2", "einsum": "IJ,JK->IK", "out": "z", "out_sharding": "z[I, K_X]"}
    ],
    "plans": [{"name": "loop", "collective_matmul": true}]
  })",
                                               "two.json");
  const Planned p = plan_spec(spec, "loop");
  EXPECT_FALSE(p.program.ops[0].collective_matmul.has_value());
  EXPECT_TRUE(p.program.ops[1].collective_matmul.has_value());
  const ScenarioRun run = run_scenario(spec);
  ASSERT_TRUE(run.plans.at(0).values_match.has_value());
  EXPECT_TRUE(*run.plans[0].values_match) << run.plans[0].values_note;
}

}  // namespace
}  // namespace podsim
