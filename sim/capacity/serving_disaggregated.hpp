// A disaggregated serving scenario run end to end (docs/serving.md, "Disaggregated serving"): each pool's replica
// model (step model, KV cache and scheduler) built as a co-located replica's is, on the pool's own scenario
// (serving_pools.hpp), the KV links between them from the chosen network's per-chip figure, and the traffic through
// the router, the prefill pool, the transfers and the decode pool on SimGrid.
#pragma once

#include "sim/capacity/serving_run.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Throws what run_serving_scenario throws, located under the pool for a pool's errors; `options.plan` must be empty
// (the pools' plans are their parallelism; ServingRunError in the plan otherwise).
ServingOutcome run_disaggregated_scenario(const ScenarioSpec& spec, const ServingRunOptions& options);

}  // namespace podsim
