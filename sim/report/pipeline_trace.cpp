// The pipeline schedule's Chrome trace. A chip's tasks run one after another (each depends on the chip's previous
// one), so its slices never overlap; a stage's sends in one direction can, so each direction gets as many tracks as
// it has overlapping sends (greedy, like chrome_trace.cpp's lanes). Times are the engine's published task times.
#include "sim/report/pipeline_trace.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "sim/report/trace_events.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;
using Kind = PipelineTask::Kind;

const char* pass_name(Kind kind) {
  return kind == Kind::forward ? "fwd" : "bwd";
}

// `chips 0..15` when the ids run on by one, `chip 5`, `chips 1, 5, 9, 13`, or `16 chips: 1, 5, ..., 61`.
std::string chips_text(const std::vector<ChipId>& chips) {
  if (chips.size() == 1) return fmt::format("chip {}", chips.front());
  bool contiguous = true;
  for (std::size_t r = 1; r < chips.size(); ++r)
    contiguous = contiguous && chips[r] == chips[r - 1] + 1;
  if (contiguous) return fmt::format("chips {}..{}", chips.front(), chips.back());
  if (chips.size() <= 4) return fmt::format("chips {}", fmt::join(chips, ", "));
  return fmt::format("{} chips: {}, {}, ..., {}", chips.size(), chips[0], chips[1], chips.back());
}

// Stage s's layers, `8..15` (0-based, inclusive), with the edges the end stages add.
std::string layers_text(std::int64_t stage, std::int64_t stages, std::int64_t layers) {
  const std::int64_t per = stages > 0 ? layers / stages : 0;
  std::string text = fmt::format("{}..{}", stage * per, (stage + 1) * per - 1);
  if (stage == 0) text += " + embedding";
  if (stage == stages - 1) text += " + unembedding, loss";
  return text;
}

struct Slice {
  double start_s;
  double end_s;
  TaskId task;
};

bool by_start(const Slice& a, const Slice& b) {
  return a.start_s != b.start_s ? a.start_s < b.start_s : a.task < b.task;
}

// Per stage and shown place, the chip's computes; per stage and direction (0: to s + 1, 1: to s - 1), the sends of
// its first chip; per send, the compute that consumes it (the flow arrow's end).
struct PipelineSlices {
  std::vector<std::vector<std::vector<Slice>>> computes;
  std::vector<std::vector<std::vector<Slice>>> sends;
  std::vector<TaskId> consumer;
};

PipelineSlices pipeline_slices(const PipelineTimeline& timeline, std::size_t shown) {
  const EventGraph& graph = timeline.graph;
  const SimulationResult& sim = timeline.simulation;
  const std::size_t stages = timeline.spec.chips.size();
  PipelineSlices out{std::vector<std::vector<std::vector<Slice>>>(stages, std::vector<std::vector<Slice>>(shown)),
                     std::vector<std::vector<std::vector<Slice>>>(stages, std::vector<std::vector<Slice>>(2)),
                     std::vector<TaskId>(graph.tasks.size(), -1)};
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    const PipelineGraphTask& role = timeline.roles[id];
    const auto place = static_cast<std::size_t>(role.place);
    const Slice slice{sim.tasks[id].start_s, sim.tasks[id].end_s, static_cast<TaskId>(id)};
    if (task.kind == TaskKind::compute) {
      for (const TaskId dep : task.deps)
        if (graph.tasks[static_cast<std::size_t>(dep)].kind != TaskKind::compute)
          out.consumer[static_cast<std::size_t>(dep)] = static_cast<TaskId>(id);
      if (place < shown) out.computes[static_cast<std::size_t>(role.stage)][place].push_back(slice);
    } else if (place == 0) {
      out.sends[static_cast<std::size_t>(role.stage)][role.to_stage > role.stage ? 0 : 1].push_back(slice);
    }
  }
  return out;
}

// The trace's events, step by step: each stage's process (its chip tracks, its tail, its send lanes), then the flow
// arrows. Counts the slices it writes.
class PipelineTraceEvents {
 public:
  PipelineTraceEvents(const PipelineTimeline& timeline, std::size_t shown, TraceWriter& writer)
      : timeline_(timeline),
        graph_(timeline.graph),
        sim_(timeline.simulation),
        stages_(static_cast<std::int64_t>(timeline.spec.chips.size())),
        width_(timeline.spec.chips.front().size()),
        shown_(shown),
        writer_(writer) {}

  // Stage `s`'s process: its metadata, its chips' computes, its tail and its first chip's sends. Returns its figures.
  json stage(std::int64_t s, PipelineSlices& slices) {
    const auto si = static_cast<std::size_t>(s);
    const int pid = static_cast<int>(s) + 1;
    const auto& chips = timeline_.spec.chips;
    std::string name = fmt::format("stage {} ({})", s, chips_text(chips[si]));
    if (shown_ < width_) name += fmt::format(", tracks for {} of {}", shown_, width_);
    writer_.event(trace_metadata("process_name", pid, -1, {{"name", name}}));
    writer_.event(trace_metadata("process_sort_index", pid, -1, {{"sort_index", s}}));
    writer_.event(trace_metadata("process_labels", pid, -1,
                                 {{"labels", fmt::format("layers {}", layers_text(s, stages_, timeline_.layers))}}));
    for (std::size_t r = 0; r < shown_; ++r) {
      const auto tid = static_cast<std::int64_t>(r) + 1;
      writer_.event(trace_metadata("thread_name", pid, tid, {{"name", track_name(chips[si][r])}}));
      writer_.event(trace_metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
      auto& computes = slices.computes[si][r];
      std::sort(computes.begin(), computes.end(), by_start);
      for (const Slice& slice : computes)
        complete(pid, tid, slice,
                 timeline_.roles[static_cast<std::size_t>(slice.task)].pass == Kind::forward ? "forward" : "backward");
    }
    // Busy and idle within the schedule's span, from the first chip's slices.
    double busy_s = 0;
    for (const Slice& slice : slices.computes[si].front())
      busy_s += slice.end_s - slice.start_s;
    const double tail_s = si < timeline_.tail_s.size() ? timeline_.tail_s[si] : 0.0;
    if (tail_s > 0) tail(s, pid, tail_s);
    send_lanes(s, pid, slices.sends[si]);
    return {{"stage", s},
            {"chips", chips[si].size()},
            {"chips_shown", shown_},
            {"layers", layers_text(s, stages_, timeline_.layers)},
            {"forward_s", timeline_.spec.forward_s[si]},
            {"backward_s", timeline_.spec.backward_s[si]},
            {"busy_s", busy_s},
            {"idle_s", std::max(0.0, sim_.makespan_s - busy_s)},
            {"tail_s", tail_s}};
  }

  // Flow arrows, for every send between shown chips: from the compute that produced it to the one it feeds.
  void flows(const std::vector<TaskId>& consumer) {
    for (std::size_t id = 0; id < graph_.tasks.size(); ++id) {
      const Task& task = graph_.tasks[id];
      const PipelineGraphTask& role = timeline_.roles[id];
      if (task.kind == TaskKind::compute || static_cast<std::size_t>(role.place) >= shown_ || task.deps.empty() ||
          consumer[id] < 0)
        continue;
      const auto middle = [&](TaskId t) {
        const TaskTiming& timing = sim_.tasks[static_cast<std::size_t>(t)];
        return (timing.start_s + timing.end_s) / 2 * kTraceMicro;
      };
      const auto tid = static_cast<std::int64_t>(role.place) + 1;
      const std::string name = slice_name(static_cast<TaskId>(id));
      writer_.event({{"name", name},
                     {"cat", "send"},
                     {"ph", "s"},
                     {"id", id},
                     {"pid", role.stage + 1},
                     {"tid", tid},
                     {"ts", middle(task.deps[0])}});
      writer_.event({{"name", name},
                     {"cat", "send"},
                     {"ph", "f"},
                     {"bp", "e"},
                     {"id", id},
                     {"pid", role.to_stage + 1},
                     {"tid", tid},
                     {"ts", middle(consumer[id])}});
    }
  }

  std::size_t written() const { return written_; }

 private:
  std::string track_name(ChipId chip) const { return chip_track_name(chip, timeline_.slice_chips, graph_.num_chips); }

  json args_of(TaskId id) const {
    const Task& task = graph_.tasks[static_cast<std::size_t>(id)];
    const PipelineGraphTask& role = timeline_.roles[static_cast<std::size_t>(id)];
    const TaskTiming& timing = sim_.tasks[static_cast<std::size_t>(id)];
    json args = {{"stage", role.stage},
                 {"microbatch", role.microbatch},
                 {"pass", pass_name(role.pass)},
                 {"layers", layers_text(role.stage, stages_, timeline_.layers)},
                 {"seconds", std::max(0.0, timing.end_s - timing.start_s)},
                 {"chip", task.src_chip},
                 {"task", id}};
    if (task.kind != TaskKind::compute) {
      args["to_stage"] = role.to_stage;
      args["dst"] = task.dst_chip;
      args["bytes"] = task.bytes;
    }
    return args;
  }

  std::string slice_name(TaskId id) const {
    const PipelineGraphTask& role = timeline_.roles[static_cast<std::size_t>(id)];
    std::string name = fmt::format("mb {} {}", role.microbatch, pass_name(role.pass));
    if (role.to_stage >= 0) name += fmt::format(" \u2192 stage {}", role.to_stage);
    return name;
  }

  void complete(int pid, std::int64_t tid, const Slice& slice, const char* category) {
    writer_.event({{"name", slice_name(slice.task)},
                   {"cat", category},
                   {"ph", "X"},
                   {"pid", pid},
                   {"tid", tid},
                   {"ts", slice.start_s * kTraceMicro},
                   {"dur", std::max(0.0, slice.end_s - slice.start_s) * kTraceMicro},
                   {"args", args_of(slice.task)}});
    ++written_;
  }

  // The stage's work after the last backward: the layer program's gradient all-reduces and optimizer ops, after
  // the schedule's span, as the step time counts it (span + the longest tail).
  void tail(std::int64_t s, int pid, double tail_s) {
    writer_.event({{"name", "tail: gradient sync, optimizer"},
                   {"cat", "tail"},
                   {"ph", "X"},
                   {"pid", pid},
                   {"tid", 1},
                   {"ts", sim_.makespan_s * kTraceMicro},
                   {"dur", tail_s * kTraceMicro},
                   {"args",
                    {{"stage", s},
                     {"layers", layers_text(s, stages_, timeline_.layers)},
                     {"seconds", tail_s},
                     {"note", "after the span: the step is the span plus the longest tail"}}}});
    ++written_;
  }

  // The first chip's sends, one track per direction and as many lanes as overlapping sends need.
  void send_lanes(std::int64_t s, int pid, std::vector<std::vector<Slice>>& sends) {
    const auto& chips = timeline_.spec.chips;
    auto next_tid = static_cast<std::int64_t>(shown_) + 1;
    for (int direction = 0; direction < 2; ++direction) {
      auto& slices = sends[static_cast<std::size_t>(direction)];
      if (slices.empty()) continue;
      std::sort(slices.begin(), slices.end(), by_start);
      const std::int64_t to = direction == 0 ? s + 1 : s - 1;
      const std::string track =
          fmt::format("stage {} \u2192 {} ({} \u2192 {})", s, to, track_name(chips[static_cast<std::size_t>(s)][0]),
                      track_name(chips[static_cast<std::size_t>(to)][0]));
      std::vector<double> lane_end;
      std::vector<std::int64_t> lane_tid;
      for (const Slice& slice : slices) {
        std::size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane] > slice.start_s)
          ++lane;
        if (lane == lane_end.size()) {
          lane_end.push_back(slice.end_s);
          lane_tid.push_back(next_tid);
          writer_.event(trace_metadata("thread_name", pid, next_tid,
                                       {{"name", track + (lane == 0 ? "" : fmt::format(" #{}", lane + 1))}}));
          writer_.event(trace_metadata("thread_sort_index", pid, next_tid, {{"sort_index", next_tid}}));
          ++next_tid;
        }
        lane_end[lane] = std::max(lane_end[lane], slice.end_s);
        complete(pid, lane_tid[lane], slice, "send");
      }
    }
  }

  const PipelineTimeline& timeline_;
  const EventGraph& graph_;
  const SimulationResult& sim_;
  std::int64_t stages_;
  std::size_t width_;  // chips per stage
  std::size_t shown_;  // chip tracks per stage
  TraceWriter& writer_;
  std::size_t written_ = 0;  // slices ("X" events) written
};

}  // namespace

void write_pipeline_trace(const PipelineTimeline& timeline, const CandidateTraceInfo& info, std::ostream& out,
                          const PipelineTraceOptions& options) {
  const EventGraph& graph = timeline.graph;
  const SimulationResult& sim = timeline.simulation;
  const auto& chips = timeline.spec.chips;
  if (timeline.roles.size() != graph.tasks.size() || sim.tasks.size() < graph.tasks.size() || chips.empty())
    throw InternalError(fmt::format("pipeline trace: {} roles and {} timings for {} tasks over {} stages",
                                    timeline.roles.size(), sim.tasks.size(), graph.tasks.size(), chips.size()));
  const auto stages = static_cast<std::int64_t>(chips.size());
  const std::size_t width = chips.front().size();
  const std::size_t shown = options.max_chips_per_stage == 0 ? width : std::min(width, options.max_chips_per_stage);
  PipelineSlices slices = pipeline_slices(timeline, shown);

  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  TraceWriter writer(out);
  PipelineTraceEvents events(timeline, shown, writer);
  json stage_figures = json::array();
  for (std::int64_t s = 0; s < stages; ++s)
    stage_figures.push_back(events.stage(s, slices));
  events.flows(slices.consumer);
  const json other = {{"schema", "podsim/1"},
                      {"scenario", info.scenario},
                      {"candidate", info.rank},
                      {"label", info.candidate},
                      {"schedule", kPipelineScheduleNames.name(timeline.spec.schedule)},
                      {"stages", stages},
                      {"microbatches", timeline.spec.microbatches},
                      {"span_s", sim.makespan_s},
                      {"step_s", info.step_s},
                      {"stage_figures", std::move(stage_figures)},
                      {"events_written", events.written()}};
  out << "\n], \"otherData\": " << other.dump(-1, ' ', false, json::error_handler_t::replace) << "}\n";
}

}  // namespace podsim::report
