// Matmul roofline, MXU padding, tile VMEM footprint and ICI critical intensity, against examples worked
// by hand in the comments.
#include "models/hardware/roofline.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

ChipModel chip_with(int mxu, double peak_bf16, double hbm_Bps) {
  ChipModel chip;
  chip.name = "test";
  chip.tensorcores = 1;
  chip.mxu_rows = mxu;
  chip.mxu_cols = mxu;
  chip.mxus_per_core = 4;
  chip.mxu_clock_Hz = 1.5e9;
  chip.peak_flops_by_dtype = {{DType::bf16, peak_bf16}};
  chip.vmem_bytes_per_core = 128ull << 20;
  chip.hbm_bandwidth_Bps = hbm_Bps;
  return chip;
}

ChipModel roofline_v5e() {
  return chip_with(128, 1.97e14, 8.2e11);
}

TEST(MatmulRoofline, SquareBf16IsComputeBound) {
  // 4096^3 on v5e: FLOPs 2 x 4096^3 = 1.37438953472e11; bytes 3 x 4096^2 x 2 = 100,663,296;
  // intensity 4096/3 = 1365.33 > 240; compute 1.374e11 / 1.97e14 = 697.66 us; memory 100663296 / 8.2e11 = 122.76 us.
  const auto r = matmul_roofline(roofline_v5e(), 4096, 4096, 4096, DType::bf16, DType::bf16);
  EXPECT_DOUBLE_EQ(r.flops, 1.37438953472e11);
  EXPECT_DOUBLE_EQ(r.padded_flops, r.flops);
  EXPECT_EQ(r.bytes, 100663296u);
  EXPECT_NEAR(r.intensity, 4096.0 / 3.0, 1e-9);
  EXPECT_NEAR(r.compute_time_s, 697.6596e-6, 1e-10);
  EXPECT_NEAR(r.memory_time_s, 122.7601e-6, 1e-10);
  EXPECT_EQ(r.bound, Bound::compute);
  EXPECT_DOUBLE_EQ(r.time_s, r.compute_time_s);
}

TEST(MatmulRoofline, SmallBatchIsMemoryBound) {
  // x[8, 4096] @ w[4096, 4096] bf16: FLOPs 2 x 8 x 4096^2 = 268,435,456; bytes 2 x (8x4096 + 4096^2 + 8x4096)
  // = 33,685,504; intensity 7.97 < 240; compute 1.3626 us; memory 33685504 / 8.2e11 = 41.0799 us.
  const auto r = matmul_roofline(roofline_v5e(), 8, 4096, 4096, DType::bf16, DType::bf16);
  EXPECT_DOUBLE_EQ(r.flops, 268435456.0);
  EXPECT_EQ(r.bytes, 33685504u);
  EXPECT_NEAR(r.intensity, 7.9689, 1e-4);
  EXPECT_NEAR(r.compute_time_s, 1.36262e-6, 1e-11);
  EXPECT_NEAR(r.memory_time_s, 41.0799e-6, 1e-10);
  EXPECT_EQ(r.bound, Bound::memory);
  EXPECT_DOUBLE_EQ(r.time_s, r.memory_time_s);
  EXPECT_EQ(bound_name(r.bound), "memory");
}

TEST(MatmulRoofline, FloatOutputCountsFourBytesPerElement) {
  // x[128,256] bf16, w[256,512] bf16, y[128,512] f32: 65536 + 262144 + 262144 = 589,824 bytes.
  const auto r = matmul_roofline(roofline_v5e(), 128, 256, 512, DType::bf16, DType::f32);
  EXPECT_EQ(r.bytes, 589824u);
}

TEST(MatmulRoofline, WeightPadsToTheMxu) {
  // A 100x100 weight pads to 128x128 on v5e and to 256x256 on v6e; m = 256 is not padded.
  const auto v5e = matmul_roofline(chip_with(128, 1.97e14, 8.2e11), 256, 100, 100, DType::bf16, DType::bf16);
  EXPECT_EQ(v5e.k_padded, 128);
  EXPECT_EQ(v5e.n_padded, 128);
  EXPECT_DOUBLE_EQ(v5e.flops, 2.0 * 256 * 100 * 100);         // 5,120,000
  EXPECT_DOUBLE_EQ(v5e.padded_flops, 2.0 * 256 * 128 * 128);  // 8,388,608
  const auto v6e = matmul_roofline(chip_with(256, 9.2e14, 1.6e12), 256, 100, 100, DType::bf16, DType::bf16);
  EXPECT_EQ(v6e.k_padded, 256);
  EXPECT_EQ(v6e.n_padded, 256);
  EXPECT_DOUBLE_EQ(v6e.padded_flops, 2.0 * 256 * 256 * 256);  // 33,554,432
  EXPECT_DOUBLE_EQ(v6e.compute_time_s, 33554432.0 / 9.2e14);
}

TEST(MatmulRoofline, PaddingFromThePresets) {
  const auto v5e = load_hardware_preset("tpu-v5e").chip;
  const auto v6e = load_hardware_preset("tpu-v6e").chip;
  EXPECT_EQ(matmul_roofline(v5e, 8, 100, 100, DType::bf16, DType::bf16).k_padded, 128);
  EXPECT_EQ(matmul_roofline(v6e, 8, 100, 100, DType::bf16, DType::bf16).n_padded, 256);
  EXPECT_EQ(pad_to_multiple(200, 128), 256);
  EXPECT_EQ(pad_to_multiple(256, 128), 256);
  EXPECT_EQ(pad_to_multiple(7, 0), 7);
}

TEST(MatmulRoofline, NoPaddingWithoutMxu) {
  ChipModel gpu;
  gpu.name = "gpu";
  gpu.peak_flops_by_dtype = {{DType::bf16, 9.89e14}};
  gpu.hbm_bandwidth_Bps = 3.35e12;
  const auto r = matmul_roofline(gpu, 8, 100, 100, DType::bf16, DType::bf16);
  EXPECT_EQ(r.k_padded, 100);
  EXPECT_DOUBLE_EQ(r.padded_flops, r.flops);
}

TEST(MatmulRoofline, AQuantizedMatmulRunsAtItsComputeDtypesPeakAndReadsItsStoredBytes) {
  // 8192 x 1024 @ 1024 x 4096 in bf16 computed in int8 on a chip with 1.97e14 bf16 and 3.94e14 int8 FLOP/s:
  // 2 x 8192 x 1024 x 4096 = 68,719,476,736 FLOPs / 3.94e14 = 174.415 us (bf16 would take 348.83 us). Bytes as
  // stored: x 16,777,216 + w 8,388,608 + y 67,108,864 = 92,274,688, / 8.2e11 = 112.53 us: compute-bound.
  ChipModel chip = roofline_v5e();
  chip.peak_flops_by_dtype[DType::int8] = 3.94e14;
  const MatmulRoofline r =
      matmul_roofline(chip, 8192, 1024, 4096, DType::bf16, DType::bf16, DType::bf16, 1, DType::int8);
  EXPECT_DOUBLE_EQ(r.peak_flops, 3.94e14);
  EXPECT_NEAR(r.compute_time_s, 174.415e-6, 1e-9);
  EXPECT_EQ(r.bytes, 92274688u);
  EXPECT_NEAR(r.memory_time_s, 112.530e-6, 1e-9);
  EXPECT_EQ(r.bound, Bound::compute);
  // Without a compute dtype it runs at the input's peak.
  EXPECT_NEAR(matmul_roofline(chip, 8192, 1024, 4096, DType::bf16, DType::bf16).compute_time_s, 348.830e-6, 1e-9);
  // A chip without the compute dtype's peak: the typed error naming the figure.
  try {
    matmul_roofline(chip, 8192, 1024, 4096, DType::bf16, DType::bf16, DType::bf16, 1, DType::fp8_e4m3);
    FAIL();
  } catch (const MissingFigureError& e) {
    EXPECT_STREQ(e.what(), "chip \"test\" has no peak FLOP/s figure for fp8_e4m3 (has: bf16, int8)");
  }
}

TEST(MatmulRoofline, Errors) {
  try {
    matmul_roofline(roofline_v5e(), 0, 4, 4, DType::bf16, DType::bf16);
    FAIL();
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "matmul dim m must be positive, got: 0");
  }
  // A missing figure is its own type, naming the preset key to add it under.
  try {
    matmul_roofline(roofline_v5e(), 4, 4, 4, DType::f32, DType::f32);
    FAIL();
  } catch (const MissingFigureError& e) {
    EXPECT_STREQ(e.what(), "chip \"test\" has no peak FLOP/s figure for f32 (has: bf16)");
    EXPECT_EQ(e.figure(), "chip.peak_flops");
  }
}

TEST(TileVmem, FootprintAndFit) {
  // 512^3 tile, bf16 in, f32 out: 512x512x2 x 2 + 512x512x4 = 2 MiB.
  EXPECT_EQ(tile_vmem_bytes(512, 512, 512, DType::bf16, DType::f32), 2097152u);
  const ChipModel chip = roofline_v5e();  // 128 MiB
  // 4096^3: 32 MiB + 32 MiB + 64 MiB = exactly 128 MiB, fits; one more output column does not.
  EXPECT_TRUE(tile_fits_vmem(chip, 4096, 4096, 4096, DType::bf16, DType::f32));
  EXPECT_FALSE(tile_fits_vmem(chip, 4096, 4096, 4097, DType::bf16, DType::f32));
  ChipModel none;
  none.name = "none";
  try {
    tile_fits_vmem(none, 8, 8, 8, DType::bf16, DType::bf16);
    FAIL();
  } catch (const MissingFigureError& e) {
    EXPECT_EQ(e.figure(), "chip.vmem_bytes_per_core");
  }
}

TEST(IciCriticalIntensity, BookV5pIs2550And850OverThreeAxes) {
  // C / W_ici = 4.59e14 / (2 x 9e10) = 2550; over 3 axes 850 (SCALING_BOOK_MODELS.md (b)9).
  const auto spec = load_hardware_preset("tpu-v5p");
  EXPECT_NEAR(ici_critical_intensity(spec.chip, spec.ici), 2550.0, 1e-9);
  EXPECT_NEAR(ici_critical_intensity(spec.chip, spec.ici, 3), 850.0, 1e-9);
  const auto h100 = load_hardware_preset("h100");
  EXPECT_THROW(ici_critical_intensity(h100.chip, h100.ici), VerifyError);
}

TEST(HbmLoadTime, H100PresetDefaultAndQuizFigure) {
  // Default 3.35e12 (roofline.md): 1,048,576 / 3.35e12 = 313.008 ns. The quiz's 3.4e12 gives 308.405 ns.
  const auto h100 = load_hardware_preset("h100").chip;
  EXPECT_NEAR(hbm_load_time(1048576, h100), 313.0078e-9, 1e-13);
}

}  // namespace
}  // namespace podsim
