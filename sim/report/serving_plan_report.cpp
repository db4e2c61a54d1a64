// `podsim plan` on a serving scenario (serving_plan_report.hpp). The text, JSON and CSV read the same figures: the
// run's metrics and SLO checks as models/serving computed them.
#include "sim/report/serving_plan_report.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/serving_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using PlanJson = nlohmann::ordered_json;

// The percentile the SLO puts on `metric`, p99 when it gives none.
PercentileKey shown_percentile(const Slo& slo, SloMetric metric) {
  const auto& target = slo.target(metric);
  return target ? target->percentile : PercentileKey::p99;
}

std::string slo_line(const Slo& slo) {
  std::vector<std::string> parts;
  for (const SloMetric metric : kSloMetrics)
    if (const auto& target = slo.target(metric))
      parts.push_back(fmt::format("{} {} <= {} ms", slo_metric_label(metric),
                                  kPercentileKeyNames.name(target->percentile), latency_ms_text(target->seconds)));
  if (parts.empty()) return "none given (every simulated deployment meets it)";
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : ", ") + part;
  return out;
}

std::string parallelism_cell(const Candidate& candidate) {
  const std::string text = candidate.parallelism.to_string();
  return text.empty() ? "-" : text;
}

PlanJson candidate_json(const ScenarioSpec& spec, const ServingCandidate& c, std::optional<std::size_t> rank) {
  PlanJson out = {{"rank", rank ? PlanJson(*rank) : PlanJson(nullptr)},
                  {"hardware", c.candidate.hardware.name},
                  {"slice", slice_text(c.candidate)},
                  {"mesh", mesh_text(c.candidate)},
                  {"parallelism", PlanJson(parallelism_json(c.candidate.parallelism))},
                  {"chips_per_replica", c.candidate.chips()},
                  {"replicas", c.replicas > 0 ? PlanJson(c.replicas) : PlanJson(nullptr)},
                  {"chips", c.replicas > 0 ? PlanJson(c.chips()) : PlanJson(nullptr)},
                  {"max_num_seqs", c.max_num_seqs > 0 ? PlanJson(c.max_num_seqs) : PlanJson(nullptr)}};
  if (!c.outcome) {
    out["kv_capacity_tokens"] = nullptr;
    out["serving"] = nullptr;
    out["cost_per_million_tokens"] = nullptr;
    out["rejected"] = c.rejected.value_or("");
    return out;
  }
  const ServingMetrics& m = c.outcome->metrics;
  std::int64_t preemptions = 0;
  for (const ServingReplicaTotals& r : c.outcome->run.replicas)
    preemptions += r.preemptions;
  out["kv_capacity_tokens"] = c.outcome->deployment.kv_capacity_tokens;
  out["serving"] = {// The contract of issue 30, in its order.
                    {"ttft_s", serving_latency_json(m.ttft_s)},
                    {"tpot_s", serving_latency_json(m.tpot_s)},
                    {"e2e_s", serving_latency_json(m.e2e_s)},
                    {"goodput_requests_per_s", m.goodput_requests_per_s},
                    {"meets_slo", c.meets_slo()},
                    // Beside it.
                    {"itl_s", serving_latency_json(m.itl_s)},
                    {"slo_attainment", m.slo_attainment},
                    {"throughput",
                     {{"requests_per_s", m.requests_per_s},
                      {"output_tokens_per_s", m.output_tokens_per_s},
                      {"output_tokens_per_s_per_chip", m.output_tokens_per_s_per_chip}}},
                    {"requests", m.requests},
                    {"duration_s", m.duration_s},
                    {"preemptions", preemptions},
                    {"slo", slo_checks_json(c.outcome->checks)}};
  const auto cost = serving_cost_per_million_tokens(spec, c);
  out["cost_per_million_tokens"] = cost ? PlanJson(*cost) : PlanJson(nullptr);
  out["rejected"] = nullptr;
  return out;
}

}  // namespace

std::optional<double> serving_cost_per_million_tokens(const ScenarioSpec& spec, const ServingCandidate& candidate) {
  const auto price = chip_hour_price(spec, candidate.candidate.hardware.name);
  if (!price || !candidate.outcome) return std::nullopt;
  const double tokens_per_s = candidate.outcome->metrics.output_tokens_per_s;
  if (!(tokens_per_s > 0)) return std::nullopt;
  return *price * static_cast<double>(candidate.chips()) / 3600.0 / tokens_per_s * 1e6;
}

std::string serving_slo_verdict(const ServingCandidate& candidate) {
  if (!candidate.outcome) return "-";
  if (candidate.outcome->checks.empty()) return "-";
  std::string out;
  for (const SloCheck& check : candidate.outcome->checks) {
    if (check.met) continue;
    out += (out.empty() ? "" : "; ") + fmt::format("{} {} +{} ms (+{:.0f}%)", slo_metric_label(check.metric),
                                                   kPercentileKeyNames.name(check.percentile),
                                                   latency_ms_text(check.miss_s),
                                                   check.target_s > 0 ? check.miss_s / check.target_s * 100.0 : 0.0);
  }
  return out.empty() ? "met" : out;
}

std::string serving_search_summary(const ServingSearchResult& search) {
  return fmt::format(
      "built {} deployment{} in {}; ran {} simulation{} in {} ({} replica count{} decided without a run)",
      search.deployments, search.deployments == 1 ? "" : "s", format_seconds(search.build_seconds), search.simulations,
      search.simulations == 1 ? "" : "s", format_seconds(search.simulate_seconds), search.decided_unsimulated,
      search.decided_unsimulated == 1 ? "" : "s");
}

std::string serving_plan_text(const ServingPlanReport& report) {
  const ScenarioSpec& spec = report.spec;
  const Slo& slo = spec.serve ? spec.serve->slo : Slo{};
  std::string out = "serving plan: " + spec.name + (spec.source_file.empty() ? "" : " (" + spec.source_file + ")");
  out += "\ntraffic: " + (spec.serve ? traffic_text(spec.serve->traffic) : std::string("-")) + "\n";
  out += "SLO: " + slo_line(slo) + "\n\n";

  const bool priced = podsim::priced(spec);
  std::vector<std::string> headers = {"rank",     "hardware", "slice",        "parallelism",
                                      "replicas", "chips",    "max_num_seqs", "KV tokens/replica"};
  for (const SloMetric metric : kSloMetrics)
    headers.push_back(
        fmt::format("{} {} (ms)", slo_metric_label(metric), kPercentileKeyNames.name(shown_percentile(slo, metric))));
  headers.push_back("goodput (req/s)");
  headers.push_back("SLO");
  if (priced) headers.push_back("$/1M tokens");
  std::vector<TextTable::Align> align(headers.size(), TextTable::Align::right);
  for (const std::size_t left : {std::size_t{1}, std::size_t{2}, std::size_t{3}, headers.size() - (priced ? 2 : 1)})
    align[left] = TextTable::Align::left;
  TextTable table(headers, align);
  std::size_t rank = 0;
  for (const ServingCandidate& c : report.search.ranked) {
    const ServingMetrics& m = c.outcome->metrics;
    std::vector<std::string> row = {
        std::to_string(++rank),         c.candidate.hardware.name,
        slice_text(c.candidate),        parallelism_cell(c.candidate),
        std::to_string(c.replicas),     std::to_string(c.chips()),
        std::to_string(c.max_num_seqs), std::to_string(c.outcome->deployment.kv_capacity_tokens)};
    for (const SloMetric metric : kSloMetrics) {
      const LatencySummary& summary = metric_summary(m, metric);
      row.push_back(summary.count > 0 ? latency_ms_text(summary_percentile(summary, shown_percentile(slo, metric)))
                                      : "-");
    }
    row.push_back(format_number(m.goodput_requests_per_s));
    row.push_back(serving_slo_verdict(c));
    if (priced) {
      const auto cost = serving_cost_per_million_tokens(spec, c);
      row.push_back(cost ? fmt::format("${:.4g}", *cost) : "-");
    }
    table.add_row(std::move(row));
  }
  if (table.rows() > 0)
    out += table.render("  ");
  else
    out += "  no deployment could be simulated\n";
  const std::size_t meeting =
      static_cast<std::size_t>(std::count_if(report.search.ranked.begin(), report.search.ranked.end(),
                                             [](const ServingCandidate& c) { return c.meets_slo(); }));
  if (meeting > 0) {
    const ServingCandidate& best = report.search.ranked.front();
    out += fmt::format("\nanswer: {} chips: {} replica{} of {} {} ({}), max_num_seqs {}\n", best.chips(), best.replicas,
                       best.replicas == 1 ? "" : "s", best.candidate.hardware.name, slice_text(best.candidate),
                       parallelism_cell(best.candidate), best.max_num_seqs);
  } else if (!report.search.ranked.empty()) {
    out +=
        "\nanswer: no simulated deployment meets the SLO at this traffic (the nearest first above; search more "
        "replicas, larger slices or other hardware)\n";
  }
  if (!report.search.rejected.empty()) {
    out += "\nrejected:\n";
    for (const ServingCandidate& c : report.search.rejected) {
      std::string what =
          c.candidate.hardware.name + " " + slice_text(c.candidate) + " " + parallelism_cell(c.candidate);
      if (c.max_num_seqs > 0) what += ", max_num_seqs " + std::to_string(c.max_num_seqs);
      if (c.replicas > 0) what += ", " + std::to_string(c.replicas) + " replicas";
      out += indented(2, what + ": " + c.rejected.value_or("-"));
    }
  }
  out += "\n" + serving_search_summary(report.search) + "\n";
  return out;
}

nlohmann::ordered_json serving_plan_json(const ServingPlanReport& report) {
  const ScenarioSpec& spec = report.spec;
  PlanJson candidates = PlanJson::array();
  std::size_t rank = 0;
  for (const ServingCandidate& c : report.search.ranked)
    candidates.push_back(candidate_json(spec, c, ++rank));
  for (const ServingCandidate& c : report.search.rejected)
    candidates.push_back(candidate_json(spec, c, std::nullopt));
  PlanJson slo = PlanJson::object();
  if (spec.serve)
    for (const SloMetric metric : kSloMetrics)
      if (const auto& target = spec.serve->slo.target(metric))
        slo[std::string(kSloMetricNames.name(metric))] = {
            {std::string(kPercentileKeyNames.name(target->percentile)), target->seconds}};
  const ServingSearchResult& s = report.search;
  return {{"schema", "podsim/1"},
          {"scenario", spec.name},
          {"mode", "serve"},
          {"traffic", spec.serve ? traffic_text(spec.serve->traffic) : std::string()},
          {"slo", slo},
          {"price_per_chip_hour", price_json<PlanJson>(spec)},
          {"candidates", candidates},
          {"search",
           {{"deployments", s.deployments},
            {"simulations", s.simulations},
            {"decided_without_run", s.decided_unsimulated},
            {"build_seconds", s.build_seconds},
            {"simulate_seconds", s.simulate_seconds}}}};
}

void write_serving_plan_csv(const ServingPlanReport& report, std::ostream& out) {
  out << "rank,hardware,slice,mesh,parallelism,chips_per_replica,replicas,chips,max_num_seqs,kv_capacity_tokens,"
         "ttft_mean_s,ttft_p50_s,ttft_p90_s,ttft_p99_s,tpot_mean_s,tpot_p50_s,tpot_p90_s,tpot_p99_s,e2e_mean_s,"
         "e2e_p50_s,e2e_p90_s,e2e_p99_s,goodput_requests_per_s,slo_attainment,output_tokens_per_s,meets_slo,"
         "cost_per_million_tokens,rejected\n";
  const auto write = [&](const ServingCandidate& c, std::optional<std::size_t> rank) {
    std::string row = rank ? std::to_string(*rank) : "";
    row += "," + csv_field(c.candidate.hardware.name) + "," + csv_field(slice_text(c.candidate)) + "," +
           csv_field(mesh_text(c.candidate)) + "," + csv_field(c.candidate.parallelism.to_string()) + "," +
           std::to_string(c.candidate.chips()) + "," + (c.replicas > 0 ? std::to_string(c.replicas) : "") + "," +
           (c.replicas > 0 ? std::to_string(c.chips()) : "") + "," +
           (c.max_num_seqs > 0 ? std::to_string(c.max_num_seqs) : "") + ",";
    if (c.outcome) {
      const ServingMetrics& m = c.outcome->metrics;
      row += std::to_string(c.outcome->deployment.kv_capacity_tokens);
      for (const LatencySummary* s : {&m.ttft_s, &m.tpot_s, &m.e2e_s})
        for (const double v : {s->mean, s->p50, s->p90, s->p99})
          row += s->count > 0 ? fmt::format(",{}", v) : std::string(",");
      row += fmt::format(",{},{},{},{}", m.goodput_requests_per_s, m.slo_attainment, m.output_tokens_per_s,
                         c.meets_slo() ? "true" : "false");
      const auto cost = serving_cost_per_million_tokens(report.spec, c);
      row += cost ? fmt::format(",{}", *cost) : std::string(",");
      row += ",";
    } else {
      row += std::string(12, ',') + ",,,,,," + csv_field(c.rejected.value_or(""));
    }
    out << row << "\n";
  };
  std::size_t rank = 0;
  for (const ServingCandidate& c : report.search.ranked)
    write(c, ++rank);
  for (const ServingCandidate& c : report.search.rejected)
    write(c, std::nullopt);
}

}  // namespace podsim::report
