// `podsim plan` for people and scripts (docs/capacity.md): the ranked candidates of a plan search and the rejected
// ones after them, as an aligned text table, the versioned JSON object ("schema": "podsim/1"), a CSV with one row
// per candidate, and a self-contained HTML page (plan_report_html.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/capacity/plan_search.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::report {

// What a plan report shows: the scenario searched (its name, model, workload and price) and what the search found.
struct PlanReport {
  const ScenarioSpec& spec;
  const PlanSearchResult& search;
  std::size_t rows = SIZE_MAX;  // the text table's ranked rows at most (`--rows N`); the JSON and CSV keep all
};

// The candidate fields that differ within a search: the reports show them (as columns, in labels) only then.
struct VaryingFields {
  bool plan = false, hardware = false, microbatches = false, remat = false;
  std::size_t count() const { return std::size_t{plan} + hardware + microbatches + remat; }
};
VaryingFields varying_fields(const PlanSearchResult& search);

// `tpu-v5e 16x16 data=X fsdp=Y, 2 microbatches, remat 1/layer`: the slice and parallelism, with the plan,
// hardware, microbatches and remat when they vary.
std::string candidate_label(const Candidate& candidate, const VaryingFields& varying);

// `X=4,Y=4,Z=4`: the candidate's mesh axes and sizes.
std::string mesh_text(const Candidate& candidate);
// {kind: [axes]} for every parallelism kind (empty lists for the kinds not used), as the plan JSON shows it.
nlohmann::json parallelism_json(const Parallelism& parallelism);

// The scenario's `price_per_chip_hour` as the reports echo it: its number, its object keyed by preset (in the file's
// order), or null.
template <typename Json>
Json price_json(const ScenarioSpec& spec) {
  if (spec.price_per_chip_hour) return Json(*spec.price_per_chip_hour);
  if (spec.price_per_preset.empty()) return Json(nullptr);
  Json out = Json::object();
  for (const auto& [preset, price] : spec.price_per_preset)
    out[preset] = price;
  return out;
}
// `4x4x4`.
std::string slice_text(const Candidate& candidate);
// `12.3%` of a fraction (0.123).
std::string percent_text(double fraction);
// `data=Y fsdp=X,Z; ...`: the parallelisms of the candidate's mirror images (CandidateResult::mirrors), "" for none.
std::string mirrors_text(const CandidateResult& result);
// The free HBM per chip: capacity - memory (negative when it does not fit).
std::int64_t headroom_bytes(const CandidateResult& result);
// Whether the closed form ran on the candidate (false for one rejected before it could be planned).
bool was_evaluated(const CandidateResult& result);

// A table as cells, for the text and the HTML writers: per column whether it holds figures (right-aligned) or text;
// `notes` follow the table (a failed simulation).
struct PlanTable {
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // one per header
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
};

// Whether `header` is one of ranked_table's columns of memory per chip by kind ("params", ..., "offloaded (host)").
bool memory_kind_header(std::string_view header);

// The ranked candidates: rank, slice and chips, mesh, parallelism (then plan, hardware, microbatches and remat
// when they differ between candidates), book and des step time, MFU, pipeline stages, schedule and bubble (when a
// candidate has stages), per-token latency and tokens/s (decode),
// tokens/s per chip, memory per chip by kind (the kinds any candidate holds), in total and its headroom under HBM,
// the bound, and the cost per 1M tokens when the scenario gives a price.
PlanTable ranked_table(const PlanReport& report);
// The rejected candidates: slice, mesh, parallelism (and the varying fields), memory per chip, reason.
PlanTable rejected_table(const PlanReport& report);
// `screened N candidates by the closed form in T (R candidates/s); simulated K in T`, with the number of simulations
// run when mirror images shared them.
std::string search_summary(const PlanSearchResult& search);
// The scenario, its model and workload in one line.
std::string plan_title(const ScenarioSpec& spec);

// The ranked table (rank, slice and chips, mesh, parallelism, book and des step time, MFU, tokens/s per chip or
// per-token latency and tokens/s for decode, memory per chip by kind, headroom, bound, cost per 1M tokens when
// priced), the rejected candidates with their reasons, and a footer with the screening rate and simulation time.
std::string plan_text(const PlanReport& report);

// {"schema": "podsim/1", "scenario", "model", "mode", "candidates": [{"rank", "slice", "chips", "mesh",
// "parallelism": {kind: [axes]}, "fits_hbm", "memory_per_chip_bytes", "memory_per_chip": {"params", "grads",
// "optimizer", "activations", "kv_cache", "temporaries"}, "step_time_s": {"book", "des"}, "mfu",
// "tokens_per_s_per_chip", "bound", "rejected", ...}], "search": {...}}: the ranked candidates (rank 1, 2, ...) then
// the rejected (rank null). `des` is null when not simulated, `rejected` null or the reason; figures the closed form
// never computed (a candidate rejected before it) are null. Keys beside the contract's are listed in
// docs/capacity.md.
nlohmann::json plan_json(const PlanReport& report);

// One candidate's object as plan_json lists it (rank null): `podsim run` of a model-level scenario embeds it.
nlohmann::json candidate_result_json(const ScenarioSpec& spec, const CandidateResult& result);

// One row per candidate, ranked then rejected, under a header row: the JSON's fields flattened
// (memory_per_chip.params -> memory_params_bytes, step_time_s.book -> step_time_book_s), empty cells for nulls.
void write_plan_csv(const PlanReport& report, std::ostream& out);

// The page: a scatter chart of step time against memory per chip (one point per evaluated candidate, fitting ones
// as dots, the others as crosses, each HBM capacity a dashed line), a stacked step-time breakdown (compute, HBM,
// ICI, DCN; closed form) of the top candidates, the ranked table and the rejected ones.
void write_plan_html(const PlanReport& report, std::ostream& out);

}  // namespace podsim::report
