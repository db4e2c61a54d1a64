// HTML report. Every string from the scenario goes through html_escape; numbers go through the same human-unit
// formatters and helpers as the text report, so the page and the terminal agree.
#include "sim/report/html_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

constexpr std::size_t kBusiestLinksShown = 10;

const char* const kRunReportStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1200px; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #444; padding-bottom: .2em; margin-top: 2em; }
h3 { margin-top: 1.6em; } section.plan { margin-left: 1em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #17692e; font-weight: bold; } .fail { color: #b3261e; font-weight: bold; }
.best { background: #e8f5e9; } .muted { color: #666; } .verdict { font-weight: bold; }
svg { display: block; margin: .6em 0; font-size: 12px; } svg text { fill: #222; }
)";

// One table row; cells starting with '\x01' are numbers (right-aligned), the marker is stripped.
std::string row(const std::vector<std::string>& cells, bool header = false, const std::string& cls = "") {
  std::string out = cls.empty() ? "<tr>" : "<tr class=\"" + cls + "\">";
  for (const auto& cell : cells) {
    const bool number = !cell.empty() && cell.front() == '\x01';
    const std::string text = number ? cell.substr(1) : cell;
    if (header)
      out += "<th>" + text + "</th>";
    else
      out += number ? "<td class=\"num\">" + text + "</td>" : "<td>" + text + "</td>";
  }
  return out + "</tr>\n";
}

std::string num(const std::string& text) {
  return "\x01" + text;
}

// A plan name short enough for the 170 px label column of the charts (the tables show it whole).
std::string chart_label(const std::string& name) {
  constexpr std::size_t kMax = 24;
  if (display_width(name) <= kMax) return name;
  std::string out;
  std::size_t points = 0;
  for (char ch : name) {
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80 && ++points > kMax - 1) break;
    out += ch;
  }
  return out + "…";
}

std::string header_html(const ScenarioRun& run) {
  std::string out = "<h2>Scenario " + esc(run.name) + "</h2>\n";
  if (!run.description.empty()) out += "<p>" + esc(run.description) + "</p>\n";
  std::vector<std::string> wraps;
  for (bool w : run.wraparound)
    wraps.push_back(w ? "wrap" : "line");
  out += "<table class=\"facts\">\n";
  out += row({"file", esc(run.file)});
  out += row({"hardware", esc(run.hardware)});
  out += row({"slice", esc(shape_text(run.slice_shape)) + " (" + esc(fmt::format("{}", fmt::join(wraps, " "))) + ")"});
  out += row({"des", run.calibrated
                         ? "calibrated: " + esc(run.calibration_source) + " (--uncalibrated for the preset's figures)"
                         : std::string("the preset's figures (no calibration)")});
  const auto passed = std::count_if(run.checks.begin(), run.checks.end(), [](const auto& c) { return c.passed; });
  out += row({"checks", fmt::format("{} of {} passed", passed, run.checks.size())});
  return out + "</table>\n";
}

// Two bars per plan (des and book time) on one scale.
std::string time_bars_svg(const ScenarioRun& run) {
  const double label_w = 170, bar_w = 520, bar_h = 14, gap = 10;
  double max_s = 0;
  for (const PlanRun& plan : run.plans)
    max_s = std::max({max_s, plan.des_time_s, plan.book_time_s});
  const double height = static_cast<double>(run.plans.size()) * (2 * bar_h + gap) + 24;
  std::string out =
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"des and book time per plan\">\n",
                  label_w + bar_w + 110, height);
  out += fmt::format(
      "<rect x=\"{0}\" y=\"2\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/><text x=\"{1}\" y=\"11\">des "
      "(simulated)</text><rect x=\"{2}\" y=\"2\" width=\"10\" height=\"10\" fill=\"#f28e2b\"/><text x=\"{3}\" "
      "y=\"11\">book (closed form)</text>\n",
      label_w, label_w + 14, label_w + 130, label_w + 144);
  double y = 20;
  for (const PlanRun& plan : run.plans) {
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + bar_h + 4, esc(chart_label(plan.name)));
    const std::pair<double, const char*> bars[] = {{plan.des_time_s, "#4e79a7"}, {plan.book_time_s, "#f28e2b"}};
    for (const auto& [time_s, colour] : bars) {
      const double w = max_s > 0 ? bar_w * time_s / max_s : 0;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w, y, w, bar_h,
                         colour);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", label_w + w + 4, y + bar_h - 3,
                         esc(format_seconds(time_s)));
      y += bar_h;
    }
    y += gap;
  }
  return out + "</svg>\n";
}

// One bar per plan (memory per chip, red when over) and a dashed line at each plan's HBM capacity.
std::string memory_bars_svg(const ScenarioRun& run) {
  const double label_w = 170, bar_w = 520, bar_h = 16, gap = 10;
  double max_bytes = 0;
  for (const PlanRun& plan : run.plans)
    max_bytes =
        std::max({max_bytes, static_cast<double>(plan.memory_per_chip_bytes), static_cast<double>(plan.hbm_bytes)});
  const double height = static_cast<double>(run.plans.size()) * (bar_h + gap) + 24;
  std::string out = fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"memory per chip and HBM capacity per plan\">\n",
      label_w + bar_w + 300, height);
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"7\" x2=\"{1}\" y2=\"7\" stroke=\"#222\" stroke-dasharray=\"4 3\" stroke-width=\"2\"/>"
      "<text x=\"{2}\" y=\"11\">HBM capacity per chip</text>\n",
      label_w, label_w + 20, label_w + 26);
  double y = 20;
  for (const PlanRun& plan : run.plans) {
    const double scale = max_bytes > 0 ? bar_w / max_bytes : 0;
    const double w = scale * static_cast<double>(plan.memory_per_chip_bytes);
    const double cap_w = scale * static_cast<double>(plan.hbm_bytes);
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + bar_h - 3, esc(chart_label(plan.name)));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w, y, w, bar_h,
                       plan.fits_hbm ? "#59a14f" : "#e15759");
    if (plan.hbm_bytes > 0) {
      const double cap_x = label_w + cap_w;
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#222\" stroke-dasharray=\"4 3\" "
          "stroke-width=\"2\"/>",
          cap_x, y - 3, y + bar_h + 3);
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{} ({})</text>\n", label_w + std::max(w, cap_w) + 6, y + bar_h - 3,
                       esc(bytes_text(plan.memory_per_chip_bytes)),
                       esc(fit_text(plan.memory_per_chip_bytes, plan.hbm_bytes)));
    y += bar_h + gap;
  }
  return out + "</svg>\n";
}

// Memory in use on the peak chip over the simulated time: a step line, a dashed line at HBM capacity, and the
// peak marked.
std::string memory_over_time_svg(const PlanRun& plan) {
  if (!plan.memory_timeline || plan.memory_timeline->chips.empty()) return "";
  const auto chip = static_cast<std::size_t>(plan.peak_chip);
  if (chip >= plan.memory_timeline->chips.size()) return "";
  const std::vector<MemoryPoint>& points = plan.memory_timeline->chips[chip].points;
  const double left = 90, top = 14, width = 640, height = 170;
  const double end_s = std::max(plan.des_time_s, points.empty() ? 0.0 : points.back().time_s);
  // The scale shows HBM when it is within half again of the peak; far above, the line would flatten the curve, so
  // the chart scales to the peak and says where HBM is.
  const double peak = static_cast<double>(plan.memory_per_chip_bytes), hbm = static_cast<double>(plan.hbm_bytes);
  const bool hbm_on_scale = hbm > 0 && hbm <= 1.5 * peak;
  const double max_bytes = hbm_on_scale ? std::max(peak, hbm) : 1.1 * peak;
  const auto x = [&](double t) { return left + (end_s > 0 ? width * t / end_s : 0); };
  const auto y = [&](double bytes) { return top + height - (max_bytes > 0 ? height * bytes / max_bytes : 0); };
  std::string out = fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"memory in use on chip {} over time, plan {}\">\n",
      left + width + 200, top + height + 34, plan.peak_chip, esc(plan.name));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", left, top, top + height);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", left, top + height,
                     left + width);
  out += fmt::format("<text x=\"0\" y=\"{}\">{}</text><text x=\"0\" y=\"{}\">0 B</text>\n", top + 10,
                     esc(bytes_text(static_cast<std::uint64_t>(max_bytes))), top + height);
  out += fmt::format("<text x=\"{}\" y=\"{}\">0 s</text><text x=\"{}\" y=\"{}\">{}</text>\n", left, top + height + 16,
                     left + width - 60, top + height + 16, esc(format_seconds(end_s)));
  std::string path;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double next_s = i + 1 < points.size() ? points[i + 1].time_s : end_s;
    const double level = y(static_cast<double>(points[i].bytes));
    path +=
        fmt::format("{}{:.1f},{:.1f} {:.1f},{:.1f} ", i == 0 ? "M" : "L", x(points[i].time_s), level, x(next_s), level);
  }
  out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", path,
                     plan.fits_hbm ? "#4e79a7" : "#e15759");
  if (plan.hbm_bytes > 0 && !hbm_on_scale)
    out += fmt::format("<text x=\"{}\" y=\"{}\">HBM {} (above the chart)</text>\n", left + width + 6, top + 4,
                       esc(bytes_text(plan.hbm_bytes)));
  if (hbm_on_scale)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\">HBM {5}</text>\n",
        left, y(static_cast<double>(plan.hbm_bytes)), left + width, left + width + 6,
        y(static_cast<double>(plan.hbm_bytes)) + 4, esc(bytes_text(plan.hbm_bytes)));
  const double peak_y = y(static_cast<double>(plan.memory_per_chip_bytes));
  out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#222\"/>", x(plan.peak_time_s), peak_y);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">peak {} at {}</text>\n", x(plan.peak_time_s) + 6, peak_y + 14,
                     esc(bytes_text(plan.memory_per_chip_bytes)), esc(format_seconds(plan.peak_time_s)));
  return out + "</svg>\n";
}

// One stacked bar: where the critical chip's step went (compute, exposed communication, bubble, DCN), on the scale
// of the plan's des time, with a legend giving each part's time.
std::string step_breakdown_svg(const PlanRun& plan) {
  const CriticalChipBreakdown& b = plan.step_breakdown;
  const double left = 10, width = 640, bar_h = 22;
  const std::pair<double, const char*> parts[] = {
      {b.compute_s, "#59a14f"}, {b.exposed_communication_s, "#e15759"}, {b.bubble_s, "#bab0ac"}, {b.dcn_s, "#76b7b2"}};
  const char* names[] = {"compute", "exposed communication", "bubble", "DCN"};
  const double total = b.compute_s + b.exposed_communication_s + b.bubble_s + b.dcn_s;
  std::string out =
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"step breakdown on chip {}, plan {}\">\n",
                  left + width + 20, bar_h + 44, plan.critical_chip, esc(plan.name));
  double x = left;
  for (const auto& [seconds, colour] : parts) {
    const double w = total > 0 ? width * seconds / total : 0;
    if (w > 0)
      out +=
          fmt::format("<rect x=\"{:.1f}\" y=\"2\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", x, w, bar_h, colour);
    x += w;
  }
  out += "\n";
  double legend_x = left;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string text = fmt::format("{} {}", names[i], format_seconds(parts[i].first));
    out += fmt::format(
        "<rect x=\"{0:.1f}\" y=\"{1}\" width=\"10\" height=\"10\" fill=\"{2}\"/><text x=\"{3:.1f}\" "
        "y=\"{4}\">{5}</text>\n",
        legend_x, bar_h + 12, parts[i].second, legend_x + 14, bar_h + 21, esc(text));
    legend_x += 14 + 7.0 * static_cast<double>(text.size()) + 16;
  }
  return out + "</svg>\n";
}

std::string comparison_html(const ScenarioRun& run) {
  const PlanComparison best = compare_plans(run);
  std::string out = "<h3>Plans</h3>\n<table class=\"comparison\">\n";
  out += row({"plan", "des time", "book time", "des/book", "memory per chip", "HBM per chip", "fits HBM", ""}, true);
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    const PlanRun& plan = run.plans[i];
    std::string mark;
    if (best.fastest == i) mark = "fastest";
    if (best.fastest_fitting == i && best.fastest != i) mark = "fastest that fits";
    out += row(
        {esc(plan.name), num(format_seconds(plan.des_time_s)), num(format_seconds(plan.book_time_s)),
         num(ratio_text(des_over_book(plan.des_time_s, plan.book_time_s))), num(bytes_text(plan.memory_per_chip_bytes)),
         num(bytes_text(plan.hbm_bytes)), plan.fits_hbm ? "yes" : "<span class=\"fail\">no</span>", mark},
        false, best.fastest_fitting == i ? "best" : "");
  }
  out += "</table>\n";
  if (best.fastest_fitting)
    out += "<p class=\"verdict\">Fastest plan that fits: " + esc(run.plans[*best.fastest_fitting].name) + "</p>\n";
  else if (best.fastest)
    out += "<p class=\"verdict\">No plan fits in HBM; fastest plan: " + esc(run.plans[*best.fastest].name) + "</p>\n";
  if (!run.plans.empty()) out += time_bars_svg(run) + memory_bars_svg(run);
  return out;
}

std::string plan_html(const PlanRun& plan) {
  std::string out = "<section class=\"plan\">\n<h3>Plan " + esc(plan.name) + "</h3>\n";
  if (!plan.description.empty()) out += "<p>" + esc(plan.description) + "</p>\n";
  out += "<table class=\"ops\">\n";
  out += row({"op", "kind", "des time", "book time", "des/book", "exposed communication", "bound", "bytes sent",
              "collectives"},
             true);
  for (const OpRun& op : plan.ops)
    out += row({esc(op.name), esc(op.kind), num(format_seconds(op.des_time_s)), num(format_seconds(op.book_time_s)),
                num(ratio_text(des_over_book(op.des_time_s, op.book_time_s))),
                num(format_seconds(op.exposed_communication_s)), esc(bound_name(op.bound)),
                num(bytes_text(op.bytes_sent)), esc(collectives_summary(op))});
  out += row({"<b>total</b>", "", num(format_seconds(plan.des_time_s)), num(format_seconds(plan.book_time_s)),
              num(ratio_text(des_over_book(plan.des_time_s, plan.book_time_s))),
              num(format_seconds(plan.step_breakdown.exposed_communication_s)), "", "", ""});
  out += "</table>\n";
  out +=
      "<p>Critical path: " +
      (plan.critical_path.empty() ? std::string("-") : esc(fmt::format("{}", fmt::join(plan.critical_path, " → ")))) +
      "</p>\n";
  out += fmt::format(
      "<p>Step on chip {} (its last task ends last): compute {}, exposed communication {}, bubble {}, DCN {}.</p>\n",
      plan.critical_chip, esc(format_seconds(plan.step_breakdown.compute_s)),
      esc(format_seconds(plan.step_breakdown.exposed_communication_s)),
      esc(format_seconds(plan.step_breakdown.bubble_s)), esc(format_seconds(plan.step_breakdown.dcn_s)));
  out += step_breakdown_svg(plan);
  std::string schedule = "Schedule: " + esc(plan.schedule);
  for (const OpWait& wait : plan.waits)
    schedule += fmt::format("; {} waits for {} to end (else {} over HBM at {})", esc(wait.op), esc(wait.after),
                            esc(bytes_text(wait.excess_bytes)), esc(format_seconds(wait.excess_at_s)));
  out += "<p>" + schedule + "</p>\n";
  for (const OpRun& op : plan.ops) {
    if (!op.contention) continue;
    const std::string ratio = ratio_text(des_over_book(op.des_time_s, op.book_time_s));
    if (op.contention->shared_with.empty())
      out += fmt::format("<p>{} (des/book {}): no other op shared its links; the excess is its own schedule.</p>\n",
                         esc(op.name), ratio);
    else
      out += fmt::format("<p>{} (des/book {}) shared links with {}; busiest shared link {} ({} of {}).</p>\n",
                         esc(op.name), ratio, esc(fmt::format("{}", fmt::join(op.contention->shared_with, ", "))),
                         esc(op.contention->busiest_shared_link), esc(bytes_text(op.contention->busiest_shared_bytes)),
                         esc(op.name));
  }
  out += fmt::format("<p>Memory in use on chip {} over time (the chip that reaches the peak first):</p>\n",
                     plan.peak_chip);
  out += memory_over_time_svg(plan);
  std::string alive;
  for (const AliveBuffer& b : plan.alive_at_peak)
    alive += (alive.empty() ? "" : ", ") + esc(b.what) +
             (b.op.empty() || b.op == b.what ? "" : " (" + esc(b.op) + ")") + " " + esc(bytes_text(b.bytes));
  out += fmt::format("<p>At the peak ({} on chip {}): {}. Closed form, ops one after another: {}.</p>\n",
                     esc(format_seconds(plan.peak_time_s)), plan.peak_chip, alive.empty() ? "nothing" : alive,
                     esc(bytes_text(plan.book_memory_per_chip_bytes)));
  out += "<table class=\"memory\">\n";
  out += row({"tensor", "sharding", "local shape", "per chip", "total"}, true);
  for (const TensorMemory& t : plan.memory)
    out += row({esc(tensor_label(t)), esc(t.sharding), esc(shape_text(t.local_shape)),
                num(bytes_text(t.bytes_per_device)), num(bytes_text(t.total_bytes))});
  const auto fit_cell = [](const std::string& text, bool hard) {
    if (text == "fits") return std::string("<span class=\"pass\">fits</span>");
    return (hard ? "<span class=\"fail\">" : "<span class=\"muted\">") + esc(text) + "</span>";
  };
  out += row({"<b>peak per chip</b>", "", "", num(bytes_text(plan.memory_per_chip_bytes)),
              "of " + bytes_text(plan.hbm_bytes) +
                  " HBM: " + fit_cell(fit_text(plan.memory_per_chip_bytes, plan.hbm_bytes), true)});
  out += row({"<b>VMEM working set</b>", "", "", num(bytes_text(plan.vmem_working_set_bytes)),
              "of " + bytes_text(plan.vmem_bytes) +
                  " VMEM: " + fit_cell(vmem_fit_text(plan.vmem_working_set_bytes, plan.vmem_bytes), false)});
  out += "</table>\n";
  const auto links = busiest_links(plan, kBusiestLinksShown);
  if (links.empty()) {
    out += "<p class=\"muted\">No chip-to-chip traffic.</p>\n";
  } else {
    out += fmt::format("<p>Busiest links ({} messages, {} over all links):</p>\n<table class=\"links\">\n",
                       plan.messages, bytes_text(plan.total_link_bytes));
    out += row({"link", "bytes", "busy", "utilisation"}, true);
    for (const LinkLoad* link : links)
      out += row({esc(link->name), num(bytes_text(link->bytes)), num(format_seconds(link->busy_s)),
                  num(fmt::format("{:.1f}%", 100 * link->utilisation))});
    out += "</table>\n";
  }
  if (plan.values_match)
    out += fmt::format("<p>Values: {}{}</p>\n",
                       *plan.values_match ? "<span class=\"pass\">match the dense reference</span>"
                                          : "<span class=\"fail\">DO NOT MATCH the dense reference</span>",
                       plan.values_note.empty() ? "" : " (" + esc(plan.values_note) + ")");
  return out + "</section>\n";
}

std::string checks_html(const ScenarioRun& run) {
  std::string out = "<h3>Checks</h3>\n";
  if (run.checks.empty()) return out + "<p class=\"muted\">No checks.</p>\n";
  out += "<table class=\"checks\">\n";
  out += row({"", "check", "value", "target", "tolerance", "source", "pointer"}, true);
  for (const CheckResult& check : run.checks)
    out +=
        row({check.passed ? "<span class=\"pass\">PASS</span>" : "<span class=\"fail\">FAIL</span>",
             esc(check.description), num(esc(check_value_text(check.value))), num(esc(check_value_text(check.target))),
             esc(tolerance_text(check)), esc(check.source), esc(check.pointer)});
  return out + "</table>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

void write_html_report(const std::vector<ScenarioRun>& runs, std::ostream& out) {
  std::vector<std::string> names;
  for (const ScenarioRun& run : runs)
    names.push_back(run.name);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podsim run: "
      << esc(fmt::format("{}", fmt::join(names, ", "))) << "</title>\n<style>" << kRunReportStyle
      << "</style>\n</head>\n<body>\n"
      << "<h1>podsim run</h1>\n<p class=\"muted\">Each plan simulated hop by hop (des) beside the closed-form book "
         "model (book).</p>\n";
  for (const ScenarioRun& run : runs) {
    out << "<section class=\"scenario\">\n" << header_html(run) << comparison_html(run);
    for (const PlanRun& plan : run.plans)
      out << plan_html(plan);
    out << checks_html(run) << "</section>\n";
  }
  out << "</body>\n</html>\n";
}

}  // namespace podsim::report
