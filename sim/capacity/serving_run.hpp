// A serving scenario run end to end (docs/serving.md): the replica's step model from the scenario's plan, its KV
// cache from HBM, the traffic through the router and the replicas on SimGrid, the run's metrics and SLO checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/field_error.hpp"
#include "models/serving/serving_metrics.hpp"
#include "models/serving/slo.hpp"
#include "sim/capacity/serving_step.hpp"
#include "sim/engine/serving_simulation.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One pool of a disaggregated deployment, as the report names it (serving_disaggregated.hpp).
struct ServingPoolDeployment {
  std::string hardware;
  std::string slice;
  std::string parallelism;
  std::int64_t chips_per_replica = 0;
  std::int64_t replicas = 0;
  std::int64_t kv_capacity_tokens = 0;  // one replica's
  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  double kv_link_Bps = 0;  // one replica's link to the other pool, each direction: chips x the link's per-chip figure
};

struct ServingDisaggregation {
  ServingPoolDeployment prefill;
  ServingPoolDeployment decode;
  std::string kv_link;                   // "dcn" or "ici"
  double kv_link_per_chip_Bps = 0;       // the prefill pool's figure per chip (the decode pool's may differ)
  double kv_latency_s = 0;               // one transfer's latency
  std::uint64_t kv_bytes_per_token = 0;  // moved per prompt token
};

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
  // Disaggregated: the pools (replicas then counts both, and the fields above that differ by pool are the decode
  // pool's: chips_per_replica, kv_capacity_tokens, max_num_seqs, max_num_batched_tokens).
  std::optional<ServingDisaggregation> disaggregated;
  std::int64_t chips() const;  // chips_per_replica x replicas, or both pools' chips (InternalError on overflow)
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
  enum class Field { plan };  // the options a ServingRunError can be about

  StepEvaluator evaluator = StepEvaluator::book;
  std::string plan;        // the scenario plan a replica runs; empty: the scenario's only plan
  bool keep_steps = true;  // ServingRunSpec::keep_steps: the step series, for the HTML report and the trace
};

// An option the scenario cannot honour (a plan named for a disaggregated scenario); front ends name the option in
// their terms (the CLI's --plan, validation's plan column).
using ServingRunError = FieldError<ServingRunOptions::Field>;

// One co-located deployment of a serving scenario, built once and run as often as a search or a bisection needs:
// a replica's step model (the costly part: its grid of model evaluations), KV cache and scheduler, for any traffic
// (of the scenario's token laws or shorter) and any number of replicas.
class ServingReplicaModel {
 public:
  // The scenario's step problem on `candidate` (a tensor and expert parallel replica) with its serving section,
  // `max_num_seqs` in place of its own when given. Throws InputError for a scenario that is not a serving one, what
  // ServingStepModel throws (VerifyError, ServingFitError), and VerifyError when the KV cache holds less than a
  // block.
  ServingReplicaModel(const ScenarioSpec& spec, const Candidate& candidate, std::optional<std::int64_t> max_num_seqs,
                      StepEvaluator evaluator);

  // `traffic` through `replicas` replicas; the scenario's routing and SLO; the step series when `keep_steps`
  // (ServingRunSpec). Throws what simulate_serving throws.
  ServingOutcome run(const TrafficSpec& traffic, std::int64_t replicas, bool keep_steps = false) const;

  const Candidate& candidate() const { return candidate_; }
  const ServingStepModel& step_model() const { return model_; }
  Routing routing() const { return routing_; }
  const Slo& slo() const { return slo_; }
  const SchedulerConfig& scheduler() const { return scheduler_; }
  std::int64_t kv_capacity_tokens() const { return scheduler_.kv_capacity_blocks * scheduler_.kv_block_tokens; }

 private:
  Candidate candidate_;
  ServingStepModel model_;
  SchedulerConfig scheduler_;  // kv_capacity_blocks from the model
  Routing routing_ = Routing::round_robin;
  Slo slo_;
};

// The candidate a serving run of `spec` simulates: its plan named `plan`, or its only plan when `plan` is empty.
// Throws InputError at /plans naming the plans.
Candidate serving_plan_candidate(const ScenarioSpec& spec, const std::string& plan);

// Throws InputError for a scenario that is not a serving one (no workload mode "serve") or whose plan is not one
// (at /plans, naming the plans), ServingRunError for an option it cannot honour, and what the step model, the traffic
// and the run throw (docs/serving.md). A disaggregated scenario runs as run_disaggregated_scenario
// (serving_disaggregated.hpp) runs it.
ServingOutcome run_serving_scenario(const ScenarioSpec& spec, const ServingRunOptions& options);

// One line of the traffic (its law, rate or concurrency, bound, and seed).
std::string traffic_text(const TrafficSpec& traffic);

}  // namespace podsim
