// The accelerator-microbenchmarks suite's tables (sim/calibrate/microbenchmark_table.hpp) as measurement rows. The
// tables in data/ are written by hand in the suite's exact format (tab separated, its column names and order as
// run_benchmark.py's write_to_csv and the benchmarks' *_calculate_metrics write them) with realistic, made-up v5e
// numbers; the expected bytes and medians below are worked out by hand from matrix_dim, the item size and the
// timing lists.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "models/common/error.hpp"
#include "sim/calibrate/microbenchmark_table.hpp"

namespace podsim {
namespace {

const std::string kData = std::string(PODSIM_TEST_DATA_DIR) + "/data/";

std::string text_of(const std::string& name) {
  std::ifstream in(kData + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

MicrobenchmarkTable read(const std::string& name, std::optional<Shape> slice, const std::string& benchmark = "") {
  return read_microbenchmark_table(text_of(name), kData + name, MicrobenchmarkOptions{benchmark, slice});
}

std::string error_of(const std::string& text, const std::string& file, std::optional<Shape> slice,
                     const std::string& benchmark = "") {
  try {
    read_microbenchmark_table(text, file, MicrobenchmarkOptions{benchmark, slice});
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError for " << file;
  return "";
}

TEST(MicrobenchmarkTable, TellsTheSuitesTablesFromAMeasurementCsv) {
  EXPECT_TRUE(is_microbenchmark_table(text_of("t_all_gather_Q7M2XK4P9A.csv")));
  EXPECT_TRUE(is_microbenchmark_table(text_of("t_single_chip_hbm_copy_K2D9VX0M4R.csv")));
  EXPECT_TRUE(is_microbenchmark_table(text_of("t_single_host_naive_matmul_P4W7EJ2N8C.csv")));
  EXPECT_TRUE(is_microbenchmark_table("matrix_dim,dtype,dcn_size,ici_size,ici_time_ms_p50\n1024,2,1,16,0.06\n"));
  EXPECT_FALSE(
      is_microbenchmark_table("id,kind,measured,op,slice,axes,bytes\nag,collective,680us,all-gather,4x4,X,1\n"));
  EXPECT_FALSE(is_microbenchmark_table("id,kind,m,k,n,measured\n"));
}

TEST(MicrobenchmarkTable, AllGatherRowsAreCollectivesOverTheWholeSliceWithTheMedianTime) {
  const MicrobenchmarkTable table = read("t_all_gather_Q7M2XK4P9A.csv", Shape{4, 4});
  EXPECT_EQ(table.benchmark, "all_gather");
  EXPECT_TRUE(table.skipped.empty());
  ASSERT_EQ(table.rows.size(), 3u);
  // V = matrix_dim^2 x 2 bytes (bf16): 1024^2 x 2, 4096^2 x 2, 8192^2 x 2.
  const std::uint64_t bytes[] = {2097152u, 33554432u, 134217728u};
  // The medians of the five times of each row (sorted, the third): 0.0788, 0.8631, 3.2410 ms.
  const double seconds[] = {0.0788e-3, 0.8631e-3, 3.2410e-3};
  for (std::size_t i = 0; i < 3; ++i) {
    const Measurement& row = table.rows[i];
    EXPECT_EQ(row.kind, MeasurementKind::collective);
    EXPECT_EQ(row.op, CollectiveKind::all_gather);
    EXPECT_EQ(row.slice, (Shape{4, 4}));
    EXPECT_EQ(row.axes, (std::vector<std::string>{"X", "Y"}));
    EXPECT_EQ(row.dtype, DType::bf16);
    EXPECT_EQ(row.bytes, bytes[i]);
    EXPECT_DOUBLE_EQ(row.measured, seconds[i]);
    EXPECT_EQ(row.line, static_cast<int>(i) + 2);
    EXPECT_TRUE(row.fit);
    EXPECT_TRUE(row.hardware.empty());
  }
  EXPECT_EQ(table.rows[2].id, "all_gather-ici-8192");
}

TEST(MicrobenchmarkTable, AllToAllMovesEachChipsWholeArray) {
  // Each of the 16 chips holds the whole 2048 x 2048 float32 array (item size 4) and splits it among the others:
  // V = 16 x 2048^2 x 4 = 268435456 bytes.
  const MicrobenchmarkTable table = read("t_all_to_all_B3ZT8W1LQE.csv", Shape{16});
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].op, CollectiveKind::all_to_all);
  EXPECT_EQ(table.rows[0].dtype, DType::f32);
  EXPECT_EQ(table.rows[0].bytes, 268435456u);
  EXPECT_EQ(table.rows[0].axes, (std::vector<std::string>{"X"}));
  EXPECT_DOUBLE_EQ(table.rows[0].measured, 3.9117e-3);
}

TEST(MicrobenchmarkTable, PsumIsAnAllReduceAndItsDcnMeasurementsAreSkipped) {
  const MicrobenchmarkTable table = read("t_psum_H5N0RC6VYD.csv", Shape{4, 4});
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].op, CollectiveKind::all_reduce);
  EXPECT_EQ(table.rows[0].bytes, 33554432u);  // each chip reduces its whole 4096^2 bf16 array
  EXPECT_DOUBLE_EQ(table.rows[0].measured, 1.7512e-3);
  EXPECT_DOUBLE_EQ(table.rows[1].measured, 6.5415e-3);
  ASSERT_EQ(table.skipped.size(), 2u);
  EXPECT_EQ(table.skipped[0], kData +
                                  "t_psum_H5N0RC6VYD.csv:2: the DCN measurement (dcn_size 2): podsim calibrate "
                                  "fits no DCN figure");
}

TEST(MicrobenchmarkTable, PsumScatterIsAReduceScatterOfEachChipsArray) {
  const std::string text =
      "matrix_dim\tdtype\tdcn_size\tici_size\tici_time_ms_p50\n"
      "2048\t2\t1\t8\t0.0931\n";
  const MicrobenchmarkTable table =
      read_microbenchmark_table(text, "out/t_psum_scatter_ABCDEFGH12.csv", MicrobenchmarkOptions{"", Shape{2, 4}});
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].op, CollectiveKind::reduce_scatter);
  EXPECT_EQ(table.rows[0].bytes, 8388608u);  // 2048^2 x 2
  EXPECT_EQ(table.rows[0].axes, (std::vector<std::string>{"X", "Y"}));
}

TEST(MicrobenchmarkTable, HbmCopyAndMatmulRows) {
  const MicrobenchmarkTable copy = read("t_single_chip_hbm_copy_K2D9VX0M4R.csv", std::nullopt);
  ASSERT_EQ(copy.rows.size(), 1u);
  EXPECT_EQ(copy.rows[0].kind, MeasurementKind::copy);
  EXPECT_EQ(copy.rows[0].bytes, 536870912u);  // 2^28 elements x 2 bytes
  EXPECT_DOUBLE_EQ(copy.rows[0].measured, 1.6512e-3);
  const MicrobenchmarkTable matmul = read("t_single_host_naive_matmul_P4W7EJ2N8C.csv", std::nullopt);
  ASSERT_EQ(matmul.rows.size(), 2u);
  EXPECT_EQ(matmul.rows[0].kind, MeasurementKind::matmul);
  EXPECT_EQ(matmul.rows[0].m, 8192);
  EXPECT_EQ(matmul.rows[1].k, 8192);
  EXPECT_EQ(matmul.rows[1].n, 1024);
  EXPECT_EQ(matmul.rows[0].dtype, DType::bf16);
  // 2 x 8192^3 = 1.0995e12 FLOPs at the median 176.2 TFLOP/s: 6.2401 ms.
  EXPECT_NEAR(matmul.rows[0].measured, 1099511627776.0 / 176.2e12, 1e-12);
  EXPECT_NEAR(matmul.rows[0].measured, 6.2401e-3, 1e-7);
}

TEST(MicrobenchmarkTable, RefusesWhatItCannotMap) {
  const std::string table = "matrix_dim\tdtype\tdcn_size\tici_size\tici_time_ms_p50\n1024\t2\t1\t16\t0.06\n";
  EXPECT_EQ(error_of(table, "r/t_all_gather_Q7M2XK4P9A.csv", std::nullopt),
            "r/t_all_gather_Q7M2XK4P9A.csv: the suite's all_gather rows name no slice shape, only ici_size: give the "
            "slice they ran on (--slice), got: none");
  EXPECT_EQ(error_of(table, "r/t_all_gather_Q7M2XK4P9A.csv", Shape{8, 4}),
            "r/t_all_gather_Q7M2XK4P9A.csv:2: column ici_size: must equal the chips of the slice given (8x4: 32), got: "
            "\"16\"");
  EXPECT_EQ(error_of(table, "r/results.csv", Shape{4, 4}),
            "r/results.csv: the suite names a table t_BENCHMARK_XXXXXXXXXX.csv and its rows do not say the benchmark: "
            "name it (--benchmark), got: results.csv");
  EXPECT_EQ(error_of(table, "r/results.csv", Shape{4, 4}, "ppermute"),
            "r/results.csv: benchmark ppermute: a collective permute is not a measurement podsim fits (reads: "
            "all_gather, psum, psum_scatter, all_to_all, single_chip_hbm_copy, single_host_naive_matmul), got: "
            "ppermute");
  EXPECT_EQ(error_of(table, "r/t_naive_matmul_Q7M2XK4P9A.csv", Shape{4, 4}),
            "r/t_naive_matmul_Q7M2XK4P9A.csv: benchmark: not one podsim calibrate reads (reads: all_gather, psum, "
            "psum_scatter, all_to_all, single_chip_hbm_copy, single_host_naive_matmul), got: naive_matmul");
  // An older table with bandwidth statistics only.
  EXPECT_EQ(error_of("matrix_dim\tdtype\tdcn_size\tici_size\tici_bandwidth_gbyte_s_p50\n1024\t2\t1\t16\t30\n",
                     "r/t_psum_Q7M2XK4P9A.csv", Shape{4, 4}),
            "r/t_psum_Q7M2XK4P9A.csv:1: column ici_time_ms_p50: a psum table needs it (the suite's tables with time "
            "statistics), got: 5 columns");
  EXPECT_EQ(error_of("matrix_dim\tdtype\tdcn_size\tici_size\tici_time_ms_p50\n1024\t8\t1\t16\t0.06\n",
                     "r/t_psum_Q7M2XK4P9A.csv", Shape{4, 4}),
            "r/t_psum_Q7M2XK4P9A.csv:2: column dtype: the suite writes the item size in bytes: 2 (bfloat16) or 4 "
            "(float32, int32), got: \"8\"");
  EXPECT_EQ(error_of("matrix_dim\tdtype\tdcn_size\tici_size\tici_time_ms_p50\n1024\t2\t1\t16\tnan\n",
                     "r/t_psum_Q7M2XK4P9A.csv", Shape{4, 4}),
            "r/t_psum_Q7M2XK4P9A.csv:2: column ici_time_ms_p50: must be a number > 0, got: \"nan\"");
}

}  // namespace
}  // namespace podsim
