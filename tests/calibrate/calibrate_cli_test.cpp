// `podsim calibrate` end to end: fit the scaling book's two v5e all-gather measurements, write the overlay, and
// simulate with it: the calibrated des reproduces the measured times, --uncalibrated the preset's own figures.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../cli/cli_run.hpp"

namespace podsim {
namespace {

using test::CliRun;
using test::json_of;
using test::run_podsim;

TEST(CalibrateCli, FitsWritesAnOverlayAndTheDesUsesIt) {
  const auto folder = std::filesystem::temp_directory_path() / ("podsim-calibrate-cli-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  const auto csv = folder / "sb.csv";
  std::ofstream(csv) << "id,kind,measured,hardware,op,slice,axes,bytes,fit,source\n"
                        "big,collective,680us,tpu-v5e,all-gather,8x4,Y,33554432,yes,sharding.md\n"
                        "small,collective,8us,tpu-v5e,all-gather,8x4,Y,131072,yes,sharding.md\n"
                        "v2,collective,1.13ms,tpu-v2,reduce-scatter,4x2,Y,134217728,no,profiling.md\n";
  const auto overlay = folder / "my-v5e.json";
  const CliRun fit =
      run_podsim("calibrate " + csv.string() + " --hardware tpu-v5e --uncalibrated-base -o " + overlay.string());
  // (an unknown flag is refused with exit code 2)
  EXPECT_EQ(fit.code, 2);
  const CliRun ok = run_podsim("calibrate " + csv.string() + " --hardware tpu-v5e -o " + overlay.string());
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("skipped v2 (hardware tpu-v2, not tpu-v5e)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("hop_latency_s: not separable"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("at its bound 1"), std::string::npos) << ok.out;  // 680 us is slower than nominal
  ASSERT_TRUE(std::filesystem::exists(overlay));
  const std::string query =
      "collective --hardware " + overlay.string() + " --slice 8x4 --op all-gather --axes Y --json";
  const auto big = json_of(run_podsim(query + " --array-bytes 33554432"));
  EXPECT_NEAR(big["des"]["time_s"].get<double>(), 680e-6, 680e-9);  // the measurement, within 0.1%
  EXPECT_EQ(big["des"]["calibrated"], true);
  EXPECT_NEAR(big["book"]["time_s"].get<double>(), 3 * 8388608 / 4.5e10, 1e-15);  // the book is never calibrated
  const auto small = json_of(run_podsim(query + " --array-bytes 131072"));
  EXPECT_NEAR(small["des"]["time_s"].get<double>(), 8e-6, 8e-9);
  const auto plain = json_of(run_podsim(query + " --array-bytes 33554432 --uncalibrated"));
  EXPECT_NEAR(plain["des"]["time_s"].get<double>(), 3 * (1e-6 + 8388608 / 4.5e10), 1e-12);
  EXPECT_FALSE(plain["des"].contains("calibrated"));
  std::filesystem::remove_all(folder);
}

TEST(CalibrateCli, RowsFasterThanTheNominalLinksAreSaidSo) {
  // A gather of 32 MiB over a line of 4 v5e chips needs at least 3 x 8 MiB / 45 GB/s = 559 us on the preset's links;
  // a "measured" 300 us cannot be reached by lowering an efficiency, so the report says so.
  const auto csv =
      std::filesystem::temp_directory_path() / ("podsim-calibrate-fast-" + std::to_string(getpid()) + ".csv");
  std::ofstream(csv) << "id,kind,measured,hardware,op,slice,axes,bytes\n"
                        "fast,collective,300us,tpu-v5e,all-gather,8x4,Y,33554432\n";
  const CliRun run = run_podsim("calibrate " + csv.string() + " --hardware tpu-v5e");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("note: link_efficiency is at its bound 1 at "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("faster than the preset's link bandwidth allows"), std::string::npos) << run.out;
  std::filesystem::remove(csv);
}

TEST(CalibrateCli, ABadRowIsLocatedAtItsFileLineAndColumn) {
  const auto csv =
      std::filesystem::temp_directory_path() / ("podsim-calibrate-bad-" + std::to_string(getpid()) + ".csv");
  std::ofstream(csv) << "id,kind,measured,op,slice,axes,bytes\n"
                        "a,collective,680us,all-gather,8x4,Q,33554432\n";
  const CliRun run = run_podsim("calibrate " + csv.string() + " --hardware tpu-v5e");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.rfind("error: " + csv.string() + ":2: column axes: ", 0), 0u) << run.err;
  std::filesystem::remove(csv);
}

TEST(CalibrateCli, AnUnknownPresetIsLocatedAtTheFlag) {
  const std::string csv = std::string(PODSIM_SOURCE_DIR) + "/validation/scaling-book.csv";
  const CliRun run = run_podsim("calibrate " + csv + " --hardware tpu-v9");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.rfind("error: --hardware: unknown preset \"tpu-v9\" (known: ", 0), 0u) << run.err;
  const CliRun file = run_podsim("calibrate " + csv + " --hardware no-such-dir/mine.json");
  EXPECT_EQ(file.code, 2);
  EXPECT_EQ(file.err.rfind("error: --hardware: no-such-dir/mine.json: cannot open file", 0), 0u) << file.err;
}

TEST(CalibrateCli, ReadsTheMicrobenchmarkSuitesTableGivenTheSlice) {
  // A hand-written table in the accelerator-microbenchmarks format (data/, see microbenchmark_table_test.cpp).
  const std::string table = std::string(PODSIM_TEST_DATA_DIR) + "/data/t_psum_H5N0RC6VYD.csv";
  const CliRun run = run_podsim("calibrate " + table + " --hardware tpu-v5e --slice 4x4");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("psum-ici-8192"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("skipped " + table + ":3: the DCN measurement (dcn_size 2)"), std::string::npos) << run.out;
  const CliRun no_slice = run_podsim("calibrate " + table + " --hardware tpu-v5e");
  EXPECT_EQ(no_slice.code, 2);
  EXPECT_NE(no_slice.err.find("give the slice they ran on (--slice)"), std::string::npos) << no_slice.err;
  const CliRun bad_slice = run_podsim("calibrate " + table + " --hardware tpu-v5e --slice 4xq");
  EXPECT_EQ(bad_slice.code, 2);
  EXPECT_EQ(bad_slice.err.rfind("error: --slice: ", 0), 0u) << bad_slice.err;
  const auto csv =
      std::filesystem::temp_directory_path() / ("podsim-calibrate-slice-" + std::to_string(getpid()) + ".csv");
  std::ofstream(csv) << "id,kind,measured,op,slice,axes,bytes\n"
                        "a,collective,680us,all-gather,8x4,Y,33554432\n";
  const CliRun csv_slice = run_podsim("calibrate " + csv.string() + " --hardware tpu-v5e --slice 4x4");
  EXPECT_EQ(csv_slice.code, 2);
  EXPECT_EQ(csv_slice.err.rfind("error: --slice: only a microbenchmark suite table takes it", 0), 0u) << csv_slice.err;
  std::filesystem::remove(csv);
}

}  // namespace
}  // namespace podsim
