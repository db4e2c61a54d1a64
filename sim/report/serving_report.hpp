// What `podsim serve` prints (docs/serving.md): a serving run's latencies, throughput, goodput and SLO checks as a
// table, JSON (schema podsim/1), a CSV of its requests, an HTML report and a Chrome trace of its replicas' steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/serving/serving_metrics.hpp"
#include "models/serving/slo.hpp"
#include "sim/capacity/serving_rate.hpp"
#include "sim/capacity/serving_run.hpp"
#include "sim/engine/serving_simulation.hpp"

namespace podsim {

struct ServingReport {
  std::string scenario;     // the scenario's name
  std::string source_file;  // as given on the command line
  std::string traffic;      // one line, e.g. "poisson at 50 requests/s for 600 s, seed 0"
  ServingDeployment deployment;
  ServingRunResult run;
  ServingMetrics metrics;
  Slo slo;                       // empty when the scenario gives none
  std::vector<SloCheck> checks;  // check_slo(metrics, slo)
  // `--max-rate` (serving_rate.hpp): the rates probed in order (empty without it), the highest that met the SLO and
  // the least that missed; the run above is the one at max_rate_per_s (or the lowest rate when none met).
  std::vector<RatePoint> rate_points;
  std::optional<double> max_rate_per_s;
  std::optional<double> lowest_miss_per_s;
};

// The figures every writer shows, derived from the report once, here.
struct ServingTotals {
  std::int64_t chips = 0;            // chips_per_replica x replicas
  std::int64_t preemptions = 0;      // summed over the replicas
  std::int64_t steps = 0;            // every replica's iterations
  std::int64_t kv_peak_blocks = 0;   // the largest replica's peak
  double kv_peak_utilization = 0.0;  // kv_peak_blocks x kv_block_tokens / kv_capacity_tokens (0 without a capacity)
  bool meets_slo = true;             // every check met (true without an SLO)
};
// Throws InternalError when chips_per_replica x replicas overflows. Disaggregated: chips are both pools', and the KV
// peak is the decode pool's (the cache that holds the requests while they generate).
ServingTotals serving_totals(const ServingReport& report);

// A disaggregated run's KV transfers (docs/serving.md, "Disaggregated serving"): how many, their bytes, and the
// seconds from the prefill step's end to the last byte's arrival.
struct KvTransferTotals {
  std::int64_t count = 0;
  std::uint64_t bytes = 0;
  LatencySummary seconds;
};
KvTransferTotals kv_transfer_totals(const ServingRunResult& run);

// `prefill` or `decode` for replica `r` of a disaggregated run, "" for a co-located one.
std::string serving_pool_of(const ServingRunResult& run, std::size_t r);

// A latency in milliseconds, as the text and the page print it: `12.35` (4 significant digits, no unit).
std::string latency_ms_text(double seconds);

// `TPOT p90 25 ms > 20 ms: missed by 5 ms` or `TTFT p99 80 ms <= 100 ms: met`.
std::string slo_check_text(const SloCheck& check);

// `TTFT`, `TPOT`, `E2E`.
const char* slo_metric_label(SloMetric metric);

// `tpu-v5e 4x4, tensor over X, Y: 2 replicas of 16 chips = 32 chips; max_num_seqs 256, ...`: the deployment in a line.
std::string serving_deployment_text(const ServingReport& report);

// The latency table of the text and the page: rows TTFT, TPOT, ITL, E2E with mean, p50, p90, p99 in ms (`-` for a
// metric without samples), and with an SLO an "SLO (ms)" column (`p99 <= 100: met`, `p90 <= 20: MISSED by 5`).
struct ServingLatencyTable {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<const SloCheck*> checks;  // per row, the check of its metric (into the report's), or null
};
ServingLatencyTable serving_latency_table(const ServingReport& report);

// The replica table of the text and the page: per replica (the first `most`) its number, the requests routed to it,
// its steps, preemptions and KV cache peak (a percentage of its capacity), under kServingReplicaHeaders.
inline const std::vector<std::string> kServingReplicaHeaders = {"replica", "requests", "steps", "preemptions",
                                                                "KV peak"};
std::vector<std::vector<std::string>> serving_replica_rows(const ServingReport& report, std::size_t most);

// `--max-rate`'s answer in a line and its probes as a table (rate, requests, the SLO's percentiles in ms, goodput,
// met or the misses), sorted by rate; empty without probes.
std::string serving_rate_text(const ServingReport& report);

// A few lines and a table: the deployment, the traffic, TTFT / TPOT / ITL / E2E (mean, p50, p90, p99, in ms),
// throughput, goodput and SLO attainment, each SLO threshold met or missed by how much, KV cache use, preemptions.
std::string serving_text(const ServingReport& report);

// The JSON of `podsim serve --json` (docs/serving.md, "JSON"): the keys that scripts rely on (issue 30) exactly,
// {"schema": "podsim/1", "requests", "duration_s", "chips", "ttft_s", "tpot_s", "itl_s", "e2e_s" (each {"mean", "p50",
// "p90", "p99"}), "throughput": {"requests_per_s", "output_tokens_per_s", "output_tokens_per_s_per_chip"},
// "goodput_requests_per_s", "slo_attainment", "kv_cache": {"capacity_tokens", "peak_utilization"}, "preemptions"},
// and beside them what else the report holds: "kv_cache" also {"block_tokens", "peak_blocks"}; "scenario",
// "source_file", "output_tokens", "meets_slo", "deployment" (the ServingDeployment's fields by name), "traffic" (its
// line), "slo": {"ttft_s" | "tpot_s" | "e2e_s": {"percentile", "target_s", "actual_s", "met", "miss_s"}} (the given
// thresholds), "replicas": [{"replica", "requests", "steps", "preemptions", "kv_capacity_blocks", "kv_peak_blocks",
// "kv_peak_utilization"}], "steps" (every replica's iterations). Disaggregated, also "disaggregated": {"kv_link",
// "kv_link_per_chip_Bps", "kv_latency_s", "kv_bytes_per_token", "prefill" and "decode" (each {"hardware", "slice",
// "parallelism", "chips_per_replica", "replicas", "chips", "kv_capacity_tokens", "kv_peak_utilization",
// "max_num_seqs", "max_num_batched_tokens", "kv_link_Bps", "steps", "preemptions"}), "kv_transfers": {"count",
// "bytes", "mean_s", "p50_s", "p99_s"}}, and each replica its "pool". Indented by 2.
std::string serving_json(const ServingReport& report);

// {"mean", "p50", "p90", "p99"} of a latency summary, in seconds: every serving JSON's latency object.
nlohmann::ordered_json serving_latency_json(const LatencySummary& summary);

// {"ttft_s" | "tpot_s" | "e2e_s": {"percentile", "target_s", "actual_s", "met", "miss_s"}} of the given checks.
nlohmann::ordered_json slo_checks_json(const std::vector<SloCheck>& checks);

// One row per completed request: id, arrival_s, prompt_tokens, output_tokens, ttft_s, tpot_s (empty for one token),
// e2e_s, meets_slo.
void write_serving_csv(const ServingReport& report, std::ostream& out);

// A self-contained HTML page: the summary, latency CDFs (TTFT, TPOT, E2E) with the SLO thresholds drawn, and the
// time series of batch size, queue length and KV cache use per replica.
void write_serving_html(const ServingReport& report, std::ostream& out);

// A Chrome trace (Perfetto): one track per replica with its steps (batch size, tokens), one per request from arrival
// to its last token with its first token marked; disaggregated, one per decode replica with the KV transfers into it.
void write_serving_trace(const ServingReport& report, std::ostream& out);

}  // namespace podsim
