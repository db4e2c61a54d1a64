// `podsim plan` on a serving scenario for people and scripts (docs/serving.md, "Search"): the simulated deployments
// ranked (those meeting the SLO by chips first, then those that miss, each with the SLO it misses and by how much),
// the rejected ones with their reasons, as a text table, JSON ("schema": "podsim/1") and CSV.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/capacity/serving_search.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::report {

struct ServingPlanReport {
  const ScenarioSpec& spec;
  const ServingSearchResult& search;
};

// USD per million output tokens at the run's throughput: chips x price per chip-hour / 3600 / output tokens per s
// x 1e6; nullopt without a price or a token.
std::optional<double> serving_cost_per_million_tokens(const ScenarioSpec& spec, const ServingCandidate& candidate);

// `TTFT p99 +230 ms (+23%)` per missed check, joined by "; "; `met` when every check is met (`-` without an SLO).
std::string serving_slo_verdict(const ServingCandidate& candidate);

// The scenario, traffic and SLO; the ranked table (rank, hardware, slice, parallelism, replicas, chips, max_num_seqs,
// KV tokens per replica, TTFT / TPOT / E2E at the SLO's percentile (p99 when not given) in ms, goodput, SLO
// verdict, cost per 1M output tokens when priced); the rejected with their reasons; the search's summary line.
std::string serving_plan_text(const ServingPlanReport& report);

// `built N deployments in T; ran M simulations in T (K replica counts decided without a run)`.
std::string serving_search_summary(const ServingSearchResult& search);

// {"schema": "podsim/1", "scenario", "mode": "serve", "traffic", "slo", "candidates": [{"rank", "hardware",
// "slice", "mesh", "parallelism": {kind: [axes]}, "chips_per_replica", "replicas", "chips", "max_num_seqs",
// "kv_capacity_tokens", "serving": {"ttft_s", "tpot_s", "e2e_s" (each {"mean", "p50", "p90", "p99"}),
// "goodput_requests_per_s", "meets_slo", "itl_s", "slo_attainment", "throughput", "preemptions", "slo"},
// "cost_per_million_tokens", "rejected"}], "search": {...}}: the ranked (rank 1, 2, ...) then the rejected (rank,
// serving and kv_capacity_tokens null). The contract of issue 30 is each candidate's "serving" with its first five
// keys.
nlohmann::ordered_json serving_plan_json(const ServingPlanReport& report);

// One row per candidate, ranked then rejected: the JSON's fields flattened (ttft_s.p99 -> ttft_p99_s), empty cells
// for nulls.
void write_serving_plan_csv(const ServingPlanReport& report, std::ostream& out);

}  // namespace podsim::report
