// `podsim check` output: one line per expectation with its value, target and tolerance, and a closing count.
#pragma once

#include <string>

#include "sim/run/run_result.hpp"

namespace podsim::report {

// `PASS  file: plan: op h time_s (des) = 0.000562241, expected 0.000562241 (rel 1e-09)  [source]` per check.
std::string check_lines(const ScenarioRun& run);

}  // namespace podsim::report
