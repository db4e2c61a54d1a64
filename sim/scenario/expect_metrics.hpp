// The metrics an `expect` entry may pin (docs/scenario-format.md, "Metrics"): one table, read by the scenario
// verifier (the metric's scope, the kind of its value, whether the book model has it) and by the checks (which
// figure of a run it is).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace podsim {

// What a metric is a figure of: a whole plan, one op, one tensor, the model and workload of a model-level
// scenario (docs/models.md's closed forms; these have only a book value), or the candidate a model-level
// scenario's parallelism plan makes (its step on the scenario's hardware, slice and mesh: docs/parallelism.md).
enum class ExpectScope { plan, op, tensor, model, candidate };

enum class Metric {
  total_time_s,
  peak_memory_per_chip_bytes,
  fits_hbm,
  max_link_bytes,
  total_link_bytes,
  messages,
  exposed_communication_s,
  time_s,
  array_bytes,
  flops,
  collectives,
  bytes_per_device,
  total_bytes,
  local_shape,
  params_total,
  params_attention,
  params_mlp,
  params_embedding,
  flops_per_token_forward,
  flops_per_token_train,
  flops_per_token_train_with_attention,
  kv_cache_bytes_per_token,
  training_state_bytes_params,
  training_state_bytes_grads,
  training_state_bytes_optimizer,
  training_state_bytes_activations,
  training_state_bytes_total,
  step_time_s,
  compute_time_s,
  hbm_time_s,
  ici_time_s,
  compute_bound,
  memory_per_chip_bytes,
  memory_params_bytes,
  memory_grads_bytes,
  memory_optimizer_bytes,
  memory_activations_bytes,
  memory_kv_cache_bytes,
  memory_temporaries_bytes,
  mfu,
  tokens_per_s_per_chip,
  bubble_time_s,
  bubble_fraction,
  dcn_s,
  dropped_fraction,
};

// The kind of a metric's value.
enum class MetricValue { number, boolean, shape };

struct MetricInfo {
  std::string_view name;
  Metric metric;
  ExpectScope scope;
  MetricValue value;
  bool per_model;                 // the book and the simulation each give one (times)
  bool des_only;                  // link and message counts exist only in the simulation (of a program's plan)
  bool of_candidate_too = false;  // a plan metric that a model-level scenario's plan has too (fits_hbm)
};

inline constexpr std::array<MetricInfo, 45> kMetrics = {{
    {"total_time_s", Metric::total_time_s, ExpectScope::plan, MetricValue::number, true, false},
    {"peak_memory_per_chip_bytes", Metric::peak_memory_per_chip_bytes, ExpectScope::plan, MetricValue::number, false,
     false},
    {"fits_hbm", Metric::fits_hbm, ExpectScope::plan, MetricValue::boolean, false, false, true},
    {"max_link_bytes", Metric::max_link_bytes, ExpectScope::plan, MetricValue::number, false, true},
    {"total_link_bytes", Metric::total_link_bytes, ExpectScope::plan, MetricValue::number, false, true},
    {"messages", Metric::messages, ExpectScope::plan, MetricValue::number, false, true},
    {"exposed_communication_s", Metric::exposed_communication_s, ExpectScope::plan, MetricValue::number, false, true},
    {"time_s", Metric::time_s, ExpectScope::op, MetricValue::number, true, false},
    {"array_bytes", Metric::array_bytes, ExpectScope::op, MetricValue::number, false, false},
    {"flops", Metric::flops, ExpectScope::op, MetricValue::number, false, false},
    {"collectives", Metric::collectives, ExpectScope::op, MetricValue::number, false, false},
    {"bytes_per_device", Metric::bytes_per_device, ExpectScope::tensor, MetricValue::number, false, false},
    {"total_bytes", Metric::total_bytes, ExpectScope::tensor, MetricValue::number, false, false},
    {"local_shape", Metric::local_shape, ExpectScope::tensor, MetricValue::shape, false, false},
    {"params_total", Metric::params_total, ExpectScope::model, MetricValue::number, false, false},
    {"params_attention", Metric::params_attention, ExpectScope::model, MetricValue::number, false, false},
    {"params_mlp", Metric::params_mlp, ExpectScope::model, MetricValue::number, false, false},
    {"params_embedding", Metric::params_embedding, ExpectScope::model, MetricValue::number, false, false},
    {"flops_per_token_forward", Metric::flops_per_token_forward, ExpectScope::model, MetricValue::number, false, false},
    {"flops_per_token_train", Metric::flops_per_token_train, ExpectScope::model, MetricValue::number, false, false},
    {"flops_per_token_train_with_attention", Metric::flops_per_token_train_with_attention, ExpectScope::model,
     MetricValue::number, false, false},
    {"kv_cache_bytes_per_token", Metric::kv_cache_bytes_per_token, ExpectScope::model, MetricValue::number, false,
     false},
    {"training_state_bytes_params", Metric::training_state_bytes_params, ExpectScope::model, MetricValue::number, false,
     false},
    {"training_state_bytes_grads", Metric::training_state_bytes_grads, ExpectScope::model, MetricValue::number, false,
     false},
    {"training_state_bytes_optimizer", Metric::training_state_bytes_optimizer, ExpectScope::model, MetricValue::number,
     false, false},
    {"training_state_bytes_activations", Metric::training_state_bytes_activations, ExpectScope::model,
     MetricValue::number, false, false},
    {"training_state_bytes_total", Metric::training_state_bytes_total, ExpectScope::model, MetricValue::number, false,
     false},
    {"step_time_s", Metric::step_time_s, ExpectScope::candidate, MetricValue::number, true, false},
    {"compute_time_s", Metric::compute_time_s, ExpectScope::candidate, MetricValue::number, false, false},
    {"hbm_time_s", Metric::hbm_time_s, ExpectScope::candidate, MetricValue::number, false, false},
    {"ici_time_s", Metric::ici_time_s, ExpectScope::candidate, MetricValue::number, false, false},
    {"compute_bound", Metric::compute_bound, ExpectScope::candidate, MetricValue::boolean, false, false},
    {"memory_per_chip_bytes", Metric::memory_per_chip_bytes, ExpectScope::candidate, MetricValue::number, false, false},
    {"memory_params_bytes", Metric::memory_params_bytes, ExpectScope::candidate, MetricValue::number, false, false},
    {"memory_grads_bytes", Metric::memory_grads_bytes, ExpectScope::candidate, MetricValue::number, false, false},
    {"memory_optimizer_bytes", Metric::memory_optimizer_bytes, ExpectScope::candidate, MetricValue::number, false,
     false},
    {"memory_activations_bytes", Metric::memory_activations_bytes, ExpectScope::candidate, MetricValue::number, false,
     false},
    {"memory_kv_cache_bytes", Metric::memory_kv_cache_bytes, ExpectScope::candidate, MetricValue::number, false, false},
    {"memory_temporaries_bytes", Metric::memory_temporaries_bytes, ExpectScope::candidate, MetricValue::number, false,
     false},
    {"mfu", Metric::mfu, ExpectScope::candidate, MetricValue::number, true, false},
    {"tokens_per_s_per_chip", Metric::tokens_per_s_per_chip, ExpectScope::candidate, MetricValue::number, true, false},
    {"bubble_time_s", Metric::bubble_time_s, ExpectScope::candidate, MetricValue::number, true, false},
    {"bubble_fraction", Metric::bubble_fraction, ExpectScope::candidate, MetricValue::number, true, false},
    // The step breakdown's DCN seconds (docs/overlap-pipeline-dcn.md): des only for a program's plan; a model-level
    // plan's candidate has a book figure (its collectives' DCN phases) and a des one.
    {"dcn_s", Metric::dcn_s, ExpectScope::plan, MetricValue::number, true, true, true},
    {"dropped_fraction", Metric::dropped_fraction, ExpectScope::candidate, MetricValue::number, false, false},
}};

// Whether a model metric is a figure of a training step (the training state), which a serving workload lacks.
bool is_training_metric(Metric metric);

// The metric's scope in a scenario with or without a model: fits_hbm, a plan metric, is a figure of the plan's
// candidate in a model-level scenario.
ExpectScope metric_scope(const MetricInfo& info, bool model_level);

// Whether the metric has only a book value: model metrics, and candidate metrics other than the step time and
// the figures derived from it (the des gives a candidate's step time, not its breakdown; memory is the closed
// form's in both).
bool book_only(const MetricInfo& info, bool model_level);

// The metric named exactly `name`, or nullptr.
const MetricInfo* find_metric(std::string_view name);
// The metric's entry (every Metric has one).
const MetricInfo& metric_info(Metric metric);
// The names in table order, each between `quote`s: `"total_time_s", "peak_memory_per_chip_bytes", ...`.
std::string metric_names(std::string_view quote = "\"");
// What a value of this kind is, for errors: "a number", "true or false", "an array of integers".
std::string_view metric_value_text(MetricValue value);
// "a plan", "an op", "a tensor", "the model", "a plan's candidate".
std::string_view scope_text(ExpectScope scope);

}  // namespace podsim
