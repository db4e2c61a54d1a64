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
