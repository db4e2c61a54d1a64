// Functional mode for a scenario plan: inputs carry small exact integers, every op runs on real values the way
// the plan lowers it (the same planned collectives), and each result is compared with a dense reference.
#pragma once

#include "sim/run/run_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Tensors at most this many elements are verified automatically (podsim check, scenarios in tests).
inline constexpr std::uint64_t kAutomaticVerifyElements = 1 << 16;

// Whether every tensor of the scenario has at most `limit` elements.
bool scenario_is_small(const ScenarioSpec& spec, std::uint64_t limit);

// Runs the plan on values and sets plan.values_match and plan.values_note (which tensor, first mismatch).
// A tensor that is still unreduced at the end of the program is not compared (the note says so).
void verify_plan_values(const ScenarioSpec& spec, const ScenarioPlan* plan, PlanRun& run);

}  // namespace podsim
