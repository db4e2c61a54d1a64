// Look-ups in the table of expect metrics.
#include "sim/scenario/expect_metrics.hpp"

namespace podsim {

const MetricInfo* find_metric(std::string_view name) {
  for (const auto& info : kMetrics)
    if (info.name == name) return &info;
  return nullptr;
}

const MetricInfo& metric_info(Metric metric) {
  for (const auto& info : kMetrics)
    if (info.metric == metric) return info;
  return kMetrics.front();
}

bool is_training_metric(Metric metric) {
  switch (metric) {
    case Metric::training_state_bytes_params:
    case Metric::training_state_bytes_grads:
    case Metric::training_state_bytes_optimizer:
    case Metric::training_state_bytes_activations:
    case Metric::training_state_bytes_total:
      return true;
    default:
      return false;
  }
}

ExpectScope metric_scope(const MetricInfo& info, bool model_level) {
  return model_level && info.of_candidate_too ? ExpectScope::candidate : info.scope;
}

bool book_only(const MetricInfo& info, bool model_level) {
  const ExpectScope scope = metric_scope(info, model_level);
  return scope == ExpectScope::model || (scope == ExpectScope::candidate && !info.per_model);
}

std::string metric_names(std::string_view quote) {
  std::string text;
  for (const auto& info : kMetrics)
    text += (text.empty() ? "" : ", ") + std::string(quote) + std::string(info.name) + std::string(quote);
  return text;
}

std::string_view metric_value_text(MetricValue value) {
  switch (value) {
    case MetricValue::number:
      return "a number";
    case MetricValue::boolean:
      return "true or false";
    case MetricValue::shape:
      return "an array of integers";
  }
  return "a value";
}

std::string_view scope_text(ExpectScope scope) {
  switch (scope) {
    case ExpectScope::plan:
      return "a plan";
    case ExpectScope::op:
      return "an op";
    case ExpectScope::tensor:
      return "a tensor";
    case ExpectScope::model:
      return "the model";
    case ExpectScope::candidate:
      return "a plan's candidate";
  }
  return "a plan";
}

}  // namespace podsim
