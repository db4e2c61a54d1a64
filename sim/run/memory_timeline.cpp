// Simulated task timings -> step times per chip -> memory per chip over time.
#include "sim/run/memory_timeline.hpp"

#include <algorithm>
#include <limits>

namespace podsim {

std::vector<StepTimes> simulated_step_times(const PlannedProgram& program, const LoweredProgram& lowered,
                                            const SimulationResult& simulation) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto chips = static_cast<std::size_t>(lowered.graph->num_chips);
  StepTimes empty(program.ops.size());
  for (std::size_t op = 0; op < program.ops.size(); ++op)
    empty[op].assign(program.ops[op].steps.size(), {inf, -inf});
  std::vector<StepTimes> times(chips, empty);
  const auto& tasks = lowered.graph->tasks;
  for (std::size_t op = 0; op < lowered.step_tasks.size(); ++op)
    for (std::size_t step = 0; step < lowered.step_tasks[op].size(); ++step) {
      const TaskRange range = lowered.step_tasks[op][step];
      for (TaskId t = range.begin; t < range.end; ++t) {
        const Task& task = tasks[static_cast<std::size_t>(t)];
        const TaskTiming& timing = simulation.tasks[static_cast<std::size_t>(t)];
        for (const ChipId chip : {task.src_chip, task.dst_chip}) {
          auto& [start, end] = times[static_cast<std::size_t>(chip)][op][step];
          start = std::min(start, timing.start_s);
          end = std::max(end, timing.end_s);
        }
      }
    }
  // Over all chips, per step: where a chip takes no part in an op at all (a send between two other chips), the op
  // runs there as it does on the chips that take part, so what it reads stays alive until it has ended.
  StepTimes global = empty;
  for (const auto& chip : times)
    for (std::size_t op = 0; op < chip.size(); ++op)
      for (std::size_t step = 0; step < chip[op].size(); ++step) {
        global[op][step].first = std::min(global[op][step].first, chip[op][step].first);
        global[op][step].second = std::max(global[op][step].second, chip[op][step].second);
      }
  for (auto& chip : times)
    for (std::size_t o = 0; o < chip.size(); ++o) {
      auto& op = chip[o];
      const bool takes_part = std::any_of(op.begin(), op.end(), [](const auto& t) { return t.first != inf; });
      if (!takes_part) op = global[o];
      double previous_end = inf;
      for (std::size_t step = 0; step < op.size(); ++step) {
        if (op[step].first != inf) {
          previous_end = op[step].second;
          continue;
        }
        double at = previous_end;
        for (std::size_t later = step + 1; at == inf && later < op.size(); ++later)
          if (op[later].first != inf) at = op[later].first;
        if (at == inf) at = 0;
        op[step] = {at, at};
      }
    }
  return times;
}

MemoryTimeline memory_timeline(const PlannedProgram& program, const LoweredProgram& lowered,
                               const SimulationResult& simulation) {
  MemoryTimeline timeline;
  timeline.step_times = simulated_step_times(program, lowered, simulation);
  const std::vector<StepTimes>& times = timeline.step_times;
  bool first = true;
  for (std::size_t chip = 0; chip < times.size(); ++chip) {
    MemoryProfile profile = memory_profile(program, times[chip]);
    const bool higher = profile.peak_bytes > timeline.peak_bytes;
    const bool as_high_earlier =
        profile.peak_bytes == timeline.peak_bytes && profile.peak_time_s < timeline.peak_time_s;
    if (first || higher || as_high_earlier) {
      timeline.peak_chip = static_cast<std::int32_t>(chip);
      timeline.peak_bytes = profile.peak_bytes;
      timeline.peak_time_s = profile.peak_time_s;
      timeline.alive_at_peak = profile.alive_at_peak;
      first = false;
    }
    timeline.chips.push_back(std::move(profile));
  }
  return timeline;
}

}  // namespace podsim
