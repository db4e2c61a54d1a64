// `podsim run --report` of model-level scenarios: the op-level page's structure, style and charts (html_parts.hpp),
// with what a planner asks of a model's step: how long (des and book), where the time went, what fills HBM, how
// well the chips are used, and which ops of the step program cost the most once their repeats are counted.
#include <algorithm>
#include <cstddef>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "sim/report/html_parts.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/model_run_report.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/run_report.hpp"

namespace podsim::report {
namespace {

// Beside the run report's stylesheet: the key figures as cards, and the op table's share bars.
const char* const kModelRunStyle = R"(
.figures { display: flex; flex-wrap: wrap; gap: .6em; margin: .8em 0; }
.figure { border: 1px solid #ccc; border-radius: 4px; padding: .4em .8em; min-width: 8em; }
.figure .label { color: #666; font-size: .85em; } .figure .value { font-size: 1.3em; font-weight: bold; }
.figure.over { border-color: #b3261e; } .figure.over .value { color: #b3261e; }
span.share { display: inline-block; height: .75em; background: #4e79a7; vertical-align: baseline; }
span.share-cell, td.num, table.comparison td:first-child { white-space: nowrap; }
)";

// The memory kinds in the order of the text report, with their chart colours.
struct ModelMemoryKind {
  const char* name;
  std::uint64_t MemoryByKind::*bytes;
  const char* colour;
};
constexpr ModelMemoryKind kModelMemoryKinds[] = {
    {"params", &MemoryByKind::params, "#4e79a7"},       {"grads", &MemoryByKind::grads, "#f28e2b"},
    {"optimizer", &MemoryByKind::optimizer, "#edc948"}, {"activations", &MemoryByKind::activations, "#59a14f"},
    {"KV cache", &MemoryByKind::kv_cache, "#b07aa1"},   {"temporaries", &MemoryByKind::temporaries, "#9c755f"}};

std::string model_seconds_cell(std::optional<double> s) {
  return s ? format_seconds(*s) : "-";
}

// One op's time in the step: its simulated span times its repeats once simulated, else its book time times them.
double model_op_step_s(const OpRun& op) {
  return model_op_des_s(op).value_or(op.book_time_s) * static_cast<double>(op.repeats);
}

std::string figure_card(const std::string& label, const std::string& value, bool over = false) {
  return fmt::format(R"(<div class="figure{}"><div class="label">{}</div><div class="value">{}</div></div>)",
                     over ? " over" : "", esc(label), esc(value));
}

std::string model_header_html(const ScenarioRun& run) {
  std::string rows = run.spec ? html_row({"model", esc(plan_title(*run.spec))}) : std::string();
  rows += html_row({"des",
                    "each plan's step simulated by the plan search's code, as `podsim plan` simulates a candidate "
                    "(docs/capacity.md)"});
  return scenario_header_html({run.name, run.description, run.file, run.hardware, run.slice_shape, run.wraparound},
                              rows);
}

std::string model_comparison_html(const ScenarioRun& run) {
  const PlanComparison best = compare_plans(run);
  std::string out = "<h3>Plans</h3>\n<table class=\"comparison\">\n";
  out += html_row({"plan", "parallelism", "des step", "book step", "des/book", "MFU", "tokens/s/chip",
                   "memory per chip", "HBM per chip", "fits HBM", ""},
                  true);
  std::vector<PlanBars> bars;
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    const PlanRun& plan = run.plans[i];
    const CandidateResult& r = plan.candidate.value();
    std::string mark;
    if (best.fastest == i) mark = "fastest";
    if (best.fastest_fitting == i && best.fastest != i) mark = "fastest that fits";
    out += html_row({esc(plan.name), esc(model_plan_summary(plan)), html_num(model_seconds_cell(r.des_step_s)),
                     html_num(format_seconds(r.book_step_s)),
                     html_num(r.des_step_s ? ratio_text(des_over_book(*r.des_step_s, r.book_step_s)) : "-"),
                     html_num(percent_text(r.mfu)), html_num(fmt::format("{:.0f}", r.tokens_per_s_per_chip)),
                     html_num(bytes_text(r.memory_per_chip_bytes)), html_num(bytes_text(r.hbm_bytes)),
                     r.fits_hbm ? "yes" : "<span class=\"fail\">no</span>", mark},
                    false, best.fastest_fitting == i ? "best" : "");
    bars.push_back({plan.name, r.des_step_s, r.book_step_s, r.memory_per_chip_bytes, r.hbm_bytes, r.fits_hbm});
  }
  out += "</table>\n";
  if (best.fastest_fitting)
    out += "<p class=\"verdict\">Fastest plan that fits: " + esc(run.plans[*best.fastest_fitting].name) + "</p>\n";
  else if (best.fastest)
    out += "<p class=\"verdict\">No plan fits in HBM; fastest plan: " + esc(run.plans[*best.fastest].name) + "</p>\n";
  if (!run.plans.empty()) out += time_bars_svg(bars) + memory_bars_svg(bars);
  return out;
}

// Memory per chip as one bar stacked by kind, on a scale that shows HBM capacity (a dashed line), with a legend.
std::string model_memory_by_kind_svg(const PlanRun& plan) {
  const CandidateResult& r = plan.candidate.value();
  const double left = 10, width = 640, bar_h = 22;
  const double total = static_cast<double>(r.memory_per_chip_bytes), hbm = static_cast<double>(r.hbm_bytes);
  const double scale_bytes = std::max(total, hbm);
  const auto x_of = [&](double bytes) { return left + (scale_bytes > 0 ? width * bytes / scale_bytes : 0); };
  std::string out =
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"memory per chip by kind, plan {}\">\n",
                  left + width + 160, bar_h + 56, esc(plan.name));
  double at = 0;
  for (const ModelMemoryKind& kind : kModelMemoryKinds) {
    const double bytes = static_cast<double>(r.memory.*kind.bytes);
    if (bytes <= 0) continue;
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"16\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} {}</title></rect>", x_of(at),
        x_of(at + bytes) - x_of(at), bar_h, kind.colour, kind.name, esc(bytes_text(r.memory.*kind.bytes)));
    at += bytes;
  }
  out += "\n";
  if (r.hbm_bytes > 0)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"2\" x2=\"{0:.1f}\" y2=\"{1}\" stroke=\"#222\" stroke-dasharray=\"4 3\" "
        "stroke-width=\"2\"/><text x=\"{2:.1f}\" y=\"{3}\">HBM {4}</text>\n",
        x_of(hbm), bar_h + 24, x_of(hbm) + 6, 11, esc(bytes_text(r.hbm_bytes)));
  double legend_x = left;
  for (const ModelMemoryKind& kind : kModelMemoryKinds) {
    if (r.memory.*kind.bytes == 0) continue;
    const std::string text = fmt::format("{} {}", kind.name, bytes_text(r.memory.*kind.bytes));
    out += fmt::format(
        "<rect x=\"{0:.1f}\" y=\"{1}\" width=\"10\" height=\"10\" fill=\"{2}\"/><text x=\"{3:.1f}\" "
        "y=\"{4}\">{5}</text>\n",
        legend_x, bar_h + 32, kind.colour, legend_x + 14, bar_h + 41, esc(text));
    legend_x += 14 + 7.0 * static_cast<double>(text.size()) + 16;
  }
  return out + "</svg>\n";
}

std::string model_memory_html(const PlanRun& plan) {
  const CandidateResult& r = plan.candidate.value();
  std::string out = "<h4>Memory per chip</h4>\n" + model_memory_by_kind_svg(plan);
  out += "<table class=\"memory\">\n";
  out += html_row({"kind", "per chip", "of HBM"}, true);
  const auto share = [&](std::uint64_t bytes) {
    return r.hbm_bytes > 0 ? percent_text(static_cast<double>(bytes) / static_cast<double>(r.hbm_bytes)) : "-";
  };
  for (const ModelMemoryKind& kind : kModelMemoryKinds)
    out += html_row({kind.name, html_num(bytes_text(r.memory.*kind.bytes)), html_num(share(r.memory.*kind.bytes))});
  const std::string fit = fit_text(r.memory_per_chip_bytes, r.hbm_bytes);
  out += html_row({"<b>total</b>", html_num(bytes_text(r.memory_per_chip_bytes)),
                   "of " + esc(bytes_text(r.hbm_bytes)) + " HBM: " +
                       (fit == "fits" ? std::string("<span class=\"pass\">fits</span>")
                                      : "<span class=\"fail\">" + esc(fit) + "</span>")});
  out += "</table>\n";
  if (r.memory.offloaded > 0)
    out += "<p>Offloaded to host memory: " + esc(bytes_text(r.memory.offloaded)) + " per chip (not in HBM).</p>\n";
  return out;
}

// The ops that cost the step most (their time in it, model_op_step_s), longest first: one bar each.
std::string model_top_ops_svg(const PlanRun& plan, double all_s) {
  constexpr std::size_t kShown = 10;
  std::vector<const OpRun*> ops;
  for (const OpRun& op : plan.ops)
    ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpRun* a, const OpRun* b) { return model_op_step_s(*a) > model_op_step_s(*b); });
  if (ops.size() > kShown) ops.resize(kShown);
  if (ops.empty() || all_s <= 0) return "";
  const double label_w = 190, bar_w = 480, bar_h = 14, gap = 6;
  const double max_s = model_op_step_s(*ops.front());
  std::string out = fmt::format(
      "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"the ops that cost the step most, plan {}\">\n",
      label_w + bar_w + 320, static_cast<double>(ops.size()) * (bar_h + gap) + 4, esc(plan.name));
  double y = 2;
  for (const OpRun* op : ops) {
    const double step_s = model_op_step_s(*op);
    const double w = max_s > 0 ? bar_w * step_s / max_s : 0;
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + bar_h - 3,
                       esc(chart_label(op->name + " (" + op->phase + ")")));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w, y, w, bar_h,
                       model_op_des_s(*op) ? "#4e79a7" : "#f28e2b");
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{} x {} = {} ({})</text>\n", label_w + w + 4, y + bar_h - 3,
                       esc(model_seconds_cell(model_op_des_s(*op) ? model_op_des_s(*op) : op->book_time_s)),
                       op->repeats, esc(format_seconds(step_s)), esc(percent_text(step_s / all_s)));
    y += bar_h + gap;
  }
  return out + "</svg>\n";
}

// The step program's ops: their repeats, one run's des and book times, their times in the step (times the repeats)
// and their share of the ops' time in the step, as a bar.
std::string model_ops_html(const PlanRun& plan) {
  double all_s = 0, max_s = 0;
  double by_phase[3] = {0, 0, 0};
  const char* phases[] = {"forward", "backward", "step"};
  for (const OpRun& op : plan.ops) {
    all_s += model_op_step_s(op);
    max_s = std::max(max_s, model_op_step_s(op));
    for (std::size_t i = 0; i < 3; ++i)
      if (op.phase == phases[i]) by_phase[i] += model_op_step_s(op);
  }
  const bool simulated = plan.candidate && plan.candidate->des_step_s.has_value();
  std::string out = "<h4>Step program</h4>\n";
  if (all_s > 0) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < 3; ++i)
      if (by_phase[i] > 0)
        parts.push_back(
            fmt::format("{} {} ({})", phases[i], format_seconds(by_phase[i]), percent_text(by_phase[i] / all_s)));
    out += fmt::format("<p>The ops' {} times their repeats: {}. The ops that cost most:</p>\n",
                       simulated ? "simulated spans" : "book times", esc(fmt::format("{}", fmt::join(parts, ", "))));
    out += model_top_ops_svg(plan, all_s);
  }
  out += "<table class=\"ops\">\n";
  out += html_row({"op", "kind", "phase", "place", "repeats", "des", "book", "des/book", "des x repeats",
                   "book x repeats", simulated ? "share of the ops' des" : "share of the ops' book", "bound"},
                  true);
  for (const OpRun& op : plan.ops) {
    const double repeats = static_cast<double>(op.repeats);
    const double share = all_s > 0 ? model_op_step_s(op) / all_s : 0;
    const double bar_px = max_s > 0 ? 80 * model_op_step_s(op) / max_s : 0;
    const std::string share_cell =
        fmt::format("<span class=\"share-cell\"><span class=\"share\" style=\"width:{:.1f}px\"></span> {}</span>",
                    bar_px, percent_text(share));
    out +=
        html_row({esc(op.name), esc(op.kind), esc(op.phase), esc(op.place), html_num(std::to_string(op.repeats)),
                  html_num(model_seconds_cell(model_op_des_s(op))), html_num(format_seconds(op.book_time_s)),
                  html_num(model_op_des_s(op) ? ratio_text(des_over_book(*model_op_des_s(op), op.book_time_s)) : "-"),
                  html_num(model_op_des_s(op) ? format_seconds(*model_op_des_s(op) * repeats) : "-"),
                  html_num(format_seconds(op.book_time_s * repeats)), share_cell, esc(bound_name(op.bound))});
  }
  return out + "</table>\n";
}

std::string model_plan_html(const PlanRun& plan) {
  const CandidateResult& r = plan.candidate.value();
  const auto des = r.des_step_s;
  std::string out = "<section class=\"plan\">\n<h3>Plan " + esc(plan.name) + "</h3>\n";
  if (!plan.description.empty()) out += "<p>" + esc(plan.description) + "</p>\n";
  out += "<p>" + esc(model_plan_summary(plan)) + "</p>\n";
  out += "<div class=\"figures\">";
  out += figure_card("step (des)", model_seconds_cell(des));
  out += figure_card("step (book)", format_seconds(r.book_step_s));
  out += figure_card("des/book", des ? ratio_text(des_over_book(*des, r.book_step_s)) : "-");
  out += figure_card(fmt::format("MFU ({})", des ? "des" : "book"), percent_text(r.mfu));
  out += figure_card("tokens/s/chip", fmt::format("{:.0f}", r.tokens_per_s_per_chip));
  out += figure_card("memory per chip", bytes_text(r.memory_per_chip_bytes) + " of " + bytes_text(r.hbm_bytes),
                     !r.fits_hbm);
  out += figure_card("bound", std::string(step_bound_name(r.bound)));
  out += "</div>\n";
  out += "<p class=\"muted\">Simulated: " + esc(model_run_simulated_text(plan)) + ".</p>\n";
  if (r.rejected) out += "<p><span class=\"fail\">Not simulated:</span> " + esc(*r.rejected) + "</p>\n";
  if (r.book_step_s > 0) {
    const CriticalChipBreakdown& b = plan.step_breakdown;
    out += fmt::format("<p>Step ({}): compute {}, exposed communication {}, bubble {}, DCN {}.</p>\n",
                       des ? "des" : "book", esc(format_seconds(b.compute_s)),
                       esc(format_seconds(b.exposed_communication_s)), esc(format_seconds(b.bubble_s)),
                       esc(format_seconds(b.dcn_s)));
    out += step_breakdown_svg(StepParts{b.compute_s, b.exposed_communication_s, b.bubble_s, b.dcn_s},
                              "step breakdown, plan " + plan.name);
    if (r.breakdown.recompute_s > 0 || r.breakdown.offload_s > 0)
      out += fmt::format("<p>Of it (book): recomputed by remat {}, host offload exposed {}.</p>\n",
                         esc(format_seconds(r.breakdown.recompute_s)), esc(format_seconds(r.breakdown.offload_s)));
  }
  if (r.pipeline) {
    const PipelineFigures& f = *r.pipeline;
    out += fmt::format(
        "<p>Pipeline: {} stages over {}, {} layers each, {} microbatches; bubble des {}, book {} ({} of the "
        "span).</p>\n",
        f.stages, esc(fmt::format("{}", fmt::join(f.axes, ","))), f.layers_per_stage, f.microbatches,
        esc(model_seconds_cell(f.des_bubble_s)), esc(format_seconds(f.bubble_s)), esc(percent_text(f.bubble_fraction)));
  }
  out += model_memory_html(plan);
  if (!plan.ops.empty()) out += model_ops_html(plan);
  return out + "</section>\n";
}

}  // namespace

void write_model_run_html(const std::vector<ScenarioRun>& runs, std::ostream& out) {
  std::vector<std::string> names;
  for (const ScenarioRun& run : runs)
    names.push_back(run.name);
  out << run_page_head(names, kModelRunStyle,
                       "Each plan's step simulated (des) beside the closed-form book model (book), as `podsim plan` "
                       "evaluates a candidate.");
  for (const ScenarioRun& run : runs) {
    out << "<section class=\"scenario\">\n" << model_header_html(run) << model_comparison_html(run);
    for (const PlanRun& plan : run.plans)
      out << model_plan_html(plan);
    out << "</section>\n";
  }
  out << "</body>\n</html>\n";
}

}  // namespace podsim::report
