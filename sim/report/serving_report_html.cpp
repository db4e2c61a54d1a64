// `podsim serve --report FILE.html`: one self-contained page (inline CSS and SVG, no scripts or outside links) for a
// capacity planner: the verdict against the SLO first, the headline figures, the latency table of the text report,
// the latency CDFs with the SLO thresholds, and per replica batch size, queue and KV cache use over time, then the
// throughput over time. Long runs are thinned to at most kServingPointsPerLine points per line, and the page says so.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/serving_report.hpp"
#include "sim/report/sweep_report_charts.hpp"

namespace podsim {
namespace {

using report::esc;

constexpr std::size_t kServingPointsPerLine = 2000;  // points of one line of a chart
constexpr std::size_t kServingReplicaLines = 8;      // replicas drawn in the time series
constexpr std::size_t kServingThroughputBuckets = 200;
constexpr std::size_t kServingReplicasListedHtml = 256;  // rows of the replica table

const char* const kServingStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-bottom: 2px solid #444; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.over { background: #fde2e1; color: #b3261e; font-weight: bold; } td.within { background: #e8f5e9; }
.muted { color: #666; } .note { color: #555; font-size: .9em; max-width: 1100px; }
.verdict { padding: .6em 1em; border-radius: 6px; font-size: 1.1em; margin: 1em 0; }
.verdict.pass { background: #e8f5e9; border: 1px solid #59a14f; } .verdict.fail { background: #fde2e1; border: 1px solid #e15759; }
.verdict ul { margin: .3em 0 0 0; }
.cards { display: flex; flex-wrap: wrap; gap: .8em; margin: 1em 0; }
.card { border: 1px solid #ccc; border-radius: 6px; padding: .5em .9em; min-width: 10em; }
.card .value { font-size: 1.5em; font-weight: bold; font-variant-numeric: tabular-nums; } .card .label { color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
svg { display: block; margin: .4em 0; font-size: 12px; } svg text { fill: #222; } svg text.title { font-weight: bold; }
)";

// A linear axis from 0 to a round top, with about five ticks 1, 2 or 5 times a power of ten apart.
struct ServingAxis {
  double top = 1, step = 0.2;

  // `whole`: counts, whose ticks are whole numbers.
  static ServingAxis to(double max_value, bool whole) {
    ServingAxis axis;
    const double top = max_value > 0 && std::isfinite(max_value) ? max_value : 1;
    const double decade = std::pow(10, std::floor(std::log10(top / 5)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      axis.step = m * decade;
      if (axis.step >= top / 5) break;
    }
    if (whole) axis.step = std::max(1.0, std::round(axis.step));
    axis.top = axis.step * std::ceil(top / axis.step * (1 - 1e-9));
    return axis;
  }
};

struct ServingLine {
  std::string name;
  const char* colour;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// A straight line across the plot at a value: a threshold or a capacity.
struct ServingRule {
  bool vertical = false;
  double at = 0;
  std::string label;
  const char* colour = "#222";
  std::string cls;
};

struct ServingPlot {
  std::string cls, title, x_label, y_label;
  double width = 400, height = 200;  // the plot area, in pixels
  double right = 150;                // room right of the plot for the rules' labels
  bool whole_y = false;              // the y axis counts (whole ticks)
  double x_max = 1, y_max = 1;       // the data's largest values (the axes round them up)
  std::function<std::string(double)> x_tick, y_tick;
  std::vector<ServingLine> lines;
  std::vector<ServingRule> rules;
  std::vector<std::pair<std::pair<double, double>, std::string>> marks;  // dots at (x, y), with their title
};

constexpr double kServingLeft = 64, kServingTop = 26;

std::string serving_plot_svg(const ServingPlot& plot) {
  const ServingAxis x = ServingAxis::to(plot.x_max, false), y = ServingAxis::to(plot.y_max, plot.whole_y);
  const double left = kServingLeft, top = kServingTop, w = plot.width, h = plot.height;
  const auto px = [&](double v) { return left + w * std::clamp(v / x.top, 0.0, 1.0); };
  const auto py = [&](double v) { return top + h - h * std::clamp(v / y.top, 0.0, 1.0); };
  std::string out = fmt::format(
      "<svg class=\"{}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n<text class=\"title\" x=\"{}\" "
      "y=\"16\">{}</text>\n",
      plot.cls, left + w + plot.right, top + h + 44, esc(plot.title), left, esc(plot.title));
  for (double t = 0; t <= y.top * 1.0001; t += y.step)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        left, py(t), left + w, left - 6, py(t) + 4, esc(plot.y_tick(t)));
  for (double t = 0; t <= x.top * 1.0001; t += x.step)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/><text x=\"{0:.1f}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>\n",
        px(t), top, top + h, top + h + 16, esc(plot.x_tick(t)));
  out += fmt::format(
      "<path d=\"M{0},{1}V{2}H{3}\" fill=\"none\" stroke=\"#888\"/>\n<text x=\"{4}\" y=\"{5}\" "
      "text-anchor=\"middle\">{6}</text>\n<text transform=\"translate(14,{7}) rotate(-90)\" "
      "text-anchor=\"middle\">{8}</text>\n",
      left, top, top + h, left + w, left + w / 2, top + h + 34, esc(plot.x_label), top + h / 2, esc(plot.y_label));
  for (const ServingLine& line : plot.lines) {
    if (line.points.empty()) continue;
    std::string d;
    for (const auto& [vx, vy] : line.points)
      d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : "L", px(vx), py(vy));
    out += fmt::format(
        "<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" "
        "stroke-linejoin=\"round\"><title>{}</title></path>\n",
        d, line.colour, esc(line.name));
  }
  for (const ServingRule& rule : plot.rules) {
    const std::string cls = rule.cls.empty() ? "" : " class=\"" + rule.cls + "\"";
    if (rule.vertical) {
      const double at = px(rule.at);
      const bool right = at > left + w * 0.6;
      out += fmt::format(
          "<line{0} x1=\"{1:.1f}\" y1=\"{2}\" x2=\"{1:.1f}\" y2=\"{3}\" stroke=\"{4}\" stroke-width=\"2\" "
          "stroke-dasharray=\"6 3\"><title>{5}</title></line><text x=\"{6:.1f}\" y=\"{7}\" text-anchor=\"{8}\" "
          "fill=\"{4}\">{5}</text>\n",
          cls, at, top, top + h, rule.colour, esc(rule.label), right ? at - 4 : at + 4, top + 12,
          right ? "end" : "start");
    } else {
      const double at = py(rule.at);
      out += fmt::format(
          "<line{0} x1=\"{1}\" y1=\"{2:.1f}\" x2=\"{3}\" y2=\"{2:.1f}\" stroke=\"{4}\" stroke-width=\"1.5\" "
          "stroke-dasharray=\"4 3\"><title>{5}</title></line><text x=\"{6}\" y=\"{7:.1f}\">{5}</text>\n",
          cls, left, at, left + w, rule.colour, esc(rule.label), left + w + 6, at + 4);
    }
  }
  for (const auto& [at, title] : plot.marks)
    out += fmt::format(
        "<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#222\"><title>{}</title></circle>\n",
        px(at.first), py(at.second), esc(title));
  return out + "</svg>\n";
}

// At most `most` points of a series (x ascending): all of them, or per time bucket its largest value, drawn at the
// bucket's middle, so that peaks stay visible.
std::vector<std::pair<double, double>> serving_thinned(const std::vector<std::pair<double, double>>& points,
                                                       double x_end, std::size_t most) {
  if (points.size() <= most || x_end <= 0) return points;
  std::vector<std::pair<double, double>> out;
  const double width = x_end / static_cast<double>(most);
  std::size_t bucket = 0;
  bool open = false;
  for (const auto& [x, y] : points) {
    const auto b = std::min(most - 1, static_cast<std::size_t>(x / width));
    if (!open || b != bucket) {
      out.emplace_back((static_cast<double>(b) + 0.5) * width, y);
      bucket = b;
      open = true;
    } else {
      out.back().second = std::max(out.back().second, y);
    }
  }
  return out;
}

// The empirical CDF of `samples` as a staircase (x: seconds, y: fraction of requests at or below), through at most
// `most` of their ranks, evenly spaced (two points each: the rise at a sample, then the run to the next).
std::vector<std::pair<double, double>> serving_cdf(std::vector<double> samples, std::size_t most) {
  std::sort(samples.begin(), samples.end());
  std::vector<std::pair<double, double>> out;
  const std::size_t n = samples.size();
  if (n == 0) return out;
  const std::size_t shown = std::min(n, most);
  double below = 0.0;
  for (std::size_t k = 0; k < shown; ++k) {
    const std::size_t i = shown == 1 ? n - 1 : k * (n - 1) / (shown - 1);
    out.emplace_back(samples[i], below);
    below = static_cast<double>(i + 1) / static_cast<double>(n);
    out.emplace_back(samples[i], below);
  }
  return out;
}

std::string serving_ms_tick(double seconds) {
  return latency_ms_text(seconds);
}

std::string serving_cdf_svg(const ServingReport& report, SloMetric metric, const std::vector<double>& samples) {
  ServingPlot plot;
  plot.cls = "cdf";
  plot.title = std::string(slo_metric_label(metric)) + " CDF";
  plot.x_label = std::string(slo_metric_label(metric)) + " (ms)";
  plot.y_label = "requests at or below";
  plot.width = 300;
  plot.height = 220;
  plot.right = 40;
  plot.x_tick = serving_ms_tick;
  plot.y_tick = [](double f) { return fmt::format("{:.0f}%", 100 * f); };
  plot.lines.push_back({"requests", "#4e79a7", serving_cdf(samples, kServingPointsPerLine)});
  plot.x_max = samples.empty() ? 1e-3 : *std::max_element(samples.begin(), samples.end());
  for (const SloCheck& check : report.checks) {
    if (check.metric != metric) continue;
    plot.x_max = std::max(plot.x_max, check.target_s);
    const double level = percentile_of(check.percentile) / 100;
    plot.rules.push_back(
        {true, check.target_s,
         fmt::format("SLO {} {} ms", kPercentileKeyNames.name(check.percentile), latency_ms_text(check.target_s)),
         check.met ? "#2e7d32" : "#b3261e", "slo"});
    plot.rules.push_back({false, level, fmt::format("{:.0f}%", 100 * level), "#888", "level"});
    plot.marks.push_back({{check.actual_s, level},
                          fmt::format("the run's {}: {} ms", kPercentileKeyNames.name(check.percentile),
                                      latency_ms_text(check.actual_s))});
  }
  plot.x_max *= 1.02;
  return serving_plot_svg(plot);
}

// The replicas' step series: one line per replica drawn, `value` of each step.
std::string serving_series_svg(const ServingReport& report, const std::string& title, const std::string& y_label,
                               const std::function<double(const ServingStepSample&)>& value, double y_max,
                               std::vector<ServingRule> rules, const std::function<std::string(double)>& y_tick,
                               bool whole) {
  const std::size_t drawn = std::min(kServingReplicaLines, report.run.replicas.size());
  std::vector<std::vector<std::pair<double, double>>> series(drawn);
  for (const ServingStepSample& s : report.run.steps)
    if (static_cast<std::size_t>(s.replica) < drawn)
      series[static_cast<std::size_t>(s.replica)].emplace_back(s.end_s, value(s));
  const double end_s = std::max(report.run.end_s, report.metrics.duration_s);
  ServingPlot plot;
  plot.cls = "series";
  plot.title = title;
  plot.x_label = "time (s)";
  plot.y_label = y_label;
  plot.width = 1000;
  plot.height = 150;
  plot.x_max = end_s > 0 ? end_s : 1;
  plot.x_tick = [](double t) { return format_number(t); };
  plot.y_tick = y_tick;
  plot.y_max = y_max;
  plot.whole_y = whole;
  for (std::size_t r = 0; r < drawn; ++r) {
    for (const auto& p : series[r])
      plot.y_max = std::max(plot.y_max, p.second);
    plot.lines.push_back({fmt::format("replica {}", r), report::sweep_series_colour(r),
                          serving_thinned(series[r], end_s, kServingPointsPerLine)});
  }
  plot.rules = std::move(rules);
  return serving_plot_svg(plot);
}

std::string serving_card(const std::string& value, const std::string& label) {
  return "<div class=\"card\"><div class=\"value\">" + esc(value) + "</div><div class=\"label\">" + esc(label) +
         "</div></div>\n";
}

std::string serving_verdict_html(const ServingReport& report, const ServingTotals& totals) {
  if (report.checks.empty())
    return "<div class=\"verdict\">No SLO given: the latencies below are the run's, against no threshold.</div>\n";
  std::string out = fmt::format("<div class=\"verdict {}\"><strong>SLO {}</strong> on {} chips (traffic: {})<ul>\n",
                                totals.meets_slo ? "pass" : "fail", totals.meets_slo ? "met" : "missed", totals.chips,
                                esc(report.traffic));
  for (const SloCheck& check : report.checks)
    out += "<li>" + esc(slo_check_text(check)) + "</li>\n";
  return out + "</ul></div>\n";
}

std::string serving_latency_html(const ServingReport& report) {
  const ServingLatencyTable table = serving_latency_table(report);
  std::string out = "<table class=\"latency\">\n<tr>";
  for (const auto& header : table.headers)
    out += "<th>" + esc(header) + "</th>";
  out += "</tr>\n";
  const PercentileKey keys[] = {PercentileKey::p50, PercentileKey::p90, PercentileKey::p99};
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const SloCheck* check = table.checks[r];
    out += "<tr>";
    for (std::size_t c = 0; c < table.rows[r].size(); ++c) {
      std::string cls = c == 0 ? "" : "num";
      // The cell the SLO holds to: red when over its threshold, green when within.
      if (check && c >= 2 && c <= 4 && keys[c - 2] == check->percentile) cls += check->met ? " within" : " over";
      if (check && c == 5) cls = check->met ? "within" : "over";
      out += (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + esc(table.rows[r][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Two charts over time in buckets of a second (or of end / kServingThroughputBuckets in a longer run): the decode
// tokens every replica's steps computed per second (one per running request: the output tokens but each request's
// first), and the requests arrived and completed per second; each with the run's mean as a dashed line.
std::string serving_throughput_svg(const ServingReport& report) {
  const double end_s = std::max(report.run.end_s, report.metrics.duration_s);
  if (end_s <= 0) return "";
  const auto buckets =
      static_cast<std::size_t>(std::clamp(std::ceil(end_s), 1.0, static_cast<double>(kServingThroughputBuckets)));
  const double width = end_s / static_cast<double>(buckets);
  const auto bucket_of = [&](double t) { return std::min(buckets - 1, static_cast<std::size_t>(t / width)); };
  std::vector<double> decode(buckets, 0.0), arrived(buckets, 0.0), completed(buckets, 0.0);
  for (const ServingStepSample& s : report.run.steps)
    decode[bucket_of(s.end_s)] += static_cast<double>(s.batch_tokens - s.prefill_tokens) / width;
  for (const RequestRecord& r : report.run.completed) {
    arrived[bucket_of(r.arrival_s)] += 1 / width;
    completed[bucket_of(r.last_token_s)] += 1 / width;
  }
  const auto plot_of = [&](std::string title, std::string y_label) {
    ServingPlot plot;
    plot.cls = "throughput";
    plot.title = std::move(title);
    plot.x_label = "time (s)";
    plot.y_label = std::move(y_label);
    plot.width = 1000;
    plot.height = 150;
    plot.x_max = end_s;
    plot.x_tick = [](double t) { return format_number(t); };
    plot.y_tick = [](double v) { return format_number(v); };
    return plot;
  };
  const auto line_of = [&](std::string name, const char* colour, const std::vector<double>& per_s, ServingPlot& plot) {
    ServingLine line{std::move(name), colour, {}};
    for (std::size_t b = 0; b < buckets; ++b) {
      line.points.emplace_back((static_cast<double>(b) + 0.5) * width, per_s[b]);
      plot.y_max = std::max(plot.y_max, per_s[b]);
    }
    plot.lines.push_back(std::move(line));
  };
  const ServingMetrics& m = report.metrics;
  ServingPlot tokens = plot_of("Decode tokens per second, all replicas", "tokens/s");
  line_of("decode tokens/s", "#4e79a7", decode, tokens);
  tokens.rules.push_back({false, m.output_tokens_per_s,
                          fmt::format("mean output {}/s", format_number(m.output_tokens_per_s)), "#222", "mean"});
  ServingPlot requests = plot_of("Requests per second: arrived (grey) and completed (green)", "requests/s");
  line_of("arrived/s", "#bab0ac", arrived, requests);
  line_of("completed/s", "#59a14f", completed, requests);
  requests.rules.push_back(
      {false, m.requests_per_s, fmt::format("mean {}/s", format_number(m.requests_per_s)), "#222", "mean"});
  return serving_plot_svg(tokens) + serving_plot_svg(requests) +
         fmt::format(
             "<p class=\"note\">In {} buckets of {}. Decode tokens are the output tokens but each request's first "
             "(which its prefill computes). Arrivals above completions for long is a queue that grows: the deployment "
             "does not keep up with the traffic. The dashed lines are the run's means over its {}.</p>\n",
             buckets, format_seconds(width), format_seconds(m.duration_s));
}

// `--max-rate`'s probes as throughput against latency: per SLO metric, the percentile the SLO names (p99 without one)
// against the achieved requests/s, one dot per probe, the SLO threshold and the answer's rate as dashed lines. A
// latency far past its threshold (a saturated queue) is drawn at the top: the y axis ends at 4 x the threshold.
std::string serving_rate_svg(const ServingReport& report, SloMetric metric) {
  const auto& target = report.slo.target(metric);
  const PercentileKey key = target ? target->percentile : PercentileKey::p99;
  std::vector<const RatePoint*> sorted;
  for (const RatePoint& p : report.rate_points)
    sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const RatePoint* a, const RatePoint* b) { return a->rate_per_s < b->rate_per_s; });
  ServingPlot plot;
  plot.cls = "rate";
  plot.title = fmt::format("{} {} against throughput", slo_metric_label(metric), kPercentileKeyNames.name(key));
  plot.x_label = "achieved requests/s";
  plot.y_label = fmt::format("{} {} (ms)", slo_metric_label(metric), kPercentileKeyNames.name(key));
  plot.width = 300;
  plot.height = 220;
  plot.right = 110;
  plot.x_tick = [](double v) { return format_number(v); };
  plot.y_tick = serving_ms_tick;
  ServingLine line{"probes", "#4e79a7", {}};
  double y_max = 1e-3, x_max = 1e-3;
  for (const RatePoint* p : sorted) {
    const LatencySummary& summary = metric_summary(p->metrics, metric);
    if (summary.count == 0) continue;
    const double y = summary_percentile(summary, key), x = p->metrics.requests_per_s;
    line.points.push_back({x, y});
    y_max = std::max(y_max, y);
    x_max = std::max(x_max, x);
    plot.marks.push_back({{x, y},
                          fmt::format("offered {} requests/s: {} requests/s served, {} {} ms{}",
                                      format_number(p->rate_per_s), format_number(x), kPercentileKeyNames.name(key),
                                      latency_ms_text(y), p->meets_slo ? ", meets the SLO" : ", misses the SLO")});
  }
  plot.lines.push_back(std::move(line));
  if (target) {
    y_max = std::min(y_max, 4 * target->seconds);
    y_max = std::max(y_max, target->seconds);
    plot.rules.push_back(
        {false, target->seconds, fmt::format("SLO {} ms", latency_ms_text(target->seconds)), "#b3261e", "slo"});
  }
  if (report.max_rate_per_s)
    plot.rules.push_back({true, report.metrics.requests_per_s,
                          fmt::format("max rate {}/s", format_number(*report.max_rate_per_s)), "#2e7d32", "answer"});
  plot.x_max = x_max * 1.05;
  plot.y_max = y_max * 1.05;
  return serving_plot_svg(plot);
}

std::string serving_legend_svg(std::size_t drawn) {
  std::string out = fmt::format("<svg class=\"legend\" width=\"{}\" height=\"22\">", 120 * drawn + 10);
  for (std::size_t r = 0; r < drawn; ++r)
    out += fmt::format(
        "<rect x=\"{}\" y=\"5\" width=\"18\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"12\">replica {}</text>",
        10 + 120 * r, report::sweep_series_colour(r), 34 + 120 * r, r);
  return out + "</svg>\n";
}

// `chips (2 replicas x 16)`, or disaggregated `chips (prefill 2 x 4 + decode 2 x 4)`.
std::string serving_chips_label(const ServingDeployment& d) {
  if (d.disaggregated)
    return fmt::format("chips (prefill {} x {} + decode {} x {})", d.disaggregated->prefill.replicas,
                       d.disaggregated->prefill.chips_per_replica, d.disaggregated->decode.replicas,
                       d.disaggregated->decode.chips_per_replica);
  return fmt::format("chips ({} replica{} x {})", d.replicas, d.replicas == 1 ? "" : "s", d.chips_per_replica);
}

}  // namespace

void write_serving_html(const ServingReport& report, std::ostream& out) {
  const ServingTotals totals = serving_totals(report);
  const ServingMetrics& m = report.metrics;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podsim serve: "
      << esc(report.scenario) << "</title>\n<style>" << kServingStyle << "</style>\n</head>\n<body>\n"
      << "<h1>podsim serve: " << esc(report.scenario) << "</h1>\n<p class=\"muted\">" << esc(report.source_file)
      << "</p>\n<p>" << esc(serving_deployment_text(report)) << "</p>\n";
  if (!report.deployment.step_model.empty())
    out << "<p class=\"muted\">step model: " << esc(report.deployment.step_model) << "</p>\n";
  if (report.deployment.disaggregated) {
    const KvTransferTotals kv = kv_transfer_totals(report.run);
    out << "<p>"
        << esc(fmt::format("KV transfers: {} of {} in all; each {} mean, {} p99 (prefill step's end to the "
                           "last byte)",
                           kv.count, format_bytes(static_cast<double>(kv.bytes)), format_seconds(kv.seconds.mean),
                           format_seconds(kv.seconds.p99)))
        << "</p>\n";
  }
  out << serving_verdict_html(report, totals);
  out << "<div class=\"cards\">\n"
      << serving_card(std::to_string(totals.chips), serving_chips_label(report.deployment))
      << serving_card(format_number(m.requests_per_s), "requests/s")
      << serving_card(format_number(m.goodput_requests_per_s),
                      "goodput, requests/s (" + report::percent_text(m.slo_attainment) + " within SLO)")
      << serving_card(format_number(m.output_tokens_per_s), "output tokens/s")
      << serving_card(format_number(m.output_tokens_per_s_per_chip), "output tokens/s per chip")
      << serving_card(report::percent_text(totals.kv_peak_utilization), "KV cache peak")
      << serving_card(std::to_string(totals.preemptions), "preemptions") << "</div>\n";
  out << "<p class=\"muted\">" << m.requests << " requests, " << m.output_tokens << " output tokens in "
      << esc(format_seconds(m.duration_s)) << ", " << totals.steps << " steps</p>\n";
  out << "<h2>Latency</h2>\n" << serving_latency_html(report);

  std::vector<double> ttft, tpot, e2e;
  for (const RequestRecord& r : report.run.completed) {
    const RequestLatency latency = request_latency(r);
    ttft.push_back(latency.ttft_s);
    e2e.push_back(latency.e2e_s);
    if (latency.tpot_s) tpot.push_back(*latency.tpot_s);
  }
  out << "<h2>Latency distributions</h2>\n<div class=\"row\">\n"
      << serving_cdf_svg(report, SloMetric::ttft, ttft) << serving_cdf_svg(report, SloMetric::tpot, tpot)
      << serving_cdf_svg(report, SloMetric::e2e, e2e) << "</div>\n";
  out << fmt::format(
      "<p class=\"note\">Each curve is the share of completed requests at or below a latency (TPOT: the {} requests "
      "of two tokens or more). A dashed vertical line is an SLO threshold, green when the run's percentile is within "
      "it, red when not; the grey line is that percentile's level and the dot the run's percentile on it. Curves of "
      "more than {} requests are drawn "
      "through {} evenly spaced ranks.</p>\n",
      tpot.size(), kServingPointsPerLine, kServingPointsPerLine);

  const std::size_t drawn = std::min(kServingReplicaLines, report.run.replicas.size());
  out << "<h2>Replicas over time</h2>\n" << serving_legend_svg(drawn);
  std::int64_t capacity_blocks = 0;
  for (const ServingReplicaTotals& r : report.run.replicas)
    capacity_blocks = std::max(capacity_blocks, r.kv_capacity_blocks);
  out << serving_series_svg(
      report, "Batch size (requests in the step)", "requests",
      [](const ServingStepSample& s) { return static_cast<double>(s.batch_seqs); },
      static_cast<double>(report.deployment.max_num_seqs),
      {{false, static_cast<double>(report.deployment.max_num_seqs),
        fmt::format("max_num_seqs {}", report.deployment.max_num_seqs), "#222", "limit"}},
      [](double v) { return format_number(v); }, true);
  out << serving_series_svg(
      report, "Queue (requests waiting at the replica)", "requests",
      [](const ServingStepSample& s) { return static_cast<double>(s.waiting); }, 1, {},
      [](double v) { return format_number(v); }, true);
  out << serving_series_svg(
      report, "KV cache in use", "of the cache",
      [&](const ServingStepSample& s) {
        const auto& r = report.run.replicas[static_cast<std::size_t>(s.replica)];
        return r.kv_capacity_blocks > 0
                   ? static_cast<double>(s.kv_used_blocks) / static_cast<double>(r.kv_capacity_blocks)
                   : 0.0;
      },
      1.0, {{false, 1.0, "full", "#222", "limit"}}, [](double f) { return fmt::format("{:.0f}%", 100 * f); }, false);
  out << fmt::format(
      "<p class=\"note\">Each point is a step's end: its batch, the requests left waiting, the KV blocks in use "
      "(of {} blocks per replica). {}{}</p>\n",
      capacity_blocks,
      drawn < report.run.replicas.size()
          ? fmt::format("The first {} of {} replicas are drawn. ", drawn, report.run.replicas.size())
          : std::string(),
      fmt::format("A line of more than {0} steps is drawn through {0} time buckets at each bucket's largest value, "
                  "so peaks stay visible.",
                  kServingPointsPerLine));
  out << "<h2>Throughput</h2>\n" << serving_throughput_svg(report);
  out << "<h2>Throughput against latency</h2>\n";
  if (report.rate_points.empty()) {
    out << "<p class=\"note\">One run is one point of this curve: <code>podsim serve --max-rate --report "
           "FILE.html</code> probes the arrival rate up to the highest the deployment serves within its SLO and "
           "draws each probe here.</p>\n";
  } else {
    out << "<div class=\"row\">\n";
    for (const SloMetric metric : kSloMetrics)
      if (report.slo.target(metric) || metric == SloMetric::ttft) out << serving_rate_svg(report, metric);
    out << "</div>\n"
        << fmt::format(
               "<p class=\"note\">Each dot is one run of the scenario's traffic at an offered rate ({} runs), placed "
               "at the requests/s it completed and the latency percentile the SLO names; beyond saturation the "
               "queue grows for the whole run, so latency leaves the chart (drawn at its top, at 4 x the threshold). "
               "The green line is the highest rate that met every threshold: {}.</p>\n",
               report.rate_points.size(),
               report.max_rate_per_s ? format_number(*report.max_rate_per_s) + " requests/s offered" : "none");
  }
  const std::vector<std::vector<std::string>> replicas = serving_replica_rows(report, kServingReplicasListedHtml);
  out << "<h2>Replicas</h2>\n<table class=\"replicas\">\n<tr>";
  for (const std::string& header : kServingReplicaHeaders)
    out << "<th>" << esc(header) << "</th>";
  out << "</tr>\n";
  for (const auto& row : replicas) {
    out << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out << (c == 0 ? "<td>" : "<td class=\"num\">") << esc(row[c]) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
  if (replicas.size() < report.run.replicas.size())
    out << "<p class=\"note\">The first " << replicas.size() << " of " << report.run.replicas.size()
        << " replicas; the JSON lists them all.</p>\n";
  out << "</body>\n</html>\n";
}

}  // namespace podsim
