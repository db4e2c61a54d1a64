// The calibrations the tpu7x and tpu-v6e presets carry (docs/hardware-model.md, "Achieved rates of the shipped
// presets"): the calibrated des reproduces the published microbenchmarks they were fitted on, worked out here from
// the published figures themselves (not from the fit), and between two fitted sizes it follows the curve, linear in
// log(size).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/calibrate/measurement.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

Measurement preset_row(const std::string& text) {
  return read_measurements("id,kind,measured,op,slice,axes,bytes,m,k,n\n" + text + "\n", "m.csv").front();
}

double preset_des(const std::string& row, const std::string& preset) {
  return predict_measurement(preset_row(row), load_hardware_preset(preset)).des;
}

// Ironwood's HBM guide: an 8 GiB copy on one TensorCore at 3210.480912 GB/s (2 x bytes / time); per chip both
// TensorCores copy their half, 16 GiB, in that time.
TEST(PresetCalibration, Tpu7xCopiesAsTheIronwoodGuideMeasured) {
  const double per_core_s = 2.0 * 8589934592 / 3210.480912e9;  // 5.3512 ms
  EXPECT_NEAR(preset_des("cp,copy,1ms,,,,17179869184,,,", "tpu7x"), per_core_s, 1e-9 * per_core_s);
  // A 32 MiB copy per TensorCore at 3009.83593 GB/s.
  const double small_s = 2.0 * 33554432 / 3009.83593e9;
  EXPECT_NEAR(preset_des("cp,copy,1ms,,,,67108864,,,", "tpu7x"), small_s, 1e-9 * small_s);
}

// Halfway in log(bytes) between the chip's copies of 32 MiB (64 MiB moved at 2 x 2757.308985 GB/s) and 64 MiB
// (128 MiB moved at 2 x 3009.83593 GB/s): the efficiency is the mean of the two against the preset's 7.4e12 B/s.
TEST(PresetCalibration, Tpu7xHbmEfficiencyIsLinearInLogBytesBetweenTheGuidesSizes) {
  const double e = (2 * 2757.308985e9 / 7.4e12 + 2 * 3009.83593e9 / 7.4e12) / 2;
  const double moved = std::sqrt(67108864.0 * 134217728.0);  // 64 MiB x sqrt(2)
  const auto array_bytes = static_cast<std::uint64_t>(moved / 2);
  const double expected = 2.0 * static_cast<double>(array_bytes) / (7.4e12 * e);
  const double des = preset_des("cp,copy,1ms,,,," + std::to_string(array_bytes) + ",,,", "tpu7x");
  EXPECT_NEAR(des, expected, 1e-6 * expected);  // array_bytes rounds moved by under a byte
}

// Ironwood's GEMM table: 4096^3 per TensorCore at 892.9445127 TFLOP/s; a chip does two in that time.
TEST(PresetCalibration, Tpu7xMatmulsAsTheIronwoodTableMeasured) {
  const double s = 4096;
  const double time_s = 2 * s * s * s / 892.9445127e12;
  EXPECT_NEAR(preset_des("mm,matmul,1ms,,,,,8192,4096,4096", "tpu7x"), time_s, 1e-9 * time_s);
  // 128^3 per TensorCore (2.589961271 TFLOP/s): 1.62 us, the fixed cost of an op, not the MXU.
  const double tiny_s = 2 * 128.0 * 128 * 128 / 2.589961271e12;
  EXPECT_NEAR(preset_des("mm,matmul,1ms,,,,,256,128,128", "tpu7x"), tiny_s, 1e-9 * tiny_s);
}

// tpu-recipes on a v6e-1: 8192^3 in 1.328756094 ms and a 32 MiB copy in 0.049359414 ms.
TEST(PresetCalibration, V6eAsTheTpuRecipesOutputsMeasured) {
  EXPECT_NEAR(preset_des("mm,matmul,1ms,,,,,8192,8192,8192", "tpu-v6e"), 1.328756094e-3, 1e-12);
  EXPECT_NEAR(preset_des("cp,copy,1ms,,,,33554432,,,", "tpu-v6e"), 0.049359414e-3, 1e-15);
  // The copy's efficiency is one flat point: a 1 GiB copy runs at the same 2 x 33554432 / 0.049359414 ms.
  const double rate_Bps = 2.0 * 33554432 / 0.049359414e-3;
  EXPECT_NEAR(preset_des("cp,copy,1ms,,,,1073741824,,,", "tpu-v6e"), 2.0 * 1073741824 / rate_Bps, 1e-12);
}

// v5p publishes no GEMM or copy microbenchmark: its des runs matmuls at the nominal peak. Its calibration holds the
// splash attention kernel's rate alone, from apple/axlearn's sample outputs (batch 2, 2048 tokens, causal, head_dim
// 128): the median of the six rows of 40 to 140 heads, the 72- and 88-head rows' mean (1.5 and 1.8 ms forward; 4.2
// and 5.0 ms forward and backward), on the causal half of 4 x batch x heads x 2048^2 x 128 FLOPs (the backward 2.5
// times it) against 4.59e14.
TEST(PresetCalibration, V5pCarriesTheAttentionKernelsRateAndNoHbmCurve) {
  const HardwareSpec v5p = load_hardware_preset("tpu-v5p");
  ASSERT_TRUE(v5p.calibration.has_value());
  EXPECT_TRUE(v5p.calibration->hbm_efficiency.empty());
  // 8192^3 (2^40 FLOPs): two thirds of the way in log(FLOPs) from the carried points at 2^38 to 2^41 (the test below).
  const double mxu = 0.8433072790050317 + 2.0 / 3.0 * (0.9229602811930835 - 0.8433072790050317);
  EXPECT_NEAR(preset_des("mm,matmul,1ms,,,,,8192,8192,8192", "tpu-v5p"), 2.0 * 8192 * 8192 * 8192 / 4.59e14 / mxu,
              1e-12);
  const auto forward_flops = [](double heads) { return 0.5 * 4 * 2 * heads * 2048.0 * 2048 * 128; };
  const double forward = (forward_flops(72) / 1.5e-3 + forward_flops(88) / 1.8e-3) / 2 / 4.59e14;
  const double backward =
      (2.5 * forward_flops(72) / (4.2e-3 - 1.5e-3) + 2.5 * forward_flops(88) / (5.0e-3 - 1.8e-3)) / 2 / 4.59e14;
  EXPECT_NEAR(efficiency_at(v5p.calibration->attention_forward_efficiency, 2048), forward, 5e-5);
  EXPECT_NEAR(efficiency_at(v5p.calibration->attention_backward_efficiency, 2048), backward, 5e-5);
}

// tokamax's splash attention table on Ironwood (causal, batch 1, 32 query heads of 128, one TensorCore at 1.15e15):
// at 8192 tokens the forward's theoretical time 0.48 ms against 1.93 ms measured, the backward's 1.20 ms against
// 3.98 ms (its MFU column); the theoretical time is 0.5 x 32 x 8192^2 x (2 x 128 + 2 x 128) FLOPs at 1.15e15 (x 2.5).
TEST(PresetCalibration, Tpu7xAttentionAsTokamaxsTableMeasured) {
  const HardwareSpec tpu7x = load_hardware_preset("tpu7x");
  ASSERT_TRUE(tpu7x.calibration.has_value());
  const double flops = 0.5 * 32 * 8192.0 * 8192 * (2 * 128 + 2 * 128);
  EXPECT_NEAR(flops / 1.15e15, 0.48e-3, 0.005e-3);  // the table's times are rounded to 0.01 ms
  EXPECT_NEAR(efficiency_at(tpu7x.calibration->attention_forward_efficiency, 8192), 0.48 / 1.93, 5e-5);
  EXPECT_NEAR(efficiency_at(tpu7x.calibration->attention_backward_efficiency, 8192), 1.20 / 3.98, 5e-5);
}

// No attention timing on v6e, v5e or v4 is published: each carries the curves of the measured generation with its
// MXU size (docs/hardware-model.md, "Attention kernels"), v6e tpu7x's (256x256), v5e and v4 v5p's (128x128), point
// for point, so that a change to the measured preset's curves is made to theirs too.
void expect_same_points(const std::vector<EfficiencyPoint>& got, const std::vector<EfficiencyPoint>& measured,
                        const std::string& what) {
  ASSERT_FALSE(measured.empty()) << what;
  ASSERT_EQ(got.size(), measured.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].at, measured[i].at) << what << " point " << i;
    EXPECT_EQ(got[i].efficiency, measured[i].efficiency) << what << " point " << i;
  }
}

TEST(PresetCalibration, UnmeasuredPresetsCarryTheAttentionCurvesOfTheirMxuSize) {
  const std::vector<std::pair<std::string, std::string>> carried = {
      {"tpu-v6e", "tpu7x"}, {"tpu-v5e", "tpu-v5p"}, {"tpu-v4", "tpu-v5p"}};
  for (const auto& [preset, measured_on] : carried) {
    const HardwareSpec chip = load_hardware_preset(preset);
    const HardwareSpec measured = load_hardware_preset(measured_on);
    ASSERT_TRUE(chip.calibration.has_value()) << preset;
    EXPECT_EQ(chip.chip.mxu_rows, measured.chip.mxu_rows) << preset;
    expect_same_points(chip.calibration->attention_forward_efficiency,
                       measured.calibration->attention_forward_efficiency, preset + " forward");
    expect_same_points(chip.calibration->attention_backward_efficiency,
                       measured.calibration->attention_backward_efficiency, preset + " backward");
  }
}

TEST(PresetCalibration, TwoCorePresetsCarryTheMxuCurveOfV5eAtTwiceItsFlops) {
  // v5p and v4 are two TensorCores of v5e's four 128x128 MXUs: a chip's matmul of 2F FLOPs is F on each core, so
  // each carries v5e's points (0.8433 at 2^37 FLOPs, 0.9230 at 2^40, 0.9510 at 2^43) at twice the FLOPs.
  const HardwareSpec v5e = load_hardware_preset("tpu-v5e");
  for (const std::string preset : {"tpu-v5p", "tpu-v4"}) {
    const HardwareSpec chip = load_hardware_preset(preset);
    ASSERT_TRUE(chip.calibration.has_value()) << preset;
    EXPECT_EQ(chip.chip.mxu_rows, 128) << preset;
    const auto& carried = chip.calibration->mxu_efficiency;
    const auto& measured = v5e.calibration->mxu_efficiency;
    ASSERT_EQ(carried.size(), 3u) << preset;
    ASSERT_EQ(measured.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(carried[i].at, 2 * measured[i].at) << preset << " point " << i;
      EXPECT_DOUBLE_EQ(carried[i].efficiency, measured[i].efficiency) << preset << " point " << i;
    }
  }
  // 8192^3 on v4: 2^40 FLOPs lies between the points at 2^38 (0.8433) and 2^41 (0.9230), two thirds of the way in
  // log(FLOPs); the compute-bound matmul runs at the nominal 2.75e14 times that.
  const double efficiency = 0.8433072790050317 + 2.0 / 3.0 * (0.9229602811930835 - 0.8433072790050317);
  EXPECT_NEAR(preset_des("mm,matmul,1ms,,,,,8192,8192,8192", "tpu-v4"), 2.0 * 8192 * 8192 * 8192 / 2.75e14 / efficiency,
              1e-12);
}

}  // namespace
}  // namespace podsim
