// Functional mode for a planned program: inputs carry small exact integers, every step runs on real values as the
// plan decided it (the same collectives, the same local products), and each result is compared with a dense
// reference.
#pragma once

#include "sim/plan/planned_program.hpp"
#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Tensors at most this many elements are verified automatically (podsim check, scenarios in tests).
inline constexpr std::uint64_t kAutomaticVerifyElements = 1 << 16;

// Whether every tensor of the scenario has at most `limit` elements.
bool scenario_is_small(const ScenarioSpec& spec, std::uint64_t limit);

// Runs the program on values and sets run.values_match and run.values_note (which tensor, first mismatch).
// A tensor that is still unreduced at the end of the program is not compared (the note says so).
void verify_plan_values(const ScenarioSpec& spec, const PlannedProgram& program, PlanRun& run);

}  // namespace podsim
