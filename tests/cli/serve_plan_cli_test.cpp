// `podsim plan` on a serving scenario and `podsim serve --max-rate`, against answers worked out by hand: requests of
// one prefill step each, served one at a time per replica (max_num_seqs 1), arriving at a constant rate, queue
// exactly when a replica's share of the arrivals comes faster than its step.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
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

class ServePlanDir {
 public:
  explicit ServePlanDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("podsim_serve_plan_" + name + "_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~ServePlanDir() { fs::remove_all(path_); }
  fs::path write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file) << text;
    return path_ / file;
  }

 private:
  fs::path path_;
};

// LLaMA 3 8B on a v5e 2x2, tensor parallel over both axes, with `rest` (its workload and what follows) appended.
std::string serve_plan_scenario(const std::string& rest) {
  return R"({"name": "serve-plan", "hardware": "tpu-v5e", "slice": {"shape": [2, 2]}, "mesh": "X=2,Y=2",
             "model": {"preset": "llama3-8b"}, )" +
         rest + "}";
}

constexpr int kPrompt = 1024;

// The book's prefill step of one 1024-token prompt on the replica: the whole service of a request of one output
// token (its prefill samples its first and last token).
double serve_plan_prefill_step(const ServePlanDir& dir) {
  const fs::path step =
      dir.write("prefill.json", serve_plan_scenario(R"("workload": {"mode": "prefill", "batch": 1, "context": 1024},
                 "plans": [{"name": "tp4", "parallelism": {"tensor": ["X", "Y"]}}])"));
  const CliRun run = run_podsim("plan " + step.string() + " --model book --json");
  EXPECT_EQ(run.code, 0) << run.err;
  return json_of(run)["candidates"][0]["step_time_s"]["book"].get<double>();
}

// Constant arrivals at `rate` of `requests` requests of 1024 prompt tokens and 1 output token; one at a time per
// replica; TTFT p99 within 1.5 steps; then `tail` (the search or the plans).
std::string serve_plan_workload(double rate, int requests, double step_s, const std::string& tail) {
  return serve_plan_scenario(R"("workload": {"mode": "serve", "traffic": {"arrival": "constant", "rate_per_s": )" +
                             std::to_string(rate) + R"(, "requests": )" + std::to_string(requests) +
                             R"(, "prompt_tokens": {"fixed": )" + std::to_string(kPrompt) +
                             R"(}, "output_tokens": {"fixed": 1}}},
      "serving": {"max_num_seqs": 1, "max_num_batched_tokens": 2048, "routing": "round_robin"},
      "slo": {"ttft_s": {"p99": )" +
                             std::to_string(1.5 * step_s) + "}}, " + tail);
}

TEST(ServePlanCli, TheLeastReplicasThatKeepUpWithTheArrivalsAreTheAnswer) {
  // Arrivals every step / 2.5: R replicas in round robin each get one every R x step / 2.5, so with R >= 3 none
  // waits (TTFT = one step) and with R <= 2 the queue grows by (1 - R / 2.5) steps a request: after 300 requests
  // the 99th percentile waits about 0.2 x 148 = 30 steps. The answer is 3 replicas of 4 chips.
  const ServePlanDir dir("least");
  const double step = serve_plan_prefill_step(dir);
  const fs::path scenario =
      dir.write("search.json",
                serve_plan_workload(2.5 / step, 300, step,
                                    R"("search": {"parallelism": ["tensor"], "replicas": [1, 2, 3, 4, 5, 6, 8]})"));
  const CliRun run = run_podsim("plan " + scenario.string() + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["schema"], "podsim/1");
  EXPECT_EQ(j["mode"], "serve");
  const auto& best = j["candidates"][0];
  EXPECT_EQ(best["rank"], 1);
  EXPECT_EQ(best["replicas"], 3);
  EXPECT_EQ(best["chips"], 12);
  EXPECT_EQ(best["serving"]["meets_slo"], true);
  EXPECT_NEAR(best["serving"]["ttft_s"]["p99"].get<double>(), step, 1e-9 * step);
  // The keys scripts rely on (issue 30), on every simulated candidate.
  bool saw_two = false;
  for (const auto& c : j["candidates"]) {
    if (c["rank"].is_null()) continue;
    for (const char* latency : {"ttft_s", "tpot_s", "e2e_s"})
      for (const char* stat : {"mean", "p50", "p90", "p99"})
        EXPECT_TRUE(c["serving"][latency].contains(stat)) << latency << " " << stat;
    EXPECT_TRUE(c["serving"].contains("goodput_requests_per_s"));
    if (c["replicas"] == 2) {
      saw_two = true;
      EXPECT_EQ(c["serving"]["meets_slo"], false);
      EXPECT_GT(c["serving"]["ttft_s"]["p99"].get<double>(), 25 * step);
      EXPECT_GT(c["serving"]["slo"]["ttft_s"]["miss_s"].get<double>(), 20 * step);
    }
  }
  // The bisection over [1, 2, 3, 4, 5, 6, 8] probes 8, 4, 2, 3: 2 is the count just below the answer.
  EXPECT_TRUE(saw_two);
  EXPECT_EQ(j["search"]["simulations"], 4);
  EXPECT_EQ(j["search"]["decided_without_run"], 3);

  const CliRun text = run_podsim("plan " + scenario.string());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("answer: 12 chips: 3 replicas of tpu-v5e 2x2 (tensor=X,Y), max_num_seqs 1"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("TTFT p99 +"), std::string::npos) << text.out;  // the miss of 2 replicas, by how much
}

TEST(ServePlanCli, ADeploymentWhoseWeightsFillHbmIsRejectedWithItsReason) {
  // LLaMA 3 70B in bf16 is 141 GB of weights: 35 GB per chip of a v5e 2x2 (16 GiB each) cannot hold them.
  const ServePlanDir dir("fit");
  const fs::path scenario =
      dir.write("fit.json",
                R"({"name": "fit", "hardware": "tpu-v5e", "slice": {"shape": [2, 2]}, "model": {"preset": "llama3-70b"},
          "workload": {"mode": "serve", "traffic": {"arrival": "poisson", "rate_per_s": 1, "requests": 4,
                       "prompt_tokens": {"fixed": 128}, "output_tokens": {"fixed": 4}}},
          "search": {"parallelism": ["tensor"], "replicas": [1, 2]}})");
  const CliRun run = run_podsim("plan " + scenario.string() + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_TRUE(j["candidates"][0]["rank"].is_null());
  EXPECT_TRUE(j["candidates"][0]["serving"].is_null());
  EXPECT_NE(j["candidates"][0]["rejected"].get<std::string>().find("leave no HBM for the KV cache"), std::string::npos)
      << j["candidates"][0]["rejected"];
}

TEST(ServePlanCli, TheHighestRateIsOneRequestPerStep) {
  // One replica serving one request at a time: constant arrivals faster than one a step queue without bound (200
  // requests at 1.01 per step leave the 99th percentile about 2 steps late), slower ones never wait. The answer
  // lies in [1 / step, 1.0026 / step] (the 99th of 200 requests waits (1 - 1 / (r step)) x 198 steps <= 0.5 step),
  // found within the bisection's 1%.
  const ServePlanDir dir("rate");
  const double step = serve_plan_prefill_step(dir);
  const fs::path scenario = dir.write(
      "rate.json", serve_plan_workload(0.3 / step, 200, step,
                                       R"("plans": [{"name": "tp4", "parallelism": {"tensor": ["X", "Y"]}}])"));
  const CliRun run = run_podsim("serve " + scenario.string() + " --max-rate --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  const double rate = j["max_rate"]["rate_per_s"].get<double>();
  EXPECT_GE(rate * step, 0.99);
  EXPECT_LE(rate * step, 1.0026);
  const double miss = j["max_rate"]["lowest_miss_per_s"].get<double>();
  EXPECT_GT(miss, rate);
  EXPECT_LE(miss - rate, 0.01 * rate * (1 + 1e-9));
  // The run shown is the one at the answer: it meets the SLO, and its traffic says the rate.
  EXPECT_EQ(j["meets_slo"], true);
  EXPECT_NE(j["traffic"].get<std::string>().find("constant at"), std::string::npos);
  for (const auto& point : j["max_rate"]["points"])
    EXPECT_EQ(point["meets_slo"].get<bool>(), point["rate_per_s"].get<double>() <= rate) << point["rate_per_s"];

  const CliRun closed = run_podsim(
      "serve " +
      dir.write("closed.json",
                serve_plan_scenario(R"("workload": {"mode": "serve", "traffic": {"arrival": "closed", "concurrency": 2,
                   "requests": 4, "prompt_tokens": {"fixed": 64}, "output_tokens": {"fixed": 4}}},
                   "slo": {"ttft_s": {"p99": 1}}, "plans": [{"name": "tp4", "parallelism": {"tensor": ["X", "Y"]}}])"))
          .string() +
      " --max-rate");
  EXPECT_EQ(closed.code, 2);
  EXPECT_NE(closed.err.find("/workload/traffic/arrival: --max-rate varies the arrival rate: give poisson, gamma or "
                            "constant arrivals, got: closed"),
            std::string::npos)
      << closed.err;
}

TEST(ServePlanCli, BadSearchValuesAreLocatedErrors) {
  const ServePlanDir dir("bad");
  const std::string traffic =
      R"("workload": {"mode": "serve", "traffic": {"arrival": "poisson", "rate_per_s": 1, "requests": 4,
         "prompt_tokens": {"fixed": 64}, "output_tokens": {"fixed": 4}}}, )";
  const auto error_of = [&](const std::string& name, const std::string& scenario) {
    const CliRun run = run_podsim("plan " + dir.write(name, scenario).string());
    EXPECT_EQ(run.code, 2) << run.out;
    return run.err;
  };
  EXPECT_NE(error_of("data.json", serve_plan_scenario(traffic + R"("search": {"parallelism": ["data"]})"))
                .find("/search/parallelism/0: a serving replica is tensor and expert parallel (its data parallelism "
                      "is the replicas: search \"replicas\"), got: \"data\""),
            std::string::npos);
  EXPECT_NE(error_of("zero.json",
                     serve_plan_scenario(traffic + R"("search": {"parallelism": ["tensor"], "replicas": [2, 0]})"))
                .find("/search/replicas/1: must be in [1, 4096], got: 0"),
            std::string::npos);
  EXPECT_NE(error_of("twice.json",
                     serve_plan_scenario(traffic + R"("search": {"parallelism": ["tensor"], "replicas": [2, 2]})"))
                .find("/search/replicas"),
            std::string::npos);
  EXPECT_NE(error_of("seqs.json", serve_plan_scenario(traffic + R"("serving": {"max_num_batched_tokens": 256},
                     "search": {"parallelism": ["tensor"], "max_num_seqs": [64, 512]})"))
                .find("/search/max_num_seqs/1: must be at most serving.max_num_batched_tokens (256), got: 512"),
            std::string::npos);
  EXPECT_NE(error_of("train.json", serve_plan_scenario(R"("workload": {"mode": "train", "batch_tokens": 8192,
                     "seq_len": 2048}, "search": {"parallelism": ["fsdp"], "replicas": [2]})"))
                .find("/search/replicas: applies to serving workloads, got: mode \"train\""),
            std::string::npos);
  // A search is `podsim plan`'s; `podsim serve` runs one deployment and says so.
  const fs::path search =
      dir.write("search.json", serve_plan_scenario(traffic + R"("search": {"parallelism": ["tensor"]})"));
  const CliRun serve = run_podsim("serve " + search.string());
  EXPECT_EQ(serve.code, 2);
  EXPECT_NE(serve.err.find("/search: a serving run simulates one deployment and this scenario searches several"),
            std::string::npos)
      << serve.err;
  const CliRun report = run_podsim("plan " + search.string() + " --report " + (dir.write("x", "").string() + ".html"));
  EXPECT_EQ(report.code, 2);
  EXPECT_NE(report.err.find("--report: a serving search writes a table, JSON or CSV"), std::string::npos) << report.err;
}

}  // namespace
