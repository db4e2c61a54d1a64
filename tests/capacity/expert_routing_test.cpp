// A mixture of experts' routing (docs/overlap-pipeline-dcn.md, "Mixture of experts"): MaxText's per-sequence capacity
// formula, the tokens each expert receives under a histogram and what the dense dispatch drops, the slots that size
// the expert matmuls under each dispatch (dense: the padded capacity; dropless: the busiest shard's routed rows), the
// dense dispatch's einsums and masks, and the step time growing with the imbalance, all worked by hand.
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

// A training step of 2^20 tokens in sequences of 2048 (512 routing groups) under `dispatch`; `capacity_factor` only
// under dense (the verifier's rule).
Workload routed(MoeDispatch dispatch, std::vector<double> histogram, double capacity_factor = 1.0,
                std::int64_t seq_len = 2048) {
  Workload w = training(1 << 20, seq_len);
  w.moe_dispatch = dispatch;
  w.capacity_factor = capacity_factor;
  w.expert_histogram = std::move(histogram);
  return w;
}

TEST(ExpertRouting, CapacityIsMaxTextsPerGroupFormula) {
  // int(max(ceil(S k / E) x factor, factor)), at least 1.
  EXPECT_EQ(expert_capacity(1.0, 1000, 2, 8), 250);   // 2,000 routed rows / 8 experts
  EXPECT_EQ(expert_capacity(1.25, 1000, 2, 8), 312);  // 250 x 1.25 = 312.5, truncated
  EXPECT_EQ(expert_capacity(1.0, 1001, 2, 8), 251);   // 250.25 rounded up before the factor
  EXPECT_EQ(expert_capacity(1.25, 1001, 2, 8), 313);  // 251 x 1.25 = 313.75, truncated
  EXPECT_EQ(expert_capacity(1.1, 10, 1, 1), 11);      // 10 x 1.1 is 11.000000000000002 in doubles: still 11
  EXPECT_EQ(expert_capacity(2.5, 1, 2, 8), 2);        // one decode token: ceil(2 / 8) = 1, x 2.5 = 2.5, truncated
  EXPECT_EQ(expert_capacity(0.5, 4, 1, 8), 1);        // ceil(0.5) = 1 x 0.5 = 0.5 truncates to 0: one slot at least
}

TEST(ExpertRouting, UniformRoutingFillsEveryExpertEvenly) {
  // 1,024 tokens x 2 over 4 experts: 512 each, capacity 512 at factor 1 and 1,024 at factor 2 (half empty). The
  // pass holds less than a sequence (4096), so it is one routing group.
  Workload w;
  w.moe_dispatch = MoeDispatch::dense;
  ExpertLoad load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.capacity, 512);
  EXPECT_EQ(load.received, (std::vector<double>{512, 512, 512, 512}));
  EXPECT_EQ(load.dropped_fraction, 0.0);
  EXPECT_EQ(load.busiest_slots, 512);
  EXPECT_EQ(load.slots, 512);
  w.capacity_factor = 2;
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.capacity, 1024);
  EXPECT_EQ(load.busiest_slots, 512);
  EXPECT_EQ(load.slots, 1024);  // dense: the matmuls run over every slot, the empty half too
  // Dropless: no capacity; the buffers hold the busiest shard's 512 rows per expert.
  load = expert_load(Workload{}, 1024, 2, 4, 2);
  EXPECT_EQ(load.group_capacity, 0);
  EXPECT_EQ(load.received, (std::vector<double>{512, 512, 512, 512}));
  EXPECT_EQ(load.slots, 512);
}

TEST(ExpertRouting, ASkewedHistogramDropsWhatExceedsTheCapacity) {
  // Weights 5:1:1:1 of 2,048 routed rows: demands 1,280, 256, 256, 256. Experts 0, 1 on shard 0, experts 2, 3 on 1.
  Workload w;
  w.moe_dispatch = MoeDispatch::dense;
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
  // Dropless keeps all 1,280 of expert 0's rows whatever the factor would have been: shard 0 gets 1,280 + 256 =
  // 1,536 rows, 768 per expert; with one expert per shard 1,280.
  w.moe_dispatch = MoeDispatch::dropless;
  w.capacity_factor = 1;
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.received, (std::vector<double>{1280, 256, 256, 256}));
  EXPECT_EQ(load.dropped_fraction, 0.0);
  EXPECT_EQ(load.slots, 768);
  EXPECT_EQ(expert_load(w, 1024, 2, 4, 4).slots, 1280);
}

// Issue 33, class 6: weights near the largest double summed to infinity, and equal weights of 1e308 were refused as
// "all zero". Past the largest double they are taken relative to the largest: 1.5e308:3e307:3e307:3e307 routes as
// 5:1:1:1, and equal ones evenly.
TEST(ExpertRouting, HugeWeightsAreSharesOfTheLargest) {
  Workload w;
  w.moe_dispatch = MoeDispatch::dense;
  w.expert_histogram = {1.5e308, 3e307, 3e307, 3e307};  // their sum, 2.4e308, is past the largest double
  ExpertLoad load = expert_load(w, 1024, 2, 4, 2);
  const std::vector<double> skewed = {512, 256, 256, 256};
  for (std::size_t e = 0; e < 4; ++e)
    EXPECT_NEAR(load.received[e], skewed[e], 1e-9) << e;
  EXPECT_NEAR(load.dropped_fraction, 0.375, 1e-12);
  w.expert_histogram = {1e308, 1e308, 1e308, 1e308};
  load = expert_load(w, 1024, 2, 4, 2);
  EXPECT_EQ(load.received, (std::vector<double>{512, 512, 512, 512}));
  EXPECT_EQ(load.dropped_fraction, 0.0);
}

TEST(ExpertRouting, TheDenseCapacityIsPerSequence) {
  // 2^20 tokens in sequences of 2048: 512 groups. Per group, k 2 of E 4: ceil(2048 x 2 / 4) = 1024 x 1.25 = 1280
  // slots per expert; 512 x 1280 = 655,360 in the pass. Under 5:1:1:1 expert 0 is sent 5/8 x 4096 = 2560 rows of
  // each group and keeps 1280; the others are sent 512 and keep them: 1280 of each group's 4096 rows dropped, 0.3125.
  const ExpertLoad load = expert_load(routed(MoeDispatch::dense, {5, 1, 1, 1}, 1.25), 1 << 20, 2, 4, 4);
  EXPECT_EQ(load.group_tokens, 2048);
  EXPECT_EQ(load.groups, 512);
  EXPECT_EQ(load.group_capacity, 1280);
  EXPECT_EQ(load.capacity, 655360);
  EXPECT_EQ(load.slots, 655360);
  EXPECT_EQ(load.received, (std::vector<double>{655360, 262144, 262144, 262144}));
  EXPECT_DOUBLE_EQ(load.dropped_fraction, 0.3125);
}

TEST(ExpertRouting, TheExpertMatmulsRunOverTheSlotsOfTheDispatch) {
  // small_moe() (D 1024, F 2048, 4 experts, 2 per token) on 2^20 tokens, v5p 4x4x4 with expert X (one expert per
  // chip of X), data Y, fsdp Z: the slots spread over Y, Z (16 ways).
  const Candidate c = candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp});
  // Uniform, dropless: 2^20 x 2 / 4 = 2^19 slots per expert, 32,768 per chip: 2 x 32,768 x 1024 x 2048 FLOPs.
  const PlannedModel uniform = plan_model(expand_model(small_moe(), routed(MoeDispatch::dropless, {}), c, {}));
  EXPECT_DOUBLE_EQ(planned_op(uniform, "hu").flops, 2.0 * 32768 * 1024 * 2048);
  // 5:1:1:1 dropless: expert 0 receives 5/8 of the 2^21 rows, 1,310,720, 81,920 per chip: the matmuls 2.5 times
  // uniform's; the all-to-alls move the same rows (each chip's [4, 1,310,720 / 64, 1024] bf16, V = 4 x that, as
  // ModelProgram.MixtureOfExpertsDispatchesOverTheExpertAxes counts it).
  const PlannedModel skewed = plan_model(expand_model(small_moe(), routed(MoeDispatch::dropless, {5, 1, 1, 1}), c, {}));
  for (const char* name : {"hg", "hu", "ye", "dg", "dWed", "dWeu", "dxe"})
    EXPECT_DOUBLE_EQ(planned_op(skewed, name).flops, 2.0 * 81920 * 1024 * 2048) << name;
  EXPECT_EQ(skewed.model.spec.find_tensor("xe_rows")->shape, (Shape{4, 1310720, 1024}));
  for (const char* name : {"dispatch", "combine_a2a", "combine_a2a_bwd", "dispatch_bwd"})
    EXPECT_EQ(planned_op(skewed, name).steps[0].collective.array_bytes, 4ull * (4 * 1310720 / 64 * 1024 * 2)) << name;
  // The same routing dense at factor 4: per group of 2048, ceil(2048 x 2 / 4) x 4 = 4096 slots, 512 groups: 2^21
  // slots per expert, every one computed (131,072 per chip) and moved, though only 1,310,720 hold a token.
  const PlannedModel dense =
      plan_model(expand_model(small_moe(), routed(MoeDispatch::dense, {5, 1, 1, 1}, 4.0), c, {}));
  for (const char* name : {"hg", "hu", "ye", "dg", "dWed", "dWeu", "dxe"})
    EXPECT_DOUBLE_EQ(planned_op(dense, name).flops, 2.0 * 131072 * 1024 * 2048) << name;
  for (const char* name : {"dispatch", "combine_a2a", "combine_a2a_bwd", "dispatch_bwd"})
    EXPECT_EQ(planned_op(dense, name).steps[0].collective.array_bytes, 4ull * (4 * 2097152 / 64 * 1024 * 2)) << name;
}

TEST(ExpertRouting, TheDenseDispatchRunsOneHotEinsums) {
  // small_moe() on 2^20 tokens in sequences of 1024, dense at factor 1.25, uniform; v5p 4x4x4, expert X, data Y,
  // fsdp Z. Worked by hand:
  //   groups G = 2^20 / 1024 = 1024, S = 1024; C = ceil(1024 x 2 / 4) x 1.25 = 512 x 1.25 = 640 slots per group.
  //   The groups spread over the token axes Y, Z, X (64 chips): 16 per chip.
  //   Masks [G, S, E, C] bf16 per chip: 16 x 1024 x 4 x 640 = 41,943,040 elements = 83,886,080 bytes each.
  //   Dispatch einsum GSD,GSEC->EGCD per chip: 2 x 16 x 1024 x 4 x 640 x 1024 = 85,899,345,920 FLOPs; it reads
  //   [16, 1024, 1024] tokens (33,554,432 bytes) and a mask (83,886,080), writes [4, 16, 640, 1024] (83,886,080):
  //   201,326,592 bytes. The combine einsum EGCD,GSEC->GSD: the same FLOPs.
  //   Backward: the combine's two gradients (to the experts' outputs, to the combine mask) and the dispatch's (to
  //   the tokens): three more einsums of 85,899,345,920 FLOPs each.
  //   Expert matmuls over the padded slots: G x C = 655,360 per expert, one expert per chip of X, 655,360 / 16 =
  //   40,960 per chip: 2 x 40,960 x 1024 x 2048 = 171,798,691,840 FLOPs each.
  const Candidate c = candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp});
  const PlannedModel dense = plan_model(expand_model(small_moe(), routed(MoeDispatch::dense, {}, 1.25, 1024), c, {}));
  for (const char* name : {"xe_disp", "y", "dye_disp", "dcombine_mask", "dhn_groups"})
    EXPECT_DOUBLE_EQ(planned_op(dense, name).flops, 85899345920.0) << name;
  EXPECT_DOUBLE_EQ(planned_op(dense, "xe_disp").steps.back().hbm_bytes, 201326592.0);
  for (const char* name : {"masks", "dispatch_mask"}) {
    const PlannedOp& o = planned_op(dense, name);
    EXPECT_EQ(dense.program.buffers[static_cast<std::size_t>(o.output)].bytes_per_chip, 83886080u) << name;
  }
  EXPECT_EQ(dense.model.spec.find_tensor("mask_rows")->shape, (Shape{1024, 1024, 4, 640}));
  for (const char* name : {"hg", "hu", "ye", "dg", "dWed", "dWeu", "dxe"})
    EXPECT_DOUBLE_EQ(planned_op(dense, name).flops, 171798691840.0) << name;
  // The same layer dropless: 2^19 routed rows per expert, 32,768 per chip: 2 x 32,768 x 1024 x 2048 =
  // 137,438,953,472 FLOPs per expert matmul (dense pads them by 1.25), and no masks or einsums.
  const PlannedModel dropless =
      plan_model(expand_model(small_moe(), routed(MoeDispatch::dropless, {}, 1.0, 1024), c, {}));
  EXPECT_DOUBLE_EQ(planned_op(dropless, "hu").flops, 137438953472.0);
  for (const char* name : {"masks", "xe_disp", "dhn_groups"})
    EXPECT_EQ(dropless.model.spec.find_op(name), nullptr) << name;
  // Per token and layer, forward: dense 2 einsums + 3 padded matmuls = 2 x 85,899,345,920 + 3 x 171,798,691,840 =
  // 687,194,767,360 FLOPs per chip against dropless's 3 x 137,438,953,472 = 412,316,860,416: 1.6667 times.
  double dense_forward = 0, dropless_forward = 0;
  for (const char* name : {"xe_disp", "hg", "hu", "ye", "y"})
    dense_forward += planned_op(dense, name).flops;
  for (const char* name : {"hg", "hu", "ye"})
    dropless_forward += planned_op(dropless, name).flops;
  EXPECT_DOUBLE_EQ(dense_forward, 687194767360.0);
  EXPECT_DOUBLE_EQ(dropless_forward, 412316860416.0);
}

TEST(ExpertRouting, TheStepGrowsWithTheImbalance) {
  // The compute term of small_moe()'s step (candidate_evaluation_test's hand count): per token 6 x (attention
  // 8,388,608 + experts 25,165,824 + unembedding 33,554,432) + attention products 50,331,648, over 64 chips at
  // 4.59e14. Dropless with one expert per chip of X, the expert matmuls scale by 4 x the largest share: 2 for
  // 3:1:1:1, 2.5 for 5:1:1:1.
  const Candidate c = candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp});
  const auto compute = [](double scale) {
    return (6 * (8388608.0 + scale * 25165824.0 + 33554432.0) + 50331648.0) * 1048576.0 / (64 * 4.59e14);
  };
  double last = 0;
  for (const auto& [histogram, scale] :
       std::vector<std::pair<std::vector<double>, double>>{{{}, 1.0}, {{3, 1, 1, 1}, 2.0}, {{5, 1, 1, 1}, 2.5}}) {
    const CandidateResult r =
        evaluate_candidate_book(problem(small_moe(), routed(MoeDispatch::dropless, histogram)), c);
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
