// The serving report writers (text, JSON, CSV, HTML, Chrome trace) on a hand-built run: one replica of 4 chips, two
// requests, three steps, an SLO with one threshold met and one missed. Every expected figure is worked out here from
// the chosen times (see serving_sample_report).
#include "sim/report/serving_report.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace podsim {
namespace {

using nlohmann::json;

// Request 0 arrives at 0, its 5 tokens from 0.1 to 0.5 s: TTFT 0.1, TPOT 0.4 / 4 = 0.1, E2E 0.5. Request 1 arrives
// at 0.2, its 3 tokens from 0.4 to 0.8 s: TTFT 0.2, TPOT 0.4 / 2 = 0.2, E2E 0.6. The run ends at 0.8 s.
// TTFT [0.1, 0.2]: mean 0.15, p50 0.15, p90 0.19, p99 0.199. TPOT [0.1, 0.2]: the same shape, 0.15 / 0.15 / 0.19 /
// 0.199. E2E [0.5, 0.6]: 0.55 / 0.55 / 0.59 / 0.599. ITL: 4 gaps of 0.1 and 2 of 0.2: mean 0.8 / 6, p50 (rank 2.5)
// 0.1, p90 (rank 4.5) 0.2, p99 0.2.
// SLO: TTFT p99 <= 0.25 s (0.199: met), TPOT p50 <= 0.12 s (0.15: missed by 0.03 s = 30 ms). Request 0 meets both
// thresholds, request 1 (TPOT 0.2) does not: goodput 1 / 0.8 = 1.25 requests/s, attainment 50%.
ServingReport serving_sample_report() {
  ServingReport report;
  report.scenario = "toy-serve";
  report.source_file = "scenarios/toy-serve.json";
  report.traffic = "constant at 2.5 requests/s, 2 requests, seed 0";
  ServingDeployment& d = report.deployment;
  d.hardware = "tpu-v5e";
  d.slice = "2x2";
  d.parallelism = "tensor over X, Y";
  d.chips_per_replica = 4;
  d.replicas = 1;
  d.kv_capacity_tokens = 160;  // 10 blocks of 16
  d.kv_block_tokens = 16;
  d.max_num_seqs = 8;
  d.max_num_batched_tokens = 256;
  d.routing = "round_robin";
  d.step_model = "hand-made";

  report.run.completed = {RequestRecord{0, 0.0, 0.1, 0.5, 100, 5}, RequestRecord{1, 0.2, 0.4, 0.8, 50, 3}};
  report.run.itl.add(0.1, 4);
  report.run.itl.add(0.2, 2);
  // (end, step, replica, seqs, tokens, prefill, kv used, waiting, running)
  report.run.steps = {ServingStepSample{0.1, 0.1, 0, 1, 100, 100, 7, 0, 1},
                      ServingStepSample{0.4, 0.2, 0, 2, 51, 50, 9, 0, 2},
                      ServingStepSample{0.8, 0.3, 0, 1, 1, 0, 4, 0, 1}};
  report.run.replicas = {ServingReplicaTotals{3, 1, 10, 9, 2}};  // steps, preemptions, capacity, peak, requests
  report.run.end_s = 0.8;
  report.slo.ttft = SloTarget{PercentileKey::p99, 0.25};
  report.slo.tpot = SloTarget{PercentileKey::p50, 0.12};
  report.metrics = serving_metrics(report.run.completed, report.run.itl, 4, report.slo);
  report.checks = check_slo(report.metrics, report.slo);
  return report;
}

void expect_summary(const json& s, double mean, double p50, double p90, double p99) {
  EXPECT_NEAR(s.at("mean").get<double>(), mean, 1e-12);
  EXPECT_NEAR(s.at("p50").get<double>(), p50, 1e-12);
  EXPECT_NEAR(s.at("p90").get<double>(), p90, 1e-12);
  EXPECT_NEAR(s.at("p99").get<double>(), p99, 1e-12);
  EXPECT_EQ(s.size(), 4u);
}

TEST(ServingReport, JsonHasTheContractKeysWithHandWorkedValues) {
  const json j = json::parse(serving_json(serving_sample_report()));
  EXPECT_EQ(j.at("schema"), "podsim/1");
  EXPECT_EQ(j.at("requests"), 2);
  EXPECT_NEAR(j.at("duration_s").get<double>(), 0.8, 1e-12);
  EXPECT_EQ(j.at("chips"), 4);
  expect_summary(j.at("ttft_s"), 0.15, 0.15, 0.19, 0.199);
  expect_summary(j.at("tpot_s"), 0.15, 0.15, 0.19, 0.199);
  expect_summary(j.at("itl_s"), 0.8 / 6, 0.1, 0.2, 0.2);
  expect_summary(j.at("e2e_s"), 0.55, 0.55, 0.59, 0.599);
  const json& t = j.at("throughput");
  EXPECT_NEAR(t.at("requests_per_s").get<double>(), 2 / 0.8, 1e-12);
  EXPECT_NEAR(t.at("output_tokens_per_s").get<double>(), 8 / 0.8, 1e-12);
  EXPECT_NEAR(t.at("output_tokens_per_s_per_chip").get<double>(), 8 / 0.8 / 4, 1e-12);
  EXPECT_NEAR(j.at("goodput_requests_per_s").get<double>(), 1 / 0.8, 1e-12);
  EXPECT_NEAR(j.at("slo_attainment").get<double>(), 0.5, 1e-12);
  EXPECT_EQ(j.at("kv_cache").at("capacity_tokens"), 160);
  EXPECT_NEAR(j.at("kv_cache").at("peak_utilization").get<double>(), 9.0 * 16 / 160, 1e-12);  // 0.9
  EXPECT_EQ(j.at("preemptions"), 1);

  // Beside the contract.
  EXPECT_EQ(j.at("meets_slo"), false);
  EXPECT_EQ(j.at("steps"), 3);
  EXPECT_EQ(j.at("deployment").at("chips_per_replica"), 4);
  EXPECT_EQ(j.at("deployment").at("routing"), "round_robin");
  EXPECT_EQ(j.at("traffic"), "constant at 2.5 requests/s, 2 requests, seed 0");
  const json& ttft = j.at("slo").at("ttft_s");
  EXPECT_EQ(ttft.at("percentile"), "p99");
  EXPECT_NEAR(ttft.at("target_s").get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(ttft.at("actual_s").get<double>(), 0.199, 1e-12);
  EXPECT_EQ(ttft.at("met"), true);
  EXPECT_EQ(ttft.at("miss_s"), 0.0);
  const json& tpot = j.at("slo").at("tpot_s");
  EXPECT_EQ(tpot.at("percentile"), "p50");
  EXPECT_NEAR(tpot.at("actual_s").get<double>(), 0.15, 1e-12);
  EXPECT_EQ(tpot.at("met"), false);
  EXPECT_NEAR(tpot.at("miss_s").get<double>(), 0.03, 1e-12);
  EXPECT_FALSE(j.at("slo").contains("e2e_s"));
  ASSERT_EQ(j.at("replicas").size(), 1u);
  EXPECT_EQ(j.at("replicas")[0].at("steps"), 3);
  EXPECT_EQ(j.at("replicas")[0].at("requests"), 2);
  EXPECT_NEAR(j.at("replicas")[0].at("kv_peak_utilization").get<double>(), 0.9, 1e-12);
}

TEST(ServingReport, TotalsSumPreemptionsAndTakeTheLargestKvPeak) {
  ServingReport report = serving_sample_report();
  report.deployment.replicas = 3;
  report.run.replicas = {ServingReplicaTotals{1, 2, 10, 4, 1}, ServingReplicaTotals{1, 0, 10, 10, 1},
                         ServingReplicaTotals{1, 5, 10, 6, 0}};
  const ServingTotals totals = serving_totals(report);
  EXPECT_EQ(totals.chips, 12);
  EXPECT_EQ(totals.preemptions, 7);
  EXPECT_EQ(totals.steps, 3);
  EXPECT_EQ(totals.kv_peak_blocks, 10);
  EXPECT_DOUBLE_EQ(totals.kv_peak_utilization, 1.0);  // 10 x 16 / 160
  EXPECT_FALSE(totals.meets_slo);
}

std::vector<std::string> serving_csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ','))
    cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

TEST(ServingReport, CsvHasOneRowPerRequestWithItsLatencies) {
  ServingReport report = serving_sample_report();
  report.run.completed.push_back(RequestRecord{2, 0.3, 0.45, 0.45, 10, 1});  // one token: no TPOT
  std::ostringstream out;
  write_serving_csv(report, out);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,e2e_s,meets_slo");
  // id, arrival, prompt, output, ttft, tpot, e2e, meets (TTFT <= 0.25 and TPOT <= 0.12)
  const struct {
    const char* head;
    double ttft, tpot, e2e;
    const char* meets;
  } expected[] = {{"0", 0.1, 0.1, 0.5, "true"}, {"1", 0.2, 0.2, 0.6, "false"}, {"2", 0.15, -1, 0.15, "true"}};
  for (const auto& row : expected) {
    ASSERT_TRUE(std::getline(in, line));
    const auto cells = serving_csv_cells(line);
    ASSERT_EQ(cells.size(), 8u) << line;
    EXPECT_EQ(cells[0], row.head);
    EXPECT_NEAR(std::stod(cells[4]), row.ttft, 1e-12);
    if (row.tpot < 0)
      EXPECT_EQ(cells[5], "");
    else
      EXPECT_NEAR(std::stod(cells[5]), row.tpot, 1e-12);
    EXPECT_NEAR(std::stod(cells[6]), row.e2e, 1e-12);
    EXPECT_EQ(cells[7], row.meets);
  }
  EXPECT_FALSE(std::getline(in, line));
  EXPECT_EQ(serving_csv_cells(out.str().substr(out.str().find('\n') + 1)).at(1), "0");  // arrival 0 of request 0
}

TEST(ServingReport, TextNamesTheMissedThresholdAndItsMissInMs) {
  const std::string text = serving_text(serving_sample_report());
  EXPECT_NE(text.find("SLO: MISSED"), std::string::npos) << text;
  EXPECT_NE(text.find("TPOT p50 150 ms > 120 ms: missed by 30 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("TTFT p99 199 ms <= 250 ms: met"), std::string::npos) << text;
  EXPECT_NE(text.find("p50 <= 120: MISSED by 30"), std::string::npos) << text;  // the table's SLO column
  EXPECT_NE(text.find("1 replica of 4 chips = 4 chips"), std::string::npos) << text;
  EXPECT_NE(text.find("SLO attainment 50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("peak 90.0% of 160 tokens"), std::string::npos) << text;
}

std::size_t serving_count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

TEST(ServingReport, HtmlDrawsThreeCdfsWithTheThresholds) {
  std::ostringstream out;
  write_serving_html(serving_sample_report(), out);
  const std::string html = out.str();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched
  EXPECT_EQ(serving_count(html, "<svg class=\"cdf\""), 3u);
  EXPECT_EQ(serving_count(html, "<svg"), serving_count(html, "</svg>"));
  // The TTFT and TPOT thresholds as vertical lines (E2E has none), coloured met and missed.
  EXPECT_EQ(serving_count(html, "<line class=\"slo\""), 2u);
  EXPECT_NE(html.find("SLO p99 250 ms"), std::string::npos);
  EXPECT_NE(html.find("SLO p50 120 ms"), std::string::npos);
  EXPECT_EQ(serving_count(html, "<svg class=\"series\""), 3u);  // batch, queue, KV cache
  EXPECT_NE(html.find("<svg class=\"throughput\""), std::string::npos);
  EXPECT_NE(html.find("class=\"verdict fail\""), std::string::npos);
  EXPECT_NE(html.find("TPOT p50 150 ms &gt; 120 ms: missed by 30 ms"), std::string::npos);
  // The replica table: replica 0, 2 requests, 3 steps, 1 preemption, KV peak 9 x 16 / 160.
  EXPECT_NE(html.find("<tr><td>0</td><td class=\"num\">2</td><td class=\"num\">3</td><td class=\"num\">1</td>"
                      "<td class=\"num\">90.0%</td></tr>"),
            std::string::npos);
}

TEST(ServingReport, HtmlThinsALongSeriesToTwoThousandPointsPerLine) {
  ServingReport report = serving_sample_report();
  report.run.steps.clear();
  for (int i = 0; i < 5000; ++i)  // a step every 1 ms, the batch alternating 1 and 3: each bucket's largest is 3
    report.run.steps.push_back(ServingStepSample{1e-3 * (i + 1), 1e-3, 0, i % 2 == 0 ? 1 : 3, 3, 0, 4, 0, 1});
  report.run.end_s = 5.0;
  std::ostringstream out;
  write_serving_html(report, out);
  const std::string html = out.str();
  const std::size_t chart = html.find("<svg class=\"series\"");
  ASSERT_NE(chart, std::string::npos);
  const std::size_t path = html.find("<path class=\"series\" d=\"", chart);
  const std::string d = html.substr(path, html.find('"', path + 30) - path);
  EXPECT_EQ(serving_count(d, "L") + 1, 2000u);  // M then 1999 L
  EXPECT_NE(html.find("drawn through 2000 time buckets"), std::string::npos);
}

std::map<std::string, std::size_t> serving_phases(const json& trace) {
  std::map<std::string, std::size_t> count;
  for (const json& e : trace.at("traceEvents"))
    ++count[e.at("ph").get<std::string>()];
  return count;
}

TEST(ServingReport, TraceHasAStepPerEventAndASpanPerRequest) {
  std::ostringstream out;
  write_serving_trace(serving_sample_report(), out);
  const json trace = json::parse(out.str());
  auto phases = serving_phases(trace);
  EXPECT_EQ(phases["X"], 3u);
  EXPECT_EQ(phases["b"], 2u);
  EXPECT_EQ(phases["n"], 2u);
  EXPECT_EQ(phases["e"], 2u);
  EXPECT_EQ(phases["M"], 6u);  // two processes (name, order), one replica thread (name, order)
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("ts").get<double>() > 0.15e6 && e.at("ts").get<double>() < 0.25e6) {
      EXPECT_NEAR(e.at("dur").get<double>(), 0.2e6, 1e-6);  // the step from 0.2 to 0.4 s
      EXPECT_EQ(e.at("args").at("batch_seqs"), 2);
      EXPECT_EQ(e.at("args").at("batch_tokens"), 51);
      EXPECT_EQ(e.at("args").at("prefill_tokens"), 50);
      EXPECT_EQ(e.at("args").at("kv_used_blocks"), 9);
    }
    if (e.at("ph") == "n" && e.at("id") == "1") EXPECT_NEAR(e.at("ts").get<double>(), 0.4e6, 1e-6);
    if (e.at("ph") == "e" && e.at("id") == "1") EXPECT_NEAR(e.at("ts").get<double>(), 0.8e6, 1e-6);
  }
  EXPECT_EQ(trace.at("otherData").at("truncated"), false);
}

TEST(ServingReport, TraceKeepsAtMostOneHundredThousandRequestsAndSaysSo) {
  ServingReport report = serving_sample_report();
  report.run.completed.clear();
  for (std::int64_t i = 0; i < 100'001; ++i)
    report.run.completed.push_back(RequestRecord{i, 1e-3 * static_cast<double>(i), 1, 2, 10, 2});
  std::ostringstream out;
  write_serving_trace(report, out);
  const json trace = json::parse(out.str());
  auto phases = serving_phases(trace);
  EXPECT_EQ(phases["b"], 100'000u);
  EXPECT_EQ(trace.at("otherData").at("requests_total"), 100'001);
  EXPECT_EQ(trace.at("otherData").at("requests_written"), 100'000);
  EXPECT_EQ(trace.at("otherData").at("truncated"), true);
  bool labelled = false;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "process_labels")
      labelled = e.at("args").at("labels") == "trace truncated: kept the first 100000 of 100001 requests";
  EXPECT_TRUE(labelled);
}

TEST(ServingReport, ARunWithoutRequestsStillWritesEveryOutput) {
  ServingReport report;
  report.scenario = "empty";
  report.deployment.chips_per_replica = 1;
  report.deployment.replicas = 1;
  report.run.replicas = {ServingReplicaTotals{}};
  report.metrics = serving_metrics({}, report.run.itl, 1, report.slo);
  const json j = json::parse(serving_json(report));
  EXPECT_EQ(j.at("requests"), 0);
  EXPECT_EQ(j.at("kv_cache").at("peak_utilization"), 0.0);
  EXPECT_EQ(j.at("meets_slo"), true);
  EXPECT_NE(serving_text(report).find("SLO: none given"), std::string::npos);
  std::ostringstream csv, html, trace;
  write_serving_csv(report, csv);
  EXPECT_EQ(csv.str(), "id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,e2e_s,meets_slo\n");
  write_serving_html(report, html);
  EXPECT_EQ(serving_count(html.str(), "<svg class=\"cdf\""), 3u);
  write_serving_trace(report, trace);
  EXPECT_EQ(serving_phases(json::parse(trace.str()))["X"], 0u);
}

}  // namespace
}  // namespace podsim
