// Each `expect` entry of an op-level scenario measured on its run (the metric table of expect_metrics.hpp), and the
// one comparison within tolerance that the checks of both kinds of run use (a model-level scenario's figures are
// measured in sim/capacity/candidate_checks.cpp).
#include "sim/run/checks.hpp"

#include <cmath>

#include "models/common/error.hpp"

namespace podsim {
namespace {

// The plan an expectation is about, or nullptr when it was not run (podsim run --plan).
const PlanRun* plan_of(const ScenarioRun& run, const Expectation& e) {
  const std::string wanted = e.plan.empty() ? "default" : e.plan;
  for (const auto& plan : run.plans)
    if (plan.name == wanted) return &plan;
  return nullptr;
}

const OpRun& op_of(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  for (const auto& op : plan.ops)
    if (op.name == e.op) return op;
  throw InputError(run.file + ": " + e.pointer, "unknown op, got: " + e.op);
}

// The tensor as it enters the program: the declared tensor, or the first op result of that name.
const TensorMemory& tensor_of(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  for (const auto& tensor : plan.memory)
    if (tensor.name == e.tensor) return tensor;
  throw InputError(run.file + ": " + e.pointer, "unknown tensor, got: " + e.tensor);
}

// The figure of the run a metric names (the table in expect_metrics.hpp; the verifier has checked the name).
CheckValue measure(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  const MetricInfo* info = find_metric(e.metric);
  if (info == nullptr) throw InputError(run.file + ": " + e.pointer, "unknown metric, got: " + e.metric);
  const bool book = e.model == EvalModel::book;
  switch (info->metric) {
    case Metric::total_time_s:
      return book ? plan.book_time_s : plan.des_time_s;
    case Metric::peak_memory_per_chip_bytes:
      return static_cast<double>(plan.memory_per_chip_bytes);
    case Metric::fits_hbm:
      return plan.fits_hbm;
    case Metric::max_link_bytes:
      return static_cast<double>(plan.max_link_bytes);
    case Metric::total_link_bytes:
      return static_cast<double>(plan.total_link_bytes);
    case Metric::messages:
      return static_cast<double>(plan.messages);
    case Metric::exposed_communication_s:
      return plan.step_breakdown.exposed_communication_s;
    case Metric::dcn_s:
      return plan.step_breakdown.dcn_s;
    case Metric::time_s:
      return book ? op_of(run, plan, e).book_time_s : op_of(run, plan, e).des_time_s;
    case Metric::flops:
      return op_of(run, plan, e).flops;
    case Metric::collectives:
      return static_cast<double>(op_of(run, plan, e).collectives.size());
    case Metric::array_bytes: {
      double sum = 0;
      for (const auto& c : op_of(run, plan, e).collectives)
        sum += static_cast<double>(c.array_bytes);
      return sum;
    }
    case Metric::bytes_per_device:
      return static_cast<double>(tensor_of(run, plan, e).bytes_per_device);
    case Metric::total_bytes:
      return static_cast<double>(tensor_of(run, plan, e).total_bytes);
    case Metric::local_shape:
      return tensor_of(run, plan, e).local_shape;
    default:
      break;  // model and candidate metrics: evaluate_model_checks (sim/capacity/candidate_checks.hpp)
  }
  throw InputError(run.file + ": " + e.pointer, "unknown metric, got: " + e.metric);
}

std::string describe(const Expectation& e) {
  std::string text = e.plan.empty() ? "" : e.plan + ": ";
  if (e.scope == ExpectScope::op) text += "op " + e.op + " ";
  if (e.scope == ExpectScope::tensor) text += "tensor " + e.tensor + " ";
  text += e.metric;
  const MetricInfo* info = find_metric(e.metric);
  if (info != nullptr && (info->per_model || e.scope == ExpectScope::model || e.scope == ExpectScope::candidate))
    text += " (" + std::string(eval_model_name(e.model)) + ")";
  return text;
}

}  // namespace

CheckResult check_expectation(const Expectation& e, const CheckValue& measured) {
  CheckResult check;
  check.description = describe(e);
  check.pointer = e.pointer;
  check.source = e.source;
  check.target = e.value;
  check.value = measured;
  const double tolerance = e.tolerance_or_default();
  if (std::holds_alternative<double>(e.value)) (e.relative ? check.rel_tol : check.abs_tol) = tolerance;
  if (const auto* target = std::get_if<double>(&e.value)) {
    const double got = std::get<double>(check.value);
    const double allowed = e.relative ? tolerance * std::fabs(*target) : tolerance;
    check.passed = std::isfinite(got) && std::fabs(got - *target) <= allowed;
  } else {
    check.passed = check.value == check.target;
  }
  return check;
}

std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run) {
  std::vector<CheckResult> checks;
  for (const auto& e : spec.expect) {
    if (e.scope == ExpectScope::model || e.scope == ExpectScope::candidate)  // the verifier allows them in none
      throw InputError(run.file + ": " + e.pointer,
                       "a metric of a model-level scenario (evaluate_model_checks, sim/capacity/candidate_checks.hpp), "
                       "got: " +
                           e.metric);
    const PlanRun* plan = plan_of(run, e);
    if (!plan) continue;  // its plan was not run
    checks.push_back(check_expectation(e, measure(run, *plan, e)));
  }
  // Functional mode: a plan whose values differ from the dense reference fails, whatever else was expected.
  for (const auto& plan : run.plans) {
    if (!plan.values_match) continue;
    CheckResult check;
    check.description = (plan.name == "default" ? "" : plan.name + ": ") + "values equal the dense reference";
    check.value = *plan.values_match;
    check.target = true;
    check.passed = *plan.values_match;
    check.source = plan.values_note;
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace podsim
