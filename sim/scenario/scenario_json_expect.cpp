// Scenario loader, the end of the file: plans (input shardings and matmul out_shardings they replace) and
// expectations (a known metric at the right scope, references that exist, a value of the metric's kind and a
// tolerance).
#include <cmath>

#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {
namespace {

enum class ValueKind { number, boolean, shape };

struct MetricInfo {
  const char* name;
  ExpectScope scope;
  ValueKind kind;
  bool des_only;  // link and message counts exist only in the simulation
};

constexpr MetricInfo kMetrics[] = {
    {"total_time_s", ExpectScope::plan, ValueKind::number, false},
    {"peak_memory_per_chip_bytes", ExpectScope::plan, ValueKind::number, false},
    {"fits_hbm", ExpectScope::plan, ValueKind::boolean, false},
    {"max_link_bytes", ExpectScope::plan, ValueKind::number, true},
    {"total_link_bytes", ExpectScope::plan, ValueKind::number, true},
    {"messages", ExpectScope::plan, ValueKind::number, true},
    {"time_s", ExpectScope::op, ValueKind::number, false},
    {"array_bytes", ExpectScope::op, ValueKind::number, false},
    {"flops", ExpectScope::op, ValueKind::number, false},
    {"collectives", ExpectScope::op, ValueKind::number, false},
    {"bytes_per_device", ExpectScope::tensor, ValueKind::number, false},
    {"total_bytes", ExpectScope::tensor, ValueKind::number, false},
    {"local_shape", ExpectScope::tensor, ValueKind::shape, false},
};

std::vector<std::string> plan_names(const ScenarioSpec& spec) {
  std::vector<std::string> names;
  for (const auto& plan : spec.plans)
    names.push_back(plan.name);
  return names;
}

void verify_plan(State& state, const Json& j, const std::string& p, ScenarioPlan& plan) {
  const Ctx& ctx = state.ctx;
  require_object(ctx, j, p);
  require_known_keys(ctx, j, p, {"name", "description", "shardings", "ops"});
  require_key(ctx, j, p, "name");
  plan.pointer = p;
  plan.name = get_string(ctx, j.at("name"), p + "/name");
  if (!is_op_name(plan.name))
    ctx.fail(p + "/name", "plan names are identifiers [A-Za-z_][A-Za-z0-9_.-]*, got: " + show(j.at("name")));
  for (const auto& other : state.spec.plans)
    if (other.name == plan.name)
      ctx.fail(p + "/name", "plan name is already used by " + other.pointer + ", got: \"" + plan.name + "\"");
  if (j.contains("description")) plan.description = get_string(ctx, j.at("description"), p + "/description", false);
  if (j.contains("shardings")) {
    const std::string sp = p + "/shardings";
    require_object(ctx, j.at("shardings"), sp);
    for (const auto& [name, text] : j.at("shardings").items()) {
      const std::string tp = child(sp, name);
      const auto it = state.tensors.find(name);
      if (it == state.tensors.end() || !it->second.declared)
        ctx.fail(tp, "a plan sets the shardings of tensors in \"tensors\", got: \"" + name + "\"");
      plan.shardings.emplace_back(name, verify_sharding_text(state, text, tp, name, it->second.shape.size()));
    }
  }
  if (j.contains("ops")) {
    const std::string op_p = p + "/ops";
    require_object(ctx, j.at("ops"), op_p);
    for (const auto& [name, text] : j.at("ops").items()) {
      const std::string tp = child(op_p, name);
      const ScenarioOp* op = state.spec.find_op(name);
      if (op == nullptr) ctx.fail(tp, "unknown op, got: \"" + name + "\"");
      if (op->kind != OpKind::matmul)
        ctx.fail(tp, "a plan sets the out_sharding of a matmul, got: \"" + name + "\" (" +
                         std::string(op_kind_name(op->kind)) + ")");
      plan.out_shardings.emplace_back(name, verify_sharding_text(state, text, tp, op->out, op->out_shape.size()));
    }
  }
}

void verify_value(const Ctx& ctx, const Json& v, const std::string& p, const MetricInfo& metric,
                  const ScenarioSpec& spec, Expectation& e) {
  switch (metric.kind) {
    case ValueKind::number:
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        ctx.fail(p, "metric \"" + std::string(metric.name) + "\" takes a number, got: " + show(v));
      e.value = v.get<double>();
      break;
    case ValueKind::boolean:
      if (!v.is_boolean())
        ctx.fail(p, "metric \"" + std::string(metric.name) + "\" takes true or false, got: " + show(v));
      e.value = v.get<bool>();
      break;
    case ValueKind::shape: {
      if (!v.is_array())
        ctx.fail(p, "metric \"" + std::string(metric.name) + "\" takes an array of integers, got: " + show(v));
      std::vector<std::int64_t> dims;
      for (std::size_t i = 0; i < v.size(); ++i)
        dims.push_back(get_int(ctx, v[i], child(p, i), 0));
      const ScenarioTensor* declared = spec.find_tensor(e.tensor);
      std::size_t rank = 0;
      if (declared != nullptr) {
        rank = declared->shape.size();
      } else {
        for (const auto& op : spec.program)
          if (op.out == e.tensor) rank = op.out_shape.size();
      }
      if (dims.size() != rank)
        ctx.fail(p, "must have one entry per dim of tensor \"" + e.tensor + "\" (rank " + std::to_string(rank) +
                        "), got: " + show(v));
      e.value = std::move(dims);
      break;
    }
  }
}

void verify_one_expect(State& state, const Json& j, const std::string& p, Expectation& e) {
  const Ctx& ctx = state.ctx;
  const ScenarioSpec& spec = state.spec;
  require_object(ctx, j, p);
  require_known_keys(ctx, j, p, {"metric", "plan", "op", "tensor", "model", "value", "rel_tol", "abs_tol", "source"});
  require_key(ctx, j, p, "metric");
  require_key(ctx, j, p, "value");
  e.pointer = p;
  e.metric = get_string(ctx, j.at("metric"), p + "/metric");
  const MetricInfo* metric = nullptr;
  std::vector<std::string> names;
  for (const auto& m : kMetrics) {
    names.emplace_back(m.name);
    if (e.metric == m.name) metric = &m;
  }
  if (metric == nullptr)
    ctx.fail(p + "/metric", "unknown metric, got: \"" + e.metric + "\" (expected one of " + quoted_list(names) + ")");
  e.scope = metric->scope;

  const auto plans = plan_names(spec);
  if (j.contains("plan")) {
    e.plan = get_string(ctx, j.at("plan"), p + "/plan");
    if (plans.empty()) ctx.fail(p + "/plan", "the scenario has no plans, got: \"" + e.plan + "\"");
    if (spec.find_plan(e.plan) == nullptr)
      ctx.fail(p + "/plan", "unknown plan, got: \"" + e.plan + "\" (plans: " + quoted_list(plans) + ")");
  } else if (!plans.empty()) {
    ctx.fail(p, "missing key \"plan\" (the scenario has plans: " + quoted_list(plans) + ")");
  }

  const std::string scope_name = metric->scope == ExpectScope::plan ? "a plan"
                                 : metric->scope == ExpectScope::op ? "an op"
                                                                    : "a tensor";
  for (const char* key : {"op", "tensor"}) {
    const bool needed = (metric->scope == ExpectScope::op && std::string(key) == "op") ||
                        (metric->scope == ExpectScope::tensor && std::string(key) == "tensor");
    if (needed && !j.contains(key))
      ctx.fail(p, "missing key \"" + std::string(key) + "\" (metric \"" + e.metric + "\" is per " + key + ")");
    if (!needed && j.contains(key))
      ctx.fail(p + "/" + key, "does not apply to metric \"" + e.metric + "\" (a figure of " + scope_name +
                                  "), got: " + show(j.at(key)));
  }
  if (j.contains("op")) {
    e.op = get_string(ctx, j.at("op"), p + "/op");
    if (spec.find_op(e.op) == nullptr) ctx.fail(p + "/op", "unknown op, got: \"" + e.op + "\"");
  }
  if (j.contains("tensor")) {
    e.tensor = get_string(ctx, j.at("tensor"), p + "/tensor");
    if (state.tensors.count(e.tensor) == 0) ctx.fail(p + "/tensor", "unknown tensor, got: \"" + e.tensor + "\"");
  }

  if (j.contains("model")) {
    e.model = get_enum(ctx, j.at("model"), p + "/model", kEvalModelNames);
    if (e.model == EvalModel::book && metric->des_only)
      ctx.fail(p + "/model",
               "metric \"" + e.metric + "\" has no book value (the book model has no links), got: \"book\"");
  }

  verify_value(ctx, j.at("value"), p + "/value", *metric, spec, e);

  const bool rel = j.contains("rel_tol"), abs = j.contains("abs_tol");
  if (rel && abs) ctx.fail(p, "give at most one of \"rel_tol\" and \"abs_tol\", got: both");
  if (rel || abs) {
    const std::string key = rel ? "rel_tol" : "abs_tol";
    const std::string tp = p + "/" + key;
    if (metric->kind != ValueKind::number)
      ctx.fail(tp, "a tolerance applies to number metrics only, got: " + show(j.at(key)));
    e.relative = rel;
    e.tolerance = get_number(ctx, j.at(key), tp);
    if (!(e.tolerance >= 0) || !std::isfinite(e.tolerance))
      ctx.fail(tp, "must be a finite number >= 0, got: " + show(j.at(key)));
  }
  if (j.contains("source")) e.source = get_string(ctx, j.at("source"), p + "/source");
}

}  // namespace

void verify_plans(State& state, const Json& plans) {
  require_array(state.ctx, plans, "/plans");
  for (std::size_t i = 0; i < plans.size(); ++i) {
    ScenarioPlan plan;
    verify_plan(state, plans[i], child("/plans", i), plan);
    state.spec.plans.push_back(std::move(plan));
  }
}

void verify_expect(State& state, const Json& expect) {
  require_array(state.ctx, expect, "/expect");
  for (std::size_t i = 0; i < expect.size(); ++i) {
    Expectation e;
    verify_one_expect(state, expect[i], child("/expect", i), e);
    state.spec.expect.push_back(std::move(e));
  }
}

}  // namespace podsim::scenario_detail
