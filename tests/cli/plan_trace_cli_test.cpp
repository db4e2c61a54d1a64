// `podsim plan --trace FILE [--candidate N]` end to end, the written file parsed back: a pipeline candidate's trace
// (one process per stage, slices named by microbatch and pass, span plus the longest tail = the des step the table
// prints), a candidate without stages traced as `podsim run --trace` traces a plan, and bad --candidate values
// (exit 2, the message).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using nlohmann::json;
using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::read_json;
using podsim::test::run_podsim;

std::filesystem::path trace_temp_file(const std::string& stem, const std::string& ext) {
  return std::filesystem::temp_directory_path() / ("podsim_plan_trace_" + stem + "_" + std::to_string(getpid()) + ext);
}

TEST(PlanTraceCli, APipelineCandidateShowsItsStagesAndMicrobatches) {
  const auto trace = trace_temp_file("gpipe", ".json");
  const CliRun run = run_podsim(std::string("plan ") + PODSIM_SOURCE_DIR +
                                "/scenarios/capacity/pipeline-gpipe-memory.json --json --trace " + trace.string());
  ASSERT_EQ(run.code, 0) << run.err;
  const json plan = json_of(run);
  const json t = read_json(trace);
  std::filesystem::remove(trace);
  // 4 stages of 16 chips (pipeline over X of a 4x4x4 slice, chip = 16 x + 4 y + z): stage s is chips 16s..16s+15.
  std::set<std::string> processes;
  std::set<std::string> names;
  for (const json& e : t.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "process_name") processes.insert(e.at("args").at("name"));
    if (e.at("ph") == "X" && e.at("cat") != "tail") {
      names.insert(e.at("name"));
      EXPECT_EQ(e.at("pid").get<int>(), e.at("args").at("stage").get<int>() + 1);
    }
  }
  EXPECT_EQ(processes,
            (std::set<std::string>{
                "stage 0 (chips 0..15), tracks for 8 of 16", "stage 1 (chips 16..31), tracks for 8 of 16",
                "stage 2 (chips 32..47), tracks for 8 of 16", "stage 3 (chips 48..63), tracks for 8 of 16"}));
  for (int mb = 0; mb < 8; ++mb)
    for (const char* pass : {"fwd", "bwd"})
      EXPECT_EQ(names.count("mb " + std::to_string(mb) + " " + pass), 1u) << mb << pass;
  EXPECT_EQ(names.count("mb 0 fwd \u2192 stage 1"), 1u);
  EXPECT_EQ(names.count("mb 0 bwd \u2192 stage 2"), 1u);
  // The trace's step is the table's des step; its span plus the longest tail make it.
  const json& other = t.at("otherData");
  EXPECT_EQ(other.at("candidate"), 1);
  EXPECT_EQ(other.at("schedule"), "gpipe");
  EXPECT_EQ(other.at("stages"), 4);
  EXPECT_EQ(other.at("microbatches"), 8);
  const double des = plan.at("candidates").at(0).at("step_time_s").at("des");
  EXPECT_DOUBLE_EQ(other.at("step_s").get<double>(), des);
  double longest_tail = 0;
  for (const json& stage : other.at("stage_figures"))
    longest_tail = std::max(longest_tail, stage.at("tail_s").get<double>());
  EXPECT_NEAR(other.at("span_s").get<double>() + longest_tail, des, 1e-12 * des);
  EXPECT_DOUBLE_EQ(other.at("span_s").get<double>(),
                   plan.at("candidates").at(0).at("pipeline").at("span_s").at("des").get<double>());
}

TEST(PlanTraceCli, ACandidateWithoutStagesIsItsLayerProgramRun) {
  const auto scenario = podsim::test::write_toy_plan(trace_temp_file("toy", ".json"));
  const auto trace = trace_temp_file("toy", ".trace.json");
  const CliRun run =
      run_podsim("plan " + scenario.string() + " --top 2 --json --trace " + trace.string() + " --candidate 2");
  std::filesystem::remove(scenario);
  ASSERT_EQ(run.code, 0) << run.err;
  const json t = read_json(trace);
  std::filesystem::remove(trace);
  const json plan = json_of(run);
  std::string process;
  std::size_t computes = 0;
  const std::regex chip("chip [0-9]+( #[0-9]+)?|ici\\..*");
  for (const json& e : t.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "process_name") process = e.at("args").at("name");
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      EXPECT_TRUE(std::regex_match(e.at("args").at("name").get<std::string>(), chip)) << e.dump();
    if (e.at("ph") == "X" && e.at("cat") == "compute") ++computes;
  }
  EXPECT_GT(computes, 0u);
  // `plan candidate 2: SLICE PARALLELISM (its first 2 layers in sequence, dataflow-hbm)`, the second ranked
  // candidate's slice (docs/capacity.md, "Overlap in the step").
  const json& second = plan.at("candidates").at(1);
  const std::string slice = second.at("slice").at(0).dump() + "x" + second.at("slice").at(1).dump();
  EXPECT_EQ(process.rfind("plan candidate 2: " + slice + " ", 0), 0u) << process;
  EXPECT_NE(process.find("(its first 2 layers in sequence, dataflow-hbm)"), std::string::npos) << process;
  EXPECT_EQ(t.at("otherData").at("scenario"), "toy-plan");
}

TEST(PlanTraceCli, BadCandidatesAreRefused) {
  const auto scenario = podsim::test::write_toy_plan(trace_temp_file("toy", ".json"));
  const auto trace = trace_temp_file("bad", ".json");
  const std::string base = "plan " + scenario.string() + " --top 2 --trace " + trace.string();
  // 5 ranked rows (8 less the 16-way tensor one, less the two mirror images folded into their rows), the best 2
  // simulated.
  const CliRun beyond = run_podsim(base + " --candidate 8");
  EXPECT_EQ(beyond.code, 2);
  EXPECT_EQ(beyond.err, "error: --candidate: the ranking has 5 candidates, got: 8\n");
  const CliRun unsimulated = run_podsim(base + " --candidate 3");
  EXPECT_EQ(unsimulated.code, 2);
  EXPECT_EQ(unsimulated.err,
            "error: --candidate: the trace shows a simulated candidate (the best --top K are simulated; --model book "
            "simulates none), got: candidate 3, not simulated\n");
  const CliRun book = run_podsim(base + " --model book");
  EXPECT_EQ(book.code, 2);
  EXPECT_NE(book.err.find("got: candidate 1, not simulated"), std::string::npos) << book.err;
  const CliRun zero = run_podsim(base + " --candidate 0");
  EXPECT_EQ(zero.code, 2);
  EXPECT_EQ(zero.err, "error: --candidate: must be at least 1, got: 0\n");
  const CliRun alone = run_podsim("plan " + scenario.string() + " --candidate 1");
  EXPECT_EQ(alone.code, 2);
  EXPECT_EQ(alone.err, "error: --candidate: chooses the candidate --trace writes: give --trace FILE too\n");
  std::filesystem::remove(scenario);
  std::filesystem::remove(trace);
}

}  // namespace
