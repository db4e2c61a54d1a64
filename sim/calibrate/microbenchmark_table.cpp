// read_microbenchmark_table: the accelerator-microbenchmarks suite's result tables (microbenchmark_table.hpp) as
// measurement rows: the benchmark from the file name, each row's median time, and V worked out from matrix_dim.
#include "sim/calibrate/microbenchmark_table.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"
#include "sim/calibrate/csv_records.hpp"

namespace podsim {
namespace {

constexpr const char* kRead =
    "all_gather, psum, psum_scatter, all_to_all, single_chip_hbm_copy, single_host_naive_matmul";

std::string first_line(std::string_view text) {
  const std::size_t end = text.find('\n');
  std::string line(text.substr(0, end));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

char separator_of(std::string_view text) {
  return first_line(text).find('\t') != std::string::npos ? '\t' : ',';
}

// What a benchmark of the suite becomes.
struct BenchmarkKind {
  MeasurementKind kind = MeasurementKind::collective;
  CollectiveKind op = CollectiveKind::all_gather;
};

std::optional<BenchmarkKind> benchmark_kind(const std::string& name) {
  if (name == "all_gather") return BenchmarkKind{MeasurementKind::collective, CollectiveKind::all_gather};
  if (name == "psum") return BenchmarkKind{MeasurementKind::collective, CollectiveKind::all_reduce};
  if (name == "psum_scatter") return BenchmarkKind{MeasurementKind::collective, CollectiveKind::reduce_scatter};
  if (name == "all_to_all") return BenchmarkKind{MeasurementKind::collective, CollectiveKind::all_to_all};
  if (name == "single_chip_hbm_copy") return BenchmarkKind{MeasurementKind::copy, {}};
  if (name == "single_host_naive_matmul") return BenchmarkKind{MeasurementKind::matmul, {}};
  return std::nullopt;
}

// One row's cells by column name, errors located at `FILE:LINE: column NAME`.
class SuiteRow {
 public:
  SuiteRow(const std::string& file, const CsvRecord& record, const std::map<std::string, std::size_t>& columns)
      : file_(file), record_(record), columns_(columns) {}

  const std::string& text(const std::string& column) const { return record_.cells[columns_.at(column)]; }

  [[noreturn]] void fail(const std::string& column, const std::string& rule) const {
    const std::string& cell = text(column);
    throw InputError(where(), "column " + column + ": " + rule + ", got: " +
                                  cut_shown(cell.empty() ? std::string("an empty cell") : "\"" + cell + "\""));
  }

  std::int64_t positive_integer(const std::string& column) const {
    const std::string& cell = text(column);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(cell, &used);
    } catch (const std::exception&) {
      fail(column, "must be a positive integer");
    }
    if (used != cell.size() || value <= 0) fail(column, "must be a positive integer");
    return value;
  }

  double positive_number(const std::string& column) const {
    const std::string& cell = text(column);
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(cell, &used);
    } catch (const std::exception&) {
      fail(column, "must be a number > 0");
    }
    if (used != cell.size() || !(value > 0) || !std::isfinite(value)) fail(column, "must be a number > 0");
    return value;
  }

  // The suite's `dtype` column: the item size in bytes of bfloat16 (2) or float32 / int32 (4).
  DType dtype() const {
    const std::int64_t size = positive_integer("dtype");
    if (size == 2) return DType::bf16;
    if (size == 4) return DType::f32;
    fail("dtype", "the suite writes the item size in bytes: 2 (bfloat16) or 4 (float32, int32)");
  }

  std::string where() const { return file_ + ":" + std::to_string(record_.line); }
  int line() const { return record_.line; }

 private:
  const std::string& file_;
  const CsvRecord& record_;
  const std::map<std::string, std::size_t>& columns_;
};

// matrix_dim^2 x item size x copies, refusing what does not fit in 64 bits.
std::uint64_t array_bytes(const SuiteRow& row, std::int64_t dim, DType dtype, std::int64_t copies) {
  constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;
  if (dim > kMaxDim) row.fail("matrix_dim", "must be at most 2^24");
  return dtype_bytes(dtype, static_cast<std::uint64_t>(dim) * static_cast<std::uint64_t>(dim)) *
         static_cast<std::uint64_t>(copies);
}

std::vector<std::string> slice_axes(const Shape& slice) {
  static const char* const kNames[] = {"X", "Y", "Z"};
  std::vector<std::string> axes;
  for (std::size_t d = 0; d < slice.size() && d < 3; ++d)
    if (slice[d] > 1) axes.emplace_back(kNames[d]);
  return axes;
}

std::string benchmark_name(const std::string& file, const MicrobenchmarkOptions& options) {
  if (!options.benchmark.empty()) return options.benchmark;
  const std::string stem = std::filesystem::path(file).stem().string();
  static const std::regex kName("t_(.+)_[A-Z0-9]{10}");
  std::smatch match;
  if (!std::regex_match(stem, match, kName))
    throw InputError(file,
                     "the suite names a table t_BENCHMARK_XXXXXXXXXX.csv and its rows do not say the benchmark: "
                     "name it (--benchmark), got: " +
                         cut_shown(std::filesystem::path(file).filename().string()));
  return match[1].str();
}

}  // namespace

bool is_microbenchmark_table(std::string_view text) {
  const std::vector<CsvRecord> header = split_csv_records(first_line(text), "header", separator_of(text));
  if (header.empty()) return false;
  const std::set<std::string> names(header.front().cells.begin(), header.front().cells.end());
  if (names.count("id")) return false;
  return names.count("matrix_dim") || names.count("num_elements") || names.count("tflops_per_sec_p50");
}

MicrobenchmarkTable read_microbenchmark_table(std::string_view text, const std::string& file,
                                              const MicrobenchmarkOptions& options) {
  MicrobenchmarkTable table;
  table.benchmark = benchmark_name(file, options);
  if (table.benchmark == "ppermute")
    throw InputError(file, "benchmark ppermute: a collective permute is not a measurement podsim fits (reads: " +
                               std::string(kRead) + "), got: ppermute");
  const std::optional<BenchmarkKind> kind = benchmark_kind(table.benchmark);
  if (!kind)
    throw InputError(file, "benchmark: not one podsim calibrate reads (reads: " + std::string(kRead) +
                               "), got: " + cut_shown(table.benchmark));
  const std::vector<CsvRecord> records = split_csv_records(text, file, separator_of(text));
  if (records.empty()) throw InputError(file, "a table needs a header line, got: an empty file");
  const CsvRecord& header = records.front();
  std::map<std::string, std::size_t> columns;
  for (std::size_t i = 0; i < header.cells.size(); ++i)
    if (!columns.emplace(header.cells[i], i).second)
      throw InputError(file + ":" + std::to_string(header.line),
                       "column " + header.cells[i] + ": a column may appear once, got: it twice");
  std::vector<std::string> needed;
  switch (kind->kind) {
    case MeasurementKind::collective:
      needed = {"matrix_dim", "dtype", "ici_size", "ici_time_ms_p50"};
      break;
    case MeasurementKind::copy:
      needed = {"num_elements", "dtype", "time_ms_p50"};
      break;
    default:
      needed = {"m", "k", "n", "tflops_per_sec_p50"};
      break;
  }
  for (const std::string& column : needed)
    if (!columns.count(column))
      throw InputError(file + ":" + std::to_string(header.line),
                       "column " + column + ": a " + table.benchmark + " table needs it (the suite's tables with " +
                           "time statistics), got: " + cut_shown(std::to_string(header.cells.size()) + " columns"));
  if (kind->kind == MeasurementKind::collective && !options.slice)
    throw InputError(file, "the suite's " + table.benchmark +
                               " rows name no slice shape, only ici_size: give the slice they ran on (--slice), got: "
                               "none");
  std::set<std::string> ids;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.cells.size() != header.cells.size())
      throw InputError(file + ":" + std::to_string(record.line), "a row has as many fields as the header (" +
                                                                     std::to_string(header.cells.size()) +
                                                                     "), got: " + std::to_string(record.cells.size()));
    const SuiteRow row(file, record, columns);
    Measurement out;
    out.file = file;
    out.line = record.line;
    out.kind = kind->kind;
    out.source = "accelerator-microbenchmarks " + table.benchmark + ", " + row.where();
    const auto skip = [&](const std::string& why) { table.skipped.push_back(row.where() + ": " + why); };
    if (kind->kind == MeasurementKind::collective) {
      const std::int64_t ici_size = row.positive_integer("ici_size");
      if (columns.count("dcn_size") && !row.text("dcn_size").empty() && row.positive_integer("dcn_size") > 1)
        skip("the DCN measurement (dcn_size " + row.text("dcn_size") + "): podsim calibrate fits no DCN figure");
      if (ici_size == 1) {
        skip("ici_size 1: no ICI measurement");
        continue;
      }
      std::int64_t chips = 1;
      for (const std::int64_t d : *options.slice)
        chips *= d;
      if (chips != ici_size)
        row.fail("ici_size", "must equal the chips of the slice given (" + format_shape(*options.slice) + ": " +
                                 std::to_string(chips) + ")");
      const std::int64_t dim = row.positive_integer("matrix_dim");
      out.dtype = row.dtype();
      out.op = kind->op;
      out.slice = *options.slice;
      out.axes = slice_axes(out.slice);
      out.bytes = array_bytes(row, dim, out.dtype, kind->op == CollectiveKind::all_to_all ? ici_size : 1);
      out.measured = row.positive_number("ici_time_ms_p50") * 1e-3;
      out.id = table.benchmark + "-ici-" + std::to_string(dim);
      out.quote = "ici_time_ms_p50 " + row.text("ici_time_ms_p50");
    } else if (kind->kind == MeasurementKind::copy) {
      const std::int64_t elements = row.positive_integer("num_elements");
      out.bytes = dtype_bytes(row.dtype(), static_cast<std::uint64_t>(elements));
      out.measured = row.positive_number("time_ms_p50") * 1e-3;
      out.id = table.benchmark + "-" + std::to_string(elements);
      out.quote = "time_ms_p50 " + row.text("time_ms_p50");
    } else {
      out.m = row.positive_integer("m");
      out.k = row.positive_integer("k");
      out.n = row.positive_integer("n");
      out.dtype = DType::bf16;
      const long double flops = 2.0L * out.m * out.k * out.n;
      out.measured = static_cast<double>(flops / (row.positive_number("tflops_per_sec_p50") * 1e12L));
      out.id =
          table.benchmark + "-" + std::to_string(out.m) + "x" + std::to_string(out.k) + "x" + std::to_string(out.n);
      out.quote = "tflops_per_sec_p50 " + row.text("tflops_per_sec_p50");
    }
    if (!ids.insert(out.id).second) out.id += "-line" + std::to_string(record.line);
    ids.insert(out.id);
    table.rows.push_back(std::move(out));
  }
  return table;
}

}  // namespace podsim
