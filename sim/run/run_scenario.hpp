// Runs a verified scenario: lowers every plan, simulates their event graphs (two children at a time), fills the
// des figures beside the book ones, and evaluates the scenario's expectations.
#pragma once

#include <optional>
#include <string>

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct RunOptions {
  std::optional<std::string> plan;  // run only this plan
  bool verify_values = false;       // functional mode for every plan (also on when the scenario asks)
  int parallel = 2;                 // simulations at once (full simulations only)
  // Take the engine's symmetry path where it proves exact (one representative group per phase; identical results);
  // false: simulate every chip.
  bool symmetry = true;
};

// Throws InputError for a plan the scenario does not have or a rule that fails while lowering.
ScenarioRun run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace podsim
