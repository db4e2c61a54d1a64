// The sweep report's data and page (sim/report/sweep_report_*.hpp) on hand-made records: the Pareto front of a set
// whose front is known by inspection, records read in point order with located errors, the table's rows and
// columns, and every string from the records escaped in the page, in its SVG titles and in its script's data.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "models/common/error.hpp"
#include "sim/report/sweep_report_charts.hpp"
#include "sim/report/sweep_report_html.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::report {
namespace {

using Json = nlohmann::ordered_json;

// A record of point `point` with parameter /n = n and `plans` (name -> figures).
std::string record(std::size_t point, int n, const Json& plans, const Json& error = nullptr) {
  Json line;
  line["point"] = point;
  line["params"] = {{"/n", n}};
  line["hash"] = "0000000000000000";
  line["model"] = "book";
  line["error"] = error;
  line["plans"] = error.is_null() ? plans : Json::object();
  return line.dump();
}

Json plan(double time_s, std::int64_t chips, bool fits, std::uint64_t memory = 1 << 30) {
  return {{"des_time_s", nullptr}, {"book_time_s", time_s},   {"memory_per_chip_bytes", memory},
          {"fits_hbm", fits},      {"busiest_link", nullptr}, {"mfu", nullptr},
          {"chips", chips},        {"hbm_bytes", 16ull << 30}};
}

// (point, plan) of each mark on the front, in the front's order.
std::vector<std::pair<std::size_t, std::string>> front_of(const SweepReportData& data, ParetoCost cost) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (const std::size_t i : pareto_front(data.marks, cost))
    out.emplace_back(data.points[data.marks[i].record].point, data.series[data.marks[i].series]);
  return out;
}

// Step time against chips, worked by hand: (4, 10 s) is the cheapest; (4, 12 s) loses to it; (8, 6 s) twice (two
// plans alike: both kept); (16, 7 s) loses to (8, 6 s); (16, 3 s) does not fit; (32, 2 s) is the fastest that fits;
// (64, 2 s) is as fast for more chips; a plan without a step time is left out.
TEST(SweepReport, ParetoFrontOfAHandMadeSet) {
  const std::vector<std::string> lines = {
      record(0, 1, {{"a", plan(10, 4, true)}, {"b", plan(12, 4, true)}}),
      record(1, 2, {{"a", plan(6, 8, true)}, {"b", plan(6, 8, true)}}),
      record(2, 3, {{"a", plan(7, 16, true)}, {"b", plan(3, 16, false)}}),
      record(3, 4, {{"a", plan(2, 32, true)}, {"b", plan(2, 64, true)}}),
      record(4, 5, {{"a", {{"des_time_s", nullptr}, {"book_time_s", nullptr}, {"fits_hbm", true}, {"chips", 2}}}}),
  };
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  const std::vector<std::pair<std::size_t, std::string>> expected = {{0, "a"}, {1, "a"}, {1, "b"}, {3, "a"}};
  EXPECT_EQ(front_of(data, ParetoCost::chips), expected);
  EXPECT_FALSE(data.priced);
}

// Against cost per million tokens, the front is the cheapest at each speed: chips no longer matter.
TEST(SweepReport, ParetoFrontAgainstCost) {
  const auto priced = [](double time_s, std::int64_t chips, double usd) {
    Json p = plan(time_s, chips, true);
    p["cost_per_million_tokens"] = usd;
    return p;
  };
  // (1.0 $, 5 s), (0.5 $, 8 s) and (2.0 $, 4 s) trade off; (1.5 $, 5 s) loses to (1.0 $, 5 s).
  const std::vector<std::string> lines = {
      record(0, 1, {{"rank1", priced(5, 64, 1.0)}, {"rank2", priced(8, 4, 0.5)}}),
      record(1, 2, {{"rank1", priced(4, 4, 2.0)}, {"rank2", priced(5, 4, 1.5)}}),
  };
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  EXPECT_TRUE(data.priced);
  const std::vector<std::pair<std::size_t, std::string>> by_cost = {{0, "rank2"}, {0, "rank1"}, {1, "rank1"}};
  EXPECT_EQ(front_of(data, ParetoCost::cost_per_million_tokens), by_cost);
  // By chips instead: 4 chips reach 4 s (point 1 rank1), which beats every other 4-chip plan and the 64-chip one.
  const std::vector<std::pair<std::size_t, std::string>> by_chips = {{1, "rank1"}};
  EXPECT_EQ(front_of(data, ParetoCost::chips), by_chips);
}

TEST(SweepReport, RecordsAreReadInPointOrder) {
  const std::vector<std::string> lines = {
      record(7, 70, {{"x", plan(1, 4, true)}}),
      record(2, 20, {}, "a.json#point 2: /mesh: bad"),
      record(5, 50, {{"y", plan(2, 4, false)}, {"x", plan(3, 4, true)}}),
  };
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  ASSERT_EQ(data.points.size(), 3u);
  EXPECT_EQ(data.points[0].point, 2u);
  EXPECT_EQ(data.points[1].point, 5u);
  EXPECT_EQ(data.points[2].point, 7u);
  EXPECT_EQ(data.points[0].error, "a.json#point 2: /mesh: bad");
  EXPECT_EQ(data.failed, 1u);
  EXPECT_EQ(data.points[2].values.at(0), 70);
  EXPECT_EQ(data.series, (std::vector<std::string>{"y", "x"}));  // first seen in point 5
  ASSERT_EQ(data.marks.size(), 3u);
  EXPECT_EQ(data.marks[0].record, 1u);
  EXPECT_EQ(data.marks[2].record, 2u);
  EXPECT_EQ(data.marks[2].series, 1u);
  EXPECT_TRUE(data.has_book);
  EXPECT_FALSE(data.has_des);
}

std::string error_of(const std::vector<std::string>& lines) {
  try {
    read_sweep_report_data(lines, "out/results.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepReport, BadRecordsAreLocated) {
  const std::string good = record(0, 1, {{"a", plan(1, 4, true)}});
  EXPECT_EQ(error_of({good, "{\"point\": 1"}), "out/results.jsonl: line 2: not a JSON line");
  EXPECT_EQ(error_of({R"({"point": 1, "params": {}})"}),
            "out/results.jsonl: line 1: not a sweep record (keys point, params, hash, model, error, plans)");
  Json bad = plan(1, 4, true);
  bad["book_time_s"] = "x";
  EXPECT_EQ(
      error_of({record(3, 1, {{"a/b~", bad}})}),
      R"(out/results.jsonl: point 3: /plans/a~1b~0/book_time_s: must be a number of at least 0 or null, got: "x")");
  // Issue 33, class 4: a forged negative time drew `inf` into the charts' scales.
  bad["book_time_s"] = -0.5;
  EXPECT_EQ(error_of({record(3, 1, {{"a", bad}})}),
            "out/results.jsonl: point 3: /plans/a/book_time_s: must be a number of at least 0 or null, got: -0.5");
  bad = plan(1, 0, true);
  EXPECT_EQ(error_of({record(4, 1, {{"a", bad}})}),
            "out/results.jsonl: point 4: /plans/a/chips: must be a whole number above 0 or null, got: 0");
  bad = plan(1, 4, true);
  bad["memory_per_chip_bytes"] = -5;
  EXPECT_EQ(error_of({record(4, 1, {{"a", bad}})}),
            "out/results.jsonl: point 4: /plans/a/memory_per_chip_bytes: must be a whole number of bytes or null, "
            "got: -5");
  bad = plan(1, 4, true);
  bad["fits_hbm"] = "yes";
  EXPECT_EQ(error_of({record(4, 1, {{"a", bad}})}),
            R"(out/results.jsonl: point 4: /plans/a/fits_hbm: must be true or false, got: "yes")");
}

// A record written before podsim reported chips still draws; it is only left out of the front.
TEST(SweepReport, RecordsWithoutChipsHaveNoFront) {
  Json old = plan(1, 4, true);
  old.erase("chips");
  const SweepReportData data = read_sweep_report_data({record(0, 1, {{"a", old}})}, "r.jsonl");
  EXPECT_FALSE(data.marks[0].chips.has_value());
  EXPECT_TRUE(pareto_front(data.marks, ParetoCost::chips).empty());
  std::ostringstream page;
  write_sweep_html(data, "r.jsonl", page);
  EXPECT_NE(page.str().find("No plan of a point fits HBM with a step time and a chip count"), std::string::npos);
}

TEST(SweepReport, TableHasARowPerPlanAndPerFailedPoint) {
  const std::vector<std::string> lines = {
      record(0, 8, {{"a", plan(2, 4, true)}, {"b", plan(1, 4, false)}}),
      record(1, 9, {}, "boom"),
  };
  const SweepTable table = sweep_table(read_sweep_report_data(lines, "r.jsonl"));
  const std::vector<std::string> columns = {"point",        "/n",       "plan",  "book time",    "memory per chip",
                                            "HBM per chip", "fits HBM", "chips", "on the front", "error"};
  EXPECT_EQ(table.columns, columns);
  const std::vector<std::string> kinds = {"int", "value", "text", "s", "bytes", "bytes", "bool", "int", "mark", "text"};
  EXPECT_EQ(table.kinds, kinds);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0], Json::parse(R"([0, 8, "a", 2.0, 1073741824, 17179869184, true, 4, true, null])"));
  EXPECT_EQ(table.rows[1], Json::parse(R"([0, 8, "b", 1.0, 1073741824, 17179869184, false, 4, false, null])"));
  EXPECT_EQ(table.rows[2], Json::parse(R"([1, 9, null, null, null, null, null, null, null, "boom"])"));
}

// Records of a goal (time_to_train_days, cost_usd, meets_goal): the table adds their columns, each parameter gets a
// chart of days and one of cost, and a goal figure of the wrong type is located.
TEST(SweepReport, GoalFiguresHaveColumnsAndCharts) {
  Json met = plan(2, 4, true), missed = plan(1, 8, true);
  met["time_to_train_days"] = 40.5;
  met["cost_usd"] = 1.5e6;
  met["meets_goal"] = true;
  missed["time_to_train_days"] = 75.0;
  missed["cost_usd"] = 2.5e6;
  missed["meets_goal"] = false;
  const std::vector<std::string> lines = {record(0, 8, {{"rank1", met}, {"rank2", missed}})};
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  EXPECT_TRUE(data.has_goal);
  EXPECT_TRUE(data.has_goal_cost);
  const SweepTable table = sweep_table(data);
  const std::vector<std::string> columns = {"point",        "/n",          "plan",  "book time",     "memory per chip",
                                            "HBM per chip", "fits HBM",    "chips", "days to train", "cost to train",
                                            "meets goal",   "on the front"};
  EXPECT_EQ(table.columns, columns);
  EXPECT_EQ(table.rows[0], Json::parse(R"([0, 8, "rank1", 2.0, 1073741824, 17179869184, true, 4, 40.5, 1500000.0,
                                           true, true])"));
  EXPECT_EQ(table.rows[1], Json::parse(R"([0, 8, "rank2", 1.0, 1073741824, 17179869184, true, 8, 75.0, 2500000.0,
                                           false, true])"));
  std::ostringstream page;
  write_sweep_html(data, "r.jsonl", page);
  EXPECT_NE(page.str().find(">days to train (expected) against /n</text>"), std::string::npos);
  EXPECT_NE(page.str().find(">cost to train (USD) against /n</text>"), std::string::npos);
  Json bad = met;
  bad["meets_goal"] = "yes";
  try {
    read_sweep_report_data({record(0, 8, {{"rank1", bad}})}, "r.jsonl");
    ADD_FAILURE() << "a meets_goal of text was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("point 0: /plans/rank1/meets_goal: must be true, false or null"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepReport, TextFromTheRecordsIsEscaped) {
  const std::string name = R"(<b>"fast" & 'cheap'</b>)";
  const std::string error = R"(</script><script>alert(1)</script> a & b)";
  Json with_candidate = plan(1, 4, true);
  with_candidate["candidate"] = "<i>tpu</i>";
  Json line = Json::parse(record(0, 1, {{name, with_candidate}}));
  line["params"] = {{"/hardware", "<v5e>"}};
  const std::vector<std::string> lines = {line.dump(), record(1, 2, {}, error)};
  std::ostringstream page;
  write_sweep_html(read_sweep_report_data(lines, "<dir>/results.jsonl"), "<dir>/results.jsonl", page);
  const std::string html = page.str();
  for (const std::string raw : {"<b>", "<i>", "<v5e>", "<dir>", "<script>alert"})
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  EXPECT_NE(html.find("&lt;b&gt;&quot;fast&quot; &amp; &#39;cheap&#39;&lt;/b&gt;"), std::string::npos);       // legend
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; a &amp; b"), std::string::npos);  // list
  EXPECT_NE(html.find("&lt;dir&gt;/results.jsonl"), std::string::npos);
  // The script's data: no '<' at all, so the two script elements are the page's only ones.
  EXPECT_EQ(test::count_of(html, "<script"), 2u);
  EXPECT_EQ(test::count_of(html, "</script>"), 2u);
  EXPECT_NE(html.find(R"(\u003c/script>\u003cscript>alert(1)\u003c/script> a & b)"), std::string::npos);
  EXPECT_EQ(script_json(Json("<!--")), R"("\u003c!--")");
}

// One mark per plan of each point on a parameter chart: a dot when it fits, a cross when not; one HBM line per
// capacity; the strip says per value whether all, some or none fit.
TEST(SweepReport, ParameterChartMarksEveryPlan) {
  Json small = plan(1, 4, true, 1 << 30), big = plan(2, 4, false, 20ull << 30);
  big["hbm_bytes"] = 32ull << 30;
  const std::vector<std::string> lines = {
      record(0, 1, {{"a", small}, {"b", big}}),
      record(1, 2, {{"a", small}, {"b", small}}),
      record(2, 3, {{"a", big}, {"b", big}}),
  };
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  const SweepChart chart = parameter_chart(data, 0, SweepQuantity::memory);
  EXPECT_EQ(chart.placed, 6u);
  EXPECT_EQ(chart.drawn, 6u);
  EXPECT_EQ(test::count_of(chart.svg, "<circle class=\"fit"), 3u);
  EXPECT_EQ(test::count_of(chart.svg, "<path class=\"nofit"), 3u);
  EXPECT_EQ(test::count_of(chart.svg, "class=\"hbm\""), 2u);  // 16 GiB and 32 GiB
  EXPECT_NE(chart.svg.find("HBM 32 GiB"), std::string::npos);
  EXPECT_NE(chart.svg.find("1 of 2 fit HBM"), std::string::npos);
  EXPECT_NE(chart.svg.find("2 of 2 fit HBM"), std::string::npos);
  EXPECT_NE(chart.svg.find("0 of 2 fit HBM"), std::string::npos);
}

// 10,000 points of 3 plans: a chart draws at most kSweepMarksPerChart marks and the page says so.
TEST(SweepReport, LargeSweepsAreThinned) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < 10000; ++i)
    lines.push_back(record(i, static_cast<int>(i),
                           {{"a", plan(1.0 + static_cast<double>(i), 4, true)},
                            {"b", plan(2.0 + static_cast<double>(i % 97), 8, i % 2 == 0)},
                            {"c", plan(0.5 * static_cast<double>(i + 1), 16, true)}}));
  const SweepReportData data = read_sweep_report_data(lines, "r.jsonl");
  const SweepChart chart = parameter_chart(data, 0, SweepQuantity::book_time);
  EXPECT_EQ(chart.placed, 30000u);
  EXPECT_LE(chart.drawn, kSweepMarksPerChart);
  EXPECT_GT(chart.cell_px, 0);
  std::ostringstream page;
  write_sweep_html(data, "r.jsonl", page);
  EXPECT_NE(page.str().find("are drawn once (the table below has every one)"), std::string::npos);
  EXPECT_EQ(sweep_table(data).rows.size(), 30000u);
}

TEST(SweepReport, ValueText) {
  EXPECT_EQ(value_text(Json("tpu-v5e")), "tpu-v5e");
  EXPECT_EQ(value_text(Json(4096)), "4096");
  EXPECT_EQ(value_text(Json::parse(R"({"shape": [4, 4]})")), R"({"shape":[4,4]})");
}

}  // namespace
}  // namespace podsim::report
