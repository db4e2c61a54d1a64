// The pipeline schedule's Chrome trace (docs/overlap-pipeline-dcn.md, "In the trace"), parsed back as JSON: on a
// compute-only schedule of p = 4 stages and m = 8 microbatches (F = 1 ms, B = 2 ms, sends of no bytes over links
// without latency), each chip's slices come in the order the schedule defines (GPipe: every forward, then every
// backward; 1F1B: p - 1 - s forwards of warm-up, then a forward and a backward in turn, then the last backwards),
// and each stage is idle for the bubble, (p - 1)(F + B) = 9 ms of the (m + p - 1)(F + B) = 33 ms span: 3/11.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/pipeline_graph.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "sim/report/pipeline_trace.hpp"

namespace podsim {
namespace {

using nlohmann::json;

constexpr std::int64_t kStages = 4;
constexpr std::int64_t kMicrobatches = 8;
constexpr double kForward = 1e-3;
constexpr double kBackward = 2e-3;

// The schedule on a 4x2 slice (stage s: chips 2s and 2s + 1), simulated, with what each task is, 8 layers.
PipelineTimeline simulated(PipelineSchedule schedule) {
  Mesh mesh;
  mesh.axes = {MeshAxis{"X", kStages}, MeshAxis{"Y", 2}};
  const Slice slice({kStages, 2}, {false, false});
  const MeshMapping mapping(mesh, slice);
  PipelineTimeline t;
  t.spec.chips = stage_chips(mesh, mapping, {"X"});
  t.spec.forward_s = std::vector<double>(kStages, kForward);
  t.spec.backward_s = std::vector<double>(kStages, kBackward);
  t.spec.send_bytes = 0;
  t.spec.schedule = schedule;
  t.spec.microbatches = kMicrobatches;
  t.spec.chip_flops = 1e12;
  t.spec.num_chips = static_cast<std::int32_t>(slice.num_chips());
  t.graph = pipeline_graph(t.spec, &t.roles);
  const IciModel ici{4, 1e9, 1e9, 1e9, 0.0};
  t.simulation = simulate(slice_network(slice, ici, t.spec.chip_flops), t.graph);
  t.layers = 8;
  t.slice_chips = slice.num_chips();
  return t;
}

json trace_of(const PipelineTimeline& timeline, std::size_t max_chips = 8) {
  std::ostringstream out;
  report::write_pipeline_trace(timeline, {"toy", 1, "4x2 pipeline=X data=Y", 0.033}, out, {max_chips});
  return json::parse(out.str());
}

// The order of the brief, written out: stage s's slice names.
std::vector<std::string> expected_order(PipelineSchedule schedule, std::int64_t s) {
  std::vector<std::string> names;
  const auto fwd = [&](std::int64_t i) { names.push_back("mb " + std::to_string(i) + " fwd"); };
  const auto bwd = [&](std::int64_t i) { names.push_back("mb " + std::to_string(i) + " bwd"); };
  if (schedule == PipelineSchedule::gpipe) {
    for (std::int64_t i = 0; i < kMicrobatches; ++i)
      fwd(i);
    for (std::int64_t i = 0; i < kMicrobatches; ++i)
      bwd(i);
    return names;
  }
  const std::int64_t warmup = kStages - 1 - s;
  for (std::int64_t i = 0; i < warmup; ++i)
    fwd(i);
  for (std::int64_t i = 0; i + warmup < kMicrobatches; ++i) {
    fwd(i + warmup);
    bwd(i);
  }
  for (std::int64_t i = kMicrobatches - warmup; i < kMicrobatches; ++i)
    bwd(i);
  return names;
}

// (pid, tid) -> the thread's name; pid -> the process's name.
struct Names {
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
};

Names names_of(const json& trace) {
  Names names;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "process_name")
      names.process[e.at("pid").get<int>()] = e.at("args").at("name");
    else if (e.at("ph") == "M" && e.at("name") == "thread_name")
      names.thread[{e.at("pid").get<int>(), e.at("tid").get<int>()}] = e.at("args").at("name");
  return names;
}

TEST(PipelineTrace, IsWellFormedTraceEventJson) {
  const json trace = trace_of(simulated(PipelineSchedule::one_f_one_b));
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
  EXPECT_EQ(trace.at("otherData").at("schema"), "podsim/1");
  EXPECT_EQ(trace.at("otherData").at("schedule"), "1f1b");
  ASSERT_TRUE(trace.at("traceEvents").is_array());
  std::set<std::int64_t> starts, finishes;
  for (const json& e : trace.at("traceEvents")) {
    for (const char* key : {"name", "ph", "pid"})
      ASSERT_TRUE(e.contains(key)) << e.dump();
    const std::string ph = e.at("ph");
    ASSERT_TRUE(ph == "M" || ph == "X" || ph == "s" || ph == "f") << ph;
    if (ph == "M") continue;
    for (const char* key : {"tid", "ts", "cat"})
      ASSERT_TRUE(e.contains(key)) << e.dump();
    EXPECT_GE(e.at("ts").get<double>(), 0);
    if (ph == "X") {
      EXPECT_GE(e.at("dur").get<double>(), 0);
      for (const char* key : {"stage", "microbatch", "pass", "layers", "seconds"})
        EXPECT_TRUE(e.at("args").contains(key)) << key << " in " << e.dump();
      EXPECT_NEAR(e.at("args").at("seconds").get<double>() * 1e6, e.at("dur").get<double>(), 1e-6);
    } else {
      (ph == "s" ? starts : finishes).insert(e.at("id").get<std::int64_t>());
    }
  }
  // Every flow arrow has both ends: 2 chips x (3 boundaries x 2 directions) x 8 microbatches.
  EXPECT_EQ(starts, finishes);
  EXPECT_EQ(starts.size(), 2u * 6u * 8u);
}

TEST(PipelineTrace, ProcessesAreStagesAndThreadsTheirChips) {
  const json trace = trace_of(simulated(PipelineSchedule::gpipe));
  const Names names = names_of(trace);
  ASSERT_EQ(names.process.size(), 4u);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(names.process.at(s + 1), "stage " + std::to_string(s) + " (chips " + std::to_string(2 * s) + ".." +
                                           std::to_string(2 * s + 1) + ")");
    EXPECT_EQ(names.thread.at({s + 1, 1}), "chip " + std::to_string(2 * s));
    EXPECT_EQ(names.thread.at({s + 1, 2}), "chip " + std::to_string(2 * s + 1));
  }
  // The sends of each stage's first chip, one track per direction; the end stages send one way only.
  EXPECT_EQ(names.thread.at({1, 3}), "stage 0 \u2192 1 (chip 0 \u2192 chip 2)");
  EXPECT_EQ(names.thread.at({2, 3}), "stage 1 \u2192 2 (chip 2 \u2192 chip 4)");
  EXPECT_EQ(names.thread.at({2, 4}), "stage 1 \u2192 0 (chip 2 \u2192 chip 0)");
  EXPECT_EQ(names.thread.at({4, 3}), "stage 3 \u2192 2 (chip 6 \u2192 chip 4)");
  EXPECT_EQ(names.thread.count({4, 4}), 0u);
  // Layers 0..1 on stage 0 (8 layers over 4 stages), with the embedding.
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == "X" && e.at("pid") == 1) EXPECT_EQ(e.at("args").at("layers"), "0..1 + embedding");
  // One representative chip per stage: the process says so.
  const Names one = names_of(trace_of(simulated(PipelineSchedule::gpipe), 1));
  EXPECT_EQ(one.process.at(1), "stage 0 (chips 0..1), tracks for 1 of 2");
  EXPECT_EQ(one.thread.count({1, 2}), 1u);  // the sends' track comes right after the one chip's
  EXPECT_EQ(one.thread.at({1, 2}), "stage 0 \u2192 1 (chip 0 \u2192 chip 2)");
}

struct Stage {
  std::vector<std::pair<double, std::string>> slices;  // (ts, name) on the chip track
  double busy_us = 0;
  double end_us = 0;
};

// Per chip track (pid, tid 1 and 2): the forward and backward slices by start.
std::map<std::pair<int, int>, Stage> chip_tracks(const json& trace) {
  std::map<std::pair<int, int>, Stage> tracks;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") == "send") continue;
    Stage& t = tracks[{e.at("pid").get<int>(), e.at("tid").get<int>()}];
    const double ts = e.at("ts"), dur = e.at("dur");
    t.slices.emplace_back(ts, e.at("name"));
    t.busy_us += dur;
    t.end_us = std::max(t.end_us, ts + dur);
  }
  for (auto& [key, t] : tracks)
    std::sort(t.slices.begin(), t.slices.end());
  return tracks;
}

TEST(PipelineTrace, SlicesFollowTheScheduleAndTheGapsAreTheBubble) {
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    SCOPED_TRACE(schedule == PipelineSchedule::gpipe ? "gpipe" : "1f1b");
    const json trace = trace_of(simulated(schedule));
    const auto tracks = chip_tracks(trace);
    ASSERT_EQ(tracks.size(), 8u);  // 4 stages x 2 chips
    double span_us = 0;
    for (const auto& [key, t] : tracks)
      span_us = std::max(span_us, t.end_us);
    // (m + p - 1)(F + B) = 11 x 3 ms.
    EXPECT_NEAR(span_us, 33e3, 1e-6);
    for (const auto& [key, t] : tracks) {
      const std::int64_t s = key.first - 1;
      std::vector<std::string> order;
      for (const auto& slice : t.slices)
        order.push_back(slice.second);
      EXPECT_EQ(order, expected_order(schedule, s)) << "stage " << s << " chip track " << key.second;
      // Busy m (F + B) = 24 ms; idle (p - 1)(F + B) = 9 ms, the bubble fraction (p - 1) / (m + p - 1) = 3/11.
      EXPECT_NEAR(t.busy_us, 24e3, 1e-6);
      EXPECT_NEAR((span_us - t.busy_us) / span_us, 3.0 / 11.0, 1e-9);
    }
    for (const json& stage : trace.at("otherData").at("stage_figures"))
      EXPECT_NEAR(stage.at("idle_s").get<double>(), 9e-3, 1e-12);
  }
}

TEST(PipelineTrace, SendsGoToTheNeighbourInThePassDirection) {
  const json trace = trace_of(simulated(PipelineSchedule::one_f_one_b));
  std::size_t sends = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "send") continue;
    ++sends;
    const json& a = e.at("args");
    const int stage = a.at("stage"), to = a.at("to_stage");
    EXPECT_EQ(to, a.at("pass") == "fwd" ? stage + 1 : stage - 1) << e.dump();
    EXPECT_EQ(e.at("name"), "mb " + std::to_string(a.at("microbatch").get<int>()) + " " +
                                a.at("pass").get<std::string>() + " \u2192 stage " + std::to_string(to));
    EXPECT_EQ(a.at("chip"), 2 * stage);  // the stage's first chip
    EXPECT_EQ(a.at("dst"), 2 * to);
  }
  EXPECT_EQ(sends, 6u * 8u);  // 3 boundaries x 2 directions x 8 microbatches, from the first chips
}

TEST(PipelineTrace, ATimelineWithoutRolesIsRefused) {
  PipelineTimeline t = simulated(PipelineSchedule::gpipe);
  t.roles.pop_back();
  std::ostringstream out;
  EXPECT_THROW(report::write_pipeline_trace(t, {}, out), InternalError);
}

}  // namespace
}  // namespace podsim
