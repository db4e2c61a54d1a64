// `podsim run` of a model-level scenario end to end: the JSON's keys (the op-level run's where they mean the same),
// the CSV header and rows, the text's step line, the HTML report's figures, and the options it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "tests/cli/cli_run.hpp"
#include "tests/support/test_checks.hpp"

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

TEST(ModelRunCli, RefusesScheduleAndMixing) {
  const fs::path file = write_scenario();
  const std::string f = file.string();
  const auto schedule = test::run_podsim("run " + f + " --schedule dataflow");
  const auto mixed = test::run_podsim("run " + f + " " + std::string(PODSIM_SOURCE_DIR) +
                                      "/scenarios/examples/jax-sharded-matmul.json");
  fs::remove(file);
  EXPECT_EQ(schedule.code, 2);
  EXPECT_EQ(schedule.err.rfind("error: --schedule: ", 0), 0u) << schedule.err;
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("separate commands"), std::string::npos) << mixed.err;
}

// `podsim run SCENARIO ARGS --report FILE` (the scenario removed after): the run and the page it wrote.
struct ReportRun {
  test::CliRun run;
  std::string html;
};
ReportRun run_with_report(const fs::path& scenario, const std::string& args) {
  const fs::path html_path = scenario.string() + ".html";
  ReportRun out{test::run_podsim("run " + scenario.string() + args + " --report " + html_path.string()), ""};
  fs::remove(scenario);
  std::ifstream in(html_path);
  std::stringstream text;
  text << in.rdbuf();
  out.html = text.str();
  fs::remove(html_path);
  return out;
}

// `1.234 ms`, `567.8 us`: four significant digits, as the reports print seconds (docs/report-format.md).
std::string seconds_text(double s) {
  if (s >= 1) return fmt::format("{:.4g} s", s);
  if (s >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} us", s * 1e6);
}

TEST(ModelRunCli, ReportShowsTheStepMemoryByKindMfuAndTheOpsWithRepeats) {
  const auto [run, html] = run_with_report(write_scenario(), " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto plan = nlohmann::json::parse(run.out)["plans"][0];
  // The op-level page's family: its head, stylesheet and scenario header.
  const fs::path op_level = fs::temp_directory_path() / ("model_run_cli_op_" + std::to_string(getpid()) + ".json");
  fs::copy_file(std::string(PODSIM_SOURCE_DIR) + "/scenarios/examples/jax-sharded-matmul.json", op_level,
                fs::copy_options::overwrite_existing);
  const auto op_page = run_with_report(op_level, "").html;
  const std::size_t style = op_page.find("<style>");
  ASSERT_NE(style, std::string::npos);
  EXPECT_NE(html.find(op_page.substr(style, op_page.find("</style>") - style)), std::string::npos);
  EXPECT_NE(html.find("<h1>podsim run</h1>"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"facts\">\n<tr><td>file</td>"), std::string::npos);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained
  EXPECT_NE(html.find("<h2>Scenario two-layers</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h3>Plan dp-fsdp</h3>"), std::string::npos);
  EXPECT_NE(html.find("data=X fsdp=Y on mesh X=2,Y=2,Z=1, 4 chips, 1 microbatch, no remat"), std::string::npos);
  // The step times, des and book, as the JSON gives them (the page prints four significant digits).
  const double des = plan["des_time_s"].get<double>(), book = plan["book_time_s"].get<double>();
  EXPECT_NE(html.find("<div class=\"label\">step (des)</div><div class=\"value\">" + seconds_text(des) + "</div>"),
            std::string::npos)
      << seconds_text(des);
  EXPECT_NE(html.find("<div class=\"label\">step (book)</div><div class=\"value\">" + seconds_text(book) + "</div>"),
            std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">" + fmt::format("{:.1f}%", 100 * plan["mfu"].get<double>()) + "</div>"),
            std::string::npos);
  // Memory per chip by kind, by hand: per layer 4 d^2 (q, k, v, o; 8 heads of 128 = d) + 3 d f (gate, up, down) + 2 d
  // (norms); the embedding and unembedding V d each, the final norm d: 100,668,416 parameters, in bf16, sharded
  // over fsdp's Y (2 chips): 100,668,416 bytes per chip = 96 MiB, the gradients the same, Adam's two fp32 moments
  // four times that (384 MiB).
  const std::uint64_t d = 1024, f = 4096, v = 32768;
  const std::uint64_t params = 2 * (4 * d * d + 3 * d * f + 2 * d) + 2 * v * d + d;
  EXPECT_EQ(params, 100668416u);
  EXPECT_EQ(plan["memory"]["by_kind"]["params"].get<std::uint64_t>(), params * 2 / 2);
  EXPECT_EQ(plan["memory"]["by_kind"]["grads"].get<std::uint64_t>(), params * 2 / 2);
  EXPECT_EQ(plan["memory"]["by_kind"]["optimizer"].get<std::uint64_t>(), params * 8 / 2);
  EXPECT_NE(html.find("<tr><td>params</td><td class=\"num\">96 MiB</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>grads</td><td class=\"num\">96 MiB</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>optimizer</td><td class=\"num\">384 MiB</td>"), std::string::npos);
  EXPECT_NE(html.find("of 95 GiB HBM: <span class=\"pass\">fits</span>"), std::string::npos);  // v5p: 95 GiB per chip
  // The op table: one row per op of the JSON; a layer's op runs once per layer (2), the embedding once.
  EXPECT_EQ(test::count_of(html, "<td>layer</td>") + test::count_of(html, "<td>first</td>") +
                test::count_of(html, "<td>last</td>"),
            plan["ops"].size());
  EXPECT_NE(html.find("<tr><td>q</td><td>matmul</td><td>forward</td><td>layer</td><td class=\"num\">2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>embed</td><td>elementwise</td><td>forward</td><td>first</td><td class=\"num\">1</td>"),
            std::string::npos);
  // The breakdown's four parts, as the JSON's.
  const auto& b = plan["step_breakdown"];
  EXPECT_NE(html.find(fmt::format(
                "Step (des): compute {}, exposed communication {}, bubble {}, DCN ",
                seconds_text(b["compute_s"].get<double>()), seconds_text(b["exposed_communication_s"].get<double>()),
                b["bubble_s"].get<double>() == 0 ? "0 s" : seconds_text(b["bubble_s"].get<double>()))),
            std::string::npos);
}

TEST(ModelRunCli, ReportOfAPlanThatDoesNotFitSaysItWasNotSimulated) {
  // 2 layers of d = 16384, f = 65536 and a 32768-token vocabulary: 2 (4 d^2 + 3 d f) + 2 V d = 9.7e9 parameters, 19
  // GB in bf16 on one chip, as much again of gradients and 78 GB of Adam moments: over a v5p's 95 GiB.
  const fs::path file = fs::temp_directory_path() / ("model_run_cli_big_" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << R"({"name": "big", "description": "a <b> & c", "hardware": "tpu-v5p",
    "slice": {"shape": [1, 1, 1]},
    "model": {"layers": 2, "d_model": 16384, "d_ff": 65536, "heads": 128, "kv_heads": 128, "head_dim": 128,
              "vocab": 32768},
    "workload": {"mode": "train", "batch_tokens": 2048, "seq_len": 2048},
    "plans": [{"name": "one", "parallelism": {}}]})";
  const auto [run, html] = run_with_report(file, "");
  ASSERT_EQ(run.code, 0) << run.err;
  for (const char* text :
       {"<p>a &lt;b&gt; &amp; c</p>", "<span class=\"fail\">Not simulated:</span>", "des: not simulated",
        "<div class=\"label\">step (des)</div><div class=\"value\">-</div>", "No plan fits in HBM; fastest plan: one",
        "<div class=\"figure over\"><div class=\"label\">memory per chip</div>"})
    EXPECT_NE(html.find(text), std::string::npos) << text;
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
