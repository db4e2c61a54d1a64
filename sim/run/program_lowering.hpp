// Lowers a planned program into a timed event graph under a scheduling policy: each step becomes tasks (a
// collective through sim/collectives, a compute task per chip, a transfer), each step waits for the steps that
// created what it reads, and the policy adds the order between ops. Decides nothing the plan has not decided.
#pragma once

#include <memory>
#include <vector>

#include "models/plan/schedule_policy.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/graph/graph_symmetry.hpp"
#include "sim/plan/planned_program.hpp"
#include "sim/run/scenario_platform.hpp"

namespace podsim {

// The order between ops: the policy, plus ops that must wait for others to end (the HBM-limited policy's waits).
struct OpOrder {
  SchedulePolicy policy = SchedulePolicy::dataflow;  // program_order serialises each chip's ops
  std::vector<std::vector<int>> waits;               // per op, ops (earlier in the program) it starts after
};

struct TaskRange {
  TaskId begin = 0;
  TaskId end = 0;  // one past the last
};

struct LoweredProgram {
  std::shared_ptr<EventGraph> graph;
  // Phases of the graph (every collective's axis phases, every compute step, every send) for the engine's symmetry
  // path, which checks them and falls back to the full simulation when they do not hold.
  std::shared_ptr<GraphSymmetry> symmetry;
  std::vector<std::vector<TaskRange>> step_tasks;  // [op][step]: the tasks of that step (Task::op is the op)
};

// The tasks lower_program builds for `program` (under any order), counted without building them: each collective's
// (count_collective_tasks, which verifies it), one per chip and compute step, one per transfer and per send.
std::size_t count_lowered_tasks(const PlannedProgram& program, const ScenarioPlatform& platform);

LoweredProgram lower_program(const PlannedProgram& program, const ScenarioPlatform& platform, const OpOrder& order);

}  // namespace podsim
