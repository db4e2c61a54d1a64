// The scenario loader: a scenario file (docs/scenario-format.md, docs/scenario.schema.json) is parsed into a
// ScenarioSpec (JSON syntax, types and keys checked here), then verified by the same verifier a spec built in
// code goes through (scenario_verify.hpp). Every error is an InputError `FILE: /json/pointer: RULE, got: VALUE`
// (with `column N: ` for sharding, einsum and mesh text).
#pragma once

#include <string>

#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Reads and loads the scenario at `path`. Errors name the file as `path` is written; a hardware preset
// given as a relative path is looked up next to the scenario. Throws InputError.
ScenarioSpec load_scenario(const std::string& path);

// Loads a scenario from its text; `where` stands for the file name in errors and in source_file. Relative paths
// in it (a hardware preset file, a model's config.json) are read from `folder`, or next to `where` when it is
// empty. Throws InputError.
ScenarioSpec load_scenario_text(const std::string& text, const std::string& where, const std::string& folder = "");

}  // namespace podsim
