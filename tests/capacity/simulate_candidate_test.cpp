// simulate_candidate: the expanded step run by the des (SimGrid, in a child process, its layers in sequence under
// dataflow-hbm: tests/capacity/layers_in_sequence_test.cpp), against the closed form, which sums its ops' times.
#include <gtest/gtest.h>

#include "capacity_test_helpers.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

// The book's compute (MXU- and HBM-bound), which the des's overlap cannot hide.
double book_compute(const CandidateResult& r) {
  return r.breakdown.compute_s + r.breakdown.hbm_s;
}

TEST(SimulateCandidate, SmallModelOnASmallSliceAgreesWithItsBook) {
  // small_model() on 2^16 tokens over a v5e 2x4 (data X, fsdp Y): compute-bound, its collectives over single axes.
  // docs/parallelism.md ("The des") states the gap: the des computes what the book computes (within 5%: per-task
  // costs), and its step lies between that compute and the book's sum, which adds every collective on top.
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  CandidateResult r = evaluate_candidate_book(p, uncalibrated(candidate("tpu-v5e", {2, 4}, {K::data, K::fsdp}, 1)));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const double book_mfu = r.mfu;
  simulate_candidate(p, r);
  ASSERT_TRUE(r.des_step_s && r.des_breakdown);
  EXPECT_NEAR(r.des_breakdown->compute_s / book_compute(r), 1.0, 0.05);
  EXPECT_LE(*r.des_step_s, r.book_step_s);
  EXPECT_GE(*r.des_step_s, 0.95 * book_compute(r));
  // The derived figures follow the des step time once simulated.
  EXPECT_DOUBLE_EQ(r.step_s(), *r.des_step_s);
  EXPECT_NEAR(r.mfu, book_mfu * r.book_step_s / *r.des_step_s, 1e-12);
  EXPECT_NEAR(r.tokens_per_s_per_chip, 65536.0 / *r.des_step_s / 8, 1e-6);
}

TEST(SimulateCandidate, ARejectedCandidateIsNotSimulated) {
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  CandidateResult r = evaluate_candidate_book(p, candidate("tpu-v5e", {4, 4}, {K::tensor, K::tensor}));
  ASSERT_TRUE(r.rejected);
  EXPECT_THROW(simulate_candidate(p, r), VerifyError);
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

TEST(SimulateCandidate, AMixtureOfExpertsAgreesWithItsBook) {
  const CapacityProblem p = capacity_test::problem(capacity_test::small_moe(), capacity_test::training(1 << 16, 2048));
  Candidate c = capacity_test::candidate("tpu-v5e", {2, 4}, {ParallelKind::expert, ParallelKind::fsdp}, 1);
  c.hardware.spec.calibration.reset();  // the des from the preset's figures (docs/hardware-model.md, "Calibration")
  CandidateResult r = evaluate_candidate_book(p, c);
  ASSERT_FALSE(r.rejected) << *r.rejected;
  simulate_candidate(p, r);
  ASSERT_TRUE(r.des_step_s && r.des_breakdown);
  // The dispatch and combine all-to-alls (over X, 2 chips) and fsdp's collectives (over Y) are a third of the
  // book's step here. The all-to-alls carry the layer's activations, so only fsdp's gathers and reductions can hide:
  // the des computes what the book computes (within 5%) and its step lies between that and the book's sum.
  EXPECT_GT(r.breakdown.ici_s, 0.3 * r.book_step_s);
  EXPECT_NEAR(r.des_breakdown->compute_s / (r.breakdown.compute_s + r.breakdown.hbm_s), 1.0, 0.05);
  EXPECT_LE(*r.des_step_s, r.book_step_s);
  EXPECT_GE(*r.des_step_s, r.breakdown.compute_s + r.breakdown.hbm_s);
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

// The layer's ops in program order, each op's des span its compute: the attention's forward and backward under a
// calibration with attention curves (docs/hardware-model.md, "Attention kernels") against the same without them.
struct AttentionSpans {
  double forward = 0, backward = 0;
};

AttentionSpans attention_spans(const std::optional<Calibration>& calibration) {
  CapacityProblem p = capacity_test::problem(capacity_test::small_model(), capacity_test::training(1 << 16, 2048));
  p.options.schedule = SchedulePolicy::program_order;
  Candidate c = capacity_test::candidate("tpu-v5e", {2, 4}, {ParallelKind::data, ParallelKind::data}, 1);
  c.hardware.spec.calibration = calibration;
  CandidateResult r = evaluate_candidate_book(p, c);
  EXPECT_FALSE(r.rejected);
  simulate_candidate(p, r);
  const ModelProgram model = expand_candidate(p, c);
  AttentionSpans spans;
  for (std::size_t i = 0; i < model.spec.program.size(); ++i) {
    if (model.spec.program[i].name == "attention") spans.forward = r.des_op_s.at(i);
    if (model.spec.program[i].name == "attention_bwd") spans.backward = r.des_op_s.at(i);
  }
  return spans;
}

TEST(SimulateCandidate, ACausalAttentionRunsHalfItsFlopsAtTheKernelsRate) {
  // small_model() on 2^16 tokens of 2048, data parallel over 8 v5e chips: each chip's attention forward takes its
  // 8192 queries of 8 x 128 against 2048 keys, 4 x 2048 FLOPs per query element (both products, counted whole):
  // 4 x 2048 x 8192 x 1024 = 6.87e10 FLOPs, 0.349 ms at 1.97e14 (compute-bound: 2048 FLOPs per byte it moves). The
  // backward's products are twice that. A causal kernel computes half the score blocks, its backward recomputes the
  // scores (2.5 forward's FLOPs where the products count 2): at 25% forward and 40% backward, the forward takes
  // 0.5 x 6.87e10 / (0.25 x 1.97e14) and the backward 0.5 x 1.25 x 1.374e11 / (0.40 x 1.97e14).
  const double forward_flops = 4.0 * 2048 * 8192 * 1024;
  const AttentionSpans plain = attention_spans(std::nullopt);
  EXPECT_NEAR(plain.forward, forward_flops / 1.97e14, 1e-9);
  EXPECT_NEAR(plain.backward, 2 * forward_flops / 1.97e14, 1e-9);
  Calibration kernel;
  kernel.attention_forward_efficiency = {{1024, 0.25}, {4096, 0.25}};
  kernel.attention_backward_efficiency = {{2048, 0.40}};
  const AttentionSpans calibrated = attention_spans(kernel);
  EXPECT_NEAR(calibrated.forward, 0.5 * forward_flops / (0.25 * 1.97e14), 1e-9);
  EXPECT_NEAR(calibrated.backward, 0.5 * 1.25 * 2 * forward_flops / (0.40 * 1.97e14), 1e-9);
  // A calibration without attention curves times the attention as any op: its FLOPs whole, at the MXU's rate.
  Calibration mxu;
  mxu.mxu_efficiency = {{1e9, 0.8}};
  EXPECT_NEAR(attention_spans(mxu).forward, forward_flops / (0.8 * 1.97e14), 1e-9);
}

}  // namespace
}  // namespace podsim
