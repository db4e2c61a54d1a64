// A serving scenario run end to end (docs/serving.md): the replica's step model from the scenario's plan, its KV
// cache from HBM, the traffic through the router and the replicas on SimGrid, the run's metrics and SLO checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/serving/serving_metrics.hpp"
#include "models/serving/slo.hpp"
#include "sim/capacity/serving_step.hpp"
#include "sim/engine/serving_simulation.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// The deployment a run simulated, as the report names it.
struct ServingDeployment {
  std::string hardware;     // preset name, e.g. "tpu-v5e"
  std::string slice;        // one replica's slice, e.g. "4x4"
  std::string parallelism;  // e.g. "tensor=X,Y"
  std::int64_t chips_per_replica = 0;
  std::int64_t replicas = 0;
  std::int64_t kv_capacity_tokens = 0;  // one replica's paged KV cache, in tokens (whole blocks)
  std::int64_t kv_block_tokens = 0;
  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  bool chunked_prefill = true;
  std::string routing;     // "round_robin" or "least_outstanding"
  std::string step_model;  // how a step is timed, e.g. "book, interpolated over 96 model evaluations"
};

struct ServingOutcome {
  std::string traffic;  // one line, e.g. "poisson at 50 requests/s for 600 s, seed 0"
  ServingDeployment deployment;
  ServingRunResult run;
  ServingMetrics metrics;
  Slo slo;
  std::vector<SloCheck> checks;  // check_slo(metrics, slo)
};

struct ServingRunOptions {
  StepEvaluator evaluator = StepEvaluator::book;
  std::string plan;  // the scenario plan a replica runs; empty: the scenario's only plan
};

// Throws InputError for a scenario that is not a serving one (no workload mode "serve") or whose plan is not one
// (at /plans, naming the plans), and what the step model, the traffic and the run throw (docs/serving.md).
ServingOutcome run_serving_scenario(const ScenarioSpec& spec, const ServingRunOptions& options);

// One line of the traffic (its law, rate or concurrency, bound, and seed).
std::string traffic_text(const TrafficSpec& traffic);

}  // namespace podsim
