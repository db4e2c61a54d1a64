// What `podsim serve` prints (docs/serving.md): a serving run's latencies, throughput, goodput and SLO checks as a
// table, JSON (schema podsim/1), a CSV of its requests, an HTML report and a Chrome trace of its replicas' steps.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "models/serving/serving_metrics.hpp"
#include "models/serving/slo.hpp"
#include "sim/engine/serving_simulation.hpp"

namespace podsim {

// The deployment a run simulated, as the report names it.
struct ServingDeployment {
  std::string hardware;     // preset name, e.g. "tpu-v5e"
  std::string slice;        // one replica's slice, e.g. "4x4"
  std::string parallelism;  // e.g. "tensor over X, Y"
  std::int64_t chips_per_replica = 0;
  std::int64_t replicas = 0;
  std::int64_t kv_capacity_tokens = 0;  // one replica's paged KV cache, in tokens
  std::int64_t kv_block_tokens = 0;
  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  bool chunked_prefill = true;
  std::string routing;     // "round_robin" or "least_outstanding"
  std::string step_model;  // how a step is timed, e.g. "book, interpolated over 96 grid points"
};

struct ServingReport {
  std::string scenario;     // the scenario's name
  std::string source_file;  // as given on the command line
  std::string traffic;      // one line, e.g. "poisson at 50 requests/s for 600 s, seed 0"
  ServingDeployment deployment;
  ServingRunResult run;
  ServingMetrics metrics;
  Slo slo;                       // empty when the scenario gives none
  std::vector<SloCheck> checks;  // check_slo(metrics, slo)
};

// A few lines and a table: the deployment, the traffic, TTFT / TPOT / ITL / E2E (mean, p50, p90, p99, in ms),
// throughput, goodput and SLO attainment, each SLO threshold met or missed by how much, KV cache use, preemptions.
std::string serving_text(const ServingReport& report);

// The JSON of `podsim serve --json` (docs/serving.md, "JSON"): the keys that scripts rely on (issue 30) exactly,
// {"schema": "podsim/1", "requests", "duration_s", "chips", "ttft_s", "tpot_s", "itl_s", "e2e_s" (each {"mean", "p50",
// "p90", "p99"}), "throughput": {"requests_per_s", "output_tokens_per_s", "output_tokens_per_s_per_chip"},
// "goodput_requests_per_s", "slo_attainment", "kv_cache": {"capacity_tokens", "peak_utilization"}, "preemptions"},
// and beside them what else the report holds (the deployment, the traffic, the SLO checks, per replica totals).
std::string serving_json(const ServingReport& report);

// One row per completed request: id, arrival_s, prompt_tokens, output_tokens, ttft_s, tpot_s (empty for one token),
// e2e_s, meets_slo.
void write_serving_csv(const ServingReport& report, std::ostream& out);

// A self-contained HTML page: the summary, latency CDFs (TTFT, TPOT, E2E) with the SLO thresholds drawn, and the
// time series of batch size, queue length and KV cache use per replica.
void write_serving_html(const ServingReport& report, std::ostream& out);

// A Chrome trace (Perfetto): one track per replica with its steps (batch size, tokens), one per request from arrival
// to its last token with its first token marked.
void write_serving_trace(const ServingReport& report, std::ostream& out);

}  // namespace podsim
