// Chrome trace writer. Complete events on one thread must nest, but a chip's sends (and a link's transfers) overlap
// freely, so each chip or link becomes as many tracks ("lanes") as it has overlapping events: greedy interval
// partitioning, lane 1 named after the chip or link, further lanes "#2", "#3". Events stream out plan by plan.
#include "sim/report/chrome_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/report/model_run_report.hpp"
#include "sim/report/trace_events.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;

enum class EventKind : std::uint8_t { compute, send, link };

// An event the trace may write, before the budget picks which.
struct EventCandidate {
  double start_s;
  double end_s;
  std::int64_t track;  // chip id, or num_chips + link id
  TaskId task;
  EventKind kind;
};

struct PlanTrace {
  std::size_t total = 0;
  std::size_t written = 0;
};

PlanTrace write_plan(const ScenarioRun& run, std::size_t plan_index, std::size_t budget, TraceWriter& writer) {
  const PlanRun& plan = run.plans[plan_index];
  const int pid = static_cast<int>(plan_index) + 1;
  writer.event(trace_metadata("process_name", pid, -1, {{"name", "plan " + plan.name}}));
  writer.event(trace_metadata("process_sort_index", pid, -1, {{"sort_index", plan_index}}));
  PlanTrace counts;
  if (!plan.graph || !plan.simulation) {
    writer.event(trace_metadata("thread_name", pid, 0, {{"name", "notes"}}));
    writer.event({{"name", "no event graph was simulated for this plan"},
                  {"ph", "i"},
                  {"s", "p"},
                  {"pid", pid},
                  {"tid", 0},
                  {"ts", 0}});
    return counts;
  }
  const EventGraph& graph = *plan.graph;
  const SimulationResult& sim = *plan.simulation;
  const std::int64_t num_chips = graph.num_chips;

  std::vector<EventCandidate> events;
  const std::size_t tasks = std::min(graph.tasks.size(), sim.tasks.size());
  for (std::size_t id = 0; id < tasks; ++id) {
    const Task& task = graph.tasks[id];
    const TaskTiming& timing = sim.tasks[id];
    const auto task_id = static_cast<TaskId>(id);
    if (task.kind == TaskKind::compute) {
      events.push_back({timing.start_s, timing.end_s, task.src_chip, task_id, EventKind::compute});
      continue;
    }
    events.push_back({timing.start_s, timing.end_s, task.src_chip, task_id, EventKind::send});
    // The links the engine sent it along, busy from its bandwidth phase on (as in the engine's link ledger).
    const double begin_s = sim.bandwidth_start_s(task_id);
    sim.for_each_part(task_id, task.bytes, [&](std::span<const LinkId> route, std::uint64_t) {
      for (const LinkId link : route)
        events.push_back({begin_s, timing.end_s, num_chips + link, task_id, EventKind::link});
    });
  }
  counts.total = events.size();

  const auto earlier = [](const EventCandidate& a, const EventCandidate& b) {
    if (a.start_s != b.start_s) return a.start_s < b.start_s;
    if (a.track != b.track) return a.track < b.track;
    return a.task < b.task;
  };
  double dropped_from_s = std::numeric_limits<double>::infinity();
  if (events.size() > budget) {
    std::nth_element(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(budget), events.end(), earlier);
    for (std::size_t i = budget; i < events.size(); ++i)
      dropped_from_s = std::min(dropped_from_s, events[i].start_s);
    events.resize(budget);
  }
  counts.written = events.size();
  std::sort(events.begin(), events.end(), [&](const EventCandidate& a, const EventCandidate& b) {
    return a.track != b.track ? a.track < b.track : earlier(a, b);
  });

  std::unordered_map<std::int32_t, std::string> op_names;
  for (const OpRun& op : plan.ops)
    op_names.emplace(op.op_id, op.name);
  const auto op_name = [&](std::int32_t op) {
    const auto found = op_names.find(op);
    return found != op_names.end() ? found->second : "op " + std::to_string(op);
  };
  // Chips by id, or `slice S chip C` when the graph spans several slices (docs/overlap-pipeline-dcn.md: chip
  // S * M + C is chip C of slice S); links by the plan's link names (every slice's ICI links and the DCN NICs).
  const std::int64_t slice_chips = run.slice ? run.slice->num_chips() : num_chips;
  const auto track_name = [&](std::int64_t track) {
    if (track < num_chips) return chip_track_name(track, slice_chips, num_chips);
    const auto link = static_cast<std::size_t>(track - num_chips);
    if (link < plan.links.size() && !plan.links[link].name.empty()) return plan.links[link].name;
    if (run.slice && static_cast<LinkId>(link) < run.slice->num_links())
      return run.slice->link(static_cast<LinkId>(link)).name;
    return "link " + std::to_string(link);
  };

  // Lanes of the current track: the end of the last event on each, and the tid each was given.
  std::int64_t next_tid = 1, first_tid = -1;
  std::int64_t current = -1;
  std::vector<double> lane_end;
  std::vector<std::int64_t> lane_tid;
  for (const EventCandidate& c : events) {
    if (c.track != current) {
      current = c.track;
      lane_end.clear();
      lane_tid.clear();
    }
    std::size_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] > c.start_s)
      ++lane;
    if (lane == lane_end.size()) {
      const std::int64_t tid = next_tid++;
      if (first_tid < 0) first_tid = tid;
      lane_end.push_back(c.end_s);
      lane_tid.push_back(tid);
      const std::string name = track_name(c.track) + (lane == 0 ? "" : fmt::format(" #{}", lane + 1));
      writer.event(trace_metadata("thread_name", pid, tid, {{"name", name}}));
      writer.event(trace_metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
    }
    lane_end[lane] = std::max(lane_end[lane], c.end_s);
    const Task& task = graph.tasks[static_cast<std::size_t>(c.task)];
    json args = {{"op", op_name(task.op)}, {"step", task.step}, {"task", c.task}};
    std::string name = op_name(task.op);
    const char* category = "compute";
    if (c.kind == EventKind::compute) {
      args["flops"] = task.flops;
    } else {
      args["bytes"] = task.bytes;
      args["src"] = task.src_chip;
      args["dst"] = task.dst_chip;
      category = c.kind == EventKind::send ? "send" : "link";
      if (c.kind == EventKind::send) name += " send";
    }
    writer.event({{"name", name},
                  {"cat", category},
                  {"ph", "X"},
                  {"pid", pid},
                  {"tid", lane_tid[lane]},
                  {"ts", c.start_s * kTraceMicro},
                  {"dur", std::max(0.0, c.end_s - c.start_s) * kTraceMicro},
                  {"args", std::move(args)}});
  }
  if (counts.written < counts.total) {
    if (first_tid < 0) {
      first_tid = 0;
      writer.event(trace_metadata("thread_name", pid, 0, {{"name", "notes"}}));
    }
    writer.event(
        {{"name", fmt::format("trace truncated: kept the first {} of {} events", counts.written, counts.total)},
         {"ph", "i"},
         {"s", "p"},
         {"pid", pid},
         {"tid", first_tid},
         {"ts", dropped_from_s * kTraceMicro},
         {"args", {{"events_kept", counts.written}, {"events_total", counts.total}}}});
  }
  return counts;
}

// One counter track per chip, `memory chip N` with args {"bytes": in use}, a point each time the usage changes and
// one at the plan's end. The peak chip comes first, so its counter is written whatever the budget; the others
// follow while fewer than `budget` counter events have been written (0: no limit). Returns the events written.
std::size_t write_memory_counters(const PlanRun& plan, int pid, std::size_t budget, TraceWriter& writer) {
  if (!plan.memory_timeline) return 0;
  const auto& chips = plan.memory_timeline->chips;
  std::vector<std::size_t> order;
  if (static_cast<std::size_t>(plan.peak_chip) < chips.size())
    order.push_back(static_cast<std::size_t>(plan.peak_chip));
  for (std::size_t chip = 0; chip < chips.size(); ++chip)
    if (chip != static_cast<std::size_t>(plan.peak_chip)) order.push_back(chip);
  std::size_t written = 0;
  for (const std::size_t chip : order) {
    const auto& points = chips[chip].points;
    if (budget != 0 && written > 0 && written + points.size() + 1 > budget) break;
    const std::string name = "memory chip " + std::to_string(chip);
    auto counter = [&](double time_s, std::uint64_t bytes) {
      writer.event(
          {{"name", name}, {"ph", "C"}, {"pid", pid}, {"ts", time_s * kTraceMicro}, {"args", {{"bytes", bytes}}}});
      ++written;
    };
    for (const MemoryPoint& point : points)
      counter(point.time_s, point.bytes);
    if (!points.empty() && plan.des_time_s > points.back().time_s) counter(plan.des_time_s, points.back().bytes);
  }
  return written;
}

}  // namespace

void write_chrome_trace(const ScenarioRun& run, std::ostream& out, const TraceOptions& options) {
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  TraceWriter writer(out);
  std::size_t remaining = options.max_events == 0 ? std::numeric_limits<std::size_t>::max() : options.max_events;
  std::size_t total = 0, written = 0;
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    // Each plan gets an equal share of what is left, so a big first plan cannot crowd out the others.
    const std::size_t budget = options.max_events == 0 ? remaining : remaining / (run.plans.size() - i);
    const PlanTrace counts = write_plan(run, i, budget, writer);
    write_memory_counters(run.plans[i], static_cast<int>(i) + 1, options.max_events, writer);
    total += counts.total;
    written += counts.written;
    if (options.max_events != 0) remaining -= counts.written;
  }
  const json other = {{"schema", "podsim/1"},
                      {"scenario", run.name},
                      {"events_total", total},
                      {"events_written", written},
                      {"truncated", written < total}};
  out << "\n], \"otherData\": " << other.dump(-1, ' ', false, json::error_handler_t::replace) << "}\n";
}

void write_run_trace(const ScenarioRun& run, std::ostream& out) {
  if (run.level == RunLevel::model) return write_model_run_trace(run, out);
  write_chrome_trace(run, out);
}

std::string run_trace_problem(const ScenarioRun& run) {
  return run.level == RunLevel::model ? model_run_trace_problem(run) : "";
}

}  // namespace podsim::report
