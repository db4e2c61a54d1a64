// read_measurements: the measurement CSV (sim/calibrate/measurement.hpp) into typed rows. RFC 4180 records first
// (csv_records.hpp), then each row's cells by header name, each located at
// `FILE:LINE: column NAME`.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"
#include "models/common/units.hpp"
#include "sim/calibrate/csv_records.hpp"
#include "sim/calibrate/measurement.hpp"

namespace podsim {
namespace {

constexpr std::array<const char*, 20> kColumns{"id",       "kind",  "quantity", "measured", "hardware", "op",   "slice",
                                               "axes",     "bytes", "wrap",     "dtype",    "m",        "k",    "n",
                                               "scenario", "plan",  "metric",   "fit",      "source",   "quote"};

// The columns each kind needs and may use (beyond id, kind, measured, hardware, fit, source, quote).
struct KindColumns {
  std::vector<std::string> needs;
  std::vector<std::string> may;
};

KindColumns columns_of(MeasurementKind kind) {
  switch (kind) {
    case MeasurementKind::collective:
      return {{"op", "slice", "axes", "bytes"}, {"wrap", "dtype"}};
    case MeasurementKind::matmul:
      return {{"m", "k", "n"}, {"dtype"}};
    case MeasurementKind::copy:
      return {{"bytes"}, {}};
    case MeasurementKind::scenario:
      return {{"scenario"}, {"plan", "quantity"}};
    case MeasurementKind::serving:
      return {{"scenario", "metric"}, {"plan"}};
  }
  return {};
}

// The cells of one row by column name, and errors located at the row.
class Row {
 public:
  Row(const std::string& file, const CsvRecord& record, const std::map<std::string, std::size_t>& columns)
      : file_(file), record_(record), columns_(columns) {}

  // The cell's text ("" when the column is absent).
  std::string text(const std::string& column) const {
    const auto found = columns_.find(column);
    return found == columns_.end() ? std::string() : record_.cells[found->second];
  }
  bool given(const std::string& column) const { return !text(column).empty(); }

  [[noreturn]] void fail(const std::string& column, const std::string& rule) const {
    throw InputError(csv_where(file_, record_.line),
                     "column " + column + ": " + rule + ", got: " + cut_shown(quoted(text(column))));
  }
  [[noreturn]] void fail_with(const std::string& column, const std::string& rule, const std::string& got) const {
    throw InputError(csv_where(file_, record_.line), "column " + column + ": " + rule + ", got: " + cut_shown(got));
  }

  // Runs `parse` on the cell; a podsim::Error becomes `column NAME: its message`.
  template <typename Parse>
  auto parsed(const std::string& column, Parse&& parse) const -> decltype(parse(std::string())) {
    const std::string cell = text(column);
    try {
      return parse(cell);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      // The parsers echo the whole text after ", got: ": echo the cell cut instead (and cut a rule that quotes it).
      std::string rule = e.what();
      const std::size_t got = rule.find(", got: ");
      if (got != std::string::npos) rule.resize(got);
      if (rule.size() > 2 * kShownMaxChars) rule = cut_shown(rule);
      fail(column, rule);
    }
  }

  std::int64_t positive_integer(const std::string& column) const {
    const std::string cell = text(column);
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

  int line() const { return record_.line; }

 private:
  static std::string quoted(const std::string& text) { return text.empty() ? "an empty cell" : "\"" + text + "\""; }

  const std::string& file_;
  const CsvRecord& record_;
  const std::map<std::string, std::size_t>& columns_;
};

MeasurementKind parse_kind(const Row& row) {
  const std::string kind = row.text("kind");
  if (kind == "collective") return MeasurementKind::collective;
  if (kind == "matmul") return MeasurementKind::matmul;
  if (kind == "copy") return MeasurementKind::copy;
  if (kind == "scenario") return MeasurementKind::scenario;
  if (kind == "serving") return MeasurementKind::serving;
  row.fail("kind", "must be one of collective, matmul, copy, scenario, serving");
}

std::vector<std::string> parse_axes(const Row& row) {
  std::vector<std::string> axes;
  const std::string text = row.text("axes");
  std::size_t from = 0;
  while (true) {
    const std::size_t plus = text.find('+', from);
    std::string axis = text.substr(from, plus == std::string::npos ? std::string::npos : plus - from);
    if (axis.empty() || axis.find_first_of(" \t") != std::string::npos)
      row.fail("axes", "mesh axes are names joined by '+' (e.g. X or X+Y)");
    if (std::find(axes.begin(), axes.end(), axis) != axes.end()) row.fail("axes", "an axis may appear once");
    axes.push_back(std::move(axis));
    if (plus == std::string::npos) break;
    from = plus + 1;
  }
  return axes;
}

double parse_measured(const Row& row, MeasuredQuantity quantity) {
  const std::string text = row.text("measured");
  if (text.empty()) row.fail("measured", "every row needs its measured value");
  double value = 0;
  if (quantity == MeasuredQuantity::time_s) {
    value = row.parsed("measured", [](const std::string& cell) { return parse_duration(cell); });
    if (!(value > 0) || !std::isfinite(value)) row.fail("measured", "a measured time must be > 0 s");
    return value;
  }
  if (quantity == MeasuredQuantity::per_s) {
    std::size_t used = 0;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(value) || !(value > 0))
      row.fail("measured", "a measured throughput is a number per second > 0 (e.g. 2494.8)");
    return value;
  }
  const bool percent = text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  std::size_t used = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != number.size()) row.fail("measured", "an mfu is a fraction (0.462) or a percentage (46.2%)");
  if (percent) value /= 100;
  if (!(value > 0 && value <= 1)) row.fail("measured", "an mfu must be in (0, 1] (or (0%, 100%])");
  return value;
}

Measurement parse_row(const Row& row, const std::string& file) {
  Measurement out;
  out.file = file;
  out.line = row.line();
  out.id = row.text("id");
  if (out.id.empty()) row.fail("id", "every row needs an id");
  out.kind = parse_kind(row);
  const KindColumns kind_columns = columns_of(out.kind);
  for (const char* column :
       {"quantity", "op", "slice", "axes", "bytes", "wrap", "dtype", "m", "k", "n", "scenario", "plan", "metric"}) {
    const bool needed = std::count(kind_columns.needs.begin(), kind_columns.needs.end(), column) > 0;
    const bool may = std::count(kind_columns.may.begin(), kind_columns.may.end(), column) > 0;
    const std::string kind_name = row.text("kind");
    if (needed && !row.given(column)) row.fail(column, "a " + kind_name + " row needs it");
    if (!needed && !may && row.given(column)) row.fail(column, "a " + kind_name + " row does not use it");
  }
  if (row.given("quantity")) {
    const std::string quantity = row.text("quantity");
    if (quantity == "mfu")
      out.quantity = MeasuredQuantity::mfu;
    else if (quantity != "time_s")
      row.fail("quantity", "must be time_s or mfu");
  }
  if (out.kind == MeasurementKind::serving) {
    const std::optional<ServingFigure> figure = parse_serving_figure(row.text("metric"));
    if (!figure)
      row.fail("metric",
               "must be a figure of podsim serve --json: throughput.requests_per_s, throughput.output_tokens_per_s, "
               "or ttft_s, tpot_s, itl_s, e2e_s with .mean, .p50, .p90 or .p99");
    out.figure = *figure;
    out.quantity = serving_figure_quantity(*figure);
  }
  out.measured = parse_measured(row, out.quantity);
  out.hardware = row.text("hardware");
  if (row.given("dtype")) out.dtype = row.parsed("dtype", [](const std::string& cell) { return parse_dtype(cell); });
  switch (out.kind) {
    case MeasurementKind::collective: {
      out.op = row.parsed("op", [](const std::string& cell) { return parse_collective_kind(cell); });
      out.slice = row.parsed("slice", [](const std::string& cell) { return parse_shape(cell); });
      if (row.given("wrap"))
        out.wrap = row.parsed("wrap", [&](const std::string& cell) { return parse_wrap_choice(cell, out.slice); });
      out.axes = parse_axes(row);
      out.bytes = row.parsed("bytes", [](const std::string& cell) { return parse_bytes(cell); });
      if (out.bytes == 0) row.fail("bytes", "a collective moves at least 1 byte");
      break;
    }
    case MeasurementKind::matmul:
      out.m = row.positive_integer("m");
      out.k = row.positive_integer("k");
      out.n = row.positive_integer("n");
      break;
    case MeasurementKind::copy:
      out.bytes = row.parsed("bytes", [](const std::string& cell) { return parse_bytes(cell); });
      if (out.bytes == 0) row.fail("bytes", "a copy moves at least 1 byte");
      break;
    case MeasurementKind::scenario:
    case MeasurementKind::serving: {
      const std::filesystem::path folder = std::filesystem::path(file).parent_path();
      out.scenario = (folder / row.text("scenario")).lexically_normal().string();
      out.plan = row.text("plan");
      break;
    }
  }
  if (out.quantity == MeasuredQuantity::mfu && out.kind != MeasurementKind::scenario)
    row.fail("quantity", "mfu is a scenario row's quantity");
  const std::string fit = row.text("fit");
  if (fit == "no")
    out.fit = false;
  else if (!fit.empty() && fit != "yes")
    row.fail("fit", "must be yes or no");
  out.source = row.text("source");
  out.quote = row.text("quote");
  return out;
}

}  // namespace

namespace {

using Family = ServingFigure::Family;
using Statistic = ServingFigure::Statistic;

constexpr std::array<std::pair<Family, const char*>, 6> kFamilies{
    {{Family::requests_per_s, "throughput.requests_per_s"},
     {Family::output_tokens_per_s, "throughput.output_tokens_per_s"},
     {Family::ttft, "ttft_s"},
     {Family::tpot, "tpot_s"},
     {Family::itl, "itl_s"},
     {Family::e2e, "e2e_s"}}};
constexpr std::array<std::pair<Statistic, const char*>, 4> kStatistics{
    {{Statistic::mean, "mean"}, {Statistic::p50, "p50"}, {Statistic::p90, "p90"}, {Statistic::p99, "p99"}}};

bool is_throughput(Family family) {
  return family == Family::requests_per_s || family == Family::output_tokens_per_s;
}

}  // namespace

std::string serving_figure_name(const ServingFigure& figure) {
  std::string name;
  for (const auto& [family, text] : kFamilies)
    if (family == figure.family) name = text;
  if (is_throughput(figure.family)) return name;
  for (const auto& [statistic, text] : kStatistics)
    if (statistic == figure.statistic) return name + "." + text;
  return name;
}

std::optional<ServingFigure> parse_serving_figure(std::string_view text) {
  for (const auto& [family, name] : kFamilies) {
    ServingFigure figure;
    figure.family = family;
    if (is_throughput(family)) {
      if (text == name) return figure;
      continue;
    }
    for (const auto& [statistic, key] : kStatistics)
      if (text == std::string(name) + "." + key) {
        figure.statistic = statistic;
        return figure;
      }
  }
  return std::nullopt;
}

MeasuredQuantity serving_figure_quantity(const ServingFigure& figure) {
  return is_throughput(figure.family) ? MeasuredQuantity::per_s : MeasuredQuantity::time_s;
}

bool predicted_by_validate(MeasurementKind kind) {
  return kind == MeasurementKind::scenario || kind == MeasurementKind::serving;
}

std::vector<Measurement> read_measurements(std::string_view text, const std::string& file) {
  const std::vector<CsvRecord> records = split_csv_records(text, file);
  if (records.empty()) throw InputError(file, "a measurement CSV needs a header line, got: an empty file");
  const CsvRecord& header = records.front();
  std::map<std::string, std::size_t> columns;
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string& name = header.cells[i];
    if (std::find(kColumns.begin(), kColumns.end(), name) == kColumns.end())
      throw InputError(csv_where(file, header.line),
                       "column " + std::to_string(i + 1) +
                           ": unknown column (known: id, kind, quantity, measured, hardware, op, slice, axes, bytes, "
                           "wrap, dtype, m, k, n, scenario, plan, metric, fit, source, quote), got: " +
                           cut_shown(name.empty() ? "an empty name" : name));
    if (!columns.emplace(name, i).second)
      throw InputError(csv_where(file, header.line), "column " + name + ": a column may appear once, got: it twice");
  }
  for (const char* required : {"id", "kind", "measured"})
    if (!columns.count(required))
      throw InputError(csv_where(file, header.line), std::string("column ") + required +
                                                         ": the header must name it, got: " +
                                                         cut_shown(std::to_string(header.cells.size()) + " columns"));
  std::vector<Measurement> rows;
  std::set<std::string> ids;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.cells.size() != header.cells.size())
      throw InputError(csv_where(file, record.line), "a row has as many fields as the header (" +
                                                         std::to_string(header.cells.size()) +
                                                         "), got: " + std::to_string(record.cells.size()));
    const Row row(file, record, columns);
    Measurement measurement = parse_row(row, file);
    if (!ids.insert(measurement.id).second) row.fail("id", "ids must be unique in the file");
    rows.push_back(std::move(measurement));
  }
  return rows;
}

}  // namespace podsim
