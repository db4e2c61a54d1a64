// `podsim run` of a model-level scenario end to end: the JSON's keys (the op-level run's where they mean the same),
// the CSV header and rows, the text's step line, and the options it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli/cli_run.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

// A 2-layer model on 4 v5p chips, data over X and fsdp over Y.
fs::path write_scenario() {
  const fs::path path = fs::temp_directory_path() / ("model_run_cli_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << R"({"name": "two-layers", "hardware": "tpu-v5p", "slice": {"shape": [2, 2, 1]},
    "model": {"layers": 2, "d_model": 1024, "d_ff": 4096, "heads": 8, "kv_heads": 8, "head_dim": 128,
              "vocab": 32768},
    "workload": {"mode": "train", "batch_tokens": 8192, "seq_len": 2048},
    "plans": [{"name": "dp-fsdp", "parallelism": {"data": ["X"], "fsdp": ["Y"]}}]})";
  return path;
}

TEST(ModelRunCli, JsonHasTheStepBreakdownOpsWithRepeatsMemoryAndMfu) {
  const fs::path file = write_scenario();
  const auto run = test::run_podsim("run " + file.string() + " --format json");
  fs::remove(file);
  ASSERT_EQ(run.code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["schema"], "podsim/1");
  EXPECT_EQ(json["level"], "model");
  EXPECT_EQ(json["scenario"]["slice"], nlohmann::json::array({2, 2, 1}));
  ASSERT_EQ(json["plans"].size(), 1u);
  const auto& plan = json["plans"][0];
  for (const char* key :
       {"name", "description", "des_time_s", "book_time_s", "ratio_des_over_book", "step_breakdown", "schedule",
        "simulated", "ops", "memory", "mfu", "tokens_per_s_per_chip", "rejected", "candidate"})
    EXPECT_TRUE(plan.contains(key)) << key;
  const auto& b = plan["step_breakdown"];
  const double sum = b["compute_s"].get<double>() + b["exposed_communication_s"].get<double>() +
                     b["bubble_s"].get<double>() + b["dcn_s"].get<double>();
  EXPECT_NEAR(sum, plan["des_time_s"].get<double>(), 1e-12 * sum);
  for (const char* key : {"per_chip_bytes", "hbm_bytes", "fits_hbm", "over_hbm_bytes", "by_kind"})
    EXPECT_TRUE(plan["memory"].contains(key)) << key;
  EXPECT_EQ(plan["memory"]["fits_hbm"], true);
  double des = 0;
  for (const auto& op : plan["ops"]) {
    for (const char* key : {"name", "kind", "phase", "place", "repeats", "des_time_s", "book_time_s",
                            "ratio_des_over_book", "des_step_s", "book_step_s", "compute_time_s", "flops", "bound"})
      EXPECT_TRUE(op.contains(key)) << key;
    EXPECT_DOUBLE_EQ(op["des_step_s"].get<double>(), op["des_time_s"].get<double>() * op["repeats"].get<double>());
    des += op["des_step_s"].get<double>();
  }
  // The op rows are the first layer's spans in the layers run in sequence (docs/capacity.md, "Overlap in the step"):
  // ops that overlap each other count their shared time in each, so the rows add up to at least the step.
  EXPECT_GE(des, plan["des_time_s"].get<double>());
  EXPECT_EQ(plan["candidate"]["step_time_s"]["des"], plan["des_time_s"]);
  EXPECT_EQ(json["comparison"]["fastest"], "dp-fsdp");
}

TEST(ModelRunCli, CsvAndText) {
  const fs::path file = write_scenario();
  const auto csv = test::run_podsim("run " + file.string() + " --format csv");
  const auto text = test::run_podsim("run " + file.string());
  fs::remove(file);
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(
      csv.out.substr(0, csv.out.find('\n')),
      "scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,phase,place,repeats,des_step_s,book_step_s");
  EXPECT_NE(csv.out.find("\ntwo-layers,dp-fsdp,q,matmul,"), std::string::npos) << csv.out;
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("  step: des "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  step breakdown (des): compute "), std::string::npos) << text.out;
}

TEST(ModelRunCli, RefusesReportScheduleAndMixing) {
  const fs::path file = write_scenario();
  const std::string f = file.string();
  const auto report = test::run_podsim("run " + f + " --report /tmp/never.html");
  const auto schedule = test::run_podsim("run " + f + " --schedule dataflow");
  const auto mixed = test::run_podsim("run " + f + " " + std::string(PODSIM_SOURCE_DIR) +
                                      "/scenarios/examples/jax-sharded-matmul.json");
  fs::remove(file);
  EXPECT_EQ(report.code, 2);
  EXPECT_EQ(report.err.rfind("error: --report: ", 0), 0u) << report.err;
  EXPECT_EQ(schedule.code, 2);
  EXPECT_EQ(schedule.err.rfind("error: --schedule: ", 0), 0u) << schedule.err;
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("separate commands"), std::string::npos) << mixed.err;
}

TEST(ModelRunCli, TraceShowsTheLayersRunInSequence) {
  const fs::path file = write_scenario();
  const fs::path trace = fs::temp_directory_path() / ("model_run_cli_" + std::to_string(getpid()) + ".trace.json");
  const auto run = test::run_podsim("run " + file.string() + " --trace " + trace.string() + " --format json");
  fs::remove(file);
  ASSERT_EQ(run.code, 0) << run.err;
  std::ifstream in(trace);
  const auto json = nlohmann::json::parse(in);
  fs::remove(trace);
  ASSERT_TRUE(json.contains("traceEvents"));
  // Every op of the step program appears as a slice of the trace, once per layer run in sequence: q, a layer's
  // forward matmul, as q_l1 and q_l2; the embedding once.
  const auto plan = nlohmann::json::parse(run.out)["plans"][0];
  bool q1 = false, q2 = false;
  for (const auto& e : json["traceEvents"]) {
    q1 = q1 || (e.value("ph", "") == "X" && e.value("name", "") == "q_l1");
    q2 = q2 || (e.value("ph", "") == "X" && e.value("name", "") == "q_l2");
  }
  EXPECT_TRUE(q1 && q2);
  EXPECT_EQ(plan["name"], "dp-fsdp");
}

TEST(ModelRunCli, TraceOfSeveralPlansAsksForOne) {
  const fs::path file = fs::temp_directory_path() / ("model_run_cli_two_" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << R"({"name": "two", "hardware": "tpu-v5p", "slice": {"shape": [1, 1, 1]},
    "model": {"layers": 2, "d_model": 1024, "d_ff": 4096, "heads": 8, "kv_heads": 8, "head_dim": 128, "vocab": 32768},
    "workload": {"mode": "train", "batch_tokens": 8192, "seq_len": 2048},
    "plans": [{"name": "a", "parallelism": {}}, {"name": "b", "parallelism": {}}]})";
  const auto run = test::run_podsim("run " + file.string() + " --trace /tmp/never.json");
  const auto one = test::run_podsim("run " + file.string() + " --plan b --trace /dev/null");
  fs::remove(file);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --trace: a model-level trace shows one plan's step: give --plan NAME, got: 2 plans\n");
  EXPECT_EQ(one.code, 0) << one.err;
  // Written in place: /dev/null is still the device (a file renamed over it would have replaced it, as root).
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace podsim
