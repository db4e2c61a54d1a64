// What the plan report's writers share (plan_report.cpp: the text; plan_report_json.cpp: JSON and CSV): the memory
// kinds' columns, the workload mode, remat as JSON and a mixture of experts' routing.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "models/model/workload.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::report {

// A memory kind's column: its header in the table, its key in the JSON, its field.
struct MemoryColumn {
  const char* header;
  const char* json_key;
  std::uint64_t MemoryByKind::*field;
};

inline constexpr MemoryColumn kMemoryColumns[] = {
    {"params", "params", &MemoryByKind::params},
    {"grads", "grads", &MemoryByKind::grads},
    {"optimizer", "optimizer", &MemoryByKind::optimizer},
    {"activations", "activations", &MemoryByKind::activations},
    {"kv cache", "kv_cache", &MemoryByKind::kv_cache},
    {"temporaries", "temporaries", &MemoryByKind::temporaries},
    {"offloaded (host)", "offloaded", &MemoryByKind::offloaded},
};

// The scenario's workload mode (train without a workload).
WorkloadMode mode_of(const ScenarioSpec& spec);

// A remat policy's name, {"checkpoints_per_layer": K}, or {"custom": {tensor: placement, ...}} (all nine tensors).
nlohmann::json remat_json(const Remat& remat);

// A mixture of experts' routing for the candidate's passes (docs/overlap-pipeline-dcn.md, "Mixture of experts"):
// tokens per pass (a microbatch's in training), the capacity per expert and the fraction of routed rows dropped.
// Empty for a dense model.
std::optional<ExpertLoad> routing(const ScenarioSpec& spec, const Candidate& c);

}  // namespace podsim::report
