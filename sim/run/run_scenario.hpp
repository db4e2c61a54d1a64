// Runs a verified scenario: plans every plan once (sim/plan), schedules and simulates it under the scheduling
// policy, fills the des figures and the memory over time beside the closed-form ones, explains contention, runs
// functional mode, and evaluates the scenario's expectations.
#pragma once

#include <optional>
#include <string>

#include "models/common/field_error.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct RunOptions {
  enum class Field { plan };  // the options a RunError can be about

  std::optional<std::string> plan;         // run only this plan
  bool verify_values = false;              // functional mode for every plan (also on when the scenario asks)
  std::optional<SchedulePolicy> schedule;  // overrides the scenario's options.schedule
  // Take the engine's symmetry path where it proves exact (one representative group per phase; identical results);
  // false: simulate every chip.
  bool symmetry = true;
  // With `symmetry`: try the translation quotient first (chip 0's tasks for all chips, when every chip runs chip 0's
  // tasks moved; bit for bit the full simulation); false: only one group per phase.
  bool translation_quotient = true;
  // A model-level run (run_model_scenario) keeps each simulated plan's timeline (PlanRun::candidate_timeline) for its
  // Chrome trace; an op-level run always keeps its event graph.
  bool keep_timeline = false;
};

// An option the scenario cannot honour (a plan it does not have); front ends name the option in their terms.
using RunError = FieldError<RunOptions::Field>;

// Throws RunError for a plan the scenario does not have, InputError for a rule that fails while lowering.
ScenarioRun run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace podsim
