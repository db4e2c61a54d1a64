// The pieces both `podsim run --report` pages are built of. Strings go through html_escape; numbers through the
// text report's formatters, so the pages and the terminal agree.
#include "sim/report/html_parts.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {

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

std::string run_page_head(const std::vector<std::string>& scenarios, const char* extra_style,
                          const std::string& subtitle) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podsim run: " +
         esc(fmt::format("{}", fmt::join(scenarios, ", "))) + "</title>\n<style>" + kRunReportStyle + extra_style +
         "</style>\n</head>\n<body>\n<h1>podsim run</h1>\n<p class=\"muted\">" + esc(subtitle) + "</p>\n";
}

std::string html_row(const std::vector<std::string>& cells, bool header, const std::string& cls) {
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

std::string html_num(const std::string& text) {
  return "\x01" + text;
}

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

std::string scenario_header_html(const ScenarioFacts& facts, const std::string& rows) {
  std::string out = "<h2>Scenario " + esc(facts.name) + "</h2>\n";
  if (!facts.description.empty()) out += "<p>" + esc(facts.description) + "</p>\n";
  std::vector<std::string> wraps;
  for (bool w : facts.wraparound)
    wraps.push_back(w ? "wrap" : "line");
  out += "<table class=\"facts\">\n";
  out += html_row({"file", esc(facts.file)});
  out += html_row({"hardware", esc(facts.hardware)});
  out += html_row(
      {"slice", esc(shape_text(facts.slice_shape)) + " (" + esc(fmt::format("{}", fmt::join(wraps, " "))) + ")"});
  return out + rows + "</table>\n";
}

// The largest figure of the plans (0 for none).
template <typename Figure>
double largest(const std::vector<PlanBars>& plans, Figure figure) {
  double out = 0;
  for (const PlanBars& plan : plans)
    out = std::max(out, figure(plan));
  return out;
}

std::string time_bars_svg(const std::vector<PlanBars>& plans) {
  const double label_w = 170, bar_w = 520, bar_h = 14, gap = 10;
  const double max_s =
      largest(plans, [](const PlanBars& plan) { return std::max(plan.des_time_s.value_or(0.0), plan.book_time_s); });
  const double height = static_cast<double>(plans.size()) * (2 * bar_h + gap) + 24;
  std::string out =
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"des and book time per plan\">\n",
                  label_w + bar_w + 110, height);
  out += fmt::format(
      "<rect x=\"{0}\" y=\"2\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/><text x=\"{1}\" y=\"11\">des "
      "(simulated)</text><rect x=\"{2}\" y=\"2\" width=\"10\" height=\"10\" fill=\"#f28e2b\"/><text x=\"{3}\" "
      "y=\"11\">book (closed form)</text>\n",
      label_w, label_w + 14, label_w + 130, label_w + 144);
  double y = 20;
  for (const PlanBars& plan : plans) {
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + bar_h + 4, esc(chart_label(plan.name)));
    const std::pair<std::optional<double>, const char*> bars[] = {{plan.des_time_s, "#4e79a7"},
                                                                  {plan.book_time_s, "#f28e2b"}};
    for (const auto& [time_s, colour] : bars) {
      if (!time_s) {
        out += fmt::format("<text x=\"{}\" y=\"{}\">des: not simulated</text>\n", label_w, y + bar_h - 3);
        y += bar_h;
        continue;
      }
      const double w = max_s > 0 ? bar_w * *time_s / max_s : 0;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w, y, w, bar_h,
                         colour);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", label_w + w + 4, y + bar_h - 3,
                         esc(format_seconds(*time_s)));
      y += bar_h;
    }
    y += gap;
  }
  return out + "</svg>\n";
}

std::string memory_bars_svg(const std::vector<PlanBars>& plans) {
  const double label_w = 170, bar_w = 520, bar_h = 16, gap = 10;
  const double max_bytes = largest(plans, [](const PlanBars& plan) {
    return static_cast<double>(std::max(plan.memory_per_chip_bytes, plan.hbm_bytes));
  });
  const double height = static_cast<double>(plans.size()) * (bar_h + gap) + 24;
  std::string out = fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"memory per chip and HBM capacity per plan\">\n",
      label_w + bar_w + 300, height);
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"7\" x2=\"{1}\" y2=\"7\" stroke=\"#222\" stroke-dasharray=\"4 3\" stroke-width=\"2\"/>"
      "<text x=\"{2}\" y=\"11\">HBM capacity per chip</text>\n",
      label_w, label_w + 20, label_w + 26);
  double y = 20;
  for (const PlanBars& plan : plans) {
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

std::string step_breakdown_svg(const StepParts& b, const std::string& label) {
  const double left = 10, width = 640, bar_h = 22;
  const std::pair<double, const char*> parts[] = {
      {b.compute_s, "#59a14f"}, {b.exposed_communication_s, "#e15759"}, {b.bubble_s, "#bab0ac"}, {b.dcn_s, "#76b7b2"}};
  const char* names[] = {"compute", "exposed communication", "bubble", "DCN"};
  const double total = b.compute_s + b.exposed_communication_s + b.bubble_s + b.dcn_s;
  std::string out = fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n", left + width + 20,
                                bar_h + 44, esc(label));
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

}  // namespace podsim::report
