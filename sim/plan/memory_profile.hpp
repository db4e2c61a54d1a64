// Memory over time on one chip, from when each step of a planned program starts and ends: a buffer is allocated
// when the step that creates it starts and freed when its last reader ends (declared tensors, and results that
// nothing reads, stay to the end; a transient declared tensor lives from its first reader's step to its last's; a
// view takes no memory, its readers keep the tensor it views alive). The same rule serves the simulated timeline and
// the closed-form one.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/plan/planned_program.hpp"

namespace podsim {

// [start, end] of each step of each op on one chip, in seconds: times[op][step].
using StepTimes = std::vector<std::vector<std::pair<double, double>>>;

struct MemoryPoint {
  double time_s = 0;
  std::uint64_t bytes = 0;  // in use from time_s until the next point
};

struct MemoryProfile {
  std::vector<MemoryPoint> points;  // one per moment the usage changes, time order, starting at 0
  std::uint64_t peak_bytes = 0;
  double peak_time_s = 0;          // the first moment the peak is reached
  std::vector<int> alive_at_peak;  // buffer ids alive then, largest first
};

// A buffer is alive over [allocation, free): one that is freed the moment it is created takes no memory, and at
// one moment frees count before allocations.
MemoryProfile memory_profile(const PlannedProgram& program, const StepTimes& times);

// The buffers alive at `time_s` under `times`, largest first.
std::vector<int> alive_at(const PlannedProgram& program, const StepTimes& times, double time_s);

}  // namespace podsim
