// Determinism (issue 16, item 4): every shipped scenario that `podsim run` takes gives the same JSON report, byte for
// byte, when it runs twice (symmetry paths on, and off), and byte for byte the same with the symmetry paths on and
// off: the translation quotient (chip 0's tasks simulated for all on a wrapped torus) and the one-group-per-phase
// path (a representative per class of groups with bit-equal releases, simulated at its absolute times) both compute
// the very doubles of the full simulation. The only non-deterministic figures a run measures
// (SimulationResult::wall_s and child_rss_growth_bytes) never reach the report (the last test). `podsim plan` of the
// model-level scenarios: tests/capacity/plan_determinism_test.cpp. Over several slices, the slice quotient (slice 0's
// tasks simulated for every slice) is compared the same way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/engine/translation_quotient.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/run/scenario_platform.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

// scenarios/**/*.json, relative to the source tree, sorted; model-level scenarios (`podsim plan`'s, which `podsim run`
// refuses) left out.
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> files;
  const fs::path root(PODSIM_SOURCE_DIR);
  for (const auto& entry : fs::recursive_directory_iterator(root / "scenarios"))
    if (entry.is_regular_file() && entry.path().extension() == ".json" && !load_scenario(entry.path().string()).model)
      files.push_back(fs::relative(entry.path(), root).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

// The report of one run of the scenario at `relative` (loaded afresh each time), as `podsim run --format json` has it.
nlohmann::json report_json(const std::string& relative, bool symmetry) {
  const ScenarioSpec spec = load_scenario((fs::path(PODSIM_SOURCE_DIR) / relative).string());
  RunOptions options;
  options.symmetry = symmetry;
  return report::run_report_json(run_scenario(spec, options));
}
std::string report_of(const std::string& relative, bool symmetry) {
  return report_json(relative, symmetry).dump(2);
}

// The first differing line of two reports, for a readable failure (EXPECT_EQ on 100 kB strings is not).
std::string first_difference(const std::string& a, const std::string& b) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const auto line_start = [](const std::string& text, std::string::const_iterator at) {
    const auto offset = static_cast<std::size_t>(at - text.begin());
    const std::size_t start = offset == 0 ? 0 : text.rfind('\n', offset - 1);
    return start == std::string::npos ? 0 : start + 1;
  };
  const auto line_of = [&](const std::string& text, std::string::const_iterator at) {
    const std::size_t start = line_start(text, at);
    return text.substr(start, text.find('\n', start) - start);
  };
  return "at byte " + std::to_string(mismatch.first - a.begin()) + ":\n  first:  " + line_of(a, mismatch.first) +
         "\n  second: " + line_of(b, mismatch.second);
}

class RunDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(RunDeterminism, SameJsonReportTwiceByteForByte) {
  const std::string& scenario = GetParam();
  for (const bool symmetry : {true, false}) {
    const std::string first = report_of(scenario, symmetry);
    const std::string second = report_of(scenario, symmetry);
    ASSERT_FALSE(first.empty());
    EXPECT_TRUE(first == second) << scenario << " (symmetry " << symmetry << "): two runs differ "
                                 << first_difference(first, second);
  }
}

TEST_P(RunDeterminism, SameJsonReportWithAndWithoutTheSymmetryPath) {
  const std::string& scenario = GetParam();
  const std::string with = report_of(scenario, true), without = report_of(scenario, false);
  EXPECT_TRUE(with == without) << scenario << ": the symmetry path changed the report "
                               << first_difference(with, without);
}

// One test per shipped scenario, named after its path (scenarios/examples/a-b.json -> examples_a_b).
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).lexically_relative("scenarios").replace_extension().generic_string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(ShippedScenarios, RunDeterminism, ::testing::ValuesIn(shipped_scenarios()), test_name);

TEST(RunDeterminismScope, EveryShippedScenarioIsCoveredAndNoMeasuredFigureIsReported) {
  const auto scenarios = shipped_scenarios();
  ASSERT_GE(scenarios.size(), 10u);  // the ten of issue 16; a missing folder must not pass as "no scenario"
  const std::string report = report_of(scenarios.front(), true);
  for (const char* measured : {"\"wall_s\"", "rss_growth"})
    EXPECT_EQ(report.find(measured), std::string::npos) << "the report now holds a measured figure: " << measured;
}

// Shipped scenarios with a plan on the one-group-per-phase path (lines without wraparound, so the translation
// quotient declines): the comparison above covers that path through them.
const std::vector<std::string> kGroupPerPhase = {
    "scenarios/examples/mlp-v5e-4x4.json",
    "scenarios/problem-sets/jax-stuff-collective-matmul.json",
    "scenarios/problem-sets/pop-quiz-2-all-gather.json",
    "scenarios/problem-sets/pop-quiz-2-all-gather-calibrated.json",
};

TEST(RunDeterminismScope, TheGroupPerPhasePathIsAmongTheCompared) {
  // A listed scenario has a plan that the symmetry path did not run in full (fewer tasks simulated than the graph
  // has) and whose graph the translation quotient declines: it took one group per phase.
  for (const auto& scenario : kGroupPerPhase) {
    const ScenarioSpec spec = load_scenario((fs::path(PODSIM_SOURCE_DIR) / scenario).string());
    const ScenarioRun run = run_scenario(spec);
    const ScenarioPlatform platform = build_platform(spec);
    bool group_per_phase = false;
    for (const PlanRun& plan : run.plans)
      if (platform.slices == 1 && plan.simulation->simulated_tasks < plan.graph->tasks.size())
        group_per_phase =
            group_per_phase || !simulate_translation_quotient(*platform.slice, platform.network, *plan.graph);
    EXPECT_TRUE(group_per_phase) << scenario << " no longer takes the one-group-per-phase path";
  }
}

// Shipped scenarios over several slices whose plans take the slice quotient (slice 0's tasks simulated for every
// slice, docs/performance.md): the comparison above covers that path through them.
const std::vector<std::string> kSliceQuotient = {
    "scenarios/dcn/all-reduce-v5p-2-slices.json",
    "scenarios/dcn/fsdp-matmul-v5e-2-slices.json",
};

TEST(RunDeterminismScope, TheSliceQuotientIsAmongTheCompared) {
  for (const auto& scenario : kSliceQuotient) {
    const ScenarioSpec spec = load_scenario((fs::path(PODSIM_SOURCE_DIR) / scenario).string());
    const ScenarioRun run = run_scenario(spec);
    const ScenarioPlatform platform = build_platform(spec);
    ASSERT_GT(platform.slices, 1) << scenario;
    bool quotient = false;
    for (const PlanRun& plan : run.plans)
      quotient = quotient || plan.simulation->simulated_tasks * static_cast<std::size_t>(platform.slices) ==
                                 plan.graph->tasks.size();
    EXPECT_TRUE(quotient) << scenario << " no longer takes the slice quotient";
  }
}

}  // namespace
}  // namespace podsim
