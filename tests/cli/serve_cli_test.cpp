// `podsim serve` end to end: a request alone takes podsim's own prefill step to its first token and its decode steps
// after, the JSON has the keys scripts rely on (issue 30), and bad input is a located error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::run_podsim;
namespace fs = std::filesystem;

// A folder of its own per test (scenario and trace side by side), removed at the end.
class ServeCliDir {
 public:
  explicit ServeCliDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("podsim_serve_" + name + "_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~ServeCliDir() { fs::remove_all(path_); }
  fs::path write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file) << text;
    return path_ / file;
  }

 private:
  fs::path path_;
};

// LLaMA 3 8B, tensor parallel over a v5e 2x2, in a given workload.
std::string serve_cli_scenario(const std::string& workload) {
  return R"({"name": "serve-cli", "hardware": "tpu-v5e", "slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2",
             "model": {"preset": "llama3-8b"}, "workload": )" +
         workload + R"(, "plans": [{"name": "tp4", "parallelism": {"tensor": ["X", "Y"]}}]})";
}

double book_step(const ServeCliDir& dir, const std::string& mode, int context) {
  const fs::path step = dir.write(
      mode + ".json",
      serve_cli_scenario(R"({"mode": ")" + mode + R"(", "batch": 1, "context": )" + std::to_string(context) + "}"));
  const CliRun run = run_podsim("plan " + step.string() + " --model book --json");
  EXPECT_EQ(run.code, 0) << run.err;
  return json_of(run)["candidates"][0]["step_time_s"]["book"].get<double>();
}

TEST(ServeCli, ARequestAloneTakesThePrefillStepThenADecodeStepPerToken) {
  // One request at 0.5 s, a prompt of 1024 tokens and 4 output tokens, alone on its replica: its first token comes
  // at the end of one prefill step of 1024 tokens (podsim plan's step in mode prefill, batch 1, context 1024); each
  // next token after a decode step of batch 1 at contexts 1024, 1025, 1026, whose mean is the decode step at 1025
  // (the decode step is linear in the context it reads).
  const ServeCliDir dir("alone");
  dir.write("one.csv", "arrival_s,prompt_tokens,output_tokens\n0.5,1024,4\n");
  const fs::path scenario = dir.write(
      "serve.json", serve_cli_scenario(R"({"mode": "serve", "traffic": {"arrival": "trace", "trace": "one.csv"}})"));
  const CliRun run = run_podsim("serve " + scenario.string() + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  const double prefill = book_step(dir, "prefill", 1024);
  const double decode = book_step(dir, "decode", 1025);
  EXPECT_NEAR(j["ttft_s"]["p50"].get<double>(), prefill, 1e-9 * prefill);
  EXPECT_NEAR(j["tpot_s"]["mean"].get<double>(), decode, 1e-6 * decode);
  EXPECT_NEAR(j["e2e_s"]["p99"].get<double>(), prefill + 3 * decode, 1e-6 * prefill);
  EXPECT_EQ(j["requests"], 1);
  EXPECT_EQ(j["chips"], 4);
  EXPECT_NEAR(j["duration_s"].get<double>(), 0.5 + prefill + 3 * decode, 1e-6);
}

TEST(ServeCli, JsonHasTheKeysScriptsRelyOn) {
  const ServeCliDir dir("keys");
  const fs::path scenario = dir.write(
      "serve.json",
      serve_cli_scenario(R"({"mode": "serve", "traffic": {"arrival": "poisson", "rate_per_s": 4, "requests": 40,
                                "prompt_tokens": {"uniform": [128, 512]}, "output_tokens": {"fixed": 16}}})")
          .insert(1, R"("serving": {"max_num_seqs": 16, "replicas": 2}, "slo": {"ttft_s": {"p99": 0.5}}, )"));
  const CliRun run = run_podsim("serve " + scenario.string() + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["schema"], "podsim/1");
  for (const char* key : {"requests", "duration_s", "chips", "goodput_requests_per_s", "slo_attainment", "preemptions"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* latency : {"ttft_s", "tpot_s", "itl_s", "e2e_s"})
    for (const char* stat : {"mean", "p50", "p90", "p99"})
      EXPECT_TRUE(j[latency].contains(stat)) << latency << " " << stat;
  for (const char* key : {"requests_per_s", "output_tokens_per_s", "output_tokens_per_s_per_chip"})
    EXPECT_TRUE(j["throughput"].contains(key)) << key;
  EXPECT_TRUE(j["kv_cache"].contains("capacity_tokens"));
  EXPECT_TRUE(j["kv_cache"].contains("peak_utilization"));
  EXPECT_EQ(j["requests"], 40);
  EXPECT_EQ(j["chips"], 8);  // 2 replicas of 4 chips
  // 40 requests of 16 tokens each.
  EXPECT_NEAR(j["throughput"]["output_tokens_per_s"].get<double>() * j["duration_s"].get<double>(), 640.0, 1e-6);
}

TEST(ServeCli, BadInputIsALocatedError) {
  const ServeCliDir dir("bad");
  const fs::path decode =
      dir.write("decode.json", serve_cli_scenario(R"({"mode": "decode", "batch": 8, "context": 512})"));
  CliRun run = run_podsim("serve " + decode.string());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(
      run.err.find("/workload/mode: a serving run needs a serving scenario (workload mode \"serve\"), got: decode"),
      std::string::npos)
      << run.err;
  const fs::path serve = dir.write(
      "serve.json", serve_cli_scenario(R"({"mode": "serve", "traffic": {"arrival": "trace", "trace": "rows.csv"}})"));
  dir.write("rows.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,4\n1,0,4\n");
  run = run_podsim("serve " + serve.string());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("/workload/traffic/trace: "), std::string::npos) << run.err;
  EXPECT_NE(
      run.err.find("rows.csv line 3: prompt_tokens must be a whole number of tokens in [1, 16777216], got: \"0\""),
      std::string::npos)
      << run.err;
  run = run_podsim("serve " + serve.string() + " --model both");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--model"), std::string::npos) << run.err;
  const fs::path good =
      dir.write("good.json", serve_cli_scenario(R"({"mode": "serve", "traffic": {"arrival": "closed", "concurrency": 2,
                                        "requests": 4, "prompt_tokens": {"fixed": 64}, "output_tokens": {"fixed": 4}}})"));
  run = run_podsim("serve " + good.string() + " --max-rate");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("/slo: --max-rate finds the highest rate that meets the SLO"), std::string::npos) << run.err;
}

TEST(ServeCli, AnAzureTraceIsReadAsItIs) {
  // The Azure LLM inference trace's columns and wall-clock timestamps: arrivals 0, 0.25 and 61.5 s after the first.
  const ServeCliDir dir("azure");
  dir.write("azure.csv",
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2023-11-16 18:15:46.6805900,374,44\n"
            "2023-11-16 18:15:46.9305900,396,109\n"
            "2023-11-16 18:16:48.1805900,879,5\n");
  const fs::path scenario = dir.write(
      "serve.json", serve_cli_scenario(R"({"mode": "serve", "traffic": {"arrival": "trace", "trace": "azure.csv"}})"));
  const CliRun run = run_podsim("serve " + scenario.string() + " --csv");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("\n0,0,374,44,"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n1,0.25,396,109,"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n2,61.5,879,5,"), std::string::npos) << run.out;
}

}  // namespace
