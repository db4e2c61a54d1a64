// The cost of a slice's failures, plan by plan: text and JSON.
#include "sim/report/failure_report.hpp"

#include <optional>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "sim/report/html_parts.hpp"
#include "sim/report/html_report.hpp"

namespace podsim::report {
namespace {

// The step of the plan named `name` in `whole`; InternalError when the whole run lacks it (both runs plan the same
// scenario).
double whole_step_of(const ScenarioRun& whole, const std::string& name) {
  for (const PlanRun& plan : whole.plans)
    if (plan.name == name) return plan.step_time_s();
  throw InternalError("the run on the whole slice has no plan " + name);
}

std::optional<double> cost_fraction(double step_s, double whole_s) {
  if (!(whole_s > 0)) return std::nullopt;
  return step_s / whole_s - 1;
}

// `+100%`, or why there is no figure.
std::string cost_text(double step_s, double whole_s) {
  const std::optional<double> cost = cost_fraction(step_s, whole_s);
  return cost ? fmt::format("{:+.3g}%", *cost * 100) : std::string("no step on the whole slice");
}

std::string summary_text(const FailureRequest& request, const ScenarioRun& failed) {
  return failed.slice ? failures_summary(*failed.slice, request) : failure_count_text(request);
}

}  // namespace

nlohmann::json failures_json(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole) {
  nlohmann::json plans = nlohmann::json::array();
  for (const PlanRun& plan : failed.plans) {
    const double whole_s = whole_step_of(whole, plan.name);
    const std::optional<double> cost = cost_fraction(plan.step_time_s(), whole_s);
    plans.push_back({{"name", plan.name},
                     {"step_s", plan.step_time_s()},
                     {"whole_step_s", whole_s},
                     {"cost_fraction", cost ? nlohmann::json(*cost) : nlohmann::json(nullptr)}});
  }
  nlohmann::json replaced = nlohmann::json::array();
  if (failed.slice)
    for (const std::int64_t cube : failed.slice->replaced_cubes())
      replaced.push_back(cube);
  return {{"failed_links", request.links},
          {"failed_chips", request.chips},
          {"spare_cubes", request.spare_cubes},
          {"replaced_cubes", replaced},
          {"plans", plans}};
}

std::string failures_text(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole) {
  std::string out = "failures: " + summary_text(request, failed) + "\n";
  for (const PlanRun& plan : failed.plans) {
    const double whole_s = whole_step_of(whole, plan.name);
    out += fmt::format("  plan {}: step {} against {} on the whole slice ({})\n", plan.name,
                       format_seconds(plan.step_time_s()), format_seconds(whole_s),
                       cost_text(plan.step_time_s(), whole_s));
  }
  return out;
}

std::string failures_html(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole) {
  std::string out = "<h3>What the failures cost</h3>\n<p>" + html_escape(summary_text(request, failed)) +
                    ". Each plan's step on this slice (des) against the same plan's on the whole slice "
                    "(docs/topology.md, &ldquo;What a failure costs a step&rdquo;); the book model ignores "
                    "failures.</p>\n<table>\n" +
                    html_row({"plan", "step with the failures", "on the whole slice", "cost"}, true);
  for (const PlanRun& plan : failed.plans) {
    const double whole_s = whole_step_of(whole, plan.name);
    out += html_row({html_escape(plan.name), html_num(format_seconds(plan.step_time_s())),
                     html_num(format_seconds(whole_s)), html_num(html_escape(cost_text(plan.step_time_s(), whole_s)))});
  }
  return out + "</table>\n";
}

}  // namespace podsim::report
