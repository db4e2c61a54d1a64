// `podsim plan --report FILE.html`: one self-contained page (inline CSS and SVG, no scripts or outside links). The
// charts place what the tables list: each point and bar carries a <title> naming its candidate, and the tables are
// the text report's cells (ranked_table, rejected_table), so the page and the terminal agree.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/chart_labels.hpp"
#include "sim/report/goal_report.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/slice_drawing.hpp"

namespace podsim::report {
namespace {

constexpr std::size_t kBreakdownShown = 10;  // candidates in the step-time breakdown
constexpr std::size_t kRanksLabelled = 5;    // points of the scatter chart labelled with their rank

const char* const kPlanReportStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #444; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .85em; }
th, td { border: 1px solid #ccc; padding: .2em .4em; text-align: left; vertical-align: top; white-space: nowrap; }
th { white-space: normal; vertical-align: bottom; } td.wrap { white-space: normal; min-width: 12em; max-width: 30em; }
tr.beneath td { border-top: none; color: #555; white-space: normal; padding-top: 0; }
div.wide { overflow-x: auto; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best { background: #e8f5e9; } .muted { color: #666; }
svg { display: block; margin: .6em 0; font-size: 12px; } svg text { fill: #222; }
.verdict { padding: .4em 1em; border-left: 6px solid; margin: .6em 0; } .verdict p { margin: .2em 0; }
.verdict.ok { border-color: #2e7d32; background: #e8f5e9; } .verdict.miss { border-color: #b3261e; background: #fdecea; }
.note { color: #555; font-size: .9em; max-width: 1000px; }
)";

// A linear or logarithmic map from [lo, hi] onto [0, length] pixels. Logarithmic when the values span more than
// 30 times, so a fast candidate and a slow one both stay readable; its ticks are the powers of `base` (10 for
// seconds, 4 for bytes: 1 GiB, 4 GiB, 16 GiB).
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double base = 10;
  double length = 1;
  double step = 0.2;  // linear: the tick step

  static Scale of(double min_value, double max_value, double length, double base) {
    Scale s;
    s.length = length;
    s.base = base;
    if (min_value > 0 && max_value / min_value > 30) {
      const auto power = [base](double v, auto round) { return std::pow(base, round(std::log(v) / std::log(base))); };
      s.log = true;
      s.lo = power(min_value, [](double e) { return std::floor(e + 1e-9); });
      s.hi = power(max_value, [](double e) { return std::ceil(e - 1e-9); });
    } else {
      // Linear: about five ticks at a round step, 1, 2 or 5 times a power of ten (seconds) or a power of two (bytes).
      const double raw = (max_value > 0 ? max_value : 1) / 5;
      if (base == 10) {
        const double magnitude = std::pow(10, std::floor(std::log10(raw)));
        s.step = magnitude * (raw <= magnitude ? 1 : raw <= 2 * magnitude ? 2 : raw <= 5 * magnitude ? 5 : 10);
      } else {
        s.step = std::pow(2, std::ceil(std::log2(raw)));
      }
      s.lo = 0;
      s.hi = s.step * std::ceil((max_value > 0 ? max_value : 1) / s.step * 1.0001);
    }
    return s;
  }
  double at(double value) const {
    if (log) return length * (std::log10(std::max(value, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return length * (value - lo) / (hi - lo);
  }
  // Tick values: each power of ten (log), or five even steps (linear).
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double v = lo; v <= hi * 1.0001; v *= base)
        out.push_back(v);
    } else {
      for (double v = 0; v <= hi * 1.0001; v += step)
        out.push_back(v);
    }
    return out;
  }
};

struct Point {
  const CandidateResult* result;
  std::optional<std::size_t> rank;
};

// The colours of the slices (with their hardware when it varies) in the scatter chart; red is kept for nothing else.
constexpr const char* kPalette[] = {"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#9c755f",
                                    "#edc948", "#ff9da7", "#bab0ac", "#1f4e79", "#2e7d32", "#a0522d",
                                    "#6a3d9a", "#00838f", "#827717", "#ad1457", "#455a64", "#ffb300"};

// Step time (des when simulated, else book) against memory per chip, one mark per evaluated candidate: a dot when
// it fits HBM, a cross when not, coloured by slice.
std::string scatter_svg(const PlanSearchResult& search, const VaryingFields& varying) {
  std::vector<Point> points;
  for (std::size_t i = 0; i < search.ranked.size(); ++i)
    points.push_back({&search.ranked[i], i + 1});
  for (const CandidateResult& r : search.rejected)
    if (was_evaluated(r)) points.push_back({&r, std::nullopt});
  if (points.empty()) return "<p class=\"muted\">No candidate could be evaluated.</p>\n";
  std::map<std::uint64_t, std::string> capacities;  // HBM bytes -> presets with that capacity
  double min_mem = 0, max_mem = 0, min_s = 0, max_s = 0;
  bool first = true;
  for (const Point& p : points) {
    const double mem = static_cast<double>(p.result->memory_per_chip_bytes), step = p.result->step_s();
    min_mem = first ? mem : std::min(min_mem, mem);
    max_mem = first ? mem : std::max(max_mem, mem);
    min_s = first ? step : std::min(min_s, step);
    max_s = first ? step : std::max(max_s, step);
    first = false;
    if (p.result->hbm_bytes > 0) {
      std::string& names = capacities[p.result->hbm_bytes];
      const std::string& name = p.result->candidate.hardware.name;
      if (names.find(name) == std::string::npos) names += (names.empty() ? "" : ", ") + name;
    }
  }
  for (const auto& [bytes, names] : capacities) {
    min_mem = std::min(min_mem, static_cast<double>(bytes));
    max_mem = std::max(max_mem, static_cast<double>(bytes));
  }
  std::vector<std::string> groups;  // slice (and hardware) per colour, in order of first appearance
  const auto group_of = [&](const Candidate& c) {
    const std::string key =
        (varying.hardware ? c.hardware.name + " " : "") + slice_text(c) + " (" + std::to_string(c.chips()) + " chips)";
    const auto at = std::find(groups.begin(), groups.end(), key);
    if (at != groups.end()) return static_cast<std::size_t>(at - groups.begin());
    groups.push_back(key);
    return groups.size() - 1;
  };
  const auto colour = [](std::size_t group) { return kPalette[group % std::size(kPalette)]; };
  const double left = 90, top = 30, width = 760, height = 420;
  const Scale x = Scale::of(min_mem, max_mem, width, 4);
  const Scale y = Scale::of(min_s, max_s, height, 10);
  const auto px = [&](double bytes) { return left + x.at(bytes); };
  const auto py = [&](double seconds) { return top + height - y.at(seconds); };
  std::string out = fmt::format(
      "<svg class=\"scatter\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"step time against memory per "
      "chip, one mark per candidate\">\n",
      left + width + 260, top + height + 50);
  // Axes and ticks.
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", left, top, top + height);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", left, top + height,
                     left + width);
  for (const double t : y.ticks())
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        left, py(t), left + width, left - 6, py(t) + 4, esc(format_seconds(t)));
  for (const double t : x.ticks())
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/><text x=\"{0:.1f}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>\n",
        px(t), top, top + height, top + height + 16, esc(bytes_text(static_cast<std::uint64_t>(t))));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">memory per chip{}</text>\n", left + width / 2,
                     top + height + 36, x.log ? " (log scale)" : "");
  out += fmt::format(
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">step time (des when simulated, else "
      "book){}</text>\n",
      top + height / 2, y.log ? " (log)" : "");
  double hbm_label_y = top + 12;  // one line each, so that two capacities close on the axis keep their labels apart
  for (const auto& [bytes, names] : capacities) {
    const double cx = px(static_cast<double>(bytes));
    // Its label inside the plot: left of a line in the plot's right half (the legend is right of the plot).
    const bool right_half = cx > left + width / 2;
    out += fmt::format(
        "<line class=\"hbm\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#222\" "
        "stroke-dasharray=\"4 3\" stroke-width=\"2\"/><text x=\"{3:.1f}\" y=\"{4}\" text-anchor=\"{7}\">HBM {5} "
        "({6})</text>\n",
        cx, top, top + height, right_half ? cx - 4 : cx + 4, hbm_label_y, esc(bytes_text(bytes)), esc(names),
        right_half ? "end" : "start");
    hbm_label_y += 14;
  }
  // The best ranks' labels, placed best first so that theirs sit nearest their marks (chart_labels.hpp).
  std::vector<std::pair<double, double>> labelled(std::min(kRanksLabelled, search.ranked.size()));
  // Marks, rejected first so the ranked ones stay on top.
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    const CandidateResult& r = *it->result;
    const double cx = px(static_cast<double>(r.memory_per_chip_bytes)), cy = py(r.step_s());
    const std::string title =
        esc((it->rank ? fmt::format("#{} ", *it->rank) : std::string("rejected: ")) +
            candidate_label(r.candidate, varying) + ": " + format_seconds(r.step_s()) + ", " +
            bytes_text(r.memory_per_chip_bytes) + " per chip" + (r.rejected ? " (" + *r.rejected + ")" : ""));
    const char* fill = colour(group_of(r.candidate));
    if (it->rank)
      out += fmt::format(
          "<circle class=\"fit\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\" fill-opacity=\"0.85\"><title>{}"
          "</title></circle>",
          cx, cy, fill, title);
    else
      out += fmt::format(
          "<path class=\"nofit\" d=\"M{:.1f},{:.1f} l8,8 m0,-8 l-8,8\" stroke=\"{}\" stroke-width=\"2\"><title>{}"
          "</title></path>",
          cx - 4, cy - 4, fill, title);
    if (it->rank && *it->rank == 1)
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"9\" fill=\"none\" stroke=\"#222\"/>", cx, cy);
    if (it->rank && *it->rank <= labelled.size()) labelled[*it->rank - 1] = {cx, cy};
    out += "\n";
  }
  ChartLabels labels(left, top, left + width, top + height);
  for (std::size_t i = 0; i < labelled.size(); ++i)
    out += labels.place(labelled[i].first, labelled[i].second, i == 0 ? 9 : 5, fmt::format("#{}", i + 1));
  // Legend, right of the plot: the marks, the HBM line, then one colour per slice.
  const double lx = left + width + 24;
  out += fmt::format(
      "<circle cx=\"{0}\" cy=\"{1}\" r=\"5\" fill=\"#888\"/><text x=\"{2}\" y=\"{3}\">fits HBM (ranked)</text>"
      "<circle cx=\"{0}\" cy=\"{4}\" r=\"9\" fill=\"none\" stroke=\"#222\"/><text x=\"{2}\" y=\"{5}\">rank 1</text>"
      "<path d=\"M{6},{7} l8,8 m0,-8 l-8,8\" stroke=\"#888\" stroke-width=\"2\"/><text x=\"{2}\" y=\"{8}\">does "
      "not fit (rejected)</text><line x1=\"{9}\" y1=\"{10}\" x2=\"{11}\" y2=\"{10}\" stroke=\"#222\" "
      "stroke-dasharray=\"4 3\" stroke-width=\"2\"/><text x=\"{2}\" y=\"{12}\">HBM capacity per chip</text>\n",
      lx + 5, top + 6, lx + 18, top + 10, top + 28, top + 32, lx + 1, top + 46, top + 54, lx - 4, top + 72, lx + 14,
      top + 76);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double gy = top + 100 + 20 * static_cast<double>(g);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n", lx,
        gy - 9, colour(g), lx + 18, gy, esc(groups[g]));
  }
  return out + "</svg>\n";
}

// The closed form's step time of the top candidates, stacked by what bounds each part, with the des step marked and,
// under it, the des's step by what the critical chip does (computing, exposed communication, waiting): the overlap
// the book's sum does not see.
std::string breakdown_svg(const PlanSearchResult& search, const VaryingFields& varying) {
  const std::size_t shown = std::min(kBreakdownShown, search.ranked.size());
  if (shown == 0) return "";
  // Left: the candidates' labels, as wide as the longest; right of the longest bar, its figures (about 190 px) or the
  // des's caption (about 200 px at 9 px).
  std::vector<std::string> names(shown);
  double label_w = 200;
  for (std::size_t i = 0; i < shown; ++i) {
    names[i] = fmt::format("#{} {}", i + 1, candidate_label(search.ranked[i].candidate, varying));
    label_w = std::max(label_w, ChartLabels::width_of(names[i]) + 12);
  }
  const double bar_w = 600, bar_h = 18, des_h = 9, gap = 10, top = 28;
  double max_s = 0;
  for (std::size_t i = 0; i < shown; ++i)
    max_s = std::max({max_s, search.ranked[i].breakdown.total(), search.ranked[i].des_step_s.value_or(0)});
  const double scale = max_s > 0 ? bar_w / max_s : 0;
  struct Part {
    const char* name;
    const char* colour;
    double StepBreakdown::*field;
  };
  const Part parts[] = {
      {"compute", "#4e79a7", &StepBreakdown::compute_s}, {"HBM", "#59a14f", &StepBreakdown::hbm_s},
      {"ICI", "#f28e2b", &StepBreakdown::ici_s},         {"DCN", "#e15759", &StepBreakdown::dcn_s},
      {"bubble", "#bab0ac", &StepBreakdown::bubble_s},   {"offload", "#b07aa1", &StepBreakdown::offload_s}};
  std::string out = fmt::format(
      "<svg class=\"breakdown\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"closed-form step time by part "
      "of the top candidates\">\n",
      label_w + bar_w + 240, top + static_cast<double>(shown) * (bar_h + des_h + gap) + 10);
  double lx = label_w;
  for (const Part& part : parts) {
    out += fmt::format(
        "<rect x=\"{0}\" y=\"4\" width=\"10\" height=\"10\" fill=\"{1}\"/><text x=\"{2}\" y=\"13\">{3}</text>", lx,
        part.colour, lx + 14, part.name);
    lx += 90;
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"2\" x2=\"{0}\" y2=\"16\" stroke=\"#222\" stroke-width=\"3\"/><text x=\"{1}\" "
      "y=\"13\">des step</text>\n",
      lx + 5, lx + 12);
  double y = top;
  for (std::size_t i = 0; i < shown; ++i) {
    const CandidateResult& r = search.ranked[i];
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + bar_h - 4, esc(names[i]));
    double x = label_w;
    for (const Part& part : parts) {
      const double seconds = r.breakdown.*part.field;
      if (seconds <= 0) continue;
      const double w = scale * seconds;
      out += fmt::format(
          "<rect class=\"part\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}: {}"
          "</title></rect>",
          x, y, w, bar_h, part.colour, part.name, esc(format_seconds(seconds)));
      x += w;
    }
    if (r.des_step_s) {
      const double dx = label_w + scale * *r.des_step_s;
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#222\" stroke-width=\"3\"><title>des "
          "{3}</title></line>",
          dx, y - 2, y + bar_h + 2, esc(format_seconds(*r.des_step_s)));
    }
    // The bar's figure and the tick's: what each marks, in words.
    const std::string figures = "book " + format_seconds(r.breakdown.total()) +
                                (r.des_step_s   ? ", des " + format_seconds(*r.des_step_s) + " (tick)"
                                 : r.des_failed ? std::string(", des failed")
                                                : std::string());
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
                       std::max(x, label_w + scale * r.des_step_s.value_or(0)) + 6, y + bar_h - 4, esc(figures));
    if (r.des_breakdown) {
      const DesStepBreakdown& b = *r.des_breakdown;
      const std::pair<const char*, double> des_parts[] = {
          {"des: computing", b.compute_s},
          {"des: communication exposed (ICI)", b.exposed_communication_s},
          {"des: DCN exposed", b.dcn_s},
          {"des: waiting on other chips", b.bubble_s},
          {"des: host offload exposed", b.offload_s}};
      const char* const colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#bab0ac", "#b07aa1"};
      double dx = label_w;
      for (std::size_t k = 0; k < 5; ++k) {
        if (des_parts[k].second <= 0) continue;
        const double w = scale * des_parts[k].second;
        out += fmt::format(
            "<rect class=\"part\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
            "fill-opacity=\"0.55\"><title>{}: {}</title></rect>",
            dx, y + bar_h + 1, w, des_h, colours[k], des_parts[k].first, esc(format_seconds(des_parts[k].second)));
        dx += w;
      }
      out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"9\">des: {} exposed communication</text>\n", dx + 6,
                         y + bar_h + des_h, esc(format_seconds(b.exposed_communication_s + b.dcn_s)));
    }
    y += bar_h + des_h + gap;
  }
  return out + "</svg>\n";
}

// Long text (a goal's misses, a list of mirror images) goes beneath its row, across the table, so the table fits the
// page: the "goal" column says "met" or "missed", the line beneath says what; a rejection's reason wraps.
std::string table_html(const PlanTable& table, bool mark_first) {
  std::vector<std::size_t> shown;
  std::optional<std::size_t> goal, mirrors;
  for (std::size_t c = 0; c < table.headers.size(); ++c) {
    if (table.headers[c] == "mirror images") {
      mirrors = c;
      continue;
    }
    if (table.headers[c] == "goal") goal = c;
    shown.push_back(c);
  }
  std::string out = "<table>\n<tr>";
  for (const std::size_t c : shown)
    out += "<th>" + esc(table.headers[c]) + "</th>";
  out += "</tr>\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    const bool missed = goal && row[*goal] != "met" && row[*goal] != "-";
    out += mark_first && r == 0 ? "<tr class=\"best\">" : "<tr>";
    for (const std::size_t c : shown)
      out += (table.numeric[c]               ? "<td class=\"num\">"
              : table.headers[c] == "reason" ? "<td class=\"wrap\">"
                                             : "<td>") +
             esc(goal && c == *goal && missed ? std::string("missed") : row[c]) + "</td>";
    out += "</tr>\n";
    std::string beneath;
    if (missed) beneath += "goal missed: " + row[*goal];
    if (mirrors && row[*mirrors] != "-")
      beneath += (beneath.empty() ? "" : " · ") + ("mirror images: " + row[*mirrors]);
    if (!beneath.empty())
      out += fmt::format("<tr class=\"beneath\"><td></td><td colspan=\"{}\">{}</td></tr>\n", shown.size() - 1,
                         esc(beneath));
  }
  return out + "</table>\n";
}

// The columns of `table` whose header `keep` accepts, in order.
template <typename Keep>
PlanTable columns_of(const PlanTable& table, Keep keep) {
  PlanTable out;
  std::vector<std::size_t> kept;
  for (std::size_t c = 0; c < table.headers.size(); ++c)
    if (keep(table.headers[c])) kept.push_back(c);
  for (const std::size_t c : kept) {
    out.headers.push_back(table.headers[c]);
    out.numeric.push_back(table.numeric[c]);
  }
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const std::size_t c : kept)
      cells.push_back(row[c]);
    out.rows.push_back(std::move(cells));
  }
  return out;
}

// Who a row is: its rank, slice and parallelism, and the fields that vary between candidates.
bool identity_header(const std::string& header) {
  for (const char* name : {"rank", "slice (chips)", "parallelism", "plan", "hardware", "microbatches", "remat"})
    if (header == name) return true;
  return false;
}

}  // namespace

// The best candidate's slice (one of its `slices` when it has several), cubes outlined on a cube generation.
std::string best_slice_html(const PlanSearchResult& search) {
  if (search.ranked.empty()) return "";
  const Candidate& best = search.ranked.front().candidate;
  if (best.slice.empty() || best.wraparound.size() != best.slice.size()) return "";
  SliceDrawing drawing;
  drawing.cubes = best.hardware.spec.wrap_rule == WrapRule::whole_cubes;
  if (best.slices > 1) drawing.caption = "One of the " + std::to_string(best.slices) + " slices joined by the DCN";
  return "<h2>The best candidate's slice</h2>\n<div class=\"wide\">" +
         slice_drawing_svg(podsim::Slice(best.slice, best.wraparound, best.twist), drawing) + "</div>\n";
}

void write_plan_html(const PlanReport& report, std::ostream& out) {
  const PlanSearchResult& search = report.search;
  const VaryingFields varying = varying_fields(search);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podsim plan: "
      << esc(report.spec.name) << "</title>\n<style>" << kPlanReportStyle << "</style>\n</head>\n<body>\n"
      << "<h1>podsim plan</h1>\n<p>" << esc(plan_title(report.spec)) << "</p>\n<p class=\"muted\">"
      << esc(search_summary(search)) << ". Each candidate is screened by the closed form (book); the best are "
      << "simulated hop by hop (des).</p>\n";
  out << goal_section_html(report.spec, search);
  out << "<h2>Step time against memory per chip</h2>\n" << scatter_svg(search, varying);
  if (!search.ranked.empty())
    out << "<h2>Step time by part, top " << std::min(kBreakdownShown, search.ranked.size())
        << " (closed form; the des beneath)</h2>\n"
        << "<p class=\"note\">Each bar adds every op's closed-form time (no overlap). Beneath it, for a simulated "
           "candidate, the des's step on its critical chip: computing, then the communication no compute hides "
           "(the layers run in sequence, so a layer's collectives overlap its neighbours' compute).</p>\n"
        << breakdown_svg(search, varying);
  out << best_slice_html(search);
  out << "<h2>Ranked candidates</h2>\n";
  const PlanTable ranked = ranked_table(report);
  if (ranked.rows.empty())
    out << "<p>No candidate fits.</p>\n";
  else
    out << "<div class=\"wide\">"
        << table_html(columns_of(ranked,
                                 [](const std::string& h) {
                                   return h != "mesh" && h != "headroom" && !memory_kind_header(h);
                                 }),
                      true)
        << "</div>\n";
  for (const auto& note : ranked.notes)
    out << "<p>" << esc(note) << "</p>\n";
  if (!ranked.rows.empty())
    out << "<h2>Memory per chip by kind</h2>\n<div class=\"wide\">"
        << table_html(columns_of(ranked,
                                 [](const std::string& h) {
                                   return identity_header(h) || h == "mesh" || memory_kind_header(h) ||
                                          h == "memory/chip" || h == "headroom";
                                 }),
                      true)
        << "</div>\n";
  const PlanTable rejected = rejected_table(report);
  if (!rejected.rows.empty()) {
    out << "<h2>Rejected (" << rejected.rows.size() << ")</h2>\n";
    out << "<div class=\"wide\">" << table_html(rejected, false) << "</div>\n";
  }
  out << "</body>\n</html>\n";
}

}  // namespace podsim::report
