// HTML report. Every string from the scenario goes through html_escape; numbers go through the same human-unit
// formatters and helpers as the text report, so the page and the terminal agree.
#include "sim/report/html_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "sim/report/html_parts.hpp"
#include "sim/report/model_run_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/slice_drawing.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

constexpr std::size_t kBusiestLinksShown = 10;

std::string header_html(const ScenarioRun& run) {
  std::string rows = html_row({"des", run.calibrated ? "calibrated: " + esc(run.calibration_source) +
                                                           " (--uncalibrated for the preset's figures)"
                                                     : std::string("the preset's figures (no calibration)")});
  const auto passed = std::count_if(run.checks.begin(), run.checks.end(), [](const auto& c) { return c.passed; });
  rows += html_row({"checks", fmt::format("{} of {} passed", passed, run.checks.size())});
  return scenario_header_html({run.name, run.description, run.file, run.hardware, run.slice_shape, run.wraparound},
                              rows);
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

std::vector<PlanBars> plan_bars(const ScenarioRun& run) {
  std::vector<PlanBars> bars;
  for (const PlanRun& plan : run.plans)
    bars.push_back(
        {plan.name, plan.des_time_s, plan.book_time_s, plan.memory_per_chip_bytes, plan.hbm_bytes, plan.fits_hbm});
  return bars;
}

std::string comparison_html(const ScenarioRun& run) {
  const PlanComparison best = compare_plans(run);
  std::string out = "<h3>Plans</h3>\n<table class=\"comparison\">\n";
  out +=
      html_row({"plan", "des time", "book time", "des/book", "memory per chip", "HBM per chip", "fits HBM", ""}, true);
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    const PlanRun& plan = run.plans[i];
    std::string mark;
    if (best.fastest == i) mark = "fastest";
    if (best.fastest_fitting == i && best.fastest != i) mark = "fastest that fits";
    out +=
        html_row({esc(plan.name), html_num(format_seconds(plan.des_time_s)), html_num(format_seconds(plan.book_time_s)),
                  html_num(ratio_text(des_over_book(plan.des_time_s, plan.book_time_s))),
                  html_num(bytes_text(plan.memory_per_chip_bytes)), html_num(bytes_text(plan.hbm_bytes)),
                  plan.fits_hbm ? "yes" : "<span class=\"fail\">no</span>", mark},
                 false, best.fastest_fitting == i ? "best" : "");
  }
  out += "</table>\n";
  if (best.fastest_fitting)
    out += "<p class=\"verdict\">Fastest plan that fits: " + esc(run.plans[*best.fastest_fitting].name) + "</p>\n";
  else if (best.fastest)
    out += "<p class=\"verdict\">No plan fits in HBM; fastest plan: " + esc(run.plans[*best.fastest].name) + "</p>\n";
  if (!run.plans.empty()) out += time_bars_svg(plan_bars(run)) + memory_bars_svg(plan_bars(run));
  return out;
}

// The slice with its failed links and the plan's busiest links marked (the table above lists them), cubes outlined on a
// cube generation.
std::string plan_slice_svg(const ScenarioRun& run, const PlanRun& plan, const std::vector<const LinkLoad*>& busiest) {
  if (!run.slice) return "";
  SliceDrawing drawing;
  drawing.cubes = run.cube_generation;
  for (const LinkId id : run.slice->failed_links())
    drawing.marked.push_back({id, LinkMark::failed});
  for (const LinkLoad* link : busiest)
    drawing.marked.push_back({static_cast<LinkId>(link - plan.links.data()), LinkMark::busy});
  if (!busiest.empty())
    drawing.caption = fmt::format("The {} busiest links of plan {} in purple", busiest.size(), plan.name);
  return "<div class=\"wide\">" + slice_drawing_svg(*run.slice, drawing) + "</div>\n";
}

std::string plan_html(const ScenarioRun& run, const PlanRun& plan) {
  std::string out = "<section class=\"plan\">\n<h3>Plan " + esc(plan.name) + "</h3>\n";
  if (!plan.description.empty()) out += "<p>" + esc(plan.description) + "</p>\n";
  out += "<table class=\"ops\">\n";
  out += html_row({"op", "kind", "des time", "book time", "des/book", "exposed communication", "bound", "bytes sent",
                   "collectives"},
                  true);
  for (const OpRun& op : plan.ops)
    out += html_row({esc(op.name), esc(op.kind), html_num(format_seconds(op.des_time_s)),
                     html_num(format_seconds(op.book_time_s)),
                     html_num(ratio_text(des_over_book(op.des_time_s, op.book_time_s))),
                     html_num(format_seconds(op.exposed_communication_s)), esc(bound_name(op.bound)),
                     html_num(bytes_text(op.bytes_sent)), esc(collectives_summary(op))});
  out += html_row({"<b>total</b>", "", html_num(format_seconds(plan.des_time_s)),
                   html_num(format_seconds(plan.book_time_s)),
                   html_num(ratio_text(des_over_book(plan.des_time_s, plan.book_time_s))),
                   html_num(format_seconds(plan.step_breakdown.exposed_communication_s)), "", "", ""});
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
  out += step_breakdown_svg(StepParts{plan.step_breakdown.compute_s, plan.step_breakdown.exposed_communication_s,
                                      plan.step_breakdown.bubble_s, plan.step_breakdown.dcn_s},
                            fmt::format("step breakdown on chip {}, plan {}", plan.critical_chip, plan.name));
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
                         esc(op.name), ratio, esc(shared_ops_text(op.contention->shared_with)),
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
  out += html_row({"tensor", "sharding", "local shape", "per chip", "total"}, true);
  for (const TensorMemory& t : plan.memory)
    out += html_row({esc(tensor_label(t)), esc(t.sharding), esc(shape_text(t.local_shape)),
                     html_num(bytes_text(t.bytes_per_device)), html_num(bytes_text(t.total_bytes))});
  const auto fit_cell = [](const std::string& text, bool hard) {
    if (text == "fits") return std::string("<span class=\"pass\">fits</span>");
    return (hard ? "<span class=\"fail\">" : "<span class=\"muted\">") + esc(text) + "</span>";
  };
  out += html_row({"<b>peak per chip</b>", "", "", html_num(bytes_text(plan.memory_per_chip_bytes)),
                   "of " + bytes_text(plan.hbm_bytes) +
                       " HBM: " + fit_cell(fit_text(plan.memory_per_chip_bytes, plan.hbm_bytes), true)});
  out += html_row({"<b>VMEM working set</b>", "", "", html_num(bytes_text(plan.vmem_working_set_bytes)),
                   "of " + bytes_text(plan.vmem_bytes) +
                       " VMEM: " + fit_cell(vmem_fit_text(plan.vmem_working_set_bytes, plan.vmem_bytes), false)});
  out += "</table>\n";
  const auto links = busiest_links(plan, kBusiestLinksShown);
  if (links.empty()) {
    out += "<p class=\"muted\">No chip-to-chip traffic.</p>\n";
  } else {
    out += fmt::format("<p>Busiest links ({} messages, {} over all links):</p>\n<table class=\"links\">\n",
                       plan.messages, bytes_text(plan.total_link_bytes));
    out += html_row({"link", "bytes", "busy", "utilisation"}, true);
    for (const LinkLoad* link : links)
      out += html_row({esc(link->name), html_num(bytes_text(link->bytes)), html_num(format_seconds(link->busy_s)),
                       html_num(fmt::format("{:.1f}%", 100 * link->utilisation))});
    out += "</table>\n";
  }
  out += plan_slice_svg(run, plan, links);
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
  out += html_row({"", "check", "value", "target", "tolerance", "source", "pointer"}, true);
  for (const CheckResult& check : run.checks)
    out += html_row({check.passed ? "<span class=\"pass\">PASS</span>" : "<span class=\"fail\">FAIL</span>",
                     esc(check.description), html_num(esc(check_value_text(check.value))),
                     html_num(esc(check_value_text(check.target))), esc(tolerance_text(check)), esc(check.source),
                     esc(check.pointer)});
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

void write_html_report(const std::vector<ScenarioRun>& runs, std::ostream& out, const std::string& first_extra) {
  if (!runs.empty() && runs.front().level == RunLevel::model) return write_model_run_html(runs, out);
  std::vector<std::string> names;
  for (const ScenarioRun& run : runs)
    names.push_back(run.name);
  out << run_page_head(names, "", "Each plan simulated hop by hop (des) beside the closed-form book model (book).");
  for (const ScenarioRun& run : runs) {
    out << "<section class=\"scenario\">\n"
        << header_html(run) << (&run == &runs.front() ? first_extra : "") << comparison_html(run);
    for (const PlanRun& plan : run.plans)
      out << plan_html(run, plan);
    out << checks_html(run) << "</section>\n";
  }
  out << "</body>\n</html>\n";
}

}  // namespace podsim::report
