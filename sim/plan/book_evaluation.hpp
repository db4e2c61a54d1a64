// The closed-form evaluation of a planned program, without an event graph: ops one after another at their book
// times, and memory per chip over that timeline. Plan search screens candidates with it; reports show it beside
// the simulation.
#pragma once

#include <cstdint>

#include "sim/plan/memory_profile.hpp"
#include "sim/plan/planned_program.hpp"

namespace podsim {

struct BookEvaluation {
  double time_s = 0;  // sum of the ops' book times
  MemoryProfile memory;
  bool fits_hbm = true;  // memory.peak_bytes <= hbm_bytes (true without an HBM figure)
};

// Each op's steps in program order, each starting when the one before ends, at its book time.
StepTimes program_order_book_times(const PlannedProgram& program);

BookEvaluation evaluate_book(const PlannedProgram& program);

}  // namespace podsim
