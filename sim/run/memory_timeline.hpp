// Memory per chip over the simulated timeline: each step's start and end on each chip, read from the simulation's
// task timings, through the buffer lifetimes of sim/plan/memory_profile.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/simulation_result.hpp"
#include "sim/plan/memory_profile.hpp"
#include "sim/run/program_lowering.hpp"

namespace podsim {

struct MemoryTimeline {
  std::vector<MemoryProfile> chips;  // per chip
  std::int32_t peak_chip = 0;        // the first chip that reaches the peak (at the earliest moment)
  std::uint64_t peak_bytes = 0;
  double peak_time_s = 0;
  std::vector<int> alive_at_peak;     // buffer ids on peak_chip at peak_time_s, largest first
  std::vector<StepTimes> step_times;  // per chip: when each step started and ended there
};

// [chip][op][step]: when each step starts and ends on each chip (over the tasks the chip sends, receives or
// computes). On a chip that takes no part in an op (a send between two others) its steps take their times over all
// chips. A step without tasks on a chip that takes part takes no time there, at the end of the step before it (or
// at the start of the op's first step with tasks there); an op without tasks anywhere is at 0.
std::vector<StepTimes> simulated_step_times(const PlannedProgram& program, const LoweredProgram& lowered,
                                            const SimulationResult& simulation);

MemoryTimeline memory_timeline(const PlannedProgram& program, const LoweredProgram& lowered,
                               const SimulationResult& simulation);

}  // namespace podsim
