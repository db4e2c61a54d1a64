// A training goal in `podsim plan --report` (goal_report.hpp): the answer first, then the candidates' time to train
// against their cost (or chips when unpriced), the Pareto front, the deadline and the budget.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/chart_labels.hpp"
#include "sim/report/goal_report.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/plan_report.hpp"

namespace podsim::report {
namespace {

// A round top for an axis from 0 and its tick step (1, 2 or 5 times a power of ten).
std::pair<double, double> goal_axis(double max_value) {
  const double top = max_value > 0 && std::isfinite(max_value) ? max_value : 1;
  const double decade = std::pow(10, std::floor(std::log10(top / 5)));
  double step = decade;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * decade;
    if (step >= top / 5) break;
  }
  return {step * std::ceil(top / step * (1 - 1e-9)), step};
}

std::string goal_money(double usd) {
  if (usd >= 1e6) return "$" + format_number(usd / 1e6) + "M";
  if (usd >= 1e3) return "$" + format_number(usd / 1e3) + "k";
  return "$" + format_number(usd);
}

}  // namespace

std::string goal_section_html(const ScenarioSpec& spec, const PlanSearchResult& search) {
  if (!spec.goal) return "";
  const GoalSpec& goal = *spec.goal;
  const bool priced = podsim::priced(spec);  // one price, or one per preset
  std::string out = "<h2>The goal</h2>\n";
  std::string answer = goal_answer_text(spec, search);
  const bool met = !search.ranked.empty() && search.ranked.front().goal && search.ranked.front().goal->meets;
  out += fmt::format("<div class=\"verdict {}\">", met ? "ok" : "miss");
  for (std::size_t at = 0; at < answer.size();) {
    const std::size_t end = answer.find('\n', at);
    out += "<p>" + esc(answer.substr(at, end - at)) + "</p>";
    at = end == std::string::npos ? answer.size() : end + 1;
  }
  out += "</div>\n";

  struct Mark {
    double days, value;
    bool meets;
    std::string title;
    std::size_t rank;
  };
  std::vector<Mark> marks;
  for (std::size_t i = 0; i < search.ranked.size(); ++i) {
    const CandidateResult& r = search.ranked[i];
    if (!r.goal || !std::isfinite(r.goal->expected_days)) continue;
    const double value = priced ? r.goal->cost_usd.value_or(0) : static_cast<double>(r.goal->chips_held);
    marks.push_back(
        {r.goal->expected_days, value, r.goal->meets,
         fmt::format("#{} {} {} ({} chips) {}: {} days, {}", i + 1, r.candidate.hardware.name, slice_text(r.candidate),
                     r.candidate.chips(), r.candidate.parallelism.to_string(), format_number(r.goal->expected_days),
                     priced ? goal_money(value) : std::to_string(r.goal->chips_held) + " chips held"),
         i + 1});
  }
  if (marks.empty()) return out;
  // The chart's reach: up to 3 times the deadline (or the answer's days without one); candidates beyond it would
  // squeeze the ones that matter into a corner, so they are left out and counted under the chart.
  const double reach = 3 * (goal.deadline_days ? *goal.deadline_days : marks.front().days);
  const std::size_t evaluated = marks.size();
  marks.erase(std::remove_if(marks.begin(), marks.end(), [&](const Mark& m) { return m.days > reach; }), marks.end());
  const std::size_t beyond = evaluated - marks.size();
  if (marks.empty()) return out;
  double max_days = 0, max_value = 0;
  for (const Mark& m : marks) {
    max_days = std::max(max_days, m.days);
    max_value = std::max(max_value, m.value);
  }
  if (goal.deadline_days) max_days = std::max(max_days, *goal.deadline_days);
  if (goal.budget_usd && priced) max_value = std::max(max_value, *goal.budget_usd);
  // Not structured bindings: the lambdas below capture the tops (clang 14 cannot capture a binding).
  const std::pair<double, double> x_axis = goal_axis(max_days * 1.02), y_axis = goal_axis(max_value * 1.02);
  const double x_top = x_axis.first, x_step = x_axis.second, y_top = y_axis.first, y_step = y_axis.second;
  const double left = 90, top = 20, width = 640, height = 360;
  const auto px = [&](double days) { return left + width * days / x_top; };
  const auto py = [&](double v) { return top + height - height * v / y_top; };
  const std::string y_label = priced ? "cost (USD)" : "chips held";
  out += fmt::format(
      "<svg class=\"goal\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"expected days to train against {}, "
      "one dot per candidate\">\n",
      left + width + 220, top + height + 50, esc(y_label));
  for (double t = 0; t <= y_top * 1.0001; t += y_step)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        left, py(t), left + width, left - 6, py(t) + 4, esc(priced ? goal_money(t) : format_number(t)));
  for (double t = 0; t <= x_top * 1.0001; t += x_step)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/><text x=\"{0:.1f}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>\n",
        px(t), top, top + height, top + height + 16, esc(format_number(t)));
  out += fmt::format(
      "<path d=\"M{0},{1}V{2}H{3}\" fill=\"none\" stroke=\"#888\"/><text x=\"{4}\" y=\"{5}\" "
      "text-anchor=\"middle\">expected days to train (failures, checkpoints and restarts included)</text><text "
      "transform=\"translate(16,{6}) rotate(-90)\" text-anchor=\"middle\">{7}</text>\n",
      left, top, top + height, left + width, left + width / 2, top + height + 36, top + height / 2, esc(y_label));
  // The Pareto front: no other candidate is both faster and cheaper.
  std::vector<Mark> sorted = marks;
  std::sort(sorted.begin(), sorted.end(),
            [](const Mark& a, const Mark& b) { return a.days != b.days ? a.days < b.days : a.value < b.value; });
  std::string front;
  double best = INFINITY;
  for (const Mark& m : sorted) {
    if (!(m.value < best)) continue;
    best = m.value;
    front += fmt::format("{}{:.1f},{:.1f}", front.empty() ? "M" : "L", px(m.days), py(m.value));
  }
  out += fmt::format(
      "<path d=\"{}\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"1.5\"><title>Pareto front: no candidate is "
      "both faster and cheaper than one on it</title></path>\n",
      front);
  if (goal.deadline_days)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#b3261e\" stroke-width=\"2\" "
        "stroke-dasharray=\"6 3\"/><text x=\"{3:.1f}\" y=\"{4}\" fill=\"#b3261e\">deadline {5} days</text>\n",
        px(*goal.deadline_days), top, top + height, px(*goal.deadline_days) + 4, top + 12,
        format_number(*goal.deadline_days));
  if (goal.budget_usd && priced)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#b3261e\" stroke-width=\"2\" "
        "stroke-dasharray=\"6 3\"/><text x=\"{3}\" y=\"{4:.1f}\" fill=\"#b3261e\">budget {5}</text>\n",
        left, py(*goal.budget_usd), left + width, left + width + 6, py(*goal.budget_usd) + 4,
        goal_money(*goal.budget_usd));
  for (auto it = marks.rbegin(); it != marks.rend(); ++it) {  // the best drawn last, on top
    const bool first = it->rank == 1;
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" stroke=\"#222\" stroke-width=\"{}\"><title>{}</title>"
        "</circle>\n",
        px(it->days), py(it->value), first ? 6 : 4, it->meets ? "#59a14f" : "#bab0ac", first ? 2 : 0.5, esc(it->title));
  }
  // The answer and the next two (the ones the answer says why they lose), best placed first.
  ChartLabels labels(left, top, left + width, top + height);
  for (const Mark& m : marks)
    if (m.rank <= 3) out += labels.place(px(m.days), py(m.value), m.rank == 1 ? 7 : 5, fmt::format("#{}", m.rank));
  out += "</svg>\n";
  out += fmt::format(
      "<p class=\"note\">One dot per ranked candidate: green meets every constraint of the goal, grey misses one; "
      "#1 is the answer, #2 and #3 the next two. The blue line is the Pareto front (no candidate is both faster and "
      "{}); the dashed red "
      "lines are the deadline{}. A candidate whose run never finishes is not drawn{}.</p>\n",
      priced ? "cheaper" : "on fewer chips", goal.budget_usd && priced ? " and the budget" : "",
      beyond == 0 ? std::string()
                  : fmt::format("; nor {} that take{} more than {} days (3 times the {}): the table lists {}", beyond,
                                beyond == 1 ? "s" : "", format_number(reach),
                                goal.deadline_days ? "deadline" : "answer's", beyond == 1 ? "it" : "them"));
  return out;
}

}  // namespace podsim::report
