// `podsim check` output: one line per expectation with its value, target and tolerance, and a closing count.
#pragma once

#include <string>

#include "sim/run/run_result.hpp"

namespace podsim::report {

// `PASS  file: plan: op h time_s (des) = 5.6224e-04, expected 5.6224e-04 (rel 1e-09)  [source]` per check.
std::string check_lines(const ScenarioRun& run);

// A check's value or target as text: numbers in %.10g, booleans, integer arrays as [a, b].
std::string check_value_text(const std::variant<double, bool, std::vector<std::int64_t>>& value);

}  // namespace podsim::report
