// How the ops of a planned program are ordered in time (docs/scheduling.md): one after another, as soon as
// their inputs are ready, or as soon as their inputs are ready and their buffers fit in HBM beside what is alive.
#pragma once

#include <string_view>

namespace podsim {

enum class SchedulePolicy {
  program_order,  // each chip runs the ops one after another, in program order
  dataflow,       // every op starts as soon as its inputs (and `after` ops) are ready
  dataflow_hbm,   // dataflow, but an op waits until its buffers fit in HBM beside the buffers alive (the default)
};

inline constexpr SchedulePolicy kDefaultSchedule = SchedulePolicy::dataflow_hbm;

// "program-order", "dataflow", "dataflow-hbm".
std::string_view schedule_policy_name(SchedulePolicy policy);

// Reads a name (`_` may stand for `-`, any case); throws VerifyError listing the choices.
SchedulePolicy parse_schedule_policy(std::string_view text);

}  // namespace podsim
