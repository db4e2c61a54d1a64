// Runs a planned program under a scheduling policy (docs/scheduling.md). program-order and dataflow lower and
// simulate once. dataflow-hbm starts from dataflow and, while the simulated memory of a chip exceeds HBM, makes
// the op that ran ahead of program order (the latest op with a buffer alive at the first excess) wait for the
// end of an op before it that was still running when it started: the earliest-ending one whose end leaves room for
// the waiting op's buffers (else the last-ending one); then simulates again. It stops when the plan fits or no op
// can wait any more (the plan does not fit even in program order).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/simulation_result.hpp"
#include "sim/run/memory_timeline.hpp"
#include "sim/run/program_lowering.hpp"

namespace podsim {

// One wait the HBM-limited policy added: `op` starts after `after` ends.
struct ScheduleWait {
  int op = 0;
  int after = 0;
  double excess_at_s = 0;          // the moment memory exceeded HBM that this wait removes
  std::uint64_t excess_bytes = 0;  // by how much (over HBM)
};

struct ScheduledPlan {
  SchedulePolicy policy = kDefaultSchedule;  // as asked
  OpOrder order;                             // as lowered
  LoweredProgram lowered;
  SimulationResult simulation;
  MemoryTimeline memory;
  std::vector<ScheduleWait> waits;
  int simulations = 0;     // how many times the plan was simulated
  bool exhausted = false;  // dataflow-hbm stopped at max_schedule_waits with memory still over HBM
};

// The most waits dataflow-hbm adds to a program of `ops` ops before it stops: 2 x ops + 8.
constexpr std::size_t max_schedule_waits(std::size_t ops) {
  return 2 * ops + 8;
}

using SimulateProgram = std::function<SimulationResult(const LoweredProgram&)>;

// `max_waits`: the most waits dataflow-hbm adds (default max_schedule_waits), each costing a simulation.
ScheduledPlan schedule_plan(const PlannedProgram& program, const ScenarioPlatform& platform, SchedulePolicy policy,
                            const SimulateProgram& simulate, std::optional<std::size_t> max_waits = std::nullopt);

}  // namespace podsim
