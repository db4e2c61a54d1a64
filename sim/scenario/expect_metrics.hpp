// The metrics an `expect` entry may pin (docs/scenario-format.md, "Metrics"): one table, read by the scenario
// verifier (the metric's scope, the kind of its value, whether the book model has it) and by the checks (which
// figure of a run it is).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace podsim {

// What a metric is a figure of: a whole plan, one op, or one tensor.
enum class ExpectScope { plan, op, tensor };

enum class Metric {
  total_time_s,
  peak_memory_per_chip_bytes,
  fits_hbm,
  max_link_bytes,
  total_link_bytes,
  messages,
  time_s,
  array_bytes,
  flops,
  collectives,
  bytes_per_device,
  total_bytes,
  local_shape,
};

// The kind of a metric's value.
enum class MetricValue { number, boolean, shape };

struct MetricInfo {
  std::string_view name;
  Metric metric;
  ExpectScope scope;
  MetricValue value;
  bool per_model;  // the book and the simulation each give one (times)
  bool des_only;   // link and message counts exist only in the simulation
};

inline constexpr std::array<MetricInfo, 13> kMetrics = {{
    {"total_time_s", Metric::total_time_s, ExpectScope::plan, MetricValue::number, true, false},
    {"peak_memory_per_chip_bytes", Metric::peak_memory_per_chip_bytes, ExpectScope::plan, MetricValue::number, false,
     false},
    {"fits_hbm", Metric::fits_hbm, ExpectScope::plan, MetricValue::boolean, false, false},
    {"max_link_bytes", Metric::max_link_bytes, ExpectScope::plan, MetricValue::number, false, true},
    {"total_link_bytes", Metric::total_link_bytes, ExpectScope::plan, MetricValue::number, false, true},
    {"messages", Metric::messages, ExpectScope::plan, MetricValue::number, false, true},
    {"time_s", Metric::time_s, ExpectScope::op, MetricValue::number, true, false},
    {"array_bytes", Metric::array_bytes, ExpectScope::op, MetricValue::number, false, false},
    {"flops", Metric::flops, ExpectScope::op, MetricValue::number, false, false},
    {"collectives", Metric::collectives, ExpectScope::op, MetricValue::number, false, false},
    {"bytes_per_device", Metric::bytes_per_device, ExpectScope::tensor, MetricValue::number, false, false},
    {"total_bytes", Metric::total_bytes, ExpectScope::tensor, MetricValue::number, false, false},
    {"local_shape", Metric::local_shape, ExpectScope::tensor, MetricValue::shape, false, false},
}};

// The metric named exactly `name`, or nullptr.
const MetricInfo* find_metric(std::string_view name);
// The metric's entry (every Metric has one).
const MetricInfo& metric_info(Metric metric);
// The names in table order, each between `quote`s: `"total_time_s", "peak_memory_per_chip_bytes", ...`.
std::string metric_names(std::string_view quote = "\"");
// What a value of this kind is, for errors: "a number", "true or false", "an array of integers".
std::string_view metric_value_text(MetricValue value);
// "a plan", "an op", "a tensor".
std::string_view scope_text(ExpectScope scope);

}  // namespace podsim
