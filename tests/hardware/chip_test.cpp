// ChipModel: per-dtype peaks, the MXU peak from geometry, HBM load time and critical intensity, on
// hand-built chips (figures from the scaling book) and on the shipped presets.
#include "models/hardware/chip.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

// The book's v5e: 1 core x 4 MXUs of 128x128 at 1.5 GHz, 1.97e14 bf16, 3.94e14 int8, HBM 8.2e11 B/s.
ChipModel book_v5e() {
  ChipModel chip;
  chip.name = "v5e";
  chip.tensorcores = 1;
  chip.mxu_rows = 128;
  chip.mxu_cols = 128;
  chip.mxus_per_core = 4;
  chip.mxu_clock_Hz = 1.5e9;
  chip.peak_flops_by_dtype = {{DType::bf16, 1.97e14}, {DType::int8, 3.94e14}};
  chip.vmem_bytes_per_core = 128ull << 20;
  chip.hbm_bytes = 16ull << 30;
  chip.hbm_bandwidth_Bps = 8.2e11;
  return chip;
}

TEST(ChipModel, MxuPeakIsCoresTimesMxusTimesArrayTimesTwoTimesClock) {
  // 1 x 4 x 128 x 128 x 2 x 1.5e9 = 196,608,000,000,000
  EXPECT_DOUBLE_EQ(book_v5e().mxu_peak_flops(), 1.96608e14);
}

TEST(ChipModel, PeakPerDtypeAndMissingDtype) {
  const ChipModel chip = book_v5e();
  EXPECT_DOUBLE_EQ(chip.peak_flops(DType::bf16), 1.97e14);
  EXPECT_DOUBLE_EQ(chip.peak_flops(DType::int8), 3.94e14);
  try {
    chip.peak_flops(DType::f32);
    FAIL() << "expected VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "chip \"v5e\" has no peak FLOP/s figure for f32 (has: bf16, int8)");
  }
}

TEST(ChipModel, NoMxuFiguresIsAClearError) {
  ChipModel gpu;
  gpu.name = "h100";
  try {
    gpu.mxu_peak_flops();
    FAIL() << "expected VerifyError";
  } catch (const MissingFigureError& e) {
    EXPECT_STREQ(e.what(),
                 "chip \"h100\" has no MXU figures (tensorcores, mxu_rows, mxu_cols, mxus_per_core, mxu_clock_Hz)");
    EXPECT_EQ(e.figure(), "chip.tensorcores");
  }
}

TEST(ChipModel, CriticalIntensityV5eIs240) {
  // 1.97e14 / 8.2e11 = 240.24 FLOP per byte (the book's "about 240").
  EXPECT_NEAR(book_v5e().hbm_critical_intensity(), 240.2439, 1e-4);
}

TEST(ChipModel, SeedPopQuizHbmLoadTime) {
  // A[I_XY, J] f32[1024, 4096] over 16 devices: [64, 4096] x 4 B = 1,048,576 B per device, at 3.4e12 B/s.
  ChipModel chip;
  chip.name = "quiz";
  chip.hbm_bandwidth_Bps = 3.4e12;
  EXPECT_NEAR(hbm_load_time(1048576, chip), 308.4047e-9, 1e-13);
}

TEST(Presets, MxuPeakMatchesPresetWithinOnePercent) {
  // The documented slack (docs/hardware-model.md): the MXU peak is within 1% of the preset's bf16 figure,
  // except v3 whose default is the book's 1.4e14 (C1); its MXU peak 1.232e14 matches Google's 1.23e14.
  for (const char* name : {"tpu-v2", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu7x"}) {
    const ChipModel chip = load_hardware_preset(name).chip;
    EXPECT_NEAR(chip.mxu_peak_flops() / chip.peak_flops(DType::bf16), 1.0, 0.01) << name;
  }
  const ChipModel v3 = load_hardware_preset("tpu-v3").chip;
  EXPECT_NEAR(v3.mxu_peak_flops(), 2 * 2 * 128 * 128 * 2 * 0.94e9, 1.0);
  EXPECT_NEAR(v3.mxu_peak_flops() / 1.23e14, 1.0, 0.01);
  EXPECT_NEAR(v3.mxu_peak_flops() / v3.peak_flops(DType::bf16), 0.88, 0.001);
}

TEST(Presets, V5eFromPresetMatchesTheBook) {
  const ChipModel chip = load_hardware_preset("tpu-v5e").chip;
  EXPECT_DOUBLE_EQ(chip.mxu_peak_flops(), 1.96608e14);
  EXPECT_NEAR(chip.hbm_critical_intensity(), 240.2439, 1e-4);
}

}  // namespace
}  // namespace podsim
