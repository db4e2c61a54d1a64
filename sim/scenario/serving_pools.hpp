// The pools of a disaggregated serving scenario (docs/serving.md, "Disaggregated serving") as scenarios of their own:
// each pool's replicas run the scenario's model and workload on the pool's hardware, slice, mesh and parallelism, so
// that the step model, the KV capacity and the verifier are the co-located ones, unchanged.
#pragma once

#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// `spec` (a serving scenario) with `pool`'s hardware (when it names one), slice, mesh and its one plan
// (named "prefill" or "decode" after the pool's pointer, with the pool's parallelism; its `slice.dcn` figures are left
// to kv_link_figures), its scheduler limits in place
// of serving's, `replicas` from the pool, and no disaggregated section, no search and no expectations; verified.
// Throws InputError located under the pool's pointer (e.g. `a.json: /serving/disaggregated/decode/mesh: ...`).
ScenarioSpec serving_pool_scenario(const ScenarioSpec& spec, const ServingPoolSpec& pool);

// One pool's link to the other pool, per chip and each direction, and one transfer's latency (docs/serving.md,
// "Disaggregated serving"): kv_link dcn, the pool's `slice.dcn` figures, else its preset's DCN egress per chip and DCN
// latency (0 when the preset has none); ici, one ICI link per chip at the preset's bandwidth per direction, and its
// hop latency. `pool_scenario` is serving_pool_scenario's. Throws InputError under the pool's pointer for a figure
// missing or out of range.
struct KvLinkFigures {
  double per_chip_Bps = 0;
  double latency_s = 0;
};
KvLinkFigures kv_link_figures(const ScenarioSpec& pool_scenario, const ServingPoolSpec& pool, KvLink link);

}  // namespace podsim
