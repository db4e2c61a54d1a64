// The calibrations the tpu7x and tpu-v6e presets carry (docs/hardware-model.md, "Achieved rates of the shipped
// presets"): the calibrated des reproduces the published microbenchmarks they were fitted on, worked out here from
// the published figures themselves (not from the fit), and between two fitted sizes it follows the curve, linear in
// log(size).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

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

// v5p publishes no microbenchmark: its preset stays uncalibrated, the des at the nominal figures.
TEST(PresetCalibration, V5pIsUncalibrated) {
  EXPECT_FALSE(load_hardware_preset("tpu-v5p").calibration.has_value());
  EXPECT_DOUBLE_EQ(preset_des("mm,matmul,1ms,,,,,8192,8192,8192", "tpu-v5p"), 2.0 * 8192 * 8192 * 8192 / 4.59e14);
}

}  // namespace
}  // namespace podsim
