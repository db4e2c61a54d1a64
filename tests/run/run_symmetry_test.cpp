// podsim run takes the engine's symmetry path where it proves exact: every shipped and test scenario gives the
// same per-op times, per-link bytes and messages with and without it, and a pod-scale collective is simulated
// through one group per phase, or (by default) through chip 0's tasks alone.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_files() {
  std::vector<std::string> files;
  for (const char* folder : {"scenarios", "tests/scenario/good", "tests/run/good"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(PODSIM_SOURCE_DIR) / folder))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RunSymmetry, SameResultsAsTheFullSimulationOnEveryScenario) {
  const auto files = scenario_files();
  ASSERT_GE(files.size(), 10u);
  for (const auto& file : files) {
    const ScenarioSpec spec = load_scenario(file);
    if (spec.model) continue;  // a model-level scenario is planned (podsim plan), not run
    RunOptions full_options;
    full_options.symmetry = false;
    const ScenarioRun fast = run_scenario(spec);
    const ScenarioRun full = run_scenario(spec, full_options);
    ASSERT_EQ(fast.plans.size(), full.plans.size()) << file;
    for (std::size_t p = 0; p < fast.plans.size(); ++p) {
      const PlanRun& a = fast.plans[p];
      const PlanRun& b = full.plans[p];
      const std::string at = file + " plan " + a.name;
      EXPECT_EQ(a.des_time_s, b.des_time_s) << at;
      EXPECT_EQ(a.messages, b.messages) << at;
      EXPECT_EQ(a.total_link_bytes, b.total_link_bytes) << at;
      EXPECT_EQ(a.max_link_bytes, b.max_link_bytes) << at;
      for (std::size_t o = 0; o < a.ops.size(); ++o) {
        EXPECT_EQ(a.ops[o].des_start_s, b.ops[o].des_start_s) << at << " op " << a.ops[o].name;
        EXPECT_EQ(a.ops[o].des_end_s, b.ops[o].des_end_s) << at << " op " << a.ops[o].name;
      }
      for (std::size_t l = 0; l < a.links.size(); ++l)
        EXPECT_EQ(a.links[l].bytes, b.links[l].bytes) << at;
    }
  }
}

// `ops` all-gathers of x over X, one after another, on a 4x2 mesh without wraparound (the translation quotient
// declines lines): a phase an op, two groups (the two X lines) a phase, released together.
ScenarioSpec gather_chain(int ops) {
  std::string program;
  for (int k = 0; k < ops; ++k)
    program += std::string(k ? ", " : "") + "{\"op\": \"all_gather\", \"name\": \"g" + std::to_string(k) +
               "\", \"tensor\": \"x\", \"axes\": [\"X\"], \"out\": \"y" + std::to_string(k) + "\"" +
               (k ? ", \"after\": [\"g" + std::to_string(k - 1) + "\"]" : std::string()) + "}";
  return load_scenario_text(R"({"name": "chain", "hardware": "tpu-v5e",
      "slice": {"shape": [4, 2], "wraparound": "none"}, "mesh": "X=4,Y=2",
      "tensors": {"x": {"shape": [1024, 1024], "sharding": "x[I_X, J]"}}, "program": [)" +
                                program + "]}",
                            "chain.json");
}

// The group path costs a child process per phase: with more than 64 phases it is taken only on graphs of more than
// 2,000 tasks a phase. 10 gathers take it (one line of two simulated a phase, fewer tasks than the graph's); 70
// gathers, far fewer than 2,000 tasks a phase, run in full. Both give the full simulation's times.
TEST(RunSymmetry, ManyPhasesOfFewTasksRunInFull) {
  for (const int ops : {10, 70}) {
    const ScenarioSpec spec = gather_chain(ops);
    RunOptions full_options;
    full_options.symmetry = false;
    const ScenarioRun run = run_scenario(spec);
    const ScenarioRun full = run_scenario(spec, full_options);
    const PlanRun& plan = run.plans.front();
    ASSERT_LT(plan.graph->tasks.size(), static_cast<std::size_t>(ops) * 2000u);
    if (ops == 10)
      EXPECT_LT(plan.simulation->simulated_tasks, plan.graph->tasks.size());
    else
      EXPECT_EQ(plan.simulation->simulated_tasks, plan.graph->tasks.size());
    EXPECT_EQ(plan.des_time_s, full.plans.front().des_time_s);
  }
}

TEST(RunSymmetry, PodScaleAllGatherSimulatesOneGroupPerPhase) {
  // W[I_XYZ, J] gathered over X, Y, Z of an 8x8x8 v5p torus axis after axis: 3 phases of 64 rings of 8 chips, split
  // both ways: 3 phases x 512 chips x 2 directions x 7 steps = 21,504 transfers, of which one ring per phase
  // (8 x 2 x 7 = 112) is simulated, with a release timer for each first transfer of the later phases (8 chips x 2
  // directions each).
  const std::string program = R"({"name": "pod", "hardware": "tpu-v5p",
      "slice": {"shape": [8, 8, 8], "wraparound": "all"}, "mesh": "X=8,Y=8,Z=8",
      "tensors": {"W": {"shape": [4096, 512], "sharding": "W[I_XYZ, J]"}},
      "program": [{"op": "all_gather", "name": "g", "tensor": "W", "axes": ["X", "Y", "Z"]}])";
  const ScenarioSpec spec = load_scenario_text(program + R"(, "options": {"multi_axis": "sequential"}})", "pod.json");
  RunOptions groups;
  groups.translation_quotient = false;
  const ScenarioRun run = run_scenario(spec, groups);
  ASSERT_EQ(run.plans.size(), 1u);
  EXPECT_EQ(run.plans[0].messages, 21504u);
  EXPECT_EQ(run.plans[0].simulation->simulated_tasks, 3u * 112u + 2u * 16u);
  // By default the translation quotient takes it: chip 0's own tasks, 3 phases x 2 directions x 7 steps.
  const ScenarioRun quotient = run_scenario(spec);
  EXPECT_EQ(quotient.plans[0].messages, 21504u);
  EXPECT_EQ(quotient.plans[0].simulation->simulated_tasks, 3u * 2u * 7u);
  // The default, all three axes at once: 3 parts, each through the 3 phases, three times the transfers; the
  // translation quotient still simulates chip 0's own: 3 parts x 3 phases x 2 directions x 7 steps.
  const ScenarioRun concurrent = run_scenario(load_scenario_text(program + "}", "pod.json"));
  EXPECT_EQ(concurrent.plans[0].messages, 3u * 21504u);
  EXPECT_EQ(concurrent.plans[0].simulation->simulated_tasks, 3u * 3u * 2u * 7u);
}

}  // namespace
}  // namespace podsim
