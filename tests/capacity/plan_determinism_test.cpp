// Determinism of `podsim plan` (issue 16, item 4) on every shipped model-level scenario: the JSON report is the same
// byte for byte when the plan search runs twice, and the same with the symmetry paths on and off for the scenarios
// whose best candidate is small enough to simulate every chip of (kFullChips). The des takes part for the scenarios
// whose best candidate by the closed form has at most kDesChips chips; a whole pod (4,096 chips: about a minute per
// des of the layers in sequence, several times that in CI's sanitizer build) is compared on the closed form's plan,
// and its des's determinism rests on the smaller slices' (the same code, fewer chips) and on
// tests/run/run_determinism_test.cpp (every shipped op-level scenario on the translation quotient). The two wall
// times the search measures (`search.screen_seconds`, `search.simulate_seconds`) are the only figures left out: they
// are measured, not computed, and say so in their names. Simulating candidates on several threads changes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/capacity/plan_search.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

// A best candidate of at most this many chips is also planned with every chip simulated.
constexpr std::int64_t kFullChips = 64;
// A scenario whose best candidate by the closed form has at most this many chips is compared with its des.
constexpr std::int64_t kDesChips = 512;

std::vector<std::string> model_scenarios() {
  std::vector<std::string> files;
  const fs::path root(PODSIM_SOURCE_DIR);
  for (const auto& entry : fs::recursive_directory_iterator(root / "scenarios")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const ScenarioSpec spec = load_scenario(entry.path().string());
    if (spec.model && !spec.serve)  // a serving scenario is not searched (podsim serve runs it)
      files.push_back(fs::relative(entry.path(), root).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct SearchOutput {
  std::string json;
  std::int64_t best_chips = 0;
};

void plan(const std::string& relative, std::size_t top_k, bool symmetry, SearchOutput& out, std::size_t parallel = 0) {
  const ScenarioSpec spec = load_scenario((fs::path(PODSIM_SOURCE_DIR) / relative).string());
  PlanSearchOptions options;
  options.top_k = top_k;
  options.simulate = top_k > 0;
  options.simulation.symmetry = symmetry;
  options.parallel = parallel;
  const PlanSearchResult result = search_plans(spec, options);
  nlohmann::json json = report::plan_json(report::PlanReport{spec, result});
  ASSERT_TRUE(json.contains("search") && json["search"].contains("screen_seconds") &&
              json["search"].contains("simulate_seconds"))
      << relative << ": the measured wall times moved; update this test";
  json["search"].erase("screen_seconds");
  json["search"].erase("simulate_seconds");
  out = {json.dump(2), result.ranked.empty() ? 0 : result.ranked.front().candidate.chips()};
}

// The first differing line of two reports, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const auto offset = static_cast<std::size_t>(mismatch.first - a.begin());
  const std::size_t start = offset == 0 ? 0 : a.rfind('\n', offset - 1) + 1;
  return "at byte " + std::to_string(offset) + ": " + a.substr(start, a.find('\n', offset) - start) + " vs " +
         b.substr(start, b.find('\n', offset) - start);
}

// The scenarios compared with every chip simulated (their best candidate has at most kFullChips chips):
// plain data-parallel and FSDP/TP training, mixture of experts (a small one: Mixtral 8x7B on 64 chips takes 85 s
// simulated chip by chip), a pipeline, and two slices over the DCN.
const std::vector<std::string> kSmall = {
    "scenarios/capacity/llama2-13b.json",
    "scenarios/capacity/llama3-8b.json",
    "scenarios/capacity/moe-skewed-experts.json",
    "scenarios/capacity/pipeline-1f1b-bubble.json",
    "scenarios/capacity/llama3-70b-fsdp-tp-v5p-threshold.json",
    "scenarios/dcn/data-parallel-2-slices.json",
};

class PlanDeterminism : public ::testing::TestWithParam<std::string> {};

TEST_P(PlanDeterminism, SameJsonTwiceAndWithTheSymmetryPathsOff) {
  const std::string& scenario = GetParam();
  SearchOutput book;
  ASSERT_NO_FATAL_FAILURE(plan(scenario, 0, true, book));
  const std::size_t top_k = book.best_chips <= kDesChips ? 1 : 0;
  SearchOutput first, second;
  ASSERT_NO_FATAL_FAILURE(plan(scenario, top_k, true, first));
  ASSERT_NO_FATAL_FAILURE(plan(scenario, top_k, true, second));
  EXPECT_TRUE(first.json == second.json) << scenario << ": two plans differ "
                                         << first_difference(first.json, second.json);
  // Every chip simulated costs a full simulation of the layers in sequence (two runs of them): only the scenarios
  // listed compare with it.
  if (std::find(kSmall.begin(), kSmall.end(), scenario) == kSmall.end()) return;
  EXPECT_LE(first.best_chips, kFullChips) << scenario << " is no longer compared with every chip simulated";
  if (first.best_chips == 0 || first.best_chips > kFullChips) return;
  SearchOutput full;
  ASSERT_NO_FATAL_FAILURE(plan(scenario, 1, false, full));
  EXPECT_TRUE(first.json == full.json) << scenario << ": the symmetry paths changed the plan "
                                       << first_difference(first.json, full.json);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).lexically_relative("scenarios").replace_extension().generic_string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(ShippedModelScenarios, PlanDeterminism, ::testing::ValuesIn(model_scenarios()), test_name);

// Candidates simulated at once on threads (PlanSearchOptions::parallel) give the report of one at a time, on LLaMA 3
// 8B's search and LLaMA 2 13B's.
TEST(PlanDeterminismThreads, ConcurrentSimulationsGiveTheSequentialReport) {
  for (const std::string scenario : {"scenarios/capacity/llama3-8b.json", "scenarios/capacity/llama2-13b-gqa.json"}) {
    SearchOutput one, three;
    ASSERT_NO_FATAL_FAILURE(plan(scenario, 10, true, one, 1));
    ASSERT_NO_FATAL_FAILURE(plan(scenario, 10, true, three, 3));
    EXPECT_TRUE(one.json == three.json) << scenario << ": threads changed the plan "
                                        << first_difference(one.json, three.json);
  }
}

TEST(PlanDeterminismScope, EveryShippedModelScenarioIsACase) {
  EXPECT_GE(model_scenarios().size(), 25u);  // a missing folder must not pass as "no scenario"
}

}  // namespace
}  // namespace podsim
