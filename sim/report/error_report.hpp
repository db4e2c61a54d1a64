// Bad input as the JSON object commands print on stdout with --json:
// {"error": {"stage": "parse"|"verify", "where": ..., "message": ..., "column": N}}.
#pragma once

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"

namespace podsim::report {

nlohmann::json error_json(const InputError& error);

}  // namespace podsim::report
