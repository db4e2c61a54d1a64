// The result tables of the public TPU microbenchmark suite AI-Hypercomputer/accelerator-microbenchmarks (read at
// commit 01d95efe72caa85894271ffe150e42edffa0805b of src/benchmark_collectives.py and
// 0767f7b3d8250b587b4495be08adc886d685d5db of src/run_benchmark.py and src/benchmark_utils.py), read as measurement
// rows for `podsim calibrate` (docs/hardware-model.md, "Calibration", "The microbenchmark suite's tables").
//
// The suite writes one table per benchmark, `CSV_PATH/t_BENCHMARK_XXXXXXXXXX.csv` (pandas, tab separated despite
// the name; a header line, then one row per parameter set): the benchmark's parameters (`dtype` holds the item size
// in bytes, not a name) and statistics of each metric, `NAME_p50`, `NAME_p90`, `NAME_p95`, `NAME_p99`, `NAME_avg`,
// with the raw list as JSON in `NAME_list`. podsim reads the median (`_p50`), the figure the suite itself prints.
//   all_gather, psum, psum_scatter, all_to_all: matrix_dim, dtype, dcn_size, ici_size, ici_time_ms_p50 (ms). One
//     matrix_dim x matrix_dim array; V (the book's array) = matrix_dim^2 x dtype for all_gather (each chip holds a
//     1/ici_size row block), psum and psum_scatter (each chip holds the whole array), and ici_size times that for
//     all_to_all (each chip's whole array is split among the others). The mesh is one axis over the slice's every
//     chip, so a row becomes a collective over all the slice's axes; the rows name no slice shape, so the caller
//     gives it (its chips must equal ici_size). The DCN measurements (dcn_size > 1) are skipped: podsim fits no
//     DCN figure. ppermute is refused: a collective permute is no measurement kind of podsim's.
//   single_chip_hbm_copy: num_elements, dtype, time_ms_p50 (ms): a copy of num_elements x dtype bytes.
//   single_host_naive_matmul: m, k, n, tflops_per_sec_p50: a bf16 matmul on one chip whose time is
//     2 m k n / (tflops_per_sec_p50 x 1e12) (the suite keeps no time statistics for it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/shape.hpp"
#include "sim/calibrate/measurement.hpp"

namespace podsim {

struct MicrobenchmarkOptions {
  std::string benchmark;       // the suite's benchmark name; empty: from the file name t_BENCHMARK_XXXXXXXXXX.csv
  std::optional<Shape> slice;  // the slice the collective rows ran on (needed for them only)
};

struct MicrobenchmarkTable {
  std::string benchmark;
  std::vector<Measurement> rows;     // fit yes, hardware empty (the caller's preset)
  std::vector<std::string> skipped;  // "FILE:LINE: why" for each measurement not made a row
};

// Whether `text` is one of the suite's tables rather than a measurement CSV: its header (tab or comma separated)
// names no `id` column and names `matrix_dim`, `num_elements` or `tflops_per_sec_p50`.
bool is_microbenchmark_table(std::string_view text);

// Reads the suite's table in `text` (from `file`). Throws InputError located at `FILE:LINE: column NAME` for a
// missing column or a bad value (`rule, got: VALUE`), at `FILE` for a benchmark it cannot name or does not read,
// and when a collective table has no slice or a row's ici_size differs from the slice's chips.
MicrobenchmarkTable read_microbenchmark_table(std::string_view text, const std::string& file,
                                              const MicrobenchmarkOptions& options);

}  // namespace podsim
