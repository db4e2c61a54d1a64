// GPipe and 1F1B stage orders, microbatches in flight, and the schedule's span by recurrence.
#include "sim/capacity/pipeline_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

void require_shape(std::int64_t stages, std::int64_t microbatches) {
  if (stages < 1) throw VerifyError("pipeline stages must be at least 1, got: " + std::to_string(stages));
  if (microbatches < 1) throw VerifyError("microbatches must be at least 1, got: " + std::to_string(microbatches));
  // Checked for overflow: both factors are user numbers.
  std::int64_t tasks = 0;
  const bool wraps = __builtin_mul_overflow(stages, 2 * std::min<std::int64_t>(microbatches, INT64_MAX / 2), &tasks);
  if (stages > 1 && (wraps || tasks > kMaxPipelineTasks))
    throw VerifyError("the pipeline schedule would hold " +
                      (wraps ? std::string("more than 2^63") : std::to_string(tasks)) + " stage tasks (" +
                      std::to_string(stages) + " stages x 2 x " + std::to_string(microbatches) +
                      " microbatches), above the limit of " + std::to_string(kMaxPipelineTasks) +
                      " (docs/reliability.md, \"Limits that protect the machine\"): use fewer microbatches");
}

void require_times(const std::vector<double>& times, std::size_t count, const std::string& what,
                   const std::string& per) {
  if (times.size() != count)
    throw VerifyError(what + ": one time per " + per + " (" + std::to_string(count) +
                      "), got: " + std::to_string(times.size()));
  for (const double t : times)
    if (!(t >= 0) || !std::isfinite(t))
      throw VerifyError(what + ": times must be finite and >= 0, got: " + std::to_string(t));
}

// Index of (stage, kind, microbatch) in a flat table.
std::size_t slot(std::int64_t stage, PipelineTask::Kind kind, std::int64_t microbatch, std::int64_t microbatches) {
  return static_cast<std::size_t>((stage * 2 + (kind == PipelineTask::Kind::backward ? 1 : 0)) * microbatches +
                                  microbatch);
}

}  // namespace

std::vector<PipelineTask> stage_order(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                      std::int64_t stage) {
  require_shape(stages, microbatches);
  if (stage < 0 || stage >= stages)
    throw VerifyError("stage must be in [0, " + std::to_string(stages) + "), got: " + std::to_string(stage));
  using Kind = PipelineTask::Kind;
  std::vector<PipelineTask> order;
  order.reserve(static_cast<std::size_t>(2 * microbatches));
  if (schedule == PipelineSchedule::gpipe) {
    for (std::int64_t i = 0; i < microbatches; ++i)
      order.push_back({Kind::forward, i});
    for (std::int64_t i = 0; i < microbatches; ++i)
      order.push_back({Kind::backward, i});
    return order;
  }
  const std::int64_t warmup = std::min(stages - stage - 1, microbatches);
  for (std::int64_t i = 0; i < warmup; ++i)
    order.push_back({Kind::forward, i});
  for (std::int64_t i = 0; i < microbatches - warmup; ++i) {
    order.push_back({Kind::forward, warmup + i});
    order.push_back({Kind::backward, i});
  }
  for (std::int64_t i = microbatches - warmup; i < microbatches; ++i)
    order.push_back({Kind::backward, i});
  return order;
}

std::int64_t microbatches_in_flight(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                    std::int64_t stage) {
  require_shape(stages, microbatches);
  if (stages == 1) return 1;
  if (schedule == PipelineSchedule::gpipe) return microbatches;
  return std::min(stages - stage, microbatches);
}

void for_each_in_dependency_order(PipelineSchedule schedule, std::int64_t stages, std::int64_t microbatches,
                                  const std::function<void(std::int64_t stage, const PipelineTask& task)>& visit) {
  using Kind = PipelineTask::Kind;
  std::vector<std::vector<PipelineTask>> orders;
  for (std::int64_t s = 0; s < stages; ++s)
    orders.push_back(stage_order(schedule, stages, microbatches, s));
  std::vector<char> done(static_cast<std::size_t>(stages * 2 * microbatches), 0);
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::int64_t left = stages * 2 * microbatches;
  while (left > 0) {
    bool progress = false;
    for (std::int64_t s = 0; s < stages; ++s) {
      auto& at = next[static_cast<std::size_t>(s)];
      const auto& order = orders[static_cast<std::size_t>(s)];
      while (at < order.size()) {
        const PipelineTask& task = order[at];
        const bool forward = task.kind == Kind::forward;
        // The task it waits for on a neighbouring stage (the last stage's backward follows its own forward, which
        // comes earlier in its order).
        if (forward && s > 0 && !done[slot(s - 1, Kind::forward, task.microbatch, microbatches)]) break;
        if (!forward && s + 1 < stages && !done[slot(s + 1, Kind::backward, task.microbatch, microbatches)]) break;
        visit(s, task);
        done[slot(s, task.kind, task.microbatch, microbatches)] = 1;
        ++at;
        --left;
        progress = true;
      }
    }
    if (!progress) throw InternalError("pipeline schedule: the stage orders deadlock");
  }
}

PipelineSpan pipeline_bubble(double span_s, std::int64_t microbatches, const PipelineTimes& times) {
  PipelineSpan out;
  out.span_s = span_s;
  const auto m = static_cast<double>(microbatches);
  for (std::size_t s = 0; s < times.forward_s.size(); ++s) {
    out.busy_s.push_back(m * (times.forward_s[s] + times.backward_s[s]));
    if (out.busy_s.back() > out.busy_s[static_cast<std::size_t>(out.busiest_stage)])
      out.busiest_stage = static_cast<std::int64_t>(s);
  }
  if (!out.busy_s.empty())
    out.bubble_s = std::max(0.0, span_s - out.busy_s[static_cast<std::size_t>(out.busiest_stage)]);
  out.bubble_fraction = span_s > 0 ? out.bubble_s / span_s : 0;
  return out;
}

PipelineSpan pipeline_span(PipelineSchedule schedule, std::int64_t microbatches, const PipelineTimes& times) {
  const auto stages = static_cast<std::int64_t>(times.forward_s.size());
  require_shape(stages, microbatches);
  const auto p = static_cast<std::size_t>(stages);
  require_times(times.forward_s, p, "forward", "stage");
  require_times(times.backward_s, p, "backward", "stage");
  require_times(times.send_s, p - 1, "send", "boundary between stages");
  using Kind = PipelineTask::Kind;
  std::vector<double> end(static_cast<std::size_t>(stages * 2 * microbatches), 0.0);
  std::vector<double> free_at(p, 0.0);  // when each stage's previous task ended
  double span = 0;
  for_each_in_dependency_order(schedule, stages, microbatches, [&](std::int64_t s, const PipelineTask& task) {
    const auto i = static_cast<std::size_t>(s);
    double ready = free_at[i];
    double duration = times.forward_s[i];
    if (task.kind == Kind::forward) {
      if (s > 0)
        ready = std::max(ready, end[slot(s - 1, Kind::forward, task.microbatch, microbatches)] + times.send_s[i - 1]);
    } else {
      duration = times.backward_s[i];
      if (s + 1 < stages)
        ready = std::max(ready, end[slot(s + 1, Kind::backward, task.microbatch, microbatches)] + times.send_s[i]);
    }
    const double finish = ready + duration;
    end[slot(s, task.kind, task.microbatch, microbatches)] = finish;
    free_at[i] = finish;
    span = std::max(span, finish);
  });
  return pipeline_bubble(span, microbatches, times);
}

}  // namespace podsim
