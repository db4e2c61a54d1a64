// A mixture of experts' routing (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the capacity formula of
// GShard and Switch, the tokens each expert receives under a histogram and what it drops, the busiest expert shard's
// filled slots that size the expert matmuls, and the step time growing with the imbalance, all worked by hand.
#include <gtest/gtest.h>

#include "capacity_test_helpers.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/program_planner.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

Workload routed(double capacity_factor, std::vector<double> histogram) {
  Workload w = training(1 << 20, 2048);
  w.capacity_factor = capacity_factor;
  w.expert_histogram = std::move(histogram);
  return w;
}

TEST(ExpertRouting, CapacityIsTheFactorTimesTheEvenShareRoundedUp) {
  EXPECT_EQ(expert_capacity(1.0, 1000, 2, 8), 250);   // 2,000 routed rows / 8 experts
  EXPECT_EQ(expert_capacity(1.25, 1000, 2, 8), 313);  // 312.5 rounded up
  EXPECT_EQ(expert_capacity(1.0, 1001, 2, 8), 251);   // 250.25 rounded up
  EXPECT_EQ(expert_capacity(1.1, 10, 1, 1), 11);      // 1.1 x 10 is 11.000000000000002 in doubles: still 11
  EXPECT_EQ(expert_capacity(0.5, 4, 1, 8), 1);        // 0.25 rounds up to one slot
}

TEST(ExpertRouting, UniformRoutingFillsEveryExpertEvenly) {
  // 1,024 tokens x 2 over 4 experts: 512 each, capacity 512 at factor 1 and 1,024 at factor 2 (half empty).
  Workload w;
  ExpertLoad load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.capacity, 512);
  EXPECT_EQ(load.received, (std::vector<double>{512, 512, 512, 512}));
  EXPECT_EQ(load.dropped_fraction, 0.0);
  EXPECT_EQ(load.busiest_slots, 512);
  w.capacity_factor = 2;
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.capacity, 1024);
  EXPECT_EQ(load.busiest_slots, 512);
}

TEST(ExpertRouting, ASkewedHistogramDropsWhatExceedsTheCapacity) {
  // Weights 5:1:1:1 of 2,048 routed rows: demands 1,280, 256, 256, 256. Experts 0, 1 on shard 0, experts 2, 3 on 1.
  Workload w;
  w.expert_histogram = {5, 1, 1, 1};
  // Factor 1: capacity 512, expert 0 drops 768 of 2,048 rows (0.375); shard 0 fills 512 + 256 = 768 slots, 384 per
  // expert, fewer than uniform's 512: at factor 1 the imbalance is paid in dropped tokens, not time.
  ExpertLoad load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.capacity, 512);
  EXPECT_EQ(load.received, (std::vector<double>{512, 256, 256, 256}));
  EXPECT_DOUBLE_EQ(load.dropped_fraction, 0.375);
  EXPECT_EQ(load.busiest_slots, 384);
  // Factor 2: capacity 1,024, 256 rows dropped (0.125); shard 0 fills 1,280 slots, 640 per expert.
  w.capacity_factor = 2;
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_DOUBLE_EQ(load.dropped_fraction, 0.125);
  EXPECT_EQ(load.busiest_slots, 640);
  // Factor 4: capacity 2,048, nothing dropped; shard 0 fills 1,536, 768 per expert; one expert per shard: 1,280.
  w.capacity_factor = 4;
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.dropped_fraction, 0.0);
  EXPECT_EQ(load.busiest_slots, 768);
  EXPECT_EQ(expert_load(w, 1024, 2, 4, 4).busiest_slots, 1280);
}

TEST(ExpertRouting, TheExpertMatmulsRunAtTheBusiestShardsTokens) {
  // small_moe() (D 1024, F 2048, 4 experts, 2 per token) on 2^20 tokens, v5p 4x4x4 with expert X (one expert per
  // chip of X), data Y, fsdp Z: the slots spread over Y, Z (16 ways).
  const Candidate c = candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp});
  // Uniform, factor 1: 2^19 slots per expert, 32,768 per chip: 2 x 32,768 x 1024 x 2048 FLOPs per expert matmul.
  const PlannedModel uniform = plan_model(expand_model(small_moe(), routed(1.0, {}), c, {}));
  EXPECT_DOUBLE_EQ(planned_op(uniform, "hu").flops, 2.0 * 32768 * 1024 * 2048);
  // 5:1:1:1 at factor 4: capacity 2^21, expert 0 receives 5/8 of the 2^21 rows, 1,310,720, 81,920 per chip: the
  // matmuls 2.5 times uniform's, the all-to-alls 4 times (they move the whole capacity: each chip's [4, 2^21 / 64,
  // 1024] bf16 slots, V = 4 x that, as ModelProgram.MixtureOfExpertsDispatchesOverTheExpertAxes counts it).
  const PlannedModel skewed = plan_model(expand_model(small_moe(), routed(4.0, {5, 1, 1, 1}), c, {}));
  for (const char* name : {"hg", "hu", "ye", "dg", "dWed", "dWeu", "dxe"})
    EXPECT_DOUBLE_EQ(planned_op(skewed, name).flops, 2.0 * 81920 * 1024 * 2048) << name;
  EXPECT_EQ(skewed.model.spec.find_tensor("xe_rows")->shape, (Shape{4, 2097152, 1024}));
  EXPECT_EQ(skewed.model.spec.find_tensor("xe_work")->shape, (Shape{4, 1310720, 1024}));
  for (const char* name : {"dispatch", "combine_a2a", "combine_a2a_bwd", "dispatch_bwd"})
    EXPECT_EQ(planned_op(skewed, name).steps[0].collective.array_bytes, 4ull * (4 * 2097152 / 64 * 1024 * 2)) << name;
}

TEST(ExpertRouting, TheStepGrowsWithTheImbalance) {
  // The compute term of small_moe()'s step (candidate_evaluation_test's hand count): per token 6 x (attention
  // 8,388,608 + experts 25,165,824 + unembedding 33,554,432) + attention products 50,331,648, over 64 chips at
  // 4.59e14. At factor 4 with one expert per chip of X the expert matmuls scale by 4 x the largest share: 2 for
  // 3:1:1:1, 2.5 for 5:1:1:1.
  const Candidate c = candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp});
  const auto compute = [](double scale) {
    return (6 * (8388608.0 + scale * 25165824.0 + 33554432.0) + 50331648.0) * 1048576.0 / (64 * 4.59e14);
  };
  double last = 0;
  for (const auto& [histogram, scale] :
       std::vector<std::pair<std::vector<double>, double>>{{{}, 1.0}, {{3, 1, 1, 1}, 2.0}, {{5, 1, 1, 1}, 2.5}}) {
    const CandidateResult r = evaluate_candidate_book(problem(small_moe(), routed(4.0, histogram)), c);
    ASSERT_FALSE(r.rejected) << *r.rejected;
    EXPECT_NEAR(r.breakdown.compute_s, compute(scale), 1e-9 * compute(scale)) << scale;
    EXPECT_GT(r.book_step_s, last) << scale;
    last = r.book_step_s;
  }
}

TEST(ExpertRouting, TheDesSeesTheSameImbalanceAsTheBook) {
  // The des simulates the same program: the skewed step is longer there too, by about the book's ratio.
  const Candidate c = candidate("tpu-v5e", {2, 4}, {K::expert, K::fsdp}, 1);
  const auto run = [&](std::vector<double> histogram) {
    Workload w = training(1 << 16, 2048);
    w.capacity_factor = 4;
    w.expert_histogram = std::move(histogram);
    const CapacityProblem p = problem(small_moe(), w);
    CandidateResult r = evaluate_candidate_book(p, c);
    EXPECT_FALSE(r.rejected);
    simulate_candidate(p, r);
    return r;
  };
  const CandidateResult uniform = run({}), skewed = run({5, 1, 1, 1});
  ASSERT_TRUE(uniform.des_step_s && skewed.des_step_s);
  EXPECT_GT(*skewed.des_step_s, *uniform.des_step_s);
  EXPECT_NEAR((*skewed.des_step_s / *uniform.des_step_s) / (skewed.book_step_s / uniform.book_step_s), 1.0, 0.05);
}

}  // namespace
}  // namespace podsim
