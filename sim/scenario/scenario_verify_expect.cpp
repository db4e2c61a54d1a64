// The scenario verifier, the end of the spec: plans (input shardings and matmul out_shardings they replace, or a
// parallelism assignment) and expectations (a known metric at the right scope, references that exist, a value of
// the metric's kind and a tolerance; model and candidate metrics only in model-level scenarios).
#include <cmath>

#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim::scenario_detail {
namespace {

void verify_plan(State& state, std::size_t index) {
  const Where& where = state.where;
  ScenarioPlan& plan = state.spec.plans[index];
  const std::string p = child("/plans", index);
  plan.pointer = p;
  if (!is_op_name(plan.name))
    where.fail(p + "/name", "plan names are identifiers [A-Za-z_][A-Za-z0-9_.-]*, got: " + quote(plan.name));
  for (std::size_t k = 0; k < index; ++k)
    if (state.spec.plans[k].name == plan.name)
      where.fail(p + "/name",
                 "plan name is already used by " + state.spec.plans[k].pointer + ", got: " + quote(plan.name));
  if (plan.parallelism) {
    if (!state.spec.model)
      where.fail(p + "/parallelism", "a parallelism plan needs a model (\"model\"); a program's plans give shardings");
    if (!plan.shardings.empty() || !plan.out_shardings.empty())
      where.fail(p, "a plan is a parallelism assignment or shardings, not both, got: both");
    if (plan.collective_matmul)
      where.fail(p + "/collective_matmul",
                 "collective_matmul is an option of a program's plans, not of a parallelism plan, got: true");
    if (slices_in_search_only(state.spec))
      where.fail(p + "/parallelism", "a plan assigns the mesh axes of the scenario's \"slice\", got: no slice");
    verify_plan_parallelism(state, plan, p + "/parallelism");
  } else if (state.spec.model) {
    where.fail(p, "missing key \"parallelism\" (a model-level scenario's plans are parallelism assignments)");
  }
  for (auto& [name, sharding] : plan.shardings) {
    const std::string tp = child(p + "/shardings", name);
    const auto it = state.tensors.find(name);
    if (it == state.tensors.end() || !it->second.declared)
      where.fail(tp, "a plan sets the shardings of tensors in \"tensors\", got: " + quote(name));
    verify_sharding_text(state, sharding, tp, name, it->second.shape.size());
  }
  for (auto& [name, sharding] : plan.out_shardings) {
    const std::string tp = child(p + "/ops", name);
    const ScenarioOp* op = state.spec.find_op(name);
    if (op == nullptr) where.fail(tp, "unknown op, got: " + quote(name));
    if (op->kind != OpKind::matmul)
      where.fail(tp, "a plan sets the out_sharding of a matmul, got: " + quote(name) + " (" +
                         std::string(op_kind_name(op->kind)) + ")");
    verify_sharding_text(state, sharding, tp, op->out, op->out_shape.size());
  }
}

// The value as the format writes it.
std::string shown_value(const Expectation::Value& value) {
  if (const auto* number = std::get_if<double>(&value)) return shown(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return shown(std::get<std::vector<std::int64_t>>(value));
}

void verify_value(const State& state, const std::string& p, const MetricInfo& metric, const Expectation& e) {
  const Where& where = state.where;
  const bool fits = metric.value == MetricValue::number
                        ? std::holds_alternative<double>(e.value) && std::isfinite(std::get<double>(e.value))
                    : metric.value == MetricValue::boolean ? std::holds_alternative<bool>(e.value)
                                                           : std::holds_alternative<std::vector<std::int64_t>>(e.value);
  if (!fits)
    where.fail(p, "metric " + quote(metric.name) + " takes " + std::string(metric_value_text(metric.value)) +
                      ", got: " + shown_value(e.value));
  if (metric.value != MetricValue::shape) return;
  const auto& dims = std::get<std::vector<std::int64_t>>(e.value);
  for (std::size_t i = 0; i < dims.size(); ++i)
    where.require_at_least(child(p, i), dims[i], 0);
  const auto tensor = state.tensors.find(e.tensor);
  const std::size_t rank = tensor == state.tensors.end() ? 0 : tensor->second.shape.size();
  if (dims.size() != rank)
    where.fail(p, "must have one entry per dim of tensor " + quote(e.tensor) + " (rank " + std::to_string(rank) +
                      "), got: " + shown_value(e.value));
}

// `plan` is given exactly when the scenario has plans, and names one.
void verify_plan_reference(const State& state, const std::string& p, const Expectation& e) {
  const Where& where = state.where;
  std::vector<std::string> plans;
  for (const auto& plan : state.spec.plans)
    plans.push_back(plan.name);
  if (!e.plan.empty()) {
    if (plans.empty()) where.fail(p + "/plan", "the scenario has no plans, got: " + quote(e.plan));
    if (state.spec.find_plan(e.plan) == nullptr)
      where.fail(p + "/plan", "unknown plan, got: " + quote(e.plan) + " (plans: " + quote_list(plans) + ")");
  } else if (!plans.empty()) {
    where.fail(p, "missing key \"plan\" (the scenario has plans: " + quote_list(plans) + ")");
  }
}

// A model metric: a model-level scenario's closed-form figure, of no plan, by the book; the training state only
// for a training workload.
void verify_model_metric(const State& state, const std::string& p, const MetricInfo& metric, const Expectation& e) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  if (!spec.model)
    where.fail(p + "/metric", "metric " + quote(e.metric) +
                                  " is a figure of a model-level scenario (a \"model\" section), got: no model");
  if (!e.plan.empty())
    where.fail(p + "/plan", "does not apply to metric " + quote(e.metric) + " (a figure of the model, the same in " +
                                "every plan), got: " + quote(e.plan));
  if (e.model != EvalModel::book)
    where.fail(p + "/model", "metric " + quote(e.metric) +
                                 " has only a book value (the closed forms of docs/models.md), got: \"des\"");
  if (is_training_metric(metric.metric) && spec.workload && spec.workload->mode != WorkloadMode::train)
    where.fail(p + "/metric", "metric " + quote(e.metric) + " is a figure of training workloads, got: mode " +
                                  quote(kWorkloadModeNames.name(spec.workload->mode)));
}

// A candidate metric: a figure of a model-level scenario's parallelism plan, which `plan` names (always given:
// a model-level scenario's candidates are its plans); the breakdown, memory and bound by the book only.
void verify_candidate_metric(const State& state, const std::string& p, const MetricInfo& metric, const Expectation& e) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  if (!spec.model)
    where.fail(p + "/metric", "metric " + quote(e.metric) +
                                  " is a figure of a model-level scenario's parallelism plan (a \"model\" section), "
                                  "got: no model");
  if (e.plan.empty() && spec.plans.empty())
    where.fail(p, "missing key \"plan\" (metric " + quote(e.metric) +
                      " is a figure of a parallelism plan; the scenario has no plans)");
  verify_plan_reference(state, p, e);  // every plan of a model-level scenario has a parallelism (verify_plan)
  if (metric.metric == Metric::dropped_fraction && spec.model->dims.experts <= 1)
    where.fail(p + "/metric", "metric " + quote(e.metric) +
                                  " is a figure of a mixture of experts (\"experts\" > 1), got: a dense model");
  if (e.model == EvalModel::des && book_only(metric, true))
    where.fail(p + "/model", "metric " + quote(e.metric) +
                                 " has only a book value (the des gives a candidate's step time, not its breakdown, "
                                 "memory or bound), got: \"des\"");
}

void verify_one_expect(State& state, std::size_t index) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  Expectation& e = state.spec.expect[index];
  const std::string p = child("/expect", index);
  e.pointer = p;
  const MetricInfo* metric = find_metric(e.metric);
  if (metric == nullptr)
    where.fail(p + "/metric",
               "unknown metric, got: " + quote(e.metric) + " (expected one of " + metric_names("\"") + ")");
  e.scope = metric_scope(*metric, spec.model.has_value());

  if (e.scope == ExpectScope::model)
    verify_model_metric(state, p, *metric, e);
  else if (e.scope == ExpectScope::candidate)
    verify_candidate_metric(state, p, *metric, e);
  else if (spec.model)
    where.fail(p + "/metric",
               "a model-level scenario's expectations are model metrics or metrics of its plans' candidates "
               "(docs/scenario-format.md), got: " +
                   quote(e.metric));
  else
    verify_plan_reference(state, p, e);

  // An op metric names its op, a tensor metric its tensor, and no metric names what it is not a figure of.
  const auto refers = [&](const std::string& key, const std::string& value, ExpectScope scope) {
    const bool needed = e.scope == scope;
    if (needed && value.empty())
      where.fail(p, "missing key " + quote(key) + " (metric " + quote(e.metric) + " is per " + key + ")");
    if (!needed && !value.empty())
      where.fail(p + "/" + key, "does not apply to metric " + quote(e.metric) + " (a figure of " +
                                    std::string(scope_text(e.scope)) + "), got: " + quote(value));
  };
  refers("op", e.op, ExpectScope::op);
  refers("tensor", e.tensor, ExpectScope::tensor);
  if (!e.op.empty() && spec.find_op(e.op) == nullptr) where.fail(p + "/op", "unknown op, got: " + quote(e.op));
  if (!e.tensor.empty() && state.tensors.count(e.tensor) == 0)
    where.fail(p + "/tensor", "unknown tensor, got: " + quote(e.tensor));

  if (e.model == EvalModel::book && metric->des_only && e.scope != ExpectScope::candidate)
    where.fail(p + "/model",
               "metric " + quote(e.metric) + " has no book value (the book model has no links), got: \"book\"");

  verify_value(state, p + "/value", *metric, e);

  if (e.tolerance) {
    const std::string tp = p + (e.relative ? "/rel_tol" : "/abs_tol");
    if (metric->value != MetricValue::number)
      where.fail(tp, "a tolerance applies to number metrics only, got: " + shown(*e.tolerance));
    if (!(*e.tolerance >= 0) || !std::isfinite(*e.tolerance))
      where.fail(tp, "must be a finite number >= 0, got: " + shown(*e.tolerance));
  }
}

}  // namespace

void verify_plans(State& state) {
  for (std::size_t i = 0; i < state.spec.plans.size(); ++i)
    verify_plan(state, i);
}

void verify_expect(State& state) {
  for (std::size_t i = 0; i < state.spec.expect.size(); ++i)
    verify_one_expect(state, i);
}

}  // namespace podsim::scenario_detail
