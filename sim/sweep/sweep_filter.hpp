// The sweep's filter (docs/sweeps.md, "Filter"): a point runs when every condition holds on its resolved scenario;
// a point filtered out has no record, and the other points keep their indices.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

// Whether every condition of spec.filter holds on `resolved` (a point's scenario). Throws InputError located at the
// condition in the sweep file when it cannot be evaluated: a field the point lacks, an order or divisibility
// between values that are not numbers (`/filter/0: "<" compares numbers, got: "tpu-v5e"`), a division by zero.
bool point_selected(const SweepSpec& spec, const nlohmann::ordered_json& resolved);

}  // namespace podsim
