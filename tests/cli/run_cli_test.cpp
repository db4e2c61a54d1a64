// `podsim run` and `podsim check` end to end: formats, trace, HTML report, exit codes and located errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::run_podsim;

std::string source(const std::string& relative) {
  return std::string(PODSIM_SOURCE_DIR) + "/" + relative;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("podsim_run_" + std::to_string(getpid()) + "_" + name);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scenario with one all-gather and the given expect list and program tail.
std::filesystem::path write_scenario(const std::string& name, const std::string& program, const std::string& expect) {
  const auto path = temp_file(name);
  std::ofstream(path) << R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [4], "wraparound": "none"},
    "mesh": "X=4", "tensors": {"A": {"shape": [64, 64], "sharding": "A[I_X, J]"}},
    "program": [)" << program
                      << R"(], "expect": [)" << expect << "]}";
  return path;
}

TEST(RunCli, JsonNamesEveryPlan) {
  const CliRun run = run_podsim("run " + source("scenarios/examples/mlp-v5e-4x4.json") + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["schema"], "podsim/1");
  ASSERT_EQ(j["plans"].size(), 3u);
  EXPECT_EQ(j["plans"][0]["name"], "dp");
  EXPECT_EQ(j["plans"][0]["memory"]["fits_hbm"], false);
  EXPECT_EQ(j["comparison"]["fastest_fitting"], "megatron");
  EXPECT_EQ(j["checks_passed"], true);
}

TEST(RunCli, CsvHasOneRowPerPlanAndOp) {
  const CliRun run = run_podsim("run " + source("scenarios/examples/mlp-v5e-4x4.json") + " --format csv");
  ASSERT_EQ(run.code, 0) << run.err;
  std::stringstream lines(run.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line))
    ++rows;
  EXPECT_EQ(rows, 1 + 3 * 4);  // header + 3 plans x 4 ops
}

TEST(RunCli, TraceAndHtmlReport) {
  const auto trace = temp_file("trace.json");
  const auto html = temp_file("report.html");
  const CliRun run = run_podsim("run " + source("scenarios/examples/two-rank-matmul.json") + " --trace " +
                                trace.string() + " --report " + html.string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto events = nlohmann::json::parse(read(trace))["traceEvents"];
  int link_events = 0;
  for (const auto& event : events)
    if (event.value("ph", "") == "X" && event.value("cat", "").find("link") != std::string::npos) ++link_events;
  EXPECT_EQ(link_events, 4);  // four 8-byte transfers, each over one link
  const std::string page = read(html);
  EXPECT_NE(page.find("<html"), std::string::npos);
  EXPECT_NE(page.find("two-rank-matmul"), std::string::npos);
  std::filesystem::remove(trace);
  std::filesystem::remove(html);
}

TEST(RunCli, CheckPassesAndFailsWithExitCodes) {
  // Gathering A[I_X, J] (64x64 bf16) over a 4-line: V = 8192 B, book (N-1) (V/N) / W_uni = 3 x 2048 / 4.5e10.
  const std::string gather = R"({"op": "all_gather", "name": "g", "tensor": "A", "axes": ["X"]})";
  const auto good = write_scenario("good.json", gather, R"({"metric": "array_bytes", "op": "g", "value": 8192})");
  CliRun run = run_podsim("check " + good.string());
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("2 passed, 0 failed"), std::string::npos)
      << run.out;  // the value check and the functional one
  const auto bad = write_scenario("bad.json", gather, R"({"metric": "array_bytes", "op": "g", "value": 4096})");
  run = run_podsim("check " + bad.string());
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.out.find("FAIL  " + bad.string() + ": op g array_bytes = 8192, expected 4096"), std::string::npos)
      << run.out;
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST(RunCli, PlanRulesAreLocatedInTheScenario) {
  // A is sharded over X only: gathering over a mesh axis that does not shard it is a rule of the plan.
  const auto path =
      write_scenario("rule.json", R"({"op": "all_reduce", "name": "r", "tensor": "A", "axes": ["X"]})", "");
  const CliRun run = run_podsim("run " + path.string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + path.string() +
                         ": /program/0: all-reduce over X: A is not unreduced over it in this plan, got: A[I_X, J]\n");
  std::filesystem::remove(path);
}

TEST(RunCli, BadFlagsAndFiles) {
  CliRun run = run_podsim("run " + source("scenarios/examples/mlp-v5e-4x4.json") + " --format yaml");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --format: format must be table, json or csv, got: yaml\n");
  run = run_podsim("run " + source("scenarios/examples/mlp-v5e-4x4.json") + " --plan zero");
  EXPECT_EQ(run.err, "error: --plan: unknown plan, got: zero (plans: dp, fsdp, megatron)\n");
  run = run_podsim("run /nonexistent/scenario.json");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("/nonexistent/scenario.json"), std::string::npos) << run.err;
}

TEST(RunCli, HostileJsonIsBadInputNotACrash) {
  const auto deep = temp_file("deep.json");
  std::ofstream(deep) << std::string(200000, '[');
  for (const std::string command : {"run ", "check "}) {
    const CliRun run = run_podsim(command + deep.string());
    EXPECT_EQ(run.code, 2);
    EXPECT_EQ(run.err, "error: " + deep.string() + ": line 1, column 65: nesting deeper than 64 levels\n");
  }
  std::ofstream(deep) << "{\"name\": 1e400}";
  const CliRun huge = run_podsim("check " + deep.string());
  EXPECT_EQ(huge.code, 2);
  EXPECT_EQ(huge.err, "error: " + deep.string() + ": line 1, column 10: number out of range, got: 1e400\n");
  std::filesystem::remove(deep);
}

}  // namespace

TEST(RunCli, ScheduleFlagOverridesTheScenario) {
  const std::string scenario = source("scenarios/examples/mlp-v5e-4x4.json");
  const CliRun free = run_podsim("run " + scenario + " --plan fsdp --format json --schedule dataflow");
  ASSERT_EQ(free.code, 0) << free.err;
  const auto j = nlohmann::json::parse(free.out);
  EXPECT_EQ(j["plans"][0]["schedule"], "dataflow");
  EXPECT_EQ(j["plans"][0]["memory"]["fits_hbm"], false);
  // The scenario pins fsdp: fits_hbm true under its default schedule, so under dataflow that check fails.
  EXPECT_EQ(j["checks_passed"], false);
  const CliRun limited = run_podsim("run " + scenario + " --plan fsdp --format json --schedule DATAFLOW_HBM");
  ASSERT_EQ(limited.code, 0) << limited.err;
  const auto k = nlohmann::json::parse(limited.out);
  EXPECT_EQ(k["plans"][0]["schedule"], "dataflow-hbm");
  EXPECT_EQ(k["plans"][0]["waits"][0]["op"], "down");
  EXPECT_EQ(k["plans"][0]["waits"][0]["after"], "up");
}

TEST(RunCli, UnknownScheduleIsBadInputAtTheFlag) {
  const CliRun run = run_podsim("run " + source("scenarios/examples/mlp-v5e-4x4.json") + " --schedule asap");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err,
            "error: --schedule: unknown schedule, got: asap (expected one of program-order, dataflow, dataflow-hbm)\n");
}
