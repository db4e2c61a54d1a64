// Sweep report charts as inline SVG. Every string from the records goes through html_escape; times and bytes through
// the same formatters as the other reports. Axes go logarithmic when their values span more than 30 times.
#include "sim/report/sweep_report_charts.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSeriesPalette[] = {"#4e79a7", "#f28e2b", "#76b7b2", "#59a14f", "#b07aa1",
                                          "#9c755f", "#edc948", "#ff9da7", "#bab0ac"};
constexpr const char* kFitAll = "#59a14f";
constexpr const char* kFitSome = "#edc948";
constexpr const char* kFitNone = "#e15759";

// The plot area of a chart, in pixels of its SVG.
constexpr double kLeft = 84, kTop = 28, kWidth = 450, kHeight = 230, kPad = 14;
constexpr double kChartWidth = kLeft + kWidth + 96;  // room right of the plot for the HBM lines' labels

// A map from values onto [0, length] pixels, with its tick values.
struct ChartScale {
  double lo = 0, hi = 1;
  bool log = false;
  double length = 1;
  std::vector<double> ticks;

  double at(double value) const {
    if (log) return length * (std::log10(std::max(value, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return hi > lo ? length * (value - lo) / (hi - lo) : length / 2;
  }
};

// A figure's axis from 0 (linear, about five round ticks) or between powers of `base` (10 for seconds, 4 for bytes).
ChartScale quantity_scale(double min_value, double max_value, double length, double base) {
  ChartScale s;
  s.length = length;
  if (min_value > 0 && max_value / min_value > 30) {
    s.log = true;
    s.lo = std::pow(base, std::floor(std::log(min_value) / std::log(base) + 1e-9));
    s.hi = std::pow(base, std::ceil(std::log(max_value) / std::log(base) - 1e-9));
    for (double v = s.lo; v <= s.hi * 1.0001; v *= base)
      s.ticks.push_back(v);
    return s;
  }
  const double top = max_value > 0 ? max_value : 1;
  const double raw = top / 5;
  double step = std::pow(2, std::ceil(std::log2(raw)));
  if (base == 10) {
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    step = magnitude * (raw <= magnitude ? 1 : raw <= 2 * magnitude ? 2 : raw <= 5 * magnitude ? 5 : 10);
  }
  s.hi = step * std::ceil(top / step * 1.0001);
  for (double v = 0; v <= s.hi * 1.0001; v += step)
    s.ticks.push_back(v);
  return s;
}

// A swept number's axis between its least and largest value; ticks at the values swept when there are few.
ChartScale number_scale(const std::vector<double>& sorted, double length) {
  ChartScale s;
  s.length = length;
  s.lo = sorted.front();
  s.hi = sorted.back();
  s.log = s.lo > 0 && s.hi / s.lo > 30;
  if (sorted.size() <= 12) {
    s.ticks = sorted;
  } else if (s.log) {
    // Powers of ten, and 2 and 5 times them when the axis spans less than four powers.
    const bool fine = s.hi / s.lo < 1e4;
    for (double decade = std::pow(10, std::floor(std::log10(s.lo))); decade <= s.hi * 1.0001; decade *= 10)
      for (const double m : {1.0, 2.0, 5.0})
        if ((m == 1.0 || fine) && decade * m >= s.lo * 0.9999 && decade * m <= s.hi * 1.0001)
          s.ticks.push_back(decade * m);
  } else {
    const double raw = (s.hi - s.lo) / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    const double step = magnitude * (raw <= magnitude ? 1 : raw <= 2 * magnitude ? 2 : raw <= 5 * magnitude ? 5 : 10);
    for (double v = std::ceil(s.lo / step) * step; v <= s.hi * 1.0001; v += step)
      s.ticks.push_back(v);
  }
  return s;
}

// The x axis of a parameter: numbers, or one band per distinct value.
struct ParameterAxis {
  bool numeric = true;
  ChartScale scale;                     // numeric
  std::vector<double> numbers;          // numeric: the distinct values, ascending
  std::vector<std::string> categories;  // otherwise: the distinct values' text, in order of first appearance

  std::size_t key(const Json& value) const {  // index of the value in numbers or categories
    if (numeric)
      return static_cast<std::size_t>(std::lower_bound(numbers.begin(), numbers.end(), value.get<double>()) -
                                      numbers.begin());
    return static_cast<std::size_t>(std::find(categories.begin(), categories.end(), value_text(value)) -
                                    categories.begin());
  }
  std::size_t keys() const { return numeric ? numbers.size() : categories.size(); }
  double band() const { return kWidth / static_cast<double>(std::max<std::size_t>(1, categories.size())); }
  // The pixel (from the plot's left edge) of the value with this key.
  double at(std::size_t k) const {
    if (numeric) return kPad + scale.at(numbers[k]);
    return band() * (static_cast<double>(k) + 0.5);
  }
};

ParameterAxis parameter_axis(const SweepReportData& data, std::size_t parameter) {
  ParameterAxis axis;
  bool any = false;
  for (const SweepReportPoint& p : data.points) {
    const Json& v = p.values[parameter];
    if (v.is_null()) continue;
    any = true;
    if (!v.is_number()) axis.numeric = false;
  }
  axis.numeric = axis.numeric && any;
  for (const SweepReportPoint& p : data.points) {
    const Json& v = p.values[parameter];
    if (axis.numeric) {
      if (!v.is_null()) axis.numbers.push_back(v.get<double>());
    } else {
      const std::string text = value_text(v);
      if (std::find(axis.categories.begin(), axis.categories.end(), text) == axis.categories.end())
        axis.categories.push_back(text);
    }
  }
  if (axis.numeric) {
    std::sort(axis.numbers.begin(), axis.numbers.end());
    axis.numbers.erase(std::unique(axis.numbers.begin(), axis.numbers.end()), axis.numbers.end());
    axis.scale = number_scale(axis.numbers, kWidth - 2 * kPad);
  }
  return axis;
}

// A label cut to `chars` characters (counted as UTF-8 code points), with an ellipsis when cut.
std::string cut(const std::string& text, std::size_t chars) {
  std::string out;
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && ++points > chars) return out + "…";
    out += text[i];
  }
  return out;
}

// One mark to draw: its pixel, its series and fit, the mark it stands for and how many more landed there.
struct Placed {
  double x = 0, y = 0;
  std::size_t series = 0;
  bool fits = false;
  std::size_t mark = 0;
  std::size_t count = 1;
};

// Marks of the same series and fit within `cell` pixels on both axes become one, the first in record order.
std::vector<Placed> merge_close(const std::vector<Placed>& placed, double cell) {
  std::map<std::tuple<std::size_t, bool, long, long>, std::size_t> at;
  std::vector<Placed> out;
  for (const Placed& p : placed) {
    const auto key =
        std::make_tuple(p.series, p.fits, std::lround(std::floor(p.x / cell)), std::lround(std::floor(p.y / cell)));
    const auto [it, inserted] = at.emplace(key, out.size());
    if (inserted)
      out.push_back(p);
    else
      out[it->second].count += p.count;
  }
  return out;
}

// Every mark once when they fit the cap, else merged on a grid doubled until they do.
std::vector<Placed> thin(const std::vector<Placed>& placed, double& cell) {
  cell = 0;
  if (placed.size() <= kSweepMarksPerChart) return placed;
  std::vector<Placed> out;
  for (cell = 1;; cell *= 2) {
    out = merge_close(placed, cell);
    if (out.size() <= kSweepMarksPerChart) return out;
  }
}

std::string point_text(const SweepReportData& data, const SweepMark& mark) {
  return fmt::format("point {}, {}", data.points[mark.record].point, data.series[mark.series]);
}

std::string marks_svg(const SweepReportData& data, const std::vector<Placed>& drawn,
                      const std::function<std::string(const SweepMark&)>& figure, double radius) {
  std::string out;
  for (const Placed& p : drawn) {
    const SweepMark& mark = data.marks[p.mark];
    std::string title = point_text(data, mark) + ": " + figure(mark);
    if (!mark.candidate.empty()) title += " (" + mark.candidate + ")";
    if (!p.fits) title += ", does not fit HBM";
    if (p.count > 1) title += fmt::format(" (and {} more here)", p.count - 1);
    if (p.fits)
      out += fmt::format("<circle class=\"fit s{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\"><title>{}</title></circle>\n",
                         p.series % std::size(kSeriesPalette), p.x, p.y, radius, esc(title));
    else
      out += fmt::format("<path class=\"nofit s{}\" d=\"M{:.1f},{:.1f}l7,7m0,-7l-7,7\"><title>{}</title></path>\n",
                         p.series % std::size(kSeriesPalette), p.x - 3.5, p.y - 3.5, esc(title));
  }
  return out;
}

// The y axis of a plot `width` wide (its height is the scale's length), with grid lines and a rotated title.
std::string y_axis_svg(const ChartScale& y, double width, const std::function<std::string(double)>& label,
                       const std::string& title) {
  std::string out = fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>\n", kLeft, kTop,
                                kTop + y.length);
  for (const double t : y.ticks) {
    const double py = kTop + y.length - y.at(t);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        kLeft, py, kLeft + width, kLeft - 6, py + 4, esc(label(t)));
  }
  out += fmt::format("<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}{}</text>\n",
                     kTop + y.length / 2, esc(title), y.log ? " (log)" : "");
  return out;
}

// Ticks of a numeric x axis under a plot `height` tall, a label left out where it would overlap the one before it.
std::string x_ticks_svg(const ChartScale& x, double offset, double height,
                        const std::function<std::string(double)>& label) {
  std::string out;
  double last_end = -1e9;
  for (const double t : x.ticks) {
    const double px = kLeft + offset + x.at(t);
    const std::string text = label(t);
    const double half = 3.5 * static_cast<double>(text.size());
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>", px, kTop,
                       kTop + height);
    if (px - half > last_end + 6) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px, kTop + height + 16,
                         esc(text));
      last_end = px + half;
    }
    out += "\n";
  }
  return out;
}

std::optional<double> quantity_of(const SweepMark& mark, SweepQuantity quantity) {
  switch (quantity) {
    case SweepQuantity::des_time:
      return mark.des_time_s;
    case SweepQuantity::book_time:
      return mark.book_time_s;
    case SweepQuantity::memory:
      if (!mark.memory_per_chip_bytes) return std::nullopt;
      return static_cast<double>(*mark.memory_per_chip_bytes);
    case SweepQuantity::days_to_train:
      return mark.time_to_train_days;
    case SweepQuantity::goal_cost:
      return mark.cost_usd;
  }
  return std::nullopt;
}

std::string quantity_text(SweepQuantity quantity, double value) {
  switch (quantity) {
    case SweepQuantity::memory:
      return bytes_text(static_cast<std::uint64_t>(value));
    case SweepQuantity::days_to_train:
      return format_number(value) + " days";
    case SweepQuantity::goal_cost:
      return "$" + format_number(value);
    default:
      return format_seconds(value);
  }
}

const char* quantity_name(SweepQuantity quantity) {
  switch (quantity) {
    case SweepQuantity::des_time:
      return "des time (simulated)";
    case SweepQuantity::book_time:
      return "book time (closed form)";
    case SweepQuantity::memory:
      return "memory per chip";
    case SweepQuantity::days_to_train:
      return "days to train (expected)";
    case SweepQuantity::goal_cost:
      return "cost to train (USD)";
  }
  return "";
}

std::string number_label(double value) {
  return format_number(value);
}

}  // namespace

const char* sweep_series_colour(std::size_t series) {
  return kSeriesPalette[series % std::size(kSeriesPalette)];
}

SweepChart parameter_chart(const SweepReportData& data, std::size_t parameter, SweepQuantity quantity) {
  SweepChart chart;
  const ParameterAxis axis = parameter_axis(data, parameter);
  if (axis.keys() == 0) return chart;
  // The y range, with the HBM capacities on the memory chart so that their lines are on it.
  std::vector<double> values;
  std::map<std::uint64_t, bool> capacities;
  for (const SweepMark& m : data.marks) {
    if (const auto v = quantity_of(m, quantity)) values.push_back(*v);
    if (quantity == SweepQuantity::memory && m.hbm_bytes && *m.hbm_bytes > 0) capacities[*m.hbm_bytes] = true;
  }
  if (values.empty()) return chart;
  for (const auto& [bytes, unused] : capacities)
    values.push_back(static_cast<double>(bytes));
  const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
  const ChartScale y = quantity_scale(*min_it, *max_it, kHeight, quantity == SweepQuantity::memory ? 4 : 10);
  // Marks, each series a little apart within a band, and what fits per value of the parameter.
  const double spread = axis.numeric ? 0 : std::min(10.0, axis.band() * 0.6 / static_cast<double>(data.series.size()));
  std::vector<Placed> placed;
  std::vector<std::pair<std::size_t, std::size_t>> fit_count(axis.keys());  // (fit, all) per key
  for (std::size_t i = 0; i < data.marks.size(); ++i) {
    const SweepMark& m = data.marks[i];
    const Json& value = data.points[m.record].values[parameter];
    const auto v = quantity_of(m, quantity);
    if (!v || (axis.numeric && value.is_null())) continue;
    const std::size_t k = axis.key(value);
    fit_count[k].first += m.fits_hbm ? 1 : 0;
    ++fit_count[k].second;
    const double offset = spread * (static_cast<double>(m.series) - (static_cast<double>(data.series.size()) - 1) / 2);
    placed.push_back({kLeft + axis.at(k) + offset, kTop + kHeight - y.at(*v), m.series, m.fits_hbm, i, 1});
  }
  chart.placed = placed.size();
  const std::vector<Placed> drawn = thin(placed, chart.cell_px);
  chart.drawn = drawn.size();
  const bool rotate = !axis.numeric && axis.categories.size() > 6;
  const double label_room = rotate ? 70 : 20;
  const double band_y = kTop + kHeight + label_room + 4;
  std::string& out = chart.svg;
  out = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{} against {}\">\n",
                    kChartWidth, band_y + 46, quantity_name(quantity), esc(data.pointers[parameter]));
  out += fmt::format("<text x=\"{}\" y=\"14\" class=\"title\">{} against {}</text>\n", kLeft, quantity_name(quantity),
                     esc(data.pointers[parameter]));
  out += y_axis_svg(
      y, kWidth, [&](double t) { return quantity_text(quantity, t); }, quantity_name(quantity));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", kLeft, kTop + kHeight,
                     kLeft + kWidth);
  if (axis.numeric) {
    out += x_ticks_svg(axis.scale, kPad, kHeight, number_label);
  } else {
    const std::size_t chars = rotate ? 14 : std::max<std::size_t>(3, static_cast<std::size_t>(axis.band() / 7.5));
    for (std::size_t k = 0; k < axis.categories.size(); ++k) {
      const double px = kLeft + axis.at(k);
      const std::string label = esc(cut(axis.categories[k], chars));
      if (rotate)
        out += fmt::format(
            "<text transform=\"translate({:.1f},{}) rotate(-40)\" text-anchor=\"end\"><title>{}</title>{}</text>\n", px,
            kTop + kHeight + 12, esc(axis.categories[k]), label);
      else
        out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\"><title>{}</title>{}</text>\n", px,
                           kTop + kHeight + 16, esc(axis.categories[k]), label);
    }
  }
  // The fit strip: one segment per value, reaching halfway to its neighbours.
  for (std::size_t k = 0; k < axis.keys(); ++k) {
    const auto [fit, all] = fit_count[k];
    if (all == 0) continue;
    const double centre = axis.at(k);
    const double lo = k == 0 ? (axis.numeric ? centre - kPad : 0) : (centre + axis.at(k - 1)) / 2;
    const double hi = k + 1 == axis.keys() ? (axis.numeric ? centre + kPad : kWidth) : (centre + axis.at(k + 1)) / 2;
    const char* colour = fit == all ? kFitAll : fit == 0 ? kFitNone : kFitSome;
    out += fmt::format(
        "<rect class=\"band\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"8\" fill=\"{}\"><title>{} of {} fit "
        "HBM</title></rect>\n",
        kLeft + lo, band_y, std::max(1.0, hi - lo - 1), colour, fit, all);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", kLeft + kWidth / 2, band_y + 26,
                     esc(data.pointers[parameter]), axis.numeric && axis.scale.log ? " (log)" : "");
  for (const auto& [bytes, unused] : capacities) {
    const double py = kTop + kHeight - y.at(static_cast<double>(bytes));
    out += fmt::format(
        "<line class=\"hbm\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#222\" "
        "stroke-dasharray=\"5 3\" stroke-width=\"1.5\"/><text x=\"{3}\" y=\"{4:.1f}\">HBM {5}</text>\n",
        kLeft, py, kLeft + kWidth, kLeft + kWidth + 4, py + 4, esc(bytes_text(bytes)));
  }
  out += marks_svg(
      data, drawn, [&](const SweepMark& m) { return quantity_text(quantity, *quantity_of(m, quantity)); }, 3.5);
  out += "</svg>\n";
  return chart;
}

SweepChart pareto_chart(const SweepReportData& data, ParetoCost cost, const std::vector<std::size_t>& front) {
  SweepChart chart;
  std::vector<std::size_t> fitting;
  for (std::size_t i = 0; i < data.marks.size(); ++i)
    if (data.marks[i].fits_hbm && data.marks[i].step_s() && pareto_cost(data.marks[i], cost)) fitting.push_back(i);
  if (fitting.empty()) return chart;
  std::vector<double> costs, times;
  for (const std::size_t i : fitting) {
    costs.push_back(*pareto_cost(data.marks[i], cost));
    times.push_back(*data.marks[i].step_s());
  }
  std::sort(costs.begin(), costs.end());
  costs.erase(std::unique(costs.begin(), costs.end()), costs.end());
  const double width = kWidth * 1.5, height = kHeight * 1.5;
  const ChartScale x = number_scale(costs, width - 2 * kPad);
  const auto [min_t, max_t] = std::minmax_element(times.begin(), times.end());
  const ChartScale y = quantity_scale(*min_t, *max_t, height, 10);
  const auto px = [&](double c) { return kLeft + kPad + x.at(c); };
  const auto py = [&](double t) { return kTop + height - y.at(t); };
  const bool priced = cost == ParetoCost::cost_per_million_tokens;
  const auto cost_text = [&](double c) { return priced ? "$" + format_number(c) : format_number(c); };
  std::vector<Placed> placed;
  for (const std::size_t i : fitting) {
    const SweepMark& m = data.marks[i];
    placed.push_back({px(*pareto_cost(m, cost)), py(*m.step_s()), m.series, true, i, 1});
  }
  chart.placed = placed.size();
  const std::vector<Placed> drawn = thin(placed, chart.cell_px);
  chart.drawn = drawn.size();
  std::string& out = chart.svg;
  out = fmt::format(
      "<svg class=\"chart pareto\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"step time against {}, "
      "the Pareto front highlighted\">\n",
      kLeft + width + 30, kTop + height + 50, priced ? "cost per million tokens" : "chips");
  // The front as a staircase: from each point across to the next one's cost, then down to its time.
  std::string steps;
  for (std::size_t f = 0; f < front.size(); ++f) {
    const SweepMark& m = data.marks[front[f]];
    const double fx = px(*pareto_cost(m, cost)), fy = py(*m.step_s());
    steps += f == 0 ? fmt::format("M{:.1f},{:.1f}", fx, fy) : fmt::format("H{:.1f}V{:.1f}", fx, fy);
  }
  out += y_axis_svg(
      y, width, [](double t) { return format_seconds(t); }, "step time (des when simulated, else book)");
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", kLeft, kTop + height,
                     kLeft + width);
  out += x_ticks_svg(x, kPad, height, cost_text);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", kLeft + width / 2,
                     kTop + height + 38, priced ? "cost per million tokens (USD)" : "chips", x.log ? " (log)" : "");
  out += marks_svg(
      data, drawn, [](const SweepMark& m) { return format_seconds(*m.step_s()); }, 3);
  out += fmt::format("<path class=\"front\" d=\"{}\" fill=\"none\" stroke=\"#222\" stroke-width=\"2\"/>\n", steps);
  for (const std::size_t i : front) {
    const SweepMark& m = data.marks[i];
    const double c = *pareto_cost(m, cost);
    std::string title = point_text(data, m) + ": " + format_seconds(*m.step_s()) + ", " +
                        (priced ? "$" + format_number(c) + " per million tokens" : format_number(c) + " chips");
    if (!m.candidate.empty()) title += " (" + m.candidate + ")";
    out += fmt::format(
        "<circle class=\"onfront s{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" stroke=\"#222\" stroke-width=\"2\">"
        "<title>{}</title></circle>\n",
        m.series % std::size(kSeriesPalette), px(c), py(*m.step_s()), esc(title));
  }
  out += "</svg>\n";
  return chart;
}

std::string sweep_legend_svg(const SweepReportData& data) {
  const double row = 20;
  std::string out;
  double x = 4;
  for (std::size_t s = 0; s < data.series.size(); ++s) {
    const std::string name = cut(data.series[s], 24);
    out += fmt::format("<circle class=\"fit s{}\" cx=\"{}\" cy=\"10\" r=\"5\"/><text x=\"{}\" y=\"14\">{}</text>",
                       s % std::size(kSeriesPalette), x + 5, x + 14, esc(name));
    x += 30 + 7.5 * static_cast<double>(display_width(name));
  }
  const double y2 = row + 10;
  out += fmt::format(
      "\n<circle cx=\"9\" cy=\"{0}\" r=\"4\" fill=\"#888\"/><text x=\"18\" y=\"{1}\">fits HBM</text>"
      "<path d=\"M96,{2}l7,7m0,-7l-7,7\" stroke=\"#888\" stroke-width=\"2\"/><text x=\"110\" y=\"{1}\">does not "
      "fit</text>"
      "<line x1=\"210\" y1=\"{0}\" x2=\"240\" y2=\"{0}\" stroke=\"#222\" stroke-dasharray=\"5 3\" "
      "stroke-width=\"1.5\"/>"
      "<text x=\"246\" y=\"{1}\">HBM capacity per chip</text>"
      "<rect x=\"410\" y=\"{3}\" width=\"16\" height=\"8\" fill=\"{4}\"/><text x=\"430\" y=\"{1}\">every plan "
      "fits</text>"
      "<rect x=\"540\" y=\"{3}\" width=\"16\" height=\"8\" fill=\"{5}\"/><text x=\"560\" y=\"{1}\">some fit</text>"
      "<rect x=\"630\" y=\"{3}\" width=\"16\" height=\"8\" fill=\"{6}\"/><text x=\"650\" y=\"{1}\">none fits</text>\n",
      y2, y2 + 4, y2 - 3.5, y2 - 4, kFitAll, kFitSome, kFitNone);
  return fmt::format("<svg class=\"legend\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"legend\">\n",
                     std::max(760.0, x + 10), 2 * row + 8) +
         out + "</svg>\n";
}

}  // namespace podsim::report
