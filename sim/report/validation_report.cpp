// `podsim validate`'s JSON, text and Markdown (validation_report.hpp).
#include "sim/report/validation_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "models/common/join.hpp"
#include "models/common/units.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

constexpr double kNoteBeyond = 0.10;  // rows the calibrated des misses by more than this get their note shown

const char* kind_name(MeasurementKind kind) {
  switch (kind) {
    case MeasurementKind::collective:
      return "collective";
    case MeasurementKind::matmul:
      return "matmul";
    case MeasurementKind::copy:
      return "copy";
    case MeasurementKind::scenario:
      return "scenario";
    case MeasurementKind::serving:
      return "serving";
  }
  return "collective";
}

const char* quantity_name(MeasuredQuantity quantity) {
  switch (quantity) {
    case MeasuredQuantity::time_s:
      return "time_s";
    case MeasuredQuantity::mfu:
      return "mfu";
    case MeasuredQuantity::per_s:
      return "per_s";
  }
  return "time_s";
}

std::string percent(double fraction, const char* format) {
  char text[32];
  std::snprintf(text, sizeof(text), format, fraction * 100.0);
  return text;
}

// A measured or predicted value as people read it: a duration, an MFU in percent, or a serving throughput with its
// unit (requests or output tokens per second).
std::string value_text(const ValidationRow& row, double value) {
  if (row.measurement.quantity == MeasuredQuantity::mfu) return percent(value, "%.1f%%");
  if (row.measurement.quantity == MeasuredQuantity::per_s) {
    char text[48];
    const char* unit = row.measurement.figure.family == ServingFigure::Family::requests_per_s ? "req/s" : "tok/s";
    std::snprintf(text, sizeof(text), value < 100 ? "%.3g %s" : "%.0f %s", value, unit);
    return text;
  }
  return format_seconds(value);
}

std::string error_text(double error) {
  return percent(error, "%+.1f%%");
}

double error_of(const ValidationRow& row, double predicted) {
  return relative_error(predicted, row.measurement.measured);
}

// The rows grouped by file, in the order the files were read.
std::vector<std::pair<std::string, std::vector<const ValidationRow*>>> by_file(const std::vector<ValidationRow>& rows) {
  std::vector<std::pair<std::string, std::vector<const ValidationRow*>>> groups;
  for (const auto& row : rows) {
    if (groups.empty() || groups.back().first != row.measurement.file) groups.push_back({row.measurement.file, {}});
    groups.back().second.push_back(&row);
  }
  return groups;
}

std::string summary_cell(const ErrorSummary& s) {
  if (s.count == 0) return "-";
  return percent(s.mean_abs, "%.1f%%") + " / " + percent(s.max_abs, "%.1f%%");
}

nlohmann::json summary_json(const ErrorSummary& s) {
  return {{"rows", s.count}, {"mean_abs_error", s.mean_abs}, {"max_abs_error", s.max_abs}};
}

// Rows whose calibrated des misses the measurement by more than kNoteBeyond.
std::vector<const ValidationRow*> beyond(const std::vector<ValidationRow>& rows) {
  std::vector<const ValidationRow*> out;
  for (const auto& row : rows)
    if (std::fabs(error_of(row, row.des_calibrated)) > kNoteBeyond) out.push_back(&row);
  return out;
}

std::string markdown_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace

ErrorSummary summarise_errors(const std::vector<ValidationRow>& rows, bool fitted, bool calibrated) {
  ErrorSummary s;
  double sum = 0;
  for (const auto& row : rows) {
    if (row.measurement.fit != fitted) continue;
    const double e = std::fabs(error_of(row, calibrated ? row.des_calibrated : row.des_uncalibrated));
    ++s.count;
    sum += e;
    s.max_abs = std::max(s.max_abs, e);
  }
  if (s.count > 0) s.mean_abs = sum / static_cast<double>(s.count);
  return s;
}

namespace {

// "yes", "NO" (a run that ran must fit: podsim's memory count is wrong) or "-" (not a scenario row).
std::string fits_text(const ValidationRow& row) {
  if (!row.fits_hbm) return "-";
  return *row.fits_hbm ? "yes" : "NO";
}

}  // namespace

nlohmann::json validation_json(const std::vector<ValidationRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : rows) {
    const Measurement& m = row.measurement;
    list.push_back({{"id", m.id},
                    {"source", m.source},
                    {"quantity", quantity_name(m.quantity)},
                    {"measured", m.measured},
                    {"book", row.book},
                    {"des_uncalibrated", row.des_uncalibrated},
                    {"des_calibrated", row.des_calibrated},
                    {"error_calibrated", error_of(row, row.des_calibrated)},
                    {"fitted", m.fit},
                    {"file", m.file},
                    {"line", m.line},
                    {"kind", kind_name(m.kind)},
                    {"hardware", row.hardware},
                    {"calibrated", row.has_calibration},
                    {"error_book", error_of(row, row.book)},
                    {"error_uncalibrated", error_of(row, row.des_uncalibrated)},
                    {"note", row.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.note)},
                    {"fits_hbm", row.fits_hbm ? nlohmann::json(*row.fits_hbm) : nlohmann::json(nullptr)},
                    {"metric", m.kind == MeasurementKind::serving ? nlohmann::json(serving_figure_name(m.figure))
                                                                  : nlohmann::json(nullptr)},
                    {"quote", m.quote}});
  }
  nlohmann::json summary = {{"fitted",
                             {{"calibrated", summary_json(summarise_errors(rows, true, true))},
                              {"uncalibrated", summary_json(summarise_errors(rows, true, false))}}},
                            {"held_out",
                             {{"calibrated", summary_json(summarise_errors(rows, false, true))},
                              {"uncalibrated", summary_json(summarise_errors(rows, false, false))}}}};
  return {{"schema", "podsim/1"}, {"rows", std::move(list)}, {"summary", std::move(summary)}};
}

std::string validation_text(const std::vector<ValidationRow>& rows) {
  std::ostringstream out;
  using A = TextTable::Align;
  for (const auto& [file, group] : by_file(rows)) {
    out << file << "\n";
    TextTable table(
        {"id", "hardware", "measured", "book", "des uncal", "des cal", "err book", "err uncal", "err cal", "fit",
         "fits HBM"},
        {A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left, A::left});
    for (const ValidationRow* row : group)
      table.add_row({row->measurement.id, row->hardware, value_text(*row, row->measurement.measured),
                     value_text(*row, row->book), value_text(*row, row->des_uncalibrated),
                     row->has_calibration ? value_text(*row, row->des_calibrated) : "= uncal",
                     error_text(error_of(*row, row->book)), error_text(error_of(*row, row->des_uncalibrated)),
                     error_text(error_of(*row, row->des_calibrated)), row->measurement.fit ? "yes" : "held out",
                     fits_text(*row)});
    out << table.render("  ") << "\n";
  }
  TextTable summary({"rows", "count", "des cal |err| mean / max", "des uncal |err| mean / max"},
                    {A::left, A::right, A::right, A::right});
  for (const bool fitted : {true, false})
    summary.add_row({fitted ? "fitted" : "held out", std::to_string(summarise_errors(rows, fitted, true).count),
                     summary_cell(summarise_errors(rows, fitted, true)),
                     summary_cell(summarise_errors(rows, fitted, false))});
  out << "errors\n" << summary.render("  ");
  const auto missed = beyond(rows);
  if (!missed.empty()) {
    out << "\nbeyond 10% (calibrated des):\n";
    for (const ValidationRow* row : missed)
      out << "  "
          << wrapped(row->measurement.id + " (" + error_text(error_of(*row, row->des_calibrated)) +
                         "): " + (row->note.empty() ? "no note" : row->note),
                     108, 4);
  }
  bool any_uncalibrated = false;
  for (const auto& row : rows)
    any_uncalibrated = any_uncalibrated || !row.has_calibration;
  if (any_uncalibrated)
    out << "\n\"= uncal\": the preset carries no calibration, so the calibrated des is the uncalibrated one.\n";
  return out.str();
}

std::string validation_markdown(const std::vector<ValidationRow>& rows, const std::vector<std::string>& dirs) {
  std::ostringstream out;
  out << "# Validation: podsim against published TPU measurements\n\n";
  if (dirs.empty())
    out << "<!-- Generated by `./build/podsim validate --markdown > docs/validation.md` (run from the repository "
           "root);\n     do not edit by hand: the test ValidateDoc.CommittedPageMatchesTheCommand fails when this file "
           "and the command's output differ. -->\n\n";
  else
    out << "<!-- Generated by `./build/podsim validate " << join(dirs, " ")
        << " --markdown` (run from the repository root);\n     do not edit by hand: regenerate it with the same "
           "command. -->\n\n";
  out << "Every figure below was measured on a real TPU and published; `podsim validate` reads them from the CSV "
         "files of\n[validation/](../validation/) (one per source, the format in "
         "`sim/calibrate/measurement.hpp`) and predicts each one three\nways:\n\n"
         "- **book**: the closed form (the scaling book's formulas; never calibrated);\n"
         "- **des uncalibrated**: the discrete-event simulation with the preset's nominal figures;\n"
         "- **des calibrated**: the same with the preset's `calibration` (per-hop latency, a fixed cost per "
         "collective step,\n  achieved link, MXU, HBM and attention-kernel efficiency; "
         "`models/hardware/calibration.hpp`).\n  A preset "
         "without one gives the uncalibrated figure again (marked \"= uncal.\").\n\n"
         "The error is predicted / measured - 1. Rows marked **fit** are the ones a calibration may be fitted on "
         "(`podsim\ncalibrate`); the **held-out** rows are never fitted on, so their error is the honest one (which "
         "rows, and why:\n"
         "[validation/README.md](../validation/README.md)). "
         "Scenario rows run a\nscenario of the repository (its step time, or a model-level scenario's MFU: model "
         "FLOPs per step over chips x\npeak bf16 FLOP/s x step time, attention counted without the causal halving). "
         "Their "
         "**fits HBM** column says\nwhether podsim's memory count of the scenario's plan fits the chip's HBM: every "
         "row is a run that ran, so it\nmust (`NO` marks a wrong memory count; `--json` rows have `fits_hbm`, null "
         "for the other rows).\n\n";
  const bool any_serving = std::any_of(rows.begin(), rows.end(), [](const ValidationRow& row) {
    return row.measurement.kind == MeasurementKind::serving;
  });
  if (any_serving)
    out << "Serving rows run a serving scenario as `podsim serve` does (`sim/capacity/serving_run.hpp`): its traffic "
           "through its\nreplicas, each step timed by the step model of docs/serving-step-model.md built from the book "
           "(`--model book`),\nfrom the des (`--model des --uncalibrated`) and from the calibrated des (`--model "
           "des`); the row compares the figure\nit names (in parentheses in its source line: its path in `podsim serve "
           "--json`, e.g. `ttft_s.p50`). Their\nlatencies are the server's, from a request's arrival; a throughput is "
           "in requests or output tokens per second.\nTheir fits HBM is yes when the replica's weights and largest "
           "step "
           "leave room for a KV cache (a run refuses one\nthat does not).\n\n";
  out << "```\n./build/podsim validate                 # the table\n"
         "./build/podsim validate --json          # {\"schema\": \"podsim/1\", \"rows\": [...]}\n"
         "./build/podsim validate --rows ID,ID    # some rows\n```\n\n";
  for (const auto& [file, group] : by_file(rows)) {
    out << "## " << file << "\n\n";
    out << "| id | hardware | measured | book | des uncalibrated | des calibrated | error book | error uncalibrated "
           "| "
           "error calibrated | fit | fits HBM |\n";
    out << "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
    for (const ValidationRow* row : group)
      out << "| `" << row->measurement.id << "` | " << row->hardware << " | "
          << value_text(*row, row->measurement.measured) << " | " << value_text(*row, row->book) << " | "
          << value_text(*row, row->des_uncalibrated) << " | "
          << (row->has_calibration ? value_text(*row, row->des_calibrated) : "= uncal.") << " | "
          << error_text(error_of(*row, row->book)) << " | " << error_text(error_of(*row, row->des_uncalibrated))
          << " | " << error_text(error_of(*row, row->des_calibrated)) << " | "
          << (row->measurement.fit ? "fit" : "held out") << " | " << fits_text(*row) << " |\n";
    out << "\nSources (and, in italics, the row's note: why it is fitted or held out, what the model lacks):\n\n";
    for (const ValidationRow* row : group) {
      out << "- `" << row->measurement.id << "`";
      if (row->measurement.kind == MeasurementKind::serving)
        out << " (`" << serving_figure_name(row->measurement.figure) << "`)";
      out << ": " << markdown_cell(row->measurement.source) << ": \"" << markdown_cell(row->measurement.quote) << "\"";
      if (!row->note.empty()) out << " *" << markdown_cell(row->note) << "*";
      out << "\n";
    }
    out << "\n";
  }
  out << "## Held-out summary\n\n";
  out << "| rows | count | des calibrated: mean / max \\|error\\| | des uncalibrated: mean / max \\|error\\| |\n";
  out << "|---|---:|---:|---:|\n";
  for (const bool fitted : {true, false})
    out << "| " << (fitted ? "fit" : "held out") << " | " << summarise_errors(rows, fitted, true).count << " | "
        << summary_cell(summarise_errors(rows, fitted, true)) << " | "
        << summary_cell(summarise_errors(rows, fitted, false)) << " |\n";
  out << "\n## Rows beyond 10%: what the model lacks\n\n";
  const auto missed = beyond(rows);
  if (missed.empty()) out << "None: the calibrated des is within 10% of every row.\n";
  for (const ValidationRow* row : missed)
    out << "- `" << row->measurement.id << "` (" << error_text(error_of(*row, row->des_calibrated))
        << "): " << markdown_cell(row->note.empty() ? "no note yet" : row->note) << "\n";
  return out.str();
}

}  // namespace podsim::report
