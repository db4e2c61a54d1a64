// Request-level serving on SimGrid (docs/serving.md): traffic -> router -> replicas, each replica an actor that runs
// its continuous-batching scheduler (models/serving/scheduler.hpp) one iteration after another, each iteration taking
// the time the step model gives its batch. The run happens in a fork()ed child, as every simulation does; the parent
// gets the requests' records, the pooled inter-token gaps and the replicas' step series back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/serving/latency_summary.hpp"
#include "models/serving/routing.hpp"
#include "models/serving/scheduler.hpp"
#include "models/serving/serving_metrics.hpp"
#include "models/serving/traffic.hpp"
#include "sim/engine/network.hpp"

namespace podsim {

// The seconds one iteration of a replica takes for a batch: a pure lookup (it runs inside the simulation, up to
// millions of times, and must not start simulations of its own). Must return a finite value > 0.
using StepTimeFn = std::function<double(const BatchSignature&)>;

struct ServingReplicaSpec {
  SchedulerConfig scheduler;  // kv_capacity_blocks: this replica's cache
  StepTimeFn step_s;
  double kv_link_Bps = 0;  // disaggregated: its link to the other pool, each direction (bytes/s, > 0); else unused
};

// Disaggregated serving (docs/serving-model.md, "Disaggregated serving"): the first `prefill_replicas` replicas
// compute prompts (each request with its output cut to one token), then its prompt's KV moves over the network
// (kv_network.hpp) to the decode replica with the fewest outstanding requests, which admits it with prompt - 1 tokens
// computed (as vLLM's NixlConnector leaves the last prompt token to the decode instance) and generates its output.
struct DisaggregatedRunSpec {
  std::int64_t prefill_replicas = 1;     // in [1, replicas - 1]
  std::uint64_t kv_bytes_per_token = 0;  // > 0: one prompt token's KV, every layer (bytes moved per token)
  double kv_latency_s = 0;               // >= 0: one transfer's latency
  LinkTier kv_tier = LinkTier::dcn;      // which network the links are, for the trace
};

struct ServingRunSpec {
  TrafficSpec traffic;
  std::vector<ServingReplicaSpec> replicas;  // at least one (disaggregated: the prefill pool's, then the decode's)
  Routing routing = Routing::round_robin;    // the router's rule (disaggregated: over the prefill pool)
  // Whether the result lists every iteration (ServingRunResult::steps: the report's time series and the trace). An
  // hour at 100 requests/s is millions of steps, hundreds of MB to record and return; the metrics do not need them.
  bool keep_steps = true;
  std::optional<DisaggregatedRunSpec> disaggregated;
};

// One iteration of one replica, as it ended.
struct ServingStepSample {
  double end_s = 0.0;
  double step_s = 0.0;
  std::int32_t replica = 0;
  std::int32_t batch_seqs = 0;  // requests in the batch
  std::int64_t batch_tokens = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t kv_used_blocks = 0;  // after the step
  std::int64_t waiting = 0;         // requests waiting at this replica after the step (its queue)
  std::int64_t running = 0;
};

struct ServingReplicaTotals {
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  std::int64_t kv_capacity_blocks = 0;
  std::int64_t kv_peak_blocks = 0;
  std::int64_t requests = 0;  // routed to it
};

// One request's KV moved from a prefill replica to a decode replica (disaggregated serving).
struct KvTransferSample {
  std::int64_t id = 0;      // the request
  std::int32_t from = 0;    // prefill replica (index in the run's replicas)
  std::int32_t to = 0;      // decode replica (index in the run's replicas)
  std::uint64_t bytes = 0;  // prompt tokens x KV bytes per token
  double start_s = 0.0;     // the prefill step that completed the prompt ended
  double end_s = 0.0;       // the last byte arrived at the decode replica
};

struct ServingRunResult {
  std::vector<RequestRecord> completed;  // by id; every request of the traffic ends (the run drains)
  WeightedSamples itl;                   // every inter-token gap of every request
  std::vector<ServingStepSample> steps;  // every replica's iterations, in the order they ended (keep_steps), or none
  std::vector<ServingReplicaTotals> replicas;
  double end_s = 0.0;                       // the simulated time the last request finished (0 with no request)
  std::vector<KvTransferSample> transfers;  // disaggregated: every KV transfer, in the order they ended
  std::int64_t prefill_replicas = 0;        // disaggregated: replicas [0, this) are the prefill pool; 0: co-located
};

// Generates the traffic (a closed loop submits as requests finish), routes it, and runs every replica until every
// request has finished. Throws InputError for bad traffic or scheduler values (their own verifiers, located at
// /workload/traffic and /serving), UnservableRequestError (a VerifyError) naming a request no replica could ever
// serve, InternalError when a step time is not finite and > 0 or the run fails otherwise. Disaggregated: also
// InputError when a pool is empty and VerifyError for a bad KV link (kv_network.hpp).
ServingRunResult simulate_serving(const ServingRunSpec& spec);

}  // namespace podsim
