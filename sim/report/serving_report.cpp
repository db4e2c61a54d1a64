// `podsim serve` as text, JSON and CSV. The three read the run's figures through serving_totals and the metrics that
// models/serving computed, so a number printed in the table is the number a script reads; nothing is re-derived.
#include "sim/report/serving_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim {
namespace {

using ServingJson = nlohmann::ordered_json;  // the contract's keys first, in its order
using report::TextTable;

constexpr std::size_t kServingReplicasListed = 16;  // rows of the text's replica table

const SloCheck* serving_check_of(const ServingReport& report, SloMetric metric) {
  for (const SloCheck& check : report.checks)
    if (check.metric == metric) return &check;
  return nullptr;
}

double serving_kv_fraction(std::int64_t blocks, const ServingDeployment& d) {
  if (d.kv_capacity_tokens <= 0) return 0.0;
  return static_cast<double>(blocks) * static_cast<double>(d.kv_block_tokens) /
         static_cast<double>(d.kv_capacity_tokens);
}

// `p99 <= 100: met` or `p90 <= 20: MISSED by 5` (ms), for the latency table's SLO column.
std::string serving_slo_cell(const SloCheck* check) {
  if (!check) return "";
  return fmt::format("{} <= {}: {}", kPercentileKeyNames.name(check->percentile), latency_ms_text(check->target_s),
                     check->met ? "met" : "MISSED by " + latency_ms_text(check->miss_s));
}

// The per-pool figures of a disaggregated run: each pool's deployment and its replicas' steps, preemptions and KV
// peak, and the KV transfers.
ServingJson serving_disaggregated_json(const ServingReport& report) {
  const ServingDisaggregation& x = *report.deployment.disaggregated;
  const auto pool = [&report](const ServingPoolDeployment& p, bool prefill) {
    std::int64_t steps = 0, preemptions = 0;
    double kv_peak = 0.0;
    for (std::size_t i = 0; i < report.run.replicas.size(); ++i) {
      if ((static_cast<std::int64_t>(i) < report.run.prefill_replicas) != prefill) continue;
      const ServingReplicaTotals& r = report.run.replicas[i];
      steps += r.steps;
      preemptions += r.preemptions;
      if (r.kv_capacity_blocks > 0)
        kv_peak = std::max(kv_peak, static_cast<double>(r.kv_peak_blocks) / static_cast<double>(r.kv_capacity_blocks));
    }
    return ServingJson{{"hardware", p.hardware},
                       {"slice", p.slice},
                       {"parallelism", p.parallelism},
                       {"chips_per_replica", p.chips_per_replica},
                       {"replicas", p.replicas},
                       {"chips", p.chips_per_replica * p.replicas},
                       {"kv_capacity_tokens", p.kv_capacity_tokens},
                       {"kv_peak_utilization", kv_peak},
                       {"max_num_seqs", p.max_num_seqs},
                       {"max_num_batched_tokens", p.max_num_batched_tokens},
                       {"kv_link_Bps", p.kv_link_Bps},
                       {"steps", steps},
                       {"preemptions", preemptions}};
  };
  const KvTransferTotals kv = kv_transfer_totals(report.run);
  return {{"kv_link", x.kv_link},
          {"kv_link_per_chip_Bps", x.kv_link_per_chip_Bps},
          {"kv_latency_s", x.kv_latency_s},
          {"kv_bytes_per_token", x.kv_bytes_per_token},
          {"prefill", pool(x.prefill, true)},
          {"decode", pool(x.decode, false)},
          {"kv_transfers",
           {{"count", kv.count},
            {"bytes", kv.bytes},
            {"mean_s", kv.seconds.mean},
            {"p50_s", kv.seconds.p50},
            {"p99_s", kv.seconds.p99}}}};
}

}  // namespace

nlohmann::ordered_json serving_latency_json(const LatencySummary& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

nlohmann::ordered_json slo_checks_json(const std::vector<SloCheck>& checks) {
  ServingJson slo = ServingJson::object();
  for (const SloCheck& check : checks)
    slo[std::string(kSloMetricNames.name(check.metric))] = {{"percentile", kPercentileKeyNames.name(check.percentile)},
                                                            {"target_s", check.target_s},
                                                            {"actual_s", check.actual_s},
                                                            {"met", check.met},
                                                            {"miss_s", check.miss_s}};
  return slo;
}

ServingTotals serving_totals(const ServingReport& report) {
  const ServingDeployment& d = report.deployment;
  ServingTotals totals;
  totals.chips = d.chips();
  for (std::size_t i = 0; i < report.run.replicas.size(); ++i) {
    const ServingReplicaTotals& r = report.run.replicas[i];
    totals.preemptions += r.preemptions;
    totals.steps += r.steps;
    if (static_cast<std::int64_t>(i) >= report.run.prefill_replicas)
      totals.kv_peak_blocks = std::max(totals.kv_peak_blocks, r.kv_peak_blocks);
  }
  totals.kv_peak_utilization = serving_kv_fraction(totals.kv_peak_blocks, d);
  totals.meets_slo = std::all_of(report.checks.begin(), report.checks.end(), [](const SloCheck& c) { return c.met; });
  return totals;
}

KvTransferTotals kv_transfer_totals(const ServingRunResult& run) {
  KvTransferTotals totals;
  std::vector<double> seconds;
  seconds.reserve(run.transfers.size());
  for (const KvTransferSample& t : run.transfers) {
    ++totals.count;
    totals.bytes += t.bytes;
    seconds.push_back(t.end_s - t.start_s);
  }
  totals.seconds = summarize(std::move(seconds));
  return totals;
}

std::string serving_pool_of(const ServingRunResult& run, std::size_t r) {
  if (run.prefill_replicas == 0) return "";
  return static_cast<std::int64_t>(r) < run.prefill_replicas ? "prefill" : "decode";
}

std::string latency_ms_text(double seconds) {
  return format_number(seconds * 1e3);
}

const char* slo_metric_label(SloMetric metric) {
  return metric == SloMetric::ttft ? "TTFT" : metric == SloMetric::tpot ? "TPOT" : "E2E";
}

std::string slo_check_text(const SloCheck& check) {
  const std::string head = fmt::format("{} {} {} ms", slo_metric_label(check.metric),
                                       kPercentileKeyNames.name(check.percentile), latency_ms_text(check.actual_s));
  if (check.met) return fmt::format("{} <= {} ms: met", head, latency_ms_text(check.target_s));
  return fmt::format("{} > {} ms: missed by {} ms", head, latency_ms_text(check.target_s),
                     latency_ms_text(check.miss_s));
}

std::string serving_deployment_text(const ServingReport& report) {
  const ServingDeployment& d = report.deployment;
  if (d.disaggregated) {
    const auto pool = [](const char* name, const ServingPoolDeployment& p) {
      return fmt::format(
          "{} pool {} {}, {}: {} replica{} of {} chips, max_num_seqs {}, max_num_batched_tokens {}, KV "
          "cache {} tokens per replica",
          name, p.hardware, p.slice, p.parallelism, p.replicas, p.replicas == 1 ? "" : "s", p.chips_per_replica,
          p.max_num_seqs, p.max_num_batched_tokens, p.kv_capacity_tokens);
    };
    const ServingDisaggregation& x = *d.disaggregated;
    return fmt::format(
        "disaggregated, {} chips: {}; {}; KV over {} ({}/s per chip, latency {}, {} per prompt token); "
        "{}; routing {} to prefill, least outstanding to decode",
        serving_totals(report).chips, pool("prefill", x.prefill), pool("decode", x.decode), x.kv_link,
        format_bytes(x.kv_link_per_chip_Bps), format_seconds(x.kv_latency_s),
        format_bytes(static_cast<double>(x.kv_bytes_per_token)),
        d.chunked_prefill ? "chunked prefill" : "prefill steps apart", d.routing);
  }
  return fmt::format(
      "{} {}, {}: {} replica{} of {} chips = {} chips; max_num_seqs {}, max_num_batched_tokens {}, {}; KV cache {} "
      "tokens per replica in blocks of {}; routing {}",
      d.hardware, d.slice, d.parallelism, d.replicas, d.replicas == 1 ? "" : "s", d.chips_per_replica,
      serving_totals(report).chips, d.max_num_seqs, d.max_num_batched_tokens,
      d.chunked_prefill ? "chunked prefill" : "prefill steps apart", d.kv_capacity_tokens, d.kv_block_tokens,
      d.routing);
}

ServingLatencyTable serving_latency_table(const ServingReport& report) {
  const ServingMetrics& m = report.metrics;
  const std::pair<const char*, const LatencySummary*> rows[] = {
      {"TTFT", &m.ttft_s}, {"TPOT", &m.tpot_s}, {"ITL", &m.itl_s}, {"E2E", &m.e2e_s}};
  const std::optional<SloMetric> metrics[] = {SloMetric::ttft, SloMetric::tpot, std::nullopt, SloMetric::e2e};
  ServingLatencyTable table;
  table.headers = {"latency (ms)", "mean", "p50", "p90", "p99"};
  if (!report.checks.empty()) table.headers.push_back("SLO (ms)");
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const LatencySummary& s = *rows[i].second;
    std::vector<std::string> cells = {rows[i].first};
    for (const double v : {s.mean, s.p50, s.p90, s.p99})
      cells.push_back(s.count > 0 ? latency_ms_text(v) : "-");
    const SloCheck* check = metrics[i] ? serving_check_of(report, *metrics[i]) : nullptr;
    if (!report.checks.empty()) cells.push_back(serving_slo_cell(check));
    table.rows.push_back(std::move(cells));
    table.checks.push_back(check);
  }
  return table;
}

std::vector<std::vector<std::string>> serving_replica_rows(const ServingReport& report, std::size_t most) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < std::min(most, report.run.replicas.size()); ++i) {
    const ServingReplicaTotals& r = report.run.replicas[i];
    const std::string pool = serving_pool_of(report.run, i);
    // Disaggregated, each pool's replicas have their own cache: the fraction of the replica's.
    const double kv = pool.empty() ? serving_kv_fraction(r.kv_peak_blocks, report.deployment)
                      : r.kv_capacity_blocks > 0
                          ? static_cast<double>(r.kv_peak_blocks) / static_cast<double>(r.kv_capacity_blocks)
                          : 0.0;
    rows.push_back({pool.empty() ? std::to_string(i) : fmt::format("{} ({})", i, pool), std::to_string(r.requests),
                    std::to_string(r.steps), std::to_string(r.preemptions), report::percent_text(kv)});
  }
  return rows;
}

std::string serving_rate_text(const ServingReport& report) {
  if (report.rate_points.empty()) return "";
  std::string out;
  if (report.max_rate_per_s)
    out += fmt::format("max rate: {} requests/s meet the SLO", format_number(*report.max_rate_per_s));
  else
    out += "max rate: none of the rates probed meets the SLO";
  if (report.lowest_miss_per_s)
    out += fmt::format(" ({} requests/s miss it)", format_number(*report.lowest_miss_per_s));
  else
    out += " (no rate up to the request limit misses it)";
  out += fmt::format("; {} runs\n", report.rate_points.size());
  std::vector<std::string> headers = {"rate (req/s)", "requests"};
  for (const SloMetric metric : kSloMetrics) {
    const auto& target = report.slo.target(metric);
    headers.push_back(fmt::format("{} {} (ms)", slo_metric_label(metric),
                                  kPercentileKeyNames.name(target ? target->percentile : PercentileKey::p99)));
  }
  headers.push_back("goodput (req/s)");
  headers.push_back("SLO");
  std::vector<TextTable::Align> align(headers.size(), TextTable::Align::right);
  align.back() = TextTable::Align::left;
  TextTable table(headers, align);
  std::vector<const RatePoint*> sorted;
  for (const RatePoint& p : report.rate_points)
    sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const RatePoint* a, const RatePoint* b) { return a->rate_per_s < b->rate_per_s; });
  for (const RatePoint* p : sorted) {
    std::vector<std::string> row = {format_number(p->rate_per_s), std::to_string(p->metrics.requests)};
    for (const SloMetric metric : kSloMetrics) {
      const auto& target = report.slo.target(metric);
      const LatencySummary& s = metric_summary(p->metrics, metric);
      row.push_back(
          s.count > 0 ? latency_ms_text(summary_percentile(s, target ? target->percentile : PercentileKey::p99)) : "-");
    }
    row.push_back(format_number(p->metrics.goodput_requests_per_s));
    std::string verdict;
    for (const SloCheck& check : p->checks)
      if (!check.met)
        verdict += (verdict.empty() ? "" : "; ") +
                   fmt::format("{} +{} ms", slo_metric_label(check.metric), latency_ms_text(check.miss_s));
    row.push_back(verdict.empty() ? "met" : verdict);
    table.add_row(std::move(row));
  }
  out += table.render("  ");
  out += report.max_rate_per_s ? fmt::format("\nthe run at {} requests/s:\n", format_number(*report.max_rate_per_s))
                               : "\nthe run at the lowest rate probed:\n";
  return out;
}

std::string serving_text(const ServingReport& report) {
  const ServingTotals totals = serving_totals(report);
  const ServingMetrics& m = report.metrics;
  std::string out = "serving: " + report.scenario + (report.source_file.empty() ? "" : " (" + report.source_file + ")");
  out += "\n" + report::indented(0, "deployment: " + serving_deployment_text(report));
  if (!report.deployment.step_model.empty()) out += "step model: " + report.deployment.step_model + "\n";
  out += "traffic: " + report.traffic + "\n";
  out += fmt::format("{} requests completed, {} output tokens in {} ({} steps, {} preemption{})\n\n", m.requests,
                     m.output_tokens, format_seconds(m.duration_s), totals.steps, totals.preemptions,
                     totals.preemptions == 1 ? "" : "s");

  const ServingLatencyTable latency = serving_latency_table(report);
  TextTable table(latency.headers, {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                                    TextTable::Align::right, TextTable::Align::right});
  for (const auto& row : latency.rows)
    table.add_row(row);
  out += table.render("  ") + "\n";

  out += fmt::format("throughput: {} requests/s, {} output tokens/s, {} per chip\n", format_number(m.requests_per_s),
                     format_number(m.output_tokens_per_s), format_number(m.output_tokens_per_s_per_chip));
  out += fmt::format("goodput: {} requests/s meet every SLO threshold (SLO attainment {})\n",
                     format_number(m.goodput_requests_per_s), report::percent_text(m.slo_attainment));
  if (!report.checks.empty()) {
    out += totals.meets_slo ? "SLO: met\n" : "SLO: MISSED\n";
    for (const SloCheck& check : report.checks)
      out += "  " + slo_check_text(check) + "\n";
  } else {
    out += "SLO: none given\n";
  }
  out += fmt::format("KV cache: peak {} of {} tokens per replica ({} blocks of {} tokens); preemptions {}\n",
                     report::percent_text(totals.kv_peak_utilization), report.deployment.kv_capacity_tokens,
                     totals.kv_peak_blocks, report.deployment.kv_block_tokens, totals.preemptions);
  if (report.deployment.disaggregated) {
    const KvTransferTotals kv = kv_transfer_totals(report.run);
    out += fmt::format("KV transfers: {} of {} in all; each {} mean, {} p99 (prefill step's end to the last byte)\n",
                       kv.count, format_bytes(static_cast<double>(kv.bytes)), format_seconds(kv.seconds.mean),
                       format_seconds(kv.seconds.p99));
  }

  if (report.run.replicas.size() > 1) {
    const std::vector<std::vector<std::string>> rows = serving_replica_rows(report, kServingReplicasListed);
    TextTable replicas(kServingReplicaHeaders,
                       {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                        TextTable::Align::right, TextTable::Align::right});
    for (const auto& row : rows)
      replicas.add_row(row);
    const std::size_t shown = rows.size();
    out += "\n" + replicas.render("  ");
    if (shown < report.run.replicas.size())
      out += fmt::format("  ... and {} more replicas (--json lists them all)\n", report.run.replicas.size() - shown);
  }
  return out;
}

std::string serving_json(const ServingReport& report) {
  const ServingTotals totals = serving_totals(report);
  const ServingMetrics& m = report.metrics;
  const ServingDeployment& d = report.deployment;
  const ServingJson slo = slo_checks_json(report.checks);
  ServingJson replicas = ServingJson::array();
  for (std::size_t i = 0; i < report.run.replicas.size(); ++i) {
    const ServingReplicaTotals& r = report.run.replicas[i];
    replicas.push_back({{"replica", i},
                        {"requests", r.requests},
                        {"steps", r.steps},
                        {"preemptions", r.preemptions},
                        {"kv_capacity_blocks", r.kv_capacity_blocks},
                        {"kv_peak_blocks", r.kv_peak_blocks},
                        {"kv_peak_utilization", serving_kv_fraction(r.kv_peak_blocks, d)}});
    if (d.disaggregated) {
      replicas.back()["pool"] = serving_pool_of(report.run, i);
      replicas.back()["kv_peak_utilization"] =
          r.kv_capacity_blocks > 0 ? static_cast<double>(r.kv_peak_blocks) / static_cast<double>(r.kv_capacity_blocks)
                                   : 0.0;
    }
  }
  ServingJson out = {
      // The contract of issue 30, in its order.
      {"schema", "podsim/1"},
      {"requests", m.requests},
      {"duration_s", m.duration_s},
      {"chips", totals.chips},
      {"ttft_s", serving_latency_json(m.ttft_s)},
      {"tpot_s", serving_latency_json(m.tpot_s)},
      {"itl_s", serving_latency_json(m.itl_s)},
      {"e2e_s", serving_latency_json(m.e2e_s)},
      {"throughput",
       {{"requests_per_s", m.requests_per_s},
        {"output_tokens_per_s", m.output_tokens_per_s},
        {"output_tokens_per_s_per_chip", m.output_tokens_per_s_per_chip}}},
      {"goodput_requests_per_s", m.goodput_requests_per_s},
      {"slo_attainment", m.slo_attainment},
      {"kv_cache",
       {{"capacity_tokens", d.kv_capacity_tokens},
        {"peak_utilization", totals.kv_peak_utilization},
        {"block_tokens", d.kv_block_tokens},
        {"peak_blocks", totals.kv_peak_blocks}}},
      {"preemptions", totals.preemptions},
      // Beside the contract.
      {"scenario", report.scenario},
      {"source_file", report.source_file},
      {"output_tokens", m.output_tokens},
      {"meets_slo", totals.meets_slo},
      {"deployment",
       {{"hardware", d.hardware},
        {"slice", d.slice},
        {"parallelism", d.parallelism},
        {"chips_per_replica", d.chips_per_replica},
        {"replicas", d.replicas},
        {"kv_capacity_tokens", d.kv_capacity_tokens},
        {"kv_block_tokens", d.kv_block_tokens},
        {"max_num_seqs", d.max_num_seqs},
        {"max_num_batched_tokens", d.max_num_batched_tokens},
        {"chunked_prefill", d.chunked_prefill},
        {"routing", d.routing},
        {"step_model", d.step_model}}},
      {"traffic", report.traffic},
      {"slo", slo},
      {"replicas", replicas},
      {"steps", totals.steps},
  };
  if (d.disaggregated) out["disaggregated"] = serving_disaggregated_json(report);
  if (!report.rate_points.empty()) {
    ServingJson points = ServingJson::array();
    for (const RatePoint& p : report.rate_points)
      points.push_back(
          {{"rate_per_s", p.rate_per_s},
           {"requests", p.metrics.requests},
           {"ttft_s", serving_latency_json(p.metrics.ttft_s)},
           {"tpot_s", serving_latency_json(p.metrics.tpot_s)},
           {"e2e_s", serving_latency_json(p.metrics.e2e_s)},
           {"throughput",
            {{"requests_per_s", p.metrics.requests_per_s}, {"output_tokens_per_s", p.metrics.output_tokens_per_s}}},
           {"goodput_requests_per_s", p.metrics.goodput_requests_per_s},
           {"meets_slo", p.meets_slo},
           {"slo", slo_checks_json(p.checks)}});
    out["max_rate"] = {
        {"rate_per_s", report.max_rate_per_s ? ServingJson(*report.max_rate_per_s) : ServingJson(nullptr)},
        {"lowest_miss_per_s", report.lowest_miss_per_s ? ServingJson(*report.lowest_miss_per_s) : ServingJson(nullptr)},
        {"points", points}};
  }
  return out.dump(2, ' ', false, ServingJson::error_handler_t::replace);
}

void write_serving_csv(const ServingReport& report, std::ostream& out) {
  out << "id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,e2e_s,meets_slo\n";
  for (const RequestRecord& r : report.run.completed) {
    const RequestLatency latency = request_latency(r);
    out << fmt::format("{},{},{},{},{},{},{},{}\n", r.id, r.arrival_s, r.prompt_tokens, r.output_tokens, latency.ttft_s,
                       latency.tpot_s ? fmt::format("{}", *latency.tpot_s) : std::string(), latency.e2e_s,
                       request_meets_slo(latency, report.slo) ? "true" : "false");
  }
}

}  // namespace podsim
