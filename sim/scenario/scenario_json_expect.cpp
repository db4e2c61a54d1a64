// Scenario loader, the end of the file: plans (input shardings and matmul out_shardings they replace, or a
// parallelism assignment) and expectations (metric, references, model, value and tolerance) read into the spec. The
// verifier (scenario_verify_expect.cpp) checks the rules between them.
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {
namespace {

ScenarioPlan read_plan(const Ctx& ctx, const Json& j, const std::string& p) {
  require_object(ctx, j, p);
  require_known_keys(ctx, j, p, {"name", "description", "shardings", "ops", "parallelism", "collective_matmul"});
  require_key(ctx, j, p, "name");
  ScenarioPlan plan;
  plan.name = get_string(ctx, j.at("name"), p + "/name");
  if (j.contains("description")) plan.description = get_string(ctx, j.at("description"), p + "/description", false);
  // Shardings by tensor name (under "shardings") and by matmul op name (under "ops").
  const auto read_shardings = [&](const char* key, std::vector<std::pair<std::string, ScenarioSharding>>& out) {
    if (!j.contains(key)) return;
    const std::string sp = p + "/" + key;
    require_object(ctx, j.at(key), sp);
    for (const auto& [name, text] : j.at(key).items())
      out.emplace_back(name, ScenarioSharding{get_string(ctx, text, child(sp, name)), {}, {}});
  };
  read_shardings("shardings", plan.shardings);
  read_shardings("ops", plan.out_shardings);
  if (j.contains("parallelism")) plan.parallelism = read_parallelism(ctx, j.at("parallelism"), p + "/parallelism");
  if (j.contains("collective_matmul"))
    plan.collective_matmul = get_bool(ctx, j.at("collective_matmul"), p + "/collective_matmul");
  return plan;
}

// The value as the metric's kind needs it: a number, true or false, or an array of integers.
Expectation::Value read_value(const Ctx& ctx, const Json& v, const std::string& p, const std::string& metric) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>();
  if (v.is_array()) {
    std::vector<std::int64_t> dims;
    for (std::size_t i = 0; i < v.size(); ++i)
      dims.push_back(get_int(ctx, v[i], child(p, i)));
    return dims;
  }
  // No metric takes any other JSON value.
  const MetricInfo* info = find_metric(metric);
  ctx.fail(p, "metric " + quote(metric) + " takes " +
                  (info ? std::string(metric_value_text(info->value)) : "a number, true or false, or an array") +
                  ", got: " + shown(v));
}

Expectation read_one_expect(const Ctx& ctx, const Json& j, const std::string& p, bool model_level) {
  require_object(ctx, j, p);
  require_known_keys(ctx, j, p, {"metric", "plan", "op", "tensor", "model", "value", "rel_tol", "abs_tol", "source"});
  require_key(ctx, j, p, "metric");
  require_key(ctx, j, p, "value");
  Expectation e;
  e.metric = get_string(ctx, j.at("metric"), p + "/metric");
  if (j.contains("plan")) e.plan = get_string(ctx, j.at("plan"), p + "/plan");
  if (j.contains("op")) e.op = get_string(ctx, j.at("op"), p + "/op");
  if (j.contains("tensor")) e.tensor = get_string(ctx, j.at("tensor"), p + "/tensor");
  // A model metric, and a candidate's breakdown and memory, have only the closed form's value: their model
  // defaults to book.
  const MetricInfo* info = find_metric(e.metric);
  if (info != nullptr && book_only(*info, model_level)) e.model = EvalModel::book;
  if (j.contains("model")) e.model = get_enum(ctx, j.at("model"), p + "/model", kEvalModelNames);
  e.value = read_value(ctx, j.at("value"), p + "/value", e.metric);
  const bool rel = j.contains("rel_tol"), abs = j.contains("abs_tol");
  if (rel && abs) ctx.fail(p, "give at most one of \"rel_tol\" and \"abs_tol\", got: both");
  if (rel || abs) {
    const std::string key = rel ? "rel_tol" : "abs_tol";
    e.relative = rel;
    e.tolerance = get_number(ctx, j.at(key), p + "/" + key);
  }
  if (j.contains("source")) e.source = get_string(ctx, j.at("source"), p + "/source");
  return e;
}

}  // namespace

void read_plans(const Ctx& ctx, const Json& plans, ScenarioSpec& spec) {
  require_array(ctx, plans, "/plans");
  for (std::size_t i = 0; i < plans.size(); ++i)
    spec.plans.push_back(read_plan(ctx, plans[i], child("/plans", i)));
}

void read_expect(const Ctx& ctx, const Json& expect, ScenarioSpec& spec) {
  require_array(ctx, expect, "/expect");
  for (std::size_t i = 0; i < expect.size(); ++i)
    spec.expect.push_back(read_one_expect(ctx, expect[i], child("/expect", i), spec.model.has_value()));
}

}  // namespace podsim::scenario_detail
