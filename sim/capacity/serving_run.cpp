// A serving scenario run end to end (serving_run.hpp).
#include "sim/capacity/serving_run.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/common/shape.hpp"
#include "sim/capacity/plan_search.hpp"

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

Candidate serving_candidate(const ScenarioSpec& spec, const std::string& plan) {
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

std::string seconds_text(double seconds) {
  return fmt::format("{:g} s", seconds);
}

}  // namespace

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

ServingOutcome run_serving_scenario(const ScenarioSpec& spec, const ServingRunOptions& options) {
  if (!spec.serve)
    throw InputError(spec.source_file + ": /workload/mode",
                     "a serving run needs a serving scenario (workload mode \"serve\"), got: " +
                         std::string(spec.workload ? kWorkloadModeNames.name(spec.workload->mode) : "no workload"));
  const ServeSpec& serve = *spec.serve;
  const CapacityProblem problem = step_problem(spec);
  const Candidate candidate = serving_candidate(spec, options.plan);
  ServingStepLimits limits;
  limits.max_num_batched_tokens = serve.scheduler.max_num_batched_tokens;
  limits.max_num_seqs = serve.scheduler.max_num_seqs;
  limits.max_context_tokens = longest_context(serve.traffic);
  const ServingStepModel model(problem, candidate, limits, options.evaluator);

  SchedulerConfig scheduler = serve.scheduler;
  scheduler.kv_capacity_blocks = model.kv_capacity_tokens() / scheduler.kv_block_tokens;
  if (scheduler.kv_capacity_blocks < 1)
    throw VerifyError(model.candidate_text() + ": the KV cache holds " + std::to_string(model.kv_capacity_tokens()) +
                      " tokens, less than one block of " + std::to_string(scheduler.kv_block_tokens));
  ServingRunSpec run;
  run.traffic = serve.traffic;
  run.routing = serve.routing;
  const StepTimeFn step = [&model](const BatchSignature& batch) { return model.step_s(batch); };
  for (std::int64_t r = 0; r < serve.replicas; ++r)
    run.replicas.push_back(ServingReplicaSpec{scheduler, step});

  ServingOutcome out;
  out.traffic = traffic_text(serve.traffic);
  ServingDeployment& d = out.deployment;
  d.hardware = candidate.hardware.name;
  d.slice = format_dims(candidate.slice);
  if (candidate.slices > 1) d.slice = std::to_string(candidate.slices) + " x " + d.slice;
  d.parallelism = candidate.parallelism.to_string();
  d.chips_per_replica = candidate.chips();
  d.replicas = serve.replicas;
  d.kv_capacity_tokens = scheduler.kv_capacity_blocks * scheduler.kv_block_tokens;
  d.kv_block_tokens = scheduler.kv_block_tokens;
  d.max_num_seqs = scheduler.max_num_seqs;
  d.max_num_batched_tokens = scheduler.max_num_batched_tokens;
  d.chunked_prefill = scheduler.chunked_prefill;
  d.routing = std::string(kRoutingNames.name(serve.routing));
  d.step_model = fmt::format("{}, interpolated over {} model evaluations",
                             options.evaluator == StepEvaluator::book ? "book" : "des", model.evaluations());
  out.run = simulate_serving(run);
  out.metrics = serving_metrics(out.run.completed, out.run.itl, d.chips_per_replica * d.replicas, serve.slo);
  out.slo = serve.slo;
  out.checks = check_slo(out.metrics, serve.slo);
  return out;
}

}  // namespace podsim
