// Request-level serving on SimGrid (docs/serving.md): traffic -> router -> replicas, each replica an actor that runs
// its continuous-batching scheduler (models/serving/scheduler.hpp) one iteration after another, each iteration taking
// the time the step model gives its batch. The run happens in a fork()ed child, as every simulation does; the parent
// gets the requests' records, the pooled inter-token gaps and the replicas' step series back.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/serving/latency_summary.hpp"
#include "models/serving/routing.hpp"
#include "models/serving/scheduler.hpp"
#include "models/serving/serving_metrics.hpp"
#include "models/serving/traffic.hpp"

namespace podsim {

// The seconds one iteration of a replica takes for a batch: a pure lookup (it runs inside the simulation, up to
// millions of times, and must not start simulations of its own). Must return a finite value > 0.
using StepTimeFn = std::function<double(const BatchSignature&)>;

struct ServingReplicaSpec {
  SchedulerConfig scheduler;  // kv_capacity_blocks: this replica's cache
  StepTimeFn step_s;
};

struct ServingRunSpec {
  TrafficSpec traffic;
  std::vector<ServingReplicaSpec> replicas;  // at least one
  Routing routing = Routing::round_robin;
  // Whether the result lists every iteration (ServingRunResult::steps: the report's time series and the trace). An
  // hour at 100 requests/s is millions of steps, hundreds of MB to record and return; the metrics do not need them.
  bool keep_steps = true;
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

struct ServingRunResult {
  std::vector<RequestRecord> completed;  // by id; every request of the traffic ends (the run drains)
  WeightedSamples itl;                   // every inter-token gap of every request
  std::vector<ServingStepSample> steps;  // every replica's iterations, in the order they ended (keep_steps), or none
  std::vector<ServingReplicaTotals> replicas;
  double end_s = 0.0;  // the simulated time the last request finished (0 with no request)
};

// Generates the traffic (a closed loop submits as requests finish), routes it, and runs every replica until every
// request has finished. Throws InputError for bad traffic or scheduler values (their own verifiers, located at
// /workload/traffic and /serving), UnservableRequestError (a VerifyError) naming a request no replica could ever
// serve, InternalError when a step time is not finite and > 0 or the run fails otherwise.
ServingRunResult simulate_serving(const ServingRunSpec& spec);

}  // namespace podsim
