// `podsim check` on model-level scenarios end to end: a capacity scenario's candidate expectations pass (exit 0),
// one changed expectation fails naming it (exit 1), and a plan whose dims do not divide its axes is bad input
// (exit 2, located).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using podsim::test::CliRun;
using podsim::test::read_json;
using podsim::test::run_podsim;

const fs::path kScenario = fs::path(PODSIM_SOURCE_DIR) / "scenarios/capacity/llama3-70b-fsdp-v5p-ici-bound.json";

// Writes `doc` to a temporary file named after the test and returns its path.
fs::path write_temp(const nlohmann::json& doc, const std::string& name) {
  const fs::path path = fs::temp_directory_path() / ("podsim_check_cli_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(path) << doc.dump(2);
  return path;
}

TEST(CheckCli, CapacityScenarioPasses) {
  const CliRun run = run_podsim("check " + kScenario.string());
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS  " + kScenario.string() + ": fsdp: compute_bound (book) = false, expected false"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("3 passed, 0 failed"), std::string::npos) << run.out;
}

TEST(CheckCli, AChangedExpectationFails) {
  nlohmann::json doc = read_json(kScenario);
  ASSERT_EQ(doc["expect"][0]["metric"], "compute_bound");
  doc["expect"][0]["value"] = true;  // 256 tokens per chip is ICI-bound: expecting compute-bound must fail
  const fs::path path = write_temp(doc, "changed.json");
  const CliRun run = run_podsim("check " + path.string());
  fs::remove(path);
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("FAIL  " + path.string() + ": fsdp: compute_bound (book) = false, expected true"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("2 passed, 1 failed"), std::string::npos) << run.out;
}

TEST(CheckCli, APlanWhoseDimsDoNotDivideItsAxesIsBadInput) {
  nlohmann::json doc = read_json(kScenario);
  doc["workload"]["batch_tokens"] = 96;  // one sequence of 96 tokens cannot spread over the 64 fsdp chips
  doc["workload"]["seq_len"] = 96;
  const fs::path path = write_temp(doc, "bad.json");
  const CliRun run = run_podsim("check " + path.string());
  fs::remove(path);
  EXPECT_EQ(run.code, 2) << run.out << run.err;
  EXPECT_EQ(run.err, "error: " + path.string() +
                         ": /plans/0/parallelism: tokens per microbatch (96) must be a multiple of the data, fsdp, "
                         "expert and sequence axes X,Y,Z (64)\n");
}

}  // namespace
