// Scenarios that load but break a rule when a plan is lowered (a collective over an axis the plan does not use,
// a matmul the planner rejects, data movement without ICI): one folder per case under tests/run/bad, each with
// the exact error podsim gives, paths relative to the repository root.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/common/error.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> cases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(PODSIM_TEST_DATA_DIR) / "bad"))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class BadRun : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    previous_ = fs::current_path();
    fs::current_path(PODSIM_SOURCE_DIR);
  }
  void TearDown() override { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST_P(BadRun, FailsWithTheExpectedError) {
  const fs::path folder = fs::path("tests/run/bad") / GetParam();
  std::ifstream in(folder / "case.expected");
  std::string expected;
  std::getline(in, expected);
  std::string got = "(no error)";
  try {
    run_scenario(load_scenario((folder / "case.json").string()));
  } catch (const InputError& e) {
    got = e.what();
  }
  EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadRun, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace podsim
