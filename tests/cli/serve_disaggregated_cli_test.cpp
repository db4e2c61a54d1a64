// `podsim serve` on a disaggregated scenario (docs/serving.md, "Disaggregated serving"): the JSON keeps every key of
// a co-located run and adds the pools and the KV transfers, chips count both pools, the trace shows the transfers,
// and what does not apply to a disaggregated deployment is refused with a located error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::run_podsim;
namespace fs = std::filesystem;

class DisaggregatedCliDir {
 public:
  DisaggregatedCliDir() : path_(fs::temp_directory_path() / ("podsim_disagg_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~DisaggregatedCliDir() { fs::remove_all(path_); }
  fs::path write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file) << text;
    return path_ / file;
  }
  fs::path path(const std::string& file) const { return path_ / file; }

 private:
  fs::path path_;
};

// 30 requests of LLaMA 3 8B: 2 prefill replicas of a v5e 2x2, 3 decode replicas of a v5e 2x2.
const char* const kDisaggregatedCliScenario = R"({"name": "disagg-cli", "hardware": "tpu-v5e",
  "model": {"preset": "llama3-8b"},
  "workload": {"mode": "serve", "traffic": {"arrival": "poisson", "rate_per_s": 5, "requests": 30,
               "prompt_tokens": {"uniform": [256, 1024]}, "output_tokens": {"fixed": 8}}},
  "serving": {"max_num_seqs": 32, "routing": "least_outstanding",
              "disaggregated": {
                "prefill": {"slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2", "parallelism": {"tensor": ["X", "Y"]},
                            "replicas": 2},
                "decode": {"slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2", "parallelism": {"tensor": ["X", "Y"]},
                           "replicas": 3}}},
  "slo": {"ttft_s": {"p99": 1.0}}})";

TEST(ServeDisaggregatedCli, JsonKeepsTheContractAndAddsThePools) {
  const DisaggregatedCliDir dir;
  const fs::path scenario = dir.write("disagg.json", kDisaggregatedCliScenario);
  const CliRun run = run_podsim("serve " + scenario.string() + " --json --trace " + dir.path("t.json").string() +
                                " --report " + dir.path("r.html").string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  for (const char* key : {"schema", "requests", "duration_s", "chips", "ttft_s", "tpot_s", "itl_s", "e2e_s",
                          "throughput", "goodput_requests_per_s", "slo_attainment", "kv_cache", "preemptions"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["requests"], 30);
  EXPECT_EQ(j["chips"], 20);  // 2 x 4 + 3 x 4
  const auto& d = j["disaggregated"];
  EXPECT_EQ(d["kv_link"], "dcn");
  EXPECT_EQ(d["kv_bytes_per_token"], 131072);  // 32 x 2 x 8 x 128 x 2 bytes
  EXPECT_EQ(d["prefill"]["chips"], 8);
  EXPECT_EQ(d["decode"]["chips"], 12);
  EXPECT_EQ(d["prefill"]["replicas"], 2);
  EXPECT_DOUBLE_EQ(d["prefill"]["kv_link_Bps"].get<double>(), 4 * 3.125e9);
  EXPECT_EQ(d["kv_transfers"]["count"], 30);
  EXPECT_LE(d["kv_transfers"]["mean_s"].get<double>(), d["kv_transfers"]["p99_s"].get<double>() + 1e-12);
  // Every prompt's KV moved once: its tokens x the bytes per token; 8 output tokens each, all from decode replicas.
  EXPECT_EQ(d["kv_transfers"]["bytes"].get<std::uint64_t>() % 131072u, 0u);
  EXPECT_EQ(j["output_tokens"], 240);
  ASSERT_EQ(j["replicas"].size(), 5u);
  EXPECT_EQ(j["replicas"][0]["pool"], "prefill");
  EXPECT_EQ(j["replicas"][4]["pool"], "decode");
  std::int64_t decoded = 0;
  for (std::size_t r = 2; r < 5; ++r)
    decoded += j["replicas"][r]["requests"].get<std::int64_t>();
  EXPECT_EQ(decoded, 30);
  // The trace: a span per transfer on its decode replica's track.
  std::ifstream trace(dir.path("t.json"));
  std::stringstream text;
  text << trace.rdbuf();
  const auto events = nlohmann::json::parse(text.str())["traceEvents"];
  int transfers = 0;
  for (const auto& e : events)
    if (e.contains("cat") && e["cat"] == "kv" && e["ph"] == "b") ++transfers;
  EXPECT_EQ(transfers, 30);
  EXPECT_TRUE(fs::exists(dir.path("r.html")));
}

TEST(ServeDisaggregatedCli, WhatDoesNotApplyIsALocatedError) {
  const DisaggregatedCliDir dir;
  const fs::path scenario = dir.write("disagg.json", kDisaggregatedCliScenario);
  CliRun run = run_podsim("serve " + scenario.string() + " --max-rate");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--max-rate: probes co-located deployments for now"), std::string::npos) << run.err;
  run = run_podsim("serve " + scenario.string() + " --plan tp4");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--plan: a disaggregated scenario's pools give their parallelism, got: tp4"),
            std::string::npos)
      << run.err;
  std::string searched = kDisaggregatedCliScenario;
  searched.insert(1, R"("search": {"parallelism": ["tensor"], "replicas": [1, 2]}, )");
  run = run_podsim("serve " + dir.write("searched.json", searched).string());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("/search: a disaggregated deployment is simulated as given"), std::string::npos) << run.err;
}

}  // namespace
