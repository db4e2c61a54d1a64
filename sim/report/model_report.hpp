// `podsim model describe` as text and as JSON ("schema": "podsim/1", docs/models.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/query/model_query.hpp"

namespace podsim::report {

std::string model_text(const ModelAnswer& answer);

// {"schema", "model": {name, origin, description, dims...}, "params": {"total", "attention", "mlp", "embedding",
// "norms", "active", "published"}, "flops_per_token": {"forward", "train", "train_with_attention",
// "forward_with_attention", "seq_len"}, "kv_cache_bytes_per_token", "weight_bytes", "training_state_bytes":
// {"params", "grads", "optimizer", "activations", "total"}, "workload": {...}}.
nlohmann::json model_json(const ModelAnswer& answer);

}  // namespace podsim::report
