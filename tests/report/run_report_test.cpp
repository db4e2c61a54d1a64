// The text, JSON and CSV writers of `podsim run` on a hand-built two-plan scenario (sample_run.hpp); the expected
// lines are worked out from the chosen numbers, e.g. tp<x> holds 16 GiB + 3.25 GiB against 16 GiB of HBM.
#include "sim/report/run_report.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/report/text_table.hpp"
#include "sim/run/step_breakdown.hpp"
#include "tests/report/sample_run.hpp"
#include "tests/support/skip_unless_ci.hpp"

namespace podsim::report {
namespace {

using test::kGiB;
using test::kMiB;
using test::sample_run;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// True when some line matches `pattern` completely.
bool has_line(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  for (const auto& line : lines_of(text))
    if (std::regex_match(line, re)) return true;
  return false;
}

TEST(RunReportText, OpRowsShowDesBookRatioAndCollectives) {
  const std::string text = run_report_text(sample_run());
  // gather: des 6 - 2 = 4 us, book 2 us, ratio 2; h: 2 us over 2.5 us = 0.8.
  EXPECT_TRUE(
      has_line(text, R"(  gather +all_gather +4 us +2 us +2\.000 +bandwidth +2 MiB +all-gather X \(V=32 MiB\))"))
      << text;
  EXPECT_TRUE(has_line(text, R"(  h +matmul +2 us +2\.5 us +0\.800 +compute +0 B)")) << text;
  EXPECT_TRUE(has_line(text, R"(  out,"final" +matmul +3 us +5 us +0\.600 +compute +0 B +all-reduce X,Y \(V=1 GiB\); )"
                             R"(all-gather Y \(V=512 KiB\))"))
      << text;
  EXPECT_TRUE(has_line(text, R"(  total: des 7\.5 us, book 6 us, des/book 1\.250)")) << text;
  EXPECT_TRUE(has_line(text, R"(  critical path: h -> gather -> out)")) << text;
  EXPECT_TRUE(has_line(text, R"(  step on chip 2: compute 1\.5 us, exposed communication 4 us, bubble 2 us, DCN 0 s)"))
      << text;
}

TEST(RunReportText, TheSamplesStepBreakdownIsWhatStepBreakdownFinds) {
  // The sample's breakdown is worked by hand from its timeline; step_breakdown must agree.
  const PlanRun fsdp = sample_run().plans.at(0);
  const CriticalChipStep b = step_breakdown(*fsdp.graph, *fsdp.simulation, 3);
  EXPECT_EQ(b.critical_chip, fsdp.critical_chip);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, fsdp.step_breakdown.compute_s);
  EXPECT_DOUBLE_EQ(b.breakdown.exposed_communication_s, fsdp.step_breakdown.exposed_communication_s);
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, fsdp.step_breakdown.bubble_s);
  EXPECT_DOUBLE_EQ(b.op_exposed_s.at(1), fsdp.ops.at(1).exposed_communication_s);
}

TEST(RunReportText, ScheduleWaitsAndContention) {
  const std::string text = run_report_text(sample_run());
  EXPECT_TRUE(
      has_line(text, R"(  schedule: dataflow-hbm; out waits for gather to end \(else 1 GiB over HBM at 4 us\))"))
      << text;
  EXPECT_TRUE(has_line(text, R"(  schedule: dataflow)")) << text;
  EXPECT_TRUE(has_line(text, R"(  gather \(des/book 2\.000\) shared links with h; busiest shared link ici\.x\+\.0 )"
                             R"(\(2 MiB of gather\))"))
      << text;
}

TEST(RunReportText, MemoryFitAndLinks) {
  const std::string text = run_report_text(sample_run());
  EXPECT_TRUE(has_line(text, R"(    peak 12 GiB of 16 GiB HBM at 3 us on chip 2: fits)")) << text;
  EXPECT_TRUE(has_line(text, R"(    peak 19\.25 GiB of 16 GiB HBM at 1 us on chip 0: DOES NOT FIT by 3\.25 GiB)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(      alive then: W 8 GiB, x 4 GiB)")) << text;
  EXPECT_TRUE(has_line(text, R"(      alive then: W 16 GiB, y partial sums \(final\) 3\.25 GiB)")) << text;
  EXPECT_TRUE(has_line(text, R"(    closed form, ops one after another: peak 12 GiB)")) << text;
  EXPECT_TRUE(has_line(text, R"(    VMEM working set 64 MiB of 128 MiB: fits)")) << text;
  EXPECT_TRUE(
      has_line(text, R"(    VMEM working set 256 MiB of 128 MiB: streamed in tiles \(exceeds VMEM by 128 MiB\))"))
      << text;
  EXPECT_TRUE(has_line(text, R"(    W +W\[D_X, F\] +128x512 +8 GiB +32 GiB)")) << text;
  EXPECT_TRUE(
      has_line(text, R"(  busiest link: ici\.x\+\.0, 2 MiB, utilisation 40\.0% \(all links 3 MiB, 2 messages\))"))
      << text;
  EXPECT_TRUE(has_line(text, R"(  busiest link: none \(no chip-to-chip traffic\))")) << text;
  EXPECT_TRUE(has_line(text, R"(  values: DO NOT MATCH the dense reference \(max abs error 0\.5\))")) << text;
}

TEST(RunReportText, ComparisonAndVerdict) {
  const std::string text = run_report_text(sample_run());
  // tp<x> is faster (5 us < 7.5 us) but does not fit; fsdp is the fastest that fits.
  EXPECT_TRUE(has_line(text, R"(  fsdp +7\.5 us +6 us +1\.250 +12 GiB +yes +fastest that fits)")) << text;
  EXPECT_TRUE(has_line(text, R"(  tp<x> +5 us +5 us +1\.000 +19\.25 GiB +no +fastest)")) << text;
  EXPECT_TRUE(
      has_line(text, R"(verdict: fastest plan that fits: fsdp \(fastest overall: tp<x>, DOES NOT FIT by 3\.25 GiB\))"))
      << text;
}

TEST(RunReportText, ChecksOneLineEach) {
  const std::string text = run_report_text(sample_run());
  EXPECT_TRUE(has_line(text, "checks: 2 of 3 passed")) << text;
  EXPECT_TRUE(has_line(text, R"(  PASS +fsdp: op h time_s \(des\) +2e-06 +2e-06 +rel 0\.05 +hand-worked)")) << text;
  EXPECT_TRUE(has_line(text, R"(  FAIL +tp<x>: fits_hbm +false +true +exact +capacity plan)")) << text;
  EXPECT_TRUE(has_line(text, R"(  PASS +fsdp: local shape of W +\[128, 512\] +\[128, 512\] +exact)")) << text;
}

TEST(RunReportText, FitsIn120ColumnsAndSinglePlanHasNoComparison) {
  ScenarioRun run = sample_run();
  for (const auto& line : lines_of(run_report_text(run)))
    EXPECT_LE(display_width(line), 120u) << line;
  run.plans.resize(1);
  const std::string text = run_report_text(run);
  EXPECT_EQ(text.find("verdict"), std::string::npos) << text;
  EXPECT_FALSE(has_line(text, "plans")) << text;
}

TEST(RunReportText, NoPlanFits) {
  ScenarioRun run = sample_run();
  run.plans[0].fits_hbm = false;
  EXPECT_TRUE(has_line(run_report_text(run), "verdict: no plan fits in HBM; fastest plan: tp<x>"));
}

TEST(RunReportHelpers, FitAndTolerance) {
  EXPECT_EQ(fit_text(16 * kGiB, 16 * kGiB), "fits");
  EXPECT_EQ(fit_text(16 * kGiB + 1, 16 * kGiB), "DOES NOT FIT by 1 B");
  EXPECT_EQ(fit_text(1, 0), "capacity unknown");
  CheckResult check;
  EXPECT_EQ(tolerance_text(check), "exact");
  check.rel_tol = 0.01;
  check.abs_tol = 1e-9;
  EXPECT_EQ(tolerance_text(check), "rel 0.01, abs 1e-09");
  EXPECT_FALSE(des_over_book(1, 0).has_value());
  EXPECT_DOUBLE_EQ(*des_over_book(3, 2), 1.5);
}

TEST(RunReportJson, ScenarioPlansAndComparison) {
  const nlohmann::json j = run_report_json(sample_run());
  EXPECT_EQ(j.at("schema"), "podsim/1");
  EXPECT_EQ(j.at("scenario").at("name"), "mlp");
  EXPECT_EQ(j.at("scenario").at("hardware"), "tpu-v5e");
  EXPECT_EQ(j.at("scenario").at("slice"), nlohmann::json::array({4}));
  EXPECT_EQ(j.at("scenario").at("wraparound"), nlohmann::json::array({true}));
  ASSERT_EQ(j.at("plans").size(), 2u);
  const auto& fsdp = j.at("plans").at(0);
  EXPECT_EQ(fsdp.at("name"), "fsdp");
  EXPECT_DOUBLE_EQ(fsdp.at("des_time_s").get<double>(), 7.5e-6);
  EXPECT_DOUBLE_EQ(fsdp.at("ratio_des_over_book").get<double>(), 1.25);
  EXPECT_EQ(fsdp.at("critical_path"), nlohmann::json::array({"h", "gather", "out"}));
  EXPECT_EQ(fsdp.at("critical_chip"), 2);
  EXPECT_EQ(
      fsdp.at("step_breakdown"),
      (nlohmann::json{{"compute_s", 1.5e-6}, {"exposed_communication_s", 4e-6}, {"bubble_s", 2e-6}, {"dcn_s", 0.0}}));
  EXPECT_FALSE(fsdp.contains("values_match"));
  const auto& gather = fsdp.at("ops").at(1);
  EXPECT_EQ(gather.at("name"), "gather");
  EXPECT_DOUBLE_EQ(gather.at("ratio_des_over_book").get<double>(), 2.0);
  EXPECT_TRUE(gather.at("matmul_case").is_null());
  EXPECT_EQ(gather.at("bytes_sent"), 2 * kMiB);
  EXPECT_DOUBLE_EQ(gather.at("exposed_communication_s").get<double>(), 4e-6);
  EXPECT_EQ(gather.at("collectives").at(0).at("kind"), "all-gather");
  EXPECT_EQ(gather.at("collectives").at(0).at("array_bytes"), 32 * kMiB);
  EXPECT_EQ(fsdp.at("ops").at(0).at("matmul_case"), 1);
  EXPECT_EQ(fsdp.at("memory").at("per_chip_bytes"), 12 * kGiB);
  EXPECT_DOUBLE_EQ(fsdp.at("memory").at("peak_time_s").get<double>(), 3e-6);
  EXPECT_EQ(fsdp.at("memory").at("peak_chip"), 2);
  EXPECT_EQ(fsdp.at("memory").at("alive_at_peak").at(0).at("buffer"), "W");
  EXPECT_TRUE(fsdp.at("memory").at("alive_at_peak").at(0).at("op").is_null());
  EXPECT_EQ(fsdp.at("memory").at("alive_at_peak").at(1).at("bytes"), 4 * kGiB);
  EXPECT_EQ(fsdp.at("memory").at("book_per_chip_bytes"), 12 * kGiB);
  EXPECT_EQ(fsdp.at("schedule"), "dataflow-hbm");
  EXPECT_EQ(fsdp.at("waits").at(0).at("op"), "out");
  EXPECT_EQ(fsdp.at("waits").at(0).at("after"), "gather");
  EXPECT_EQ(fsdp.at("waits").at(0).at("excess_bytes"), kGiB);
  EXPECT_EQ(gather.at("contention").at("shared_with"), nlohmann::json::array({"h"}));
  EXPECT_EQ(gather.at("contention").at("busiest_shared_link"), "ici.x+.0");
  EXPECT_TRUE(fsdp.at("ops").at(0).at("contention").is_null());
  EXPECT_EQ(fsdp.at("memory").at("tensors").at(0).at("local_shape"), nlohmann::json::array({128, 512}));
  EXPECT_EQ(fsdp.at("links").at("busiest_link"), "ici.x+.0");
  // Links without bytes are not listed; most bytes first.
  ASSERT_EQ(fsdp.at("links").at("busiest").size(), 2u);
  EXPECT_EQ(fsdp.at("links").at("busiest").at(1).at("name"), "ici.x+.1");

  const auto& tp = j.at("plans").at(1);
  EXPECT_FALSE(tp.at("memory").at("fits_hbm").get<bool>());
  EXPECT_EQ(tp.at("memory").at("over_hbm_bytes"), 3 * kGiB + 256 * kMiB);
  EXPECT_EQ(tp.at("values_match"), false);
  EXPECT_TRUE(tp.at("links").at("busiest_link").is_null());
  EXPECT_EQ(j.at("comparison").at("fastest"), "tp<x>");
  EXPECT_EQ(j.at("comparison").at("fastest_fitting"), "fsdp");
}

TEST(RunReportJson, Checks) {
  const nlohmann::json j = run_report_json(sample_run());
  ASSERT_EQ(j.at("checks").size(), 3u);
  EXPECT_EQ(j.at("checks").at(0).at("pointer"), "/expect/0");
  EXPECT_DOUBLE_EQ(j.at("checks").at(0).at("value").get<double>(), 2e-6);
  EXPECT_DOUBLE_EQ(j.at("checks").at(0).at("rel_tol").get<double>(), 0.05);
  EXPECT_EQ(j.at("checks").at(1).at("value"), false);
  EXPECT_EQ(j.at("checks").at(1).at("passed"), false);
  EXPECT_EQ(j.at("checks").at(2).at("target"), nlohmann::json::array({128, 512}));
  EXPECT_EQ(j.at("checks_passed"), false);
}

TEST(RunReportJson, SeveralScenarios) {
  ScenarioRun passing = sample_run();
  passing.name = "second";
  passing.checks.erase(passing.checks.begin() + 1);
  EXPECT_TRUE(run_report_json(std::vector<ScenarioRun>{passing}).at("checks_passed").get<bool>());
  EXPECT_EQ(run_report_json(std::vector<ScenarioRun>{passing}).at("scenario").at("name"), "second");
  const nlohmann::json j = run_report_json(std::vector<ScenarioRun>{sample_run(), passing});
  EXPECT_EQ(j.at("schema"), "podsim/1");
  ASSERT_EQ(j.at("scenarios").size(), 2u);
  EXPECT_EQ(j.at("scenarios").at(1).at("scenario").at("name"), "second");
  EXPECT_FALSE(j.at("checks_passed").get<bool>());
}

// Validates against docs/report.schema.json with python3's jsonschema module (skipped without it, failed in CI).
TEST(RunReportJson, MatchesTheDocumentedSchema) {
  if (std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
    PODSIM_SKIP_OR_FAIL_IN_CI("no python3 jsonschema");
  const auto dir = std::filesystem::temp_directory_path() / ("podsim_schema_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto one = dir / "one.json", many = dir / "many.json";
  std::ofstream(one) << run_report_json(sample_run()).dump(2);
  std::ofstream(many) << run_report_json(std::vector<ScenarioRun>{sample_run(), sample_run()}).dump(2);
  const std::string schema = std::string(PODSIM_SOURCE_DIR) + "/docs/report.schema.json";
  for (const auto& file : {one, many}) {
    const std::string command =
        "python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), "
        "json.load(open(sys.argv[1])))' " +
        schema + " " + file.string();
    EXPECT_EQ(std::system(command.c_str()), 0) << file;
  }
  std::filesystem::remove_all(dir);
}

// Splits RFC 4180 CSV text into records of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',' || ch == '\n') {
      records.back().push_back(field);
      field.clear();
      if (ch == '\n') records.emplace_back();
    } else {
      field += ch;
    }
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

TEST(RunReportCsv, OneRowPerPlanAndOpWithQuoting) {
  std::ostringstream out;
  write_run_csv({sample_run()}, out);
  const auto records = parse_csv(out.str());
  ASSERT_EQ(records.size(), 5u) << out.str();  // header + 3 fsdp ops + 1 tp op
  EXPECT_EQ(records[0],
            (std::vector<std::string>{"scenario", "plan", "op", "kind", "des_time_s", "book_time_s", "ratio", "bound",
                                      "flops", "bytes_sent", "collectives", "exposed_communication_s"}));
  for (const auto& record : records)
    EXPECT_EQ(record.size(), 12u);
  EXPECT_EQ(records[2], (std::vector<std::string>{"mlp", "fsdp", "gather", "all_gather", "4e-06", "2e-06", "2",
                                                  "bandwidth", "0", "2097152", "all-gather X (V=32 MiB)", "4e-06"}));
  EXPECT_EQ(records[4][1], "tp<x>");
  EXPECT_EQ(records[4][2], "out,\"final\"");
  EXPECT_EQ(records[4][6], "0.6");
  EXPECT_EQ(records[4][8], "4e+09");  // 9 significant digits
  EXPECT_EQ(records[4][10], "all-reduce X,Y (V=1 GiB); all-gather Y (V=512 KiB)");
  // The raw line quotes the op name and the collectives, doubling the inner quotes.
  EXPECT_NE(out.str().find("mlp,tp<x>,\"out,\"\"final\"\"\",matmul,"), std::string::npos) << out.str();
}

TEST(RunReportCsv, FieldQuoting) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

// Issue 33, class 8: a cell a spreadsheet would run as a formula is text, with ' first (OWASP's CSV injection rule);
// plain numbers, however they begin, stay numbers.
TEST(RunReportCsv, FormulasBecomeText) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(csv_field("=1+1"), "'=1+1");
  EXPECT_EQ(csv_field("+cmd"), "'+cmd");
  EXPECT_EQ(csv_field("-2+3"), "'-2+3");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("\tx"), "'\tx");
  EXPECT_EQ(csv_field("\rx"), "\"'\rx\"");
  EXPECT_EQ(csv_field("-1.5"), "-1.5");
  EXPECT_EQ(csv_field("+2e3"), "+2e3");
  EXPECT_EQ(csv_field("-inf"), "'-inf");
  EXPECT_EQ(csv_field("-"), "'-");
  EXPECT_EQ(csv_field("a=b"), "a=b");
}

TEST(TextTable, AlignsColumnsAndTrimsTrailingSpaces) {
  TextTable table({"name", "size", "note"}, {TextTable::Align::left, TextTable::Align::right});
  table.add_row({"a", "1 MiB", ""});
  table.add_row({"µs-long", "2 B", "x"});
  EXPECT_EQ(table.render("  "), "  name      size  note\n  a        1 MiB\n  µs-long    2 B  x\n");
  EXPECT_THROW(table.add_row({"1", "2", "3", "4"}), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::report
