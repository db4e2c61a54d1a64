// A serving scenario run end to end (serving_run.hpp).
#include "sim/capacity/serving_run.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/common/shape.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/capacity/serving_disaggregated.hpp"

namespace podsim {
namespace {

// The longest context a request of the traffic can reach: its prompt plus its output, at the laws' largest draws.
std::int64_t longest_context(const TrafficSpec& traffic) {
  const auto largest = [](const TokenLaw& law) -> std::int64_t {
    if (const auto* fixed = std::get_if<FixedTokens>(&law)) return fixed->tokens;
    if (const auto* uniform = std::get_if<UniformTokens>(&law)) return uniform->max_tokens;
    return kMaxRequestTokens;  // a lognormal's tail: the longest a draw may be
  };
  if (const auto* trace = std::get_if<TraceArrivals>(&traffic.arrival)) {
    std::int64_t longest = 1;
    for (const TraceRow& row : trace->rows)
      longest = std::max(longest, row.prompt_tokens + row.output_tokens);
    return longest;
  }
  return largest(*traffic.prompt_tokens) + largest(*traffic.output_tokens);
}

// A serve scenario's ServeSpec, or InputError at /workload/mode.
const ServeSpec& serve_spec(const ScenarioSpec& spec) {
  if (!spec.serve)
    throw InputError(spec.source_file + ": /workload/mode",
                     "a serving run needs a serving scenario (workload mode \"serve\"), got: " +
                         std::string(spec.workload ? kWorkloadModeNames.name(spec.workload->mode) : "no workload"));
  return *spec.serve;
}

ServingStepModel replica_step_model(const ScenarioSpec& spec, const Candidate& candidate,
                                    std::optional<std::int64_t> max_num_seqs, StepEvaluator evaluator) {
  const ServeSpec& serve = serve_spec(spec);
  ServingStepLimits limits;
  limits.max_num_batched_tokens = serve.scheduler.max_num_batched_tokens;
  limits.max_num_seqs = max_num_seqs.value_or(serve.scheduler.max_num_seqs);
  limits.max_context_tokens = longest_context(serve.traffic);
  return ServingStepModel(step_problem(spec), candidate, limits, evaluator);
}

}  // namespace

Candidate serving_plan_candidate(const ScenarioSpec& spec, const std::string& plan) {
  if (spec.search)
    throw InputError(spec.source_file + ": /search",
                     "a serving run simulates one deployment and this scenario searches several: `podsim plan` runs "
                     "the search (docs/serving.md, \"Search\"), got: a search section");
  std::vector<Candidate> candidates = enumerate_candidates(spec);
  std::vector<std::string> names;
  for (const Candidate& candidate : candidates)
    names.push_back(candidate.plan);
  if (plan.empty()) {
    if (candidates.size() != 1)
      throw InputError(spec.source_file + ": /plans",
                       "a serving run simulates one plan's replicas: give one plan or choose one, got: " +
                           std::to_string(candidates.size()) + " (" + join(names, ", ") + ")");
    return candidates.front();
  }
  for (const Candidate& candidate : candidates)
    if (candidate.plan == plan) return candidate;
  throw InputError(spec.source_file + ": /plans", "no plan named \"" + plan + "\", got: " + join(names, ", "));
}

namespace {

std::string seconds_text(double seconds) {
  return fmt::format("{:g} s", seconds);
}

}  // namespace

std::int64_t ServingDeployment::chips() const {
  std::int64_t chips = 0;
  const bool overflow =
      disaggregated
          ? __builtin_mul_overflow(disaggregated->prefill.chips_per_replica, disaggregated->prefill.replicas, &chips) ||
                __builtin_add_overflow(chips, disaggregated->decode.chips_per_replica * disaggregated->decode.replicas,
                                       &chips)
          : __builtin_mul_overflow(chips_per_replica, replicas, &chips);
  if (overflow) throw InternalError(fmt::format("serving deployment: {} replicas' chips overflow", replicas));
  return chips;
}

std::string traffic_text(const TrafficSpec& traffic) {
  std::string law;
  if (const auto* poisson = std::get_if<PoissonArrivals>(&traffic.arrival))
    law = fmt::format("poisson at {:g} requests/s", poisson->rate_per_s);
  if (const auto* gamma = std::get_if<GammaArrivals>(&traffic.arrival))
    law = fmt::format("gamma at {:g} requests/s, burstiness {:g}", gamma->rate_per_s, gamma->burstiness);
  if (const auto* constant = std::get_if<ConstantArrivals>(&traffic.arrival))
    law = fmt::format("constant at {:g} requests/s", constant->rate_per_s);
  if (const auto* closed = std::get_if<ClosedLoopArrivals>(&traffic.arrival))
    law = fmt::format("closed loop of {} clients", closed->concurrency);
  if (const auto* trace = std::get_if<TraceArrivals>(&traffic.arrival))
    law = fmt::format("trace of {} requests", trace->rows.size());
  if (traffic.duration_s) law += " for " + seconds_text(*traffic.duration_s);
  if (traffic.requests) law += fmt::format(", {} requests", *traffic.requests);
  return law + fmt::format(", seed {}", traffic.seed);
}

ServingReplicaModel::ServingReplicaModel(const ScenarioSpec& spec, const Candidate& candidate,
                                         std::optional<std::int64_t> max_num_seqs, StepEvaluator evaluator)
    : candidate_(candidate),
      model_(replica_step_model(spec, candidate, max_num_seqs, evaluator)),
      scheduler_(serve_spec(spec).scheduler),
      routing_(serve_spec(spec).routing),
      slo_(serve_spec(spec).slo) {
  if (max_num_seqs) scheduler_.max_num_seqs = *max_num_seqs;
  scheduler_.kv_capacity_blocks = model_.kv_capacity_tokens() / scheduler_.kv_block_tokens;
  if (scheduler_.kv_capacity_blocks < 1)
    throw VerifyError(model_.candidate_text() + ": the KV cache holds " + std::to_string(model_.kv_capacity_tokens()) +
                      " tokens, less than one block of " + std::to_string(scheduler_.kv_block_tokens));
}

ServingOutcome ServingReplicaModel::run(const TrafficSpec& traffic, std::int64_t replicas, bool keep_steps) const {
  ServingRunSpec run;
  run.keep_steps = keep_steps;
  run.traffic = traffic;
  run.routing = routing_;
  const StepTimeFn step = [this](const BatchSignature& batch) { return model_.step_s(batch); };
  for (std::int64_t r = 0; r < replicas; ++r)
    run.replicas.push_back(ServingReplicaSpec{scheduler_, step});

  ServingOutcome out;
  out.traffic = traffic_text(traffic);
  ServingDeployment& d = out.deployment;
  d.hardware = candidate_.hardware.name;
  d.slice = format_dims(candidate_.slice);
  if (candidate_.slices > 1) d.slice = std::to_string(candidate_.slices) + " x " + d.slice;
  d.parallelism = candidate_.parallelism.to_string();
  d.chips_per_replica = candidate_.chips();
  d.replicas = replicas;
  d.kv_capacity_tokens = kv_capacity_tokens();
  d.kv_block_tokens = scheduler_.kv_block_tokens;
  d.max_num_seqs = scheduler_.max_num_seqs;
  d.max_num_batched_tokens = scheduler_.max_num_batched_tokens;
  d.chunked_prefill = scheduler_.chunked_prefill;
  d.routing = std::string(kRoutingNames.name(routing_));
  d.step_model = fmt::format("{}, interpolated over {} model evaluations",
                             model_.evaluator() == StepEvaluator::book ? "book" : "des", model_.evaluations());
  out.run = simulate_serving(run);
  out.metrics = serving_metrics(out.run.completed, out.run.itl, d.chips_per_replica * d.replicas, slo_);
  out.slo = slo_;
  out.checks = check_slo(out.metrics, slo_);
  return out;
}

ServingOutcome run_serving_scenario(const ScenarioSpec& spec, const ServingRunOptions& options) {
  const ServeSpec& serve = serve_spec(spec);
  if (serve.disaggregated) return run_disaggregated_scenario(spec, options);
  const ServingReplicaModel model(spec, serving_plan_candidate(spec, options.plan), std::nullopt, options.evaluator);
  return model.run(serve.traffic, serve.replicas, options.keep_steps);
}

}  // namespace podsim
