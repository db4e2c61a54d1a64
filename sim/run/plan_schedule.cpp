// Scheduling policies, and the HBM-limited search for waits.
#include "sim/run/plan_schedule.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace podsim {
namespace {

ScheduledPlan simulate_once(const PlannedProgram& program, const ScenarioPlatform& platform, OpOrder order,
                            const SimulateProgram& simulate) {
  ScheduledPlan out;
  out.order = std::move(order);
  out.lowered = lower_program(program, platform, out.order);
  out.simulation = simulate(out.lowered);
  out.memory = memory_timeline(program, out.lowered, out.simulation);
  out.simulations = 1;
  return out;
}

// The first moment any chip uses more than `limit`, and on which chip.
std::optional<std::pair<std::size_t, MemoryPoint>> first_excess(const MemoryTimeline& memory, std::uint64_t limit) {
  std::optional<std::pair<std::size_t, MemoryPoint>> first;
  for (std::size_t chip = 0; chip < memory.chips.size(); ++chip)
    for (const MemoryPoint& point : memory.chips[chip].points)
      if (point.bytes > limit) {
        if (!first || point.time_s < first->second.time_s) first = {{chip, point}};
        break;
      }
  return first;
}

// The wait that removes the excess at `point` on `chip`, or nullopt when every op alive then already follows all
// ops before it.
std::optional<ScheduleWait> next_wait(const PlannedProgram& program, const StepTimes& times, MemoryPoint point,
                                      std::uint64_t limit) {
  std::vector<int> ops;
  for (const int b : alive_at(program, times, point.time_s)) {
    const int op = program.buffers[static_cast<std::size_t>(b)].op;
    if (op >= 0) ops.push_back(op);
  }
  std::sort(ops.begin(), ops.end(), std::greater<>());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  auto start_of = [&](int op) {
    double start = std::numeric_limits<double>::infinity();
    for (const auto& [s, e] : times[static_cast<std::size_t>(op)])
      start = std::min(start, s);
    return start;
  };
  auto end_of = [&](int op) {
    double end = 0;
    for (const auto& [s, e] : times[static_cast<std::size_t>(op)])
      end = std::max(end, e);
    return end;
  };
  for (const int j : ops) {
    const double start = start_of(j);
    std::vector<int> running;  // ops before j still running when it started, by end time
    for (int i = 0; i < j; ++i)
      if (!program.ops[static_cast<std::size_t>(i)].steps.empty() && end_of(i) > start) running.push_back(i);
    if (running.empty()) continue;
    std::stable_sort(running.begin(), running.end(), [&](int a, int b) { return end_of(a) < end_of(b); });
    std::uint64_t needs = 0;  // j's own buffers, all at once
    for (const int b : program.ops[static_cast<std::size_t>(j)].created(program.buffers))
      needs += program.buffers[static_cast<std::size_t>(b)].bytes_per_chip;
    // Memory in use at `t` by buffers of ops before j (and declared ones).
    auto before_j = [&](double t) {
      std::uint64_t bytes = 0;
      for (const int b : alive_at(program, times, t))
        if (program.buffers[static_cast<std::size_t>(b)].op < j)
          bytes += program.buffers[static_cast<std::size_t>(b)].bytes_per_chip;
      return bytes;
    };
    int chosen = running.back();
    for (const int i : running)
      if (before_j(end_of(i)) + needs <= limit) {
        chosen = i;
        break;
      }
    return ScheduleWait{j, chosen, point.time_s, point.bytes - limit};
  }
  return std::nullopt;
}

}  // namespace

ScheduledPlan schedule_plan(const PlannedProgram& program, const ScenarioPlatform& platform, SchedulePolicy policy,
                            const SimulateProgram& simulate, std::optional<std::size_t> max_waits) {
  OpOrder order;
  order.policy = policy == SchedulePolicy::program_order ? SchedulePolicy::program_order : SchedulePolicy::dataflow;
  order.waits.assign(program.ops.size(), {});
  ScheduledPlan run = simulate_once(program, platform, order, simulate);
  run.policy = policy;
  if (policy != SchedulePolicy::dataflow_hbm || program.hbm_bytes == 0) return run;
  std::vector<ScheduleWait> waits;
  int simulations = 1;
  bool exhausted = false;
  // Each wait moves one op after one more op before it, so the search ends, but after up to ops^2 / 2 waits; each
  // costs a simulation, so it stops at max_schedule_waits(ops) and says so.
  const std::size_t limit_waits = max_waits.value_or(max_schedule_waits(program.ops.size()));
  while (true) {
    const auto excess = first_excess(run.memory, program.hbm_bytes);
    if (!excess) break;
    const auto wait = next_wait(program, run.memory.step_times[excess->first], excess->second, program.hbm_bytes);
    if (!wait) break;
    if (waits.size() == limit_waits) {
      exhausted = true;
      break;
    }
    order.waits[static_cast<std::size_t>(wait->op)].push_back(wait->after);
    waits.push_back(*wait);
    ScheduledPlan next = simulate_once(program, platform, order, simulate);
    ++simulations;
    run = std::move(next);
  }
  run.policy = policy;
  run.exhausted = exhausted;
  run.waits = std::move(waits);
  run.simulations = simulations;
  return run;
}

}  // namespace podsim
