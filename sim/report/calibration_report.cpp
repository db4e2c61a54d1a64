// `podsim calibrate`'s report and overlay.
#include "sim/report/calibration_report.hpp"

#include <fmt/format.h>

#include "models/common/join.hpp"
#include "models/common/units.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;

// The fit rows whose bound makes them rest on `figure`.
std::vector<std::string> rows_of(const CalibrationFit& fit, const std::string& figure) {
  std::vector<std::string> ids;
  for (const FittedRow& row : fit.rows) {
    if (!row.row.fit) continue;
    const bool collective = row.row.kind == MeasurementKind::collective;
    if ((figure == "collective_step_s" && collective && row.bound == Bound::latency) ||
        (figure == "link_efficiency" && collective && row.bound == Bound::bandwidth) ||
        (figure == "mxu_efficiency" && row.bound == Bound::compute) ||
        (figure == "hbm_efficiency" && !collective && row.bound == Bound::memory))
      ids.push_back(row.row.id);
  }
  return ids;
}

std::string source_of(const CalibrationFit& fit, const std::string& figure) {
  return "CAL rows " + join(rows_of(fit, figure), ", ");
}

bool fitted(const CalibrationFit& fit, const std::string& figure) {
  return std::find(fit.fitted.begin(), fit.fitted.end(), figure) != fit.fitted.end();
}

json curve_json(const std::vector<EfficiencyPoint>& curve) {
  json points = json::array();
  for (const EfficiencyPoint& point : curve)
    points.push_back({{"at", point.at}, {"efficiency", point.efficiency}});
  return points;
}

// The overlay's calibration section: the fitted figures only.
json calibration_section(const CalibrationFit& fit) {
  const Calibration& c = fit.calibration;
  json section = json::object();
  if (fitted(fit, "collective_step_s"))
    section["collective_step_s"] = {{"value", c.collective_step_s}, {"source", source_of(fit, "collective_step_s")}};
  if (fitted(fit, "link_efficiency"))
    section["link_efficiency"] = {
        {"points", curve_json(c.link_efficiency)},
        {"source", source_of(fit, "link_efficiency")},
        {"note", fmt::format("bytes of one message; fitted over {} to {}, held flat beyond",
                             format_bytes(fit.link_range->first), format_bytes(fit.link_range->second))}};
  if (fitted(fit, "mxu_efficiency"))
    section["mxu_efficiency"] = {
        {"points", curve_json(c.mxu_efficiency)},
        {"source", source_of(fit, "mxu_efficiency")},
        {"note", fmt::format("FLOPs of one matmul; fitted over {} to {}, held flat beyond",
                             format_number(fit.mxu_range->first), format_number(fit.mxu_range->second))}};
  if (fitted(fit, "hbm_efficiency"))
    section["hbm_efficiency"] = {
        {"points", curve_json(c.hbm_efficiency)},
        {"source", source_of(fit, "hbm_efficiency")},
        {"note", fmt::format("bytes one step reads and writes in HBM; fitted over {} to {}, held flat beyond",
                             format_bytes(fit.hbm_range->first), format_bytes(fit.hbm_range->second))}};
  return section;
}

std::string signed_percent(double fraction) {
  return fmt::format("{:+.1f}%", 100 * fraction);
}

std::string rows_table(const CalibrationFit& fit, bool fit_rows) {
  TextTable table(
      {"row", "kind", "bound", "measured", "book", "des before", "des after", "error before", "error after", ""},
      {TextTable::Align::left, TextTable::Align::left, TextTable::Align::left, TextTable::Align::right,
       TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
       TextTable::Align::right, TextTable::Align::left});
  bool any = false;
  for (const FittedRow& row : fit.rows) {
    if (row.row.fit != fit_rows) continue;
    any = true;
    const std::string kind = row.row.kind == MeasurementKind::collective ? "collective"
                             : row.row.kind == MeasurementKind::matmul   ? "matmul"
                                                                         : "copy";
    table.add_row({row.row.id, kind, std::string(bound_name(row.bound)), format_seconds(row.row.measured),
                   format_seconds(row.book), format_seconds(row.before), format_seconds(row.after),
                   signed_percent(row.error_before()), signed_percent(row.error_after()),
                   row.outside_range ? "outside the fitted range (curve held flat)" : ""});
  }
  return any ? table.render("  ") : "  (none)\n";
}

}  // namespace

std::string calibration_fit_text(const CalibrationFit& fit, const std::string& csv, const std::string& hardware) {
  std::size_t fit_rows = 0;
  for (const FittedRow& row : fit.rows)
    fit_rows += row.row.fit ? 1 : 0;
  std::string out = fmt::format("calibrate {} on {}: {} fit rows, {} held out; Levenberg-Marquardt, {} iterations\n",
                                hardware, csv, fit_rows, fit.rows.size() - fit_rows, fit.iterations);
  out += "fitted:\n";
  const Calibration& c = fit.calibration;
  if (fitted(fit, "collective_step_s"))
    out += fmt::format("  collective_step_s  {} per step (transfer)        rows {}\n",
                       format_seconds(c.collective_step_s), join(rows_of(fit, "collective_step_s"), ", "));
  if (fitted(fit, "link_efficiency")) {
    std::vector<std::string> points;
    for (const EfficiencyPoint& p : c.link_efficiency)
      points.push_back(fmt::format("{:.4f} at {}", p.efficiency, format_bytes(p.at)));
    out += fmt::format("  link_efficiency    {}  rows {}; holds over {} to {} per message\n", join(points, ", "),
                       join(rows_of(fit, "link_efficiency"), ", "), format_bytes(fit.link_range->first),
                       format_bytes(fit.link_range->second));
  }
  if (fitted(fit, "mxu_efficiency")) {
    std::vector<std::string> points;
    for (const EfficiencyPoint& p : c.mxu_efficiency)
      points.push_back(fmt::format("{:.4f} at {} FLOPs", p.efficiency, format_number(p.at)));
    out += fmt::format("  mxu_efficiency     {}  rows {}; holds over {} to {} FLOPs per matmul\n", join(points, ", "),
                       join(rows_of(fit, "mxu_efficiency"), ", "), format_number(fit.mxu_range->first),
                       format_number(fit.mxu_range->second));
  }
  if (fitted(fit, "hbm_efficiency")) {
    std::vector<std::string> points;
    for (const EfficiencyPoint& p : c.hbm_efficiency)
      points.push_back(fmt::format("{:.4f} at {}", p.efficiency, format_bytes(p.at)));
    out += fmt::format("  hbm_efficiency     {}  rows {}; holds over {} to {} read and written per step\n",
                       join(points, ", "), join(rows_of(fit, "hbm_efficiency"), ", "),
                       format_bytes(fit.hbm_range->first), format_bytes(fit.hbm_range->second));
  }
  // An efficiency can only lower a nominal figure: one held at 1 means the rows there ran faster than the preset's
  // figure allows, which calibration cannot express. Say so rather than leave the error unexplained.
  const auto at_bound = [](const std::vector<EfficiencyPoint>& curve, auto format) {
    std::vector<std::string> where;
    for (const EfficiencyPoint& p : curve)
      if (p.efficiency >= 1.0) where.push_back(format(p.at));
    return where;
  };
  const auto bytes = [](double at) { return format_bytes(at); };
  const auto flops = [](double at) { return format_number(at); };
  if (const auto where = at_bound(c.link_efficiency, bytes); fitted(fit, "link_efficiency") && !where.empty())
    out += fmt::format(
        "  note: link_efficiency is at its bound 1 at {}: those rows ran faster than the preset's link bandwidth "
        "allows; check the preset's ICI figures, the slice's wraparound and the measurement\n",
        join(where, ", "));
  if (const auto where = at_bound(c.mxu_efficiency, flops); fitted(fit, "mxu_efficiency") && !where.empty())
    out += fmt::format(
        "  note: mxu_efficiency is at its bound 1 at {} FLOPs: those rows ran faster than the preset's peak allows; "
        "check the preset's peak FLOP/s and the measurement\n",
        join(where, ", "));
  if (const auto where = at_bound(c.hbm_efficiency, bytes); fitted(fit, "hbm_efficiency") && !where.empty())
    out += fmt::format(
        "  note: hbm_efficiency is at its bound 1 at {}: those rows ran faster than the preset's HBM bandwidth "
        "allows\n",
        join(where, ", "));
  out += "not fitted (the preset's figures stay):\n";
  for (const UnfittedFigure& figure : fit.unfitted)
    out += fmt::format("  {}: {}\n", figure.figure, figure.reason);
  out += "fit rows:\n" + rows_table(fit, true);
  out += "held-out rows:\n" + rows_table(fit, false);
  out += fmt::format("rms relative error of the fit rows: {:.1f}% before, {:.1f}% after\n", 100 * fit.rms_before,
                     100 * fit.rms_after);
  return out;
}

json calibration_fit_json(const CalibrationFit& fit, const std::string& hardware) {
  json unfitted = json::array();
  for (const UnfittedFigure& figure : fit.unfitted)
    unfitted.push_back({{"figure", figure.figure}, {"reason", figure.reason}});
  json rows = json::array();
  for (const FittedRow& row : fit.rows)
    rows.push_back({{"id", row.row.id},
                    {"fit", row.row.fit},
                    {"bound", bound_name(row.bound)},
                    {"measured", row.row.measured},
                    {"book", row.book},
                    {"des_before", row.before},
                    {"des_after", row.after},
                    {"error_before", row.error_before()},
                    {"error_after", row.error_after()},
                    {"outside_range", row.outside_range}});
  return {{"schema", "podsim/1"},
          {"hardware", hardware},
          {"fitted", fit.fitted},
          {"unfitted", unfitted},
          {"iterations", fit.iterations},
          {"rms_before", fit.rms_before},
          {"rms_after", fit.rms_after},
          {"calibration", calibration_section(fit)},
          {"rows", rows}};
}

json calibration_overlay_json(const CalibrationFit& fit, const std::string& name, const std::string& base,
                              const std::string& csv) {
  return {{"name", name},
          {"description", base + " calibrated by podsim calibrate on " + csv},
          {"base", base},
          {"sources", {{"CAL", "podsim calibrate on " + csv + " (the rows named after CAL)"}}},
          {"calibration", calibration_section(fit)}};
}

}  // namespace podsim::report
