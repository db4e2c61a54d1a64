// The calibration's curves and the compute time the des takes from them (models/hardware/calibration.hpp), against
// values worked by hand: a curve is linear in log(size) between its points and flat beyond them.
#include "models/hardware/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::string verify_error(const Calibration& calibration) {
  try {
    verify_calibration(calibration);
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Calibration, EfficiencyIsLinearInLogSizeBetweenPointsAndFlatBeyond) {
  const std::vector<EfficiencyPoint> curve{{1e6, 0.4}, {1e8, 0.8}, {1e10, 0.9}};
  EXPECT_DOUBLE_EQ(efficiency_at({}, 123), 1);
  EXPECT_NEAR(efficiency_at(curve, 1e7), 0.6, 1e-12);                        // midpoint of 1e6..1e8
  EXPECT_NEAR(efficiency_at(curve, 1e9), 0.85, 1e-12);                       // midpoint of 1e8..1e10
  EXPECT_NEAR(efficiency_at(curve, 1e6 * std::pow(10.0, 0.5)), 0.5, 1e-12);  // a quarter of the way
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 1e3), 0.4);                          // flat below
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 1e12), 0.9);                         // flat above
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 0), 0.4);                            // a step without bytes
  EXPECT_TRUE(outside_curve(curve, 1e12));
  EXPECT_FALSE(outside_curve(curve, 1e9));
}

// max(compute_s / mxu(FLOPs), memory_s / hbm(bytes)): each term divided by its own curve at its own size.
TEST(Calibration, AComputeStepDividesEachRooflineTermByItsCurveAtItsSize) {
  Calibration c;
  c.mxu_efficiency = {{1e9, 0.5}, {1e13, 0.9}};
  c.hbm_efficiency = {{1e6, 0.4}, {1e8, 0.8}};
  // Memory-bound: 1 ms of bytes at 1e7 bytes (0.6), 0.1 ms of FLOPs at 1e11 FLOPs (0.7): 1 / 0.6 ms.
  EXPECT_NEAR(calibrated_compute_s(c, 1e-4, 1e-3, 1e11, 1e7), 1e-3 / 0.6, 1e-15);
  // Compute-bound: 1 ms of FLOPs at 1e11 FLOPs (0.7) against 0.5 ms of bytes at 1e8 (0.8): 1 / 0.7 ms.
  EXPECT_NEAR(calibrated_compute_s(c, 1e-3, 5e-4, 1e11, 1e8), 1e-3 / 0.7, 1e-15);
  // The HBM curve can turn a compute-bound step memory-bound: 0.5 ms at 1e6 bytes (0.4) is 1.25 ms.
  EXPECT_NEAR(calibrated_compute_s(c, 1e-3, 5e-4, 1e13, 1e6), 1.25e-3, 1e-15);
  // Uncalibrated curves leave the roofline as it is.
  EXPECT_DOUBLE_EQ(calibrated_compute_s(Calibration{}, 1e-3, 5e-4, 1e11, 1e8), 1e-3);
}

// A causal attention kernel computes half the score blocks, its backward 2.5 forward's FLOPs where the products count
// 2; each pass at its curve's efficiency at the sequence length, the memory term as any step's.
TEST(Calibration, ACausalAttentionStepComputesHalfItsFlopsAtItsCurvesRate) {
  Calibration c;
  c.attention_forward_efficiency = {{4096, 0.2}, {16384, 0.4}};
  c.attention_backward_efficiency = {{8192, 0.25}};
  c.mxu_efficiency = {{1e9, 0.5}};
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::forward, 8192, 1.0, 0.1, 1e12, 1e9), 0.5 / 0.3, 1e-12);
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::forward, 1024, 1.0, 0.1, 1e12, 1e9), 0.5 / 0.2, 1e-12);
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::backward, 2048, 2.0, 0.1, 2e12, 1e9), 0.5 * 1.25 * 2 / 0.25,
              1e-12);
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::forward, 8192, 1.0, 5.0, 1e12, 1e9), 5.0, 1e-12);  // HBM-bound
  // Not attention, or no curve for the pass: the MXU's curve on its FLOPs whole.
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::none, 8192, 1.0, 0.1, 1e12, 1e9), 2.0, 1e-12);
  c.attention_backward_efficiency.clear();
  EXPECT_NEAR(calibrated_attention_s(c, AttentionPass::backward, 8192, 1.0, 0.1, 1e12, 1e9), 2.0, 1e-12);
}

TEST(Calibration, TheAttentionCurvesAreVerifiedLikeTheOthers) {
  Calibration c;
  c.attention_backward_efficiency = {{2048, 0.3}, {1024, 0.4}};
  EXPECT_EQ(verify_error(c),
            "attention_backward_efficiency[1].at: points must be in increasing order, got: 1024 after 2048");
  c.attention_backward_efficiency.clear();
  c.attention_forward_efficiency = {{2048, 0}};
  EXPECT_EQ(verify_error(c), "attention_forward_efficiency[0].efficiency: an efficiency must be in (0, 1], got: 0");
}

TEST(Calibration, TheHbmCurveIsVerifiedLikeTheOthers) {
  Calibration c;
  c.hbm_efficiency = {{1e6, 0.5}, {1e6, 0.6}};
  EXPECT_EQ(verify_error(c), "hbm_efficiency[1].at: points must be in increasing order, got: 1e+06 after 1e+06");
  c.hbm_efficiency = {{1e6, 1.5}};
  EXPECT_EQ(verify_error(c), "hbm_efficiency[0].efficiency: an efficiency must be in (0, 1], got: 1.5");
  c.hbm_efficiency = {{0, 0.5}};
  EXPECT_EQ(verify_error(c), "hbm_efficiency[0].at: must be finite and > 0, got: 0");
  c.hbm_efficiency = {{1e6, 0.5}, {1e9, 0.9}};
  EXPECT_EQ(verify_error(c), "(no error)");
}

}  // namespace
}  // namespace podsim
