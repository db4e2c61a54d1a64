// The Chrome trace of the hand-built scenario (sample_run.hpp): tracks named once each, events on the right chip and
// link tracks at the hand-made times in microseconds, link phases on the published routes after their latency, and
// the event cap.
#include "sim/report/chrome_trace.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tests/report/sample_run.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;
using test::kMiB;
using test::sample_run;

json trace_of(const ScenarioRun& run, const TraceOptions& options) {
  std::ostringstream out;
  write_chrome_trace(run, out, options);
  return json::parse(out.str());  // throws (failing the test) when the file is not valid JSON
}

struct Tracks {
  std::map<std::pair<int, std::int64_t>, std::string> names;  // (pid, tid) -> thread name
  std::map<int, std::string> processes;
  std::map<std::pair<int, std::string>, std::int64_t> tid_of;  // (pid, thread name) -> tid
};

Tracks tracks_of(const json& trace) {
  Tracks tracks;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "M") continue;
    const int pid = e.at("pid");
    if (e.at("name") == "process_name") {
      EXPECT_TRUE(tracks.processes.emplace(pid, e.at("args").at("name")).second) << "process named twice: " << pid;
    } else if (e.at("name") == "thread_name") {
      const std::pair<int, std::int64_t> key{pid, e.at("tid").get<std::int64_t>()};
      EXPECT_TRUE(tracks.names.emplace(key, e.at("args").at("name")).second) << "thread named twice: " << e;
      tracks.tid_of[{pid, e.at("args").at("name")}] = key.second;
    }
  }
  return tracks;
}

std::vector<json> complete_events(const json& trace, int pid, std::int64_t tid) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == "X" && e.at("pid") == pid && e.at("tid") == tid) out.push_back(e);
  return out;
}

// sample_run() with the fsdp plan's published routes replaced: route r crosses routes[r].first with latency
// routes[r].second; task_route as in SimulationResult.
ScenarioRun with_routes(const std::vector<std::pair<std::vector<LinkId>, double>>& routes,
                        std::vector<std::int32_t> task_route) {
  ScenarioRun run = sample_run();
  auto sim = std::make_shared<SimulationResult>(*run.plans[0].simulation);
  sim->routes = RouteList();
  for (const auto& [links, latency_s] : routes)
    sim->routes.add(links, latency_s);
  sim->task_route = std::move(task_route);
  run.plans[0].simulation = sim;
  return run;
}

TEST(ChromeTrace, OneMetadataEventPerTrack) {
  const json trace = trace_of(sample_run(), {});
  const Tracks tracks = tracks_of(trace);
  EXPECT_EQ(tracks.processes.at(1), "plan fsdp");
  EXPECT_EQ(tracks.processes.at(2), "plan tp<x>");
  // fsdp: chips 0 (two lanes: t2 and t3 overlap), 1, 2; links ici.x+.0 (two lanes: [3,5] and [4,6]) and ici.x+.1.
  // tp<x>: chip 3.
  const std::set<std::pair<int, std::string>> expected = {{1, "chip 0"},   {1, "chip 0 #2"}, {1, "chip 1"},
                                                          {1, "chip 2"},   {1, "ici.x+.0"},  {1, "ici.x+.0 #2"},
                                                          {1, "ici.x+.1"}, {2, "chip 3"}};
  std::set<std::pair<int, std::string>> named;
  for (const auto& [key, name] : tracks.names)
    named.insert({key.first, name});
  EXPECT_EQ(named, expected);
  // Every complete event sits on a named track.
  std::size_t complete = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    ++complete;
    EXPECT_TRUE(tracks.names.contains({e.at("pid").get<int>(), e.at("tid").get<std::int64_t>()})) << e;
  }
  EXPECT_EQ(complete, 9u);  // 5 tasks + 3 link phases in fsdp, 1 task in tp<x>
  EXPECT_EQ(trace.at("otherData").at("events_total"), 9);
  EXPECT_EQ(trace.at("otherData").at("truncated"), false);
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
}

TEST(ChromeTrace, ChipEventsInMicroseconds) {
  const json trace = trace_of(sample_run(), {});
  const Tracks tracks = tracks_of(trace);
  const auto chip0 = complete_events(trace, 1, tracks.tid_of.at({1, "chip 0"}));
  ASSERT_EQ(chip0.size(), 2u);  // t0 [0, 2] then t2 [2, 5] fit one after the other
  EXPECT_EQ(chip0[0].at("name"), "h");
  EXPECT_EQ(chip0[0].at("cat"), "compute");
  EXPECT_NEAR(chip0[0].at("ts").get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(chip0[0].at("dur").get<double>(), 2.0, 1e-9);
  EXPECT_EQ(chip0[0].at("args").at("op"), "h");
  EXPECT_DOUBLE_EQ(chip0[0].at("args").at("flops").get<double>(), 2e9);
  EXPECT_EQ(chip0[1].at("name"), "gather send");
  EXPECT_EQ(chip0[1].at("cat"), "send");
  EXPECT_NEAR(chip0[1].at("ts").get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(chip0[1].at("dur").get<double>(), 3.0, 1e-9);
  EXPECT_EQ(chip0[1].at("args").at("bytes"), kMiB);
  EXPECT_EQ(chip0[1].at("args").at("dst"), 1);
  EXPECT_EQ(chip0[1].at("args").at("step"), 0);

  const auto lane2 = complete_events(trace, 1, tracks.tid_of.at({1, "chip 0 #2"}));
  ASSERT_EQ(lane2.size(), 1u);  // t3 [2, 6] overlaps t2
  EXPECT_NEAR(lane2[0].at("ts").get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(lane2[0].at("dur").get<double>(), 4.0, 1e-9);
  EXPECT_EQ(lane2[0].at("args").at("step"), 1);
  EXPECT_EQ(lane2[0].at("args").at("dst"), 2);

  const auto chip3 = complete_events(trace, 2, tracks.tid_of.at({2, "chip 3"}));
  ASSERT_EQ(chip3.size(), 1u);
  EXPECT_EQ(chip3[0].at("name"), "out,\"final\"");
  EXPECT_NEAR(chip3[0].at("ts").get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(chip3[0].at("dur").get<double>(), 3.0, 1e-9);
  EXPECT_EQ(chip3[0].at("args").at("step"), 2);
}

TEST(ChromeTrace, LinkEventsStartAfterTheRouteLatency) {
  const json trace = trace_of(sample_run(), {});
  const Tracks tracks = tracks_of(trace);
  // t2 0 -> 1: one hop, [2 + 1, 5]; t3 0 -> 2: two hops, [2 + 2, 6] on both links.
  const auto x0 = complete_events(trace, 1, tracks.tid_of.at({1, "ici.x+.0"}));
  ASSERT_EQ(x0.size(), 1u);
  EXPECT_EQ(x0[0].at("cat"), "link");
  EXPECT_EQ(x0[0].at("name"), "gather");
  EXPECT_EQ(x0[0].at("args").at("task"), 2);
  EXPECT_NEAR(x0[0].at("ts").get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(x0[0].at("dur").get<double>(), 2.0, 1e-9);
  const auto x0b = complete_events(trace, 1, tracks.tid_of.at({1, "ici.x+.0 #2"}));
  ASSERT_EQ(x0b.size(), 1u);
  EXPECT_EQ(x0b[0].at("args").at("task"), 3);
  EXPECT_NEAR(x0b[0].at("ts").get<double>(), 4.0, 1e-9);
  EXPECT_NEAR(x0b[0].at("dur").get<double>(), 2.0, 1e-9);
  const auto x1 = complete_events(trace, 1, tracks.tid_of.at({1, "ici.x+.1"}));
  ASSERT_EQ(x1.size(), 1u);
  EXPECT_EQ(x1[0].at("args").at("bytes"), kMiB);
  EXPECT_NEAR(x1[0].at("ts").get<double>(), 4.0, 1e-9);
  EXPECT_NEAR(x1[0].at("dur").get<double>(), 2.0, 1e-9);
}

TEST(ChromeTrace, LinkPhaseIsClampedToTheTransferEnd) {
  // 10 us per hop, longer than every transfer: the phases shrink to [end, end].
  const json trace = trace_of(with_routes({{{0}, 10e-6}, {{0, 2}, 20e-6}}, {-1, -1, 0, 1, -1}), {});
  const Tracks tracks = tracks_of(trace);
  const auto x1 = complete_events(trace, 1, tracks.tid_of.at({1, "ici.x+.1"}));
  ASSERT_EQ(x1.size(), 1u);
  EXPECT_NEAR(x1[0].at("ts").get<double>(), 6.0, 1e-9);
  EXPECT_NEAR(x1[0].at("dur").get<double>(), 0.0, 1e-9);
}

TEST(ChromeTrace, LinksAreTheRoutesTheSimulationPublished) {
  // Both transfers published on ici.x-.0 with no latency (not the slice's dimension-order routes).
  const json trace = trace_of(with_routes({{{1}, 0}}, {-1, -1, 0, 0, -1}), {});
  const Tracks tracks = tracks_of(trace);
  EXPECT_FALSE(tracks.tid_of.contains({1, "ici.x+.0"}));
  const auto events = complete_events(trace, 1, tracks.tid_of.at({1, "ici.x-.0"}));
  ASSERT_EQ(events.size(), 1u);  // t2 [2, 5]; t3 [2, 6] overlaps it and takes lane 2
  EXPECT_NEAR(events[0].at("ts").get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(events[0].at("dur").get<double>(), 3.0, 1e-9);
  EXPECT_TRUE(tracks.tid_of.contains({1, "ici.x-.0 #2"}));
}

TEST(ChromeTrace, CapKeepsTheEarliestEventsAndSaysSo) {
  TraceOptions options;
  options.max_events = 4;  // fsdp's share is 4 / 2 = 2: the two computes starting at 0
  const json trace = trace_of(sample_run(), options);
  std::size_t complete = 0;
  std::vector<json> notes;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") {
      ++complete;
      if (e.at("pid") == 1) EXPECT_EQ(e.at("cat"), "compute") << e;
    }
    if (e.at("ph") == "i") notes.push_back(e);
  }
  EXPECT_EQ(complete, 3u);  // 2 of fsdp's 8, tp<x>'s 1
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].at("pid"), 1);
  EXPECT_NE(notes[0].at("name").get<std::string>().find("kept the first 2 of 8"), std::string::npos) << notes[0];
  EXPECT_NEAR(notes[0].at("ts").get<double>(), 2.0, 1e-9);  // the first dropped event starts at 2 us
  EXPECT_EQ(trace.at("otherData").at("events_written"), 3);
  EXPECT_EQ(trace.at("otherData").at("truncated"), true);
  EXPECT_EQ(tracks_of(trace).names.size(), 3u);  // chip 0, chip 1 of fsdp; chip 3 of tp<x>
}

TEST(ChromeTrace, PlanWithoutSimulationGetsANote) {
  ScenarioRun run = sample_run();
  run.plans[1].graph.reset();
  const json trace = trace_of(run, {});
  bool noted = false;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("pid") != 2) continue;
    EXPECT_NE(e.at("ph"), "X");
    noted = noted || (e.at("ph") == "i");
  }
  EXPECT_TRUE(noted);
}

TEST(ChromeTrace, SeveralSlicesNameChipsBySliceAndLinksByTheNetwork) {
  // scenarios/dcn/all-reduce-v5p-2-slices.json: 2 slices of 4 chips (ids 0..7, chip 5 is chip 1 of slice 1), each
  // with its ICI ring, and one host NIC per slice up to and down from the switch (4 v5p chips per host).
  const ScenarioRun run =
      run_scenario(load_scenario(std::string(PODSIM_SOURCE_DIR) + "/scenarios/dcn/all-reduce-v5p-2-slices.json"), {});
  std::set<std::string> names;
  for (const auto& [key, name] : tracks_of(trace_of(run, {})).names)
    names.insert(name.substr(0, name.find(" #")));
  for (const char* expected : {"slice 0 chip 0", "slice 1 chip 1", "slice 1 chip 3", "s0.ici.x+.0", "s1.ici.x-.3",
                               "dcn.up.s0.h0", "dcn.down.s1.h0"})
    EXPECT_EQ(names.count(expected), 1u) << expected;
  for (const auto& name : names) {
    EXPECT_NE(name.rfind("chip ", 0), 0u) << name;  // no bare chip ids across slices
    EXPECT_NE(name.rfind("link ", 0), 0u) << name;  // no unnamed links
  }
}

}  // namespace
}  // namespace podsim::report
