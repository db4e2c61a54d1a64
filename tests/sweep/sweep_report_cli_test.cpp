// `podsim sweep ... --report FILE.html` and `podsim sweep report DIR... --report FILE.html` end to end
// (docs/sweeps.md, "Report"): the records' chips and HBM per plan (the sizes the report's front and HBM lines need),
// the report of a run equal to the report of its shards, and bad folders, records and paths exit 2 located.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"
#include "tests/support/sweep_files.hpp"
#include "tests/support/test_checks.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::run_podsim;
namespace fs = std::filesystem;
using podsim::test::read_text;
using podsim::test::sweep_file;
using podsim::test::sweep_records;
using Json = nlohmann::ordered_json;

// A fresh folder for one test.
fs::path report_dir(const std::string& name) {
  return podsim::test::fresh_dir("podsim_sweep_report", name);
}

// The table data the page's script receives: equal data, equal table.
std::string table_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"sweep-rows\">";
  const auto start = html.find(open);
  if (start == std::string::npos) return "";
  return html.substr(start + open.size(), html.find("</script>", start) - start - open.size());
}

const std::string kFour = R"([{"pointer": "/tensors/x/shape/0", "values": [4096, 16384]},
                              {"pointer": "/hardware", "values": ["tpu-v5e", "tpu-v6e"]}])";

// The MLP example runs on a 4x4 slice: 16 chips for every plan; HBM per chip of the point's chip.
TEST(SweepReportCli, RecordsCarryChipsAndHbmAfterTheContractKeys) {
  const auto dir = report_dir("chips");
  const CliRun run = run_podsim("sweep " + sweep_file(dir, kFour).string() + " --out " + (dir / "out").string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 4u);
  for (const Json& line : lines) {
    for (const auto& [name, entry] : line["plans"].items()) {
      std::vector<std::string> keys;
      for (const auto& [key, value] : entry.items())
        keys.push_back(key);
      EXPECT_EQ(keys, (std::vector<std::string>{"des_time_s", "book_time_s", "memory_per_chip_bytes", "fits_hbm",
                                                "busiest_link", "mfu", "chips", "hbm_bytes"}));
      EXPECT_EQ(entry["chips"], 16) << name;
    }
  }
  // HBM per chip: 16 GiB on a v5e, 32 GiB on a v6e (configs/tpu-v5e.json, tpu-v6e.json).
  EXPECT_EQ(lines[0]["plans"]["dp"]["hbm_bytes"], 16ull << 30);
  EXPECT_EQ(lines[1]["plans"]["dp"]["hbm_bytes"], 32ull << 30);
  const std::string csv = read_text(dir / "out" / "results.csv");
  EXPECT_NE(csv.find("dp.mfu,dp.chips,dp.hbm_bytes,fsdp.des_time_s"), std::string::npos) << csv.substr(0, 300);
  fs::remove_all(dir);
}

// A model-level point's candidates: chips of the candidate's slice, and with a price the cost per million tokens,
// price x chips x step time / 3600 / tokens per step x 10^6 (docs/capacity.md).
TEST(SweepReportCli, RankedCandidatesCarryChipsAndCost) {
  const auto dir = report_dir("model");
  const auto base = dir / "toy.json";
  std::ofstream(base) << R"({"name": "toy-plan", "hardware": "tpu-v5e", "price_per_chip_hour": 1.2,
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "train", "batch_tokens": 65536, "seq_len": 1024, "checkpoints_per_layer": 1},
    "search": {"slices": [[2, 2], [4, 4]], "parallelism": ["data", "tensor"]}})";
  const auto sweep =
      sweep_file(dir, R"([{"pointer": "/workload/batch_tokens", "values": [65536, 131072]}])", base.string());
  const auto html = dir / "report.html";
  const CliRun run =
      run_podsim("sweep " + sweep.string() + " --out " + (dir / "out").string() + " --report " + html.string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  for (const Json& line : lines) {
    const double tokens = line["params"]["/workload/batch_tokens"].get<double>();
    for (const auto& [rank, entry] : line["plans"].items()) {
      const std::string label = entry["candidate"].get<std::string>();
      const std::int64_t chips = label.rfind("tpu-v5e 2x2 ", 0) == 0 ? 4 : 16;
      EXPECT_EQ(label.rfind(chips == 4 ? "tpu-v5e 2x2 " : "tpu-v5e 4x4 ", 0), 0u) << label;
      EXPECT_EQ(entry["chips"], chips) << label;
      EXPECT_EQ(entry["hbm_bytes"], 16ull << 30);
      const double step = entry["book_time_s"].get<double>();
      EXPECT_NEAR(entry["cost_per_million_tokens"].get<double>(), 1.2 * chips * step / 3600 / tokens * 1e6,
                  1e-12 * entry["cost_per_million_tokens"].get<double>());
    }
  }
  const std::string page = read_text(html);
  EXPECT_NE(page.find("Pareto front: step time against cost per million tokens"), std::string::npos);
  EXPECT_NE(run.out.find(html.string() + ": the report of 2 points"), std::string::npos) << run.out;
  fs::remove_all(dir);
}

// A decode sweep's candidates: the label has no microbatches or remat (serving has neither), and the token latency
// is one decode step (the book step, under --model book).
TEST(SweepReportCli, DecodeCandidatesCarryTheirTokenLatency) {
  const auto dir = report_dir("decode");
  const auto base = dir / "toy.json";
  std::ofstream(base) << R"({"name": "toy-decode", "hardware": "tpu-v5e",
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "decode", "batch": 8, "context": 1024},
    "search": {"slices": [[2, 2]], "parallelism": ["data", "tensor"]}})";
  const auto sweep = sweep_file(dir, R"([{"pointer": "/workload/batch", "values": [8, 16]}])", base.string());
  const CliRun run = run_podsim("sweep " + sweep.string() + " --model book --out " + (dir / "out").string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  for (const Json& line : lines) {
    ASSERT_FALSE(line["plans"].empty()) << line;
    for (const auto& [rank, entry] : line["plans"].items()) {
      const std::string label = entry["candidate"].get<std::string>();
      EXPECT_EQ(label.find("microbatches"), std::string::npos) << label;
      EXPECT_EQ(label.find("remat"), std::string::npos) << label;
      EXPECT_EQ(entry["token_latency_s"].get<double>(), entry["book_time_s"].get<double>()) << label;
    }
  }
  fs::remove_all(dir);
}

// A sweep of a goal's deadline: each ranked candidate carries its expected days, cost and whether it meets the goal,
// as `podsim plan --json` gives them; cost is price x chips x 24 x days (docs/capacity.md, "Goals").
TEST(SweepReportCli, RankedCandidatesOfAGoalCarryDaysAndCost) {
  const auto dir = report_dir("goal");
  const auto base = dir / "toy.json";
  std::ofstream(base) << R"({"name": "toy-goal", "hardware": "tpu-v5e", "price_per_chip_hour": {"tpu-v5e": 1.2},
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "train", "batch_tokens": 65536, "seq_len": 1024, "checkpoints_per_layer": 1},
    "search": {"slices": [[2, 2], [4, 4]], "parallelism": ["data"]},
    "goal": {"train_tokens": 1e9, "deadline_days": 1}})";
  const auto sweep = sweep_file(dir, R"([{"pointer": "/goal/deadline_days", "values": [1e-9, 1000]}])", base.string());
  const auto html = dir / "report.html";
  const CliRun run = run_podsim("sweep " + sweep.string() + " --model book --out " + (dir / "out").string() +
                                " --report " + html.string());
  ASSERT_EQ(run.code, 0) << run.err;
  const auto lines = sweep_records(dir / "out");
  ASSERT_EQ(lines.size(), 2u);
  for (const Json& line : lines) {
    const bool generous = line["params"]["/goal/deadline_days"].get<double>() > 1;
    ASSERT_FALSE(line["plans"].empty());
    for (const auto& [rank, entry] : line["plans"].items()) {
      const double days = entry["time_to_train_days"].get<double>();
      const double chips = entry["chips"].get<double>();
      EXPECT_NEAR(entry["cost_usd"].get<double>(), 1.2 * chips * 24 * days, 1e-9 * 1.2 * chips * 24 * days);
      EXPECT_EQ(entry["meets_goal"], generous) << rank;  // no run takes a nanoday; none takes 1,000 days
      EXPECT_TRUE(entry["energy_kwh"].is_number());
    }
  }
  const std::string page = read_text(html);
  EXPECT_NE(page.find("days to train (expected) against /goal/deadline_days"), std::string::npos);
  EXPECT_NE(page.find("cost to train (USD) against /goal/deadline_days"), std::string::npos);
  fs::remove_all(dir);
}

// A sweep with a failing point: the page lists it; `sweep report` of the two shards draws the same table as the
// report of one run.
TEST(SweepReportCli, ReportOfShardsEqualsReportOfOneRun) {
  const auto dir = report_dir("shards");
  const auto sweep = sweep_file(dir, R"([{"pointer": "/tensors/x/shape/0", "values": [4096, 16384]},
                                         {"pointer": "/mesh", "values": ["X=4,Y=4", "X=4,Y=5"]}])")
                         .string();
  const auto one = dir / "one.html";
  CliRun run = run_podsim("sweep " + sweep + " --out " + (dir / "one").string() + " --report " + one.string());
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s0").string() + " --shard 0/2").code, 0);
  ASSERT_EQ(run_podsim("sweep " + sweep + " --out " + (dir / "s1").string() + " --shard 1/2").code, 0);
  const auto merged = dir / "merged.html";
  run = run_podsim("sweep report " + (dir / "s1").string() + " " + (dir / "s0").string() + " --report " +
                   merged.string());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, merged.string() + ": the report of 4 points\n");
  const std::string a = read_text(one), b = read_text(merged);
  ASSERT_FALSE(table_data(a).empty());
  EXPECT_EQ(table_data(a), table_data(b));
  // 2 of 4 points failed (Y=5 on a 4x4 slice); the others have 3 plans each.
  EXPECT_NE(a.find("<h2>Failed points (2)</h2>"), std::string::npos);
  EXPECT_NE(a.find("4 points (2 ran, 2 failed), 6 plans of points"), std::string::npos);
  EXPECT_NE(b.find((dir / "s1" / "results.jsonl").string() + ", " + (dir / "s0" / "results.jsonl").string()),
            std::string::npos);
  // Per parameter, the book time and memory charts (two parameters: four charts), plus the Pareto front.
  EXPECT_EQ(podsim::test::count_of(a, "<svg class=\"chart\""), 4u);
  EXPECT_EQ(podsim::test::count_of(a, "<svg class=\"chart pareto\""), 1u);
  fs::remove_all(dir);
}

TEST(SweepReportCli, BadFoldersRecordsAndPathsExit2Located) {
  const auto dir = report_dir("bad");
  const auto html = (dir / "r.html").string();
  CliRun run = run_podsim("sweep report " + (dir / "nothing").string() + " --report " + html);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + (dir / "nothing").string() + ": no results.jsonl in the folder\n");
  fs::create_directories(dir / "broken");
  std::ofstream(dir / "broken" / "results.jsonl") << "{\"point\": 0\n";
  run = run_podsim("sweep report " + (dir / "broken").string() + " --report " + html);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + (dir / "broken" / "results.jsonl").string() + ": line 1: not a JSON line\n");
  std::ofstream(dir / "broken" / "results.jsonl", std::ios::trunc)
      << R"({"point":3,"params":{},"hash":"0","model":"book","error":null,"plans":{"dp":{"chips":-1}}})"
      << "\n";
  run = run_podsim("sweep report " + (dir / "broken").string() + " --report " + html);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + (dir / "broken" / "results.jsonl").string() +
                         ": point 3: /plans/dp/chips: must be a whole number above 0 or null, got: -1\n");
  // A report that cannot be written stops the sweep before any point runs.
  const auto sweep = sweep_file(dir, R"([{"pointer": "/tensors/x/shape/0", "values": [4096]}])").string();
  const std::string nowhere = (dir / "no-such-folder" / "r.html").string();
  run = run_podsim("sweep " + sweep + " --out " + (dir / "out").string() + " --report " + nowhere);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --report: cannot write the file (No such file or directory), got: " + nowhere + "\n");
  EXPECT_FALSE(fs::exists(dir / "out" / "results.jsonl"));
  run = run_podsim("sweep report " + (dir / "broken").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--report is required"), std::string::npos) << run.err;
  fs::remove_all(dir);
}

}  // namespace
