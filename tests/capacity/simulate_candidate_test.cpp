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
