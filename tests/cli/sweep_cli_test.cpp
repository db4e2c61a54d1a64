// `podsim sweep` end to end (docs/sweeps.md): each point's figures equal a separate `podsim run --format json` (or
// `podsim plan --json`) of the same scenario edited by hand; --jobs 1 and 2, a resumed run and merged shards write
// the same files byte for byte as one run; an invalid point is a record and the sweep exits 0; bad sweep files exit 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"
#include "tests/support/sweep_files.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::run_podsim;
namespace fs = std::filesystem;
using podsim::test::read_text;
using podsim::test::sweep_file;
using podsim::test::sweep_records;
using Json = nlohmann::ordered_json;

const std::string& kMlp = podsim::test::kMlpExample;

// A fresh folder for one test.
fs::path temp_dir(const std::string& name) {
  return podsim::test::fresh_dir("podsim_sweep_cli", name);
}

// The base scenario with `values` (pointer -> value) set by hand, written to `path`.
fs::path edited(const std::string& base, const Json& values, const fs::path& path) {
  Json doc = Json::parse(read_text(base));
  for (const auto& [pointer, value] : values.items())
    doc[Json::json_pointer(pointer)] = value;
  std::ofstream(path) << doc.dump(2);
  return path;
}

const std::string kTwoByTwo = R"([{"pointer": "/tensors/x/shape/0", "values": [4096, 16384]},
                                  {"pointer": "/hardware", "values": ["tpu-v5e", "tpu-v6e"]}])";

TEST(SweepCli, BookFiguresEqualPodsimRunOfTheEditedScenario) {
  const auto dir = temp_dir("book");
  const CliRun run = run_podsim("sweep " + sweep_file(dir, kTwoByTwo).string() + " --out " + (dir / "out").string() +
                                " --model book --jobs 2");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 4u);
  const std::vector<std::pair<int, std::string>> expected = {
      {4096, "tpu-v5e"}, {4096, "tpu-v6e"}, {16384, "tpu-v5e"}, {16384, "tpu-v6e"}};
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const Json& line = lines[k];
    EXPECT_EQ(line["point"], k);
    EXPECT_EQ(line["params"]["/tensors/x/shape/0"], expected[k].first);
    EXPECT_EQ(line["params"]["/hardware"], expected[k].second);
    EXPECT_TRUE(line["error"].is_null());
    const Json values = {{"/tensors/x/shape/0", expected[k].first}, {"/hardware", expected[k].second}};
    const CliRun single = run_podsim("run " + edited(kMlp, values, dir / "point.json").string() + " --format json");
    ASSERT_EQ(single.code, 0) << single.err;
    const auto report = json_of(single);
    ASSERT_EQ(line["plans"].size(), report["plans"].size());
    for (const auto& plan : report["plans"]) {
      const Json& entry = line["plans"][plan["name"].get<std::string>()];
      EXPECT_EQ(entry["book_time_s"].get<double>(), plan["book_time_s"].get<double>()) << k;
      const auto book_bytes = plan["memory"]["book_per_chip_bytes"].get<std::uint64_t>();
      EXPECT_EQ(entry["memory_per_chip_bytes"], book_bytes) << k;
      EXPECT_EQ(entry["fits_hbm"], book_bytes <= plan["memory"]["hbm_bytes"].get<std::uint64_t>()) << k;
      EXPECT_TRUE(entry["des_time_s"].is_null());
    }
  }
  const std::string csv = read_text(dir / "out" / "results.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')).substr(0, 62),
            "point,hash,model,error,/tensors/x/shape/0,/hardware,dp.des_tim");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  fs::remove_all(dir);
}

TEST(SweepCli, DesFiguresEqualPodsimRunOfTheEditedScenario) {
  const auto dir = temp_dir("des");
  const CliRun run =
      run_podsim("sweep " + sweep_file(dir, R"([{"pointer": "/tensors/x/shape/0", "values": [4096, 8192]}])").string() +
                 " --out " + (dir / "out").string() + " --model des --jobs 2");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  for (const Json& line : lines) {
    const CliRun single =
        run_podsim("run " + edited(kMlp, line["params"], dir / "point.json").string() + " --format json");
    ASSERT_EQ(single.code, 0) << single.err;
    const Json report = json_of(single);  // the range below must not be a temporary's member
    for (const auto& plan : report["plans"]) {
      const Json& entry = line["plans"][plan["name"].get<std::string>()];
      EXPECT_EQ(entry["des_time_s"].get<double>(), plan["des_time_s"].get<double>());
      EXPECT_EQ(entry["book_time_s"].get<double>(), plan["book_time_s"].get<double>());
      EXPECT_EQ(entry["memory_per_chip_bytes"], plan["memory"]["per_chip_bytes"]);
      EXPECT_EQ(entry["fits_hbm"], plan["memory"]["fits_hbm"]);
      EXPECT_EQ(entry["busiest_link"], plan["links"]["busiest_link"]);
    }
  }
  fs::remove_all(dir);
}

// Each point of a sweep over a model-level scenario against `podsim plan` of the point's scenario: its 3 best.
void compare_with_podsim_plan(const std::string& model, const std::string& plan_flags) {
  const auto dir = temp_dir("model_" + model);
  const auto base = dir / "toy.json";
  std::ofstream(base) << R"({"name": "toy-plan", "hardware": "tpu-v5e",
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "train", "batch_tokens": 65536, "seq_len": 1024, "checkpoints_per_layer": 1},
    "search": {"slices": [[2, 2], [4, 4]], "parallelism": ["data", "tensor"]}})";
  const auto sweep =
      sweep_file(dir, R"([{"pointer": "/workload/batch_tokens", "values": [65536, 131072]}])", base.string());
  const CliRun run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string() + " --model " + model);
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  for (const Json& line : lines) {
    const CliRun plan = run_podsim("plan " + edited(base.string(), line["params"], dir / "point.json").string() + " " +
                                   plan_flags + " --json");
    ASSERT_EQ(plan.code, 0) << plan.err;
    const auto candidates = json_of(plan)["candidates"];
    ASSERT_EQ(line["plans"].size(), 3u);
    for (std::size_t r = 0; r < 3; ++r) {
      const Json& entry = line["plans"]["rank" + std::to_string(r + 1)];
      EXPECT_EQ(candidates[r]["rank"], r + 1);
      EXPECT_EQ(entry["book_time_s"].get<double>(), candidates[r]["step_time_s"]["book"].get<double>());
      EXPECT_EQ(entry["des_time_s"].is_null(), model == "book");
      if (model != "book")
        EXPECT_EQ(entry["des_time_s"].get<double>(), candidates[r]["step_time_s"]["des"].get<double>());
      EXPECT_EQ(entry["memory_per_chip_bytes"], candidates[r]["memory_per_chip_bytes"]);
      EXPECT_EQ(entry["mfu"].get<double>(), candidates[r]["mfu"].get<double>());
      const auto& slice = candidates[r]["slice"];
      const std::string slice_text = std::to_string(slice[0].get<int>()) + "x" + std::to_string(slice[1].get<int>());
      EXPECT_EQ(entry["candidate"].get<std::string>().rfind("tpu-v5e " + slice_text + " ", 0), 0u)
          << entry["candidate"];
    }
  }
  fs::remove_all(dir);
}

// --uncalibrated: every point's des runs on the preset's own figures. A bidirectional ring all-gather over a
// wrapped ring of 4 v5e chips takes (N - 1)(alpha + S / (2 W)) = 3 (1 us + S / 9e10) with the preset's alpha = 1 us
// and W = 45 GB/s per direction; S = R / 4 x 8192 x 2 B for the points R = 256 and 2048.
TEST(SweepCli, UncalibratedDesTimesAreThePresetsClosedForm) {
  const auto dir = temp_dir("uncalibrated");
  const auto base = dir / "ring.json";
  std::ofstream(base) << R"({"name": "ring-gather", "hardware": "tpu-v5e",
    "slice": {"shape": [4], "wraparound": "all"}, "mesh": "X=4", "dtype": "bf16",
    "tensors": {"A": {"shape": [256, 8192], "sharding": "A[E_X, F]"}},
    "program": [{"op": "all_gather", "name": "gather", "tensor": "A", "axes": ["X"], "out": "A_full"}]})";
  const auto sweep = sweep_file(dir, R"([{"pointer": "/tensors/A/shape/0", "values": [256, 2048]}])", base.string());
  const CliRun run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string() +
                                " --model des --jobs 2 --uncalibrated");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  const CliRun calibrated_run =
      run_podsim("sweep " + sweep.string() + " --out " + (dir / "calibrated").string() + " --model des --jobs 2");
  ASSERT_EQ(calibrated_run.code, 0) << calibrated_run.err;
  const auto calibrated = sweep_records(dir / "calibrated");
  ASSERT_EQ(calibrated.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Json& line = lines[k];
    EXPECT_TRUE(line["error"].is_null()) << line.dump();
    EXPECT_EQ(line["uncalibrated"], true);
    EXPECT_FALSE(calibrated[k].contains("uncalibrated"));
    const double rows = line["params"]["/tensors/A/shape/0"].get<double>();
    const double shard = rows / 4 * 8192 * 2;
    const double expected = 3 * (1e-6 + shard / (2 * 4.5e10));
    ASSERT_FALSE(line["plans"].empty());
    for (const auto& [name, entry] : line["plans"].items()) {
      EXPECT_NEAR(entry["des_time_s"].get<double>(), expected, 1e-9 * expected) << name;
      // The preset's calibration (a fixed cost per step, a link efficiency below 1) makes the calibrated des slower.
      EXPECT_GT(calibrated[k]["plans"][name]["des_time_s"].get<double>(), 1.01 * expected) << name;
    }
  }
  // Resuming the uncalibrated folder with the calibration reuses none of its records.
  const CliRun resumed =
      run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string() + " --model des --jobs 1");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto after = sweep_records(dir / "out");
  ASSERT_EQ(after.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_FALSE(after[k].contains("uncalibrated"));
    EXPECT_EQ(after[k]["plans"], calibrated[k]["plans"]);
  }
  const CliRun book =
      run_podsim("sweep " + sweep.string() + " --out " + (dir / "book").string() + " --model book --uncalibrated");
  EXPECT_EQ(book.code, 2);
  EXPECT_NE(book.err.find("--uncalibrated"), std::string::npos) << book.err;
  fs::remove_all(dir);
}

TEST(SweepCli, ModelLevelPointsListThePlanSearchsBest) {
  compare_with_podsim_plan("book", "--model book");
}

TEST(SweepCli, ModelLevelPointsSimulateTheBestThree) {
  compare_with_podsim_plan("des", "--model both --top 3");
}

const std::string kTwelve = R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 2048, "stop": 8192, "step": 2048}},
                                {"pointer": "/hardware", "values": ["tpu-v5e", "tpu-v6e", "tpu-v5p"]}])";

TEST(SweepCli, JobsOneAndTwoWriteTheSameBytes) {
  const auto dir = temp_dir("jobs");
  const auto sweep = sweep_file(dir, kTwelve).string();
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "one").string() + " --jobs 1").code, 0);
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "two").string() + " --jobs 2").code, 0);
  EXPECT_EQ(sweep_records(dir / "one").size(), 12u);  // 4 batch sizes x 3 chips
  EXPECT_EQ(read_text(dir / "one" / "results.jsonl"), read_text(dir / "two" / "results.jsonl"));
  EXPECT_EQ(read_text(dir / "one" / "results.csv"), read_text(dir / "two" / "results.csv"));
  fs::remove_all(dir);
}

TEST(SweepCli, ResumeSkipsThePointsAlreadyWritten) {
  const auto dir = temp_dir("resume");
  const auto sweep = sweep_file(dir, kTwelve).string();
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "full").string() + " --jobs 2").code, 0);
  const std::string full = read_text(dir / "full" / "results.jsonl");
  // An interrupted run: 5 whole lines and half of the sixth.
  std::size_t cut = 0;
  for (int i = 0; i < 5; ++i)
    cut = full.find('\n', cut) + 1;
  fs::create_directories(dir / "part");
  std::ofstream(dir / "part" / "results.jsonl") << full.substr(0, cut + 40);
  const CliRun resumed = run_podsim("sweep " + sweep + " --out " + (dir / "part").string() + " --jobs 2");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("12 points (7 evaluated, 5 already there, 0 failed)"), std::string::npos) << resumed.out;
  EXPECT_EQ(read_text(dir / "part" / "results.jsonl"), full);
  EXPECT_EQ(read_text(dir / "part" / "results.csv"), read_text(dir / "full" / "results.csv"));
  // A written record is kept as it is, not evaluated again: a marker put in it survives the resume.
  std::string marked = full.substr(0, cut);
  marked.replace(marked.find("\"fits_hbm\":"), 11, "\"fits_hbm_kept\":");
  std::ofstream(dir / "part" / "results.jsonl", std::ios::trunc) << marked;
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "part").string()).code, 0);
  EXPECT_NE(read_text(dir / "part" / "results.jsonl").find("\"fits_hbm_kept\":"), std::string::npos);
  fs::remove_all(dir);
}

// Lines in results.jsonl, counted by their newlines.
std::size_t line_count(const fs::path& path) {
  const std::string text = read_text(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A long des sweep stopped by a signal once it has written 2 records: whole lines only, the CSV rewritten from them,
// exit 128 + the signal. The wait for the records polls the file; nothing here depends on how fast podsim is.
void stop_a_sweep_with(int signal) {
  const auto dir = temp_dir("signal" + std::to_string(signal));
  const auto sweep =
      sweep_file(dir, R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 256, "stop": 256000, "step": 256}}])");
  const auto out = dir / "out";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(PODSIM_BINARY, PODSIM_BINARY, "sweep", sweep.c_str(), "--out", out.c_str(), "--model", "des", "--jobs", "2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (line_count(out / "results.jsonl") < 2 && waitpid(pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, signal);
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  const std::string text = read_text(out / "results.jsonl");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto lines = sweep_records(out);
  EXPECT_GE(lines.size(), 2u);
  EXPECT_LT(lines.size(), 1000u);
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_EQ(lines[i]["point"], i);
  EXPECT_EQ(line_count(out / "results.csv"), lines.size() + 1);
  fs::remove_all(dir);
}

TEST(SweepCli, SigintLeavesWholeLinesAndTheCsvOfThem) {
  stop_a_sweep_with(SIGINT);
}

TEST(SweepCli, SigtermLeavesWholeLinesAndTheCsvOfThem) {
  stop_a_sweep_with(SIGTERM);
}

TEST(SweepCli, MergedShardsEqualOneRun) {
  const auto dir = temp_dir("shards");
  const auto sweep = sweep_file(dir, kTwelve).string();
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "one").string()).code, 0);
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s0").string() + " --shard 0/2").code, 0);
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s1").string() + " --shard 1/2 --jobs 1").code, 0);
  const auto shard1 = sweep_records(dir / "s1");
  ASSERT_EQ(shard1.size(), 6u);
  for (std::size_t i = 0; i < shard1.size(); ++i)
    EXPECT_EQ(shard1[i]["point"], 2 * i + 1);
  const CliRun merge = run_podsim("sweep merge " + (dir / "s1").string() + " " + (dir / "s0").string() + " --out " +
                                  (dir / "merged").string());
  ASSERT_EQ(merge.code, 0) << merge.err;
  EXPECT_EQ(read_text(dir / "merged" / "results.jsonl"), read_text(dir / "one" / "results.jsonl"));
  EXPECT_EQ(read_text(dir / "merged" / "results.csv"), read_text(dir / "one" / "results.csv"));
  fs::remove_all(dir);
}

// Issue 33, class 4: shards of two runs (book and des, or two sweeps) were joined into one results file.
TEST(SweepCli, MergeRefusesShardsOfTwoRuns) {
  const auto dir = temp_dir("two_runs");
  const auto sweep = sweep_file(dir, kTwelve).string();
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s0").string() + " --shard 0/2").code, 0);
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s1").string() + " --shard 1/2 --model des").code, 0);
  const std::string s0 = (dir / "s0" / "results.jsonl").string(), s1 = (dir / "s1" / "results.jsonl").string();
  CliRun merge = run_podsim("sweep merge " + (dir / "s0").string() + " " + (dir / "s1").string() + " --out " +
                            (dir / "merged").string());
  EXPECT_EQ(merge.code, 2);
  EXPECT_EQ(merge.err, "error: " + s1 + ": line 1: a record of another run: model des (the record at " + s0 +
                           ": line 1 has book), got: shards of two sweep runs\n");
  EXPECT_FALSE(fs::exists(dir / "merged" / "results.jsonl"));
  // A shard of another sweep (one parameter instead of two).
  const auto other = dir / "other.json";
  std::ofstream(other) << R"({"base": ")" << kMlp
                       << R"(", "parameters": [{"pointer": "/tensors/x/shape/0", "values": [2048, 4096]}]})";
  ASSERT_EQ(run_podsim("sweep " + other.string() + " --out " + (dir / "o").string() + " --shard 1/2").code, 0);
  merge = run_podsim("sweep merge " + (dir / "s0").string() + " " + (dir / "o").string() + " --out " +
                     (dir / "merged").string());
  EXPECT_EQ(merge.code, 2);
  EXPECT_NE(merge.err.find(": line 1: a record of another sweep: parameters "), std::string::npos) << merge.err;
  fs::remove_all(dir);
}

TEST(SweepCli, FilteredPointsHaveNoRecordAndKeepTheirIndices) {
  const auto dir = temp_dir("filter");
  const auto sweep = dir / "sweep.json";
  std::ofstream(sweep) << R"({"base": ")" << kMlp << R"(", "parameters": )" << kTwelve << R"(,
    "filter": [{"pointer": "/tensors/x/shape/0", "op": ">=", "value": 6144}]})";
  const CliRun run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("6 points (6 evaluated, 0 already there, 0 failed, 6 filtered out)"), std::string::npos)
      << run.out;
  // Batch sizes 2048, 4096, 6144, 8192 x 3 chips: points 6 to 11 have 6144 or 8192.
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 6u);
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_EQ(lines[i]["point"], i + 6);
  fs::remove_all(dir);
}

TEST(SweepCli, AnInvalidPointIsARecordAndTheSweepGoesOn) {
  const auto dir = temp_dir("invalid");
  const auto sweep = sweep_file(dir, R"([{"pointer": "/mesh", "values": ["X=4,Y=4", "X=4,Y=5"]}])");
  const CliRun run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("2 points (2 evaluated, 0 already there, 1 failed)"), std::string::npos) << run.out;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0]["error"].is_null());
  EXPECT_EQ(lines[0]["plans"].size(), 3u);
  EXPECT_EQ(lines[1]["params"]["/mesh"], "X=4,Y=5");
  EXPECT_EQ(lines[1]["error"], sweep.string() +
                                   "#point 1: /mesh: mesh mapping: axis \"Y\" size must equal the product of its "
                                   "dims' sizes, got: size 5 over dims [1] of slice 4x4 (product 4)");
  EXPECT_TRUE(lines[1]["plans"].empty());
  fs::remove_all(dir);
}

TEST(SweepCli, BadSweepFilesExit2Located) {
  const auto dir = temp_dir("bad");
  auto sweep = sweep_file(dir, R"([{"pointer": "/tensors/z/shape/0", "values": [1]}])");
  CliRun run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + sweep.string() +
                         ": /parameters/0/pointer: the pointer does not resolve in the base scenario, got: "
                         "\"/tensors/z/shape/0\"\n");
  std::ofstream(sweep) << R"({"base": ")" << kMlp << R"(", "paramters": []})";
  run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + sweep.string() +
                         ": /paramters: unknown key, got: \"paramters\" (did you mean \"parameters\"?)\n");
  run = run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string() + " --shard 2/2");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --shard: a shard is i/N with 0 <= i < N, got: \"2/2\"\n");
  // Issue 33, class 4: a worker count of 0 or below was taken as the default (or wrapped to 2^64 - 4).
  for (const char* jobs : {"0", "-4", "5000"}) {
    run = run_podsim("sweep " + sweep_file(dir, kTwoByTwo).string() + " --out " + (dir / "jobs").string() + " --jobs " +
                     jobs);
    EXPECT_EQ(run.code, 2) << jobs;
    EXPECT_EQ(run.err, std::string("error: --jobs: worker processes must be from 1 to 4096, got: ") + jobs + "\n");
    EXPECT_FALSE(fs::exists(dir / "jobs")) << "a refused sweep leaves no results folder";
  }
  // A results folder that cannot be made: the runner refuses its out_dir (SweepError), the CLI names --out.
  std::ofstream(dir / "a-file") << "not a folder";
  run = run_podsim("sweep " + sweep_file(dir, kTwoByTwo).string() + " --out " + (dir / "a-file" / "out").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --out: cannot create the folder, got: " + (dir / "a-file" / "out").string() + "\n");
  run = run_podsim("sweep merge " + (dir / "nothing").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + (dir / "nothing").string() + ": no results.jsonl in the folder\n");
  fs::remove_all(dir);
}

}  // namespace
