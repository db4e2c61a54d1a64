// The plan search as JSON and CSV (`podsim plan --json`, `--csv`; docs/capacity.md): the contract keys of issue 9 in
// their order, then the figures beside them; the CSV is the JSON flattened, one row per candidate.
#include <algorithm>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/goal_report.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/plan_report_cells.hpp"
#include "sim/report/run_report.hpp"

namespace podsim::report {

using nlohmann::json;

namespace {

json or_null(bool present, const json& value) {
  return present ? value : json(nullptr);
}

// A value of the book and, once simulated, of the des.
json book_des(double book, const std::optional<double>& des) {
  return {{"book", book}, {"des", des ? json(*des) : json(nullptr)}};
}

json pipeline_json(const PipelineFigures& f) {
  return {{"axes", f.axes},
          {"stages", f.stages},
          {"layers_per_stage", f.layers_per_stage},
          {"schedule", kPipelineScheduleNames.name(f.schedule)},
          {"microbatches", f.microbatches},
          {"stage_forward_s", f.forward_s},
          {"stage_backward_s", f.backward_s},
          {"send_bytes", f.send_bytes},
          {"send_s", f.send_s},
          {"span_s", book_des(f.span_s, f.des_span_s)},
          {"bubble_s", book_des(f.bubble_s, f.des_bubble_s)},
          {"bubble_fraction", book_des(f.bubble_fraction, f.des_bubble_fraction)},
          {"stage_memory_bytes", f.stage_memory_bytes},
          {"worst_stage", f.worst_stage}};
}

json routing_json(const ScenarioSpec& spec, const Candidate& c) {
  const auto load = routing(spec, c);
  if (!load) return nullptr;
  return {{"moe_dispatch", kMoeDispatchNames.name(spec.workload->moe_dispatch)},
          {"capacity_factor", spec.workload->capacity_factor},
          {"capacity", load->capacity},
          {"dropped_fraction", load->dropped_fraction}};
}

// The des's split of the step (docs/capacity.md, "Overlap in the step"), once simulated without pipeline stages.
json des_breakdown_json(const CandidateResult& r) {
  if (!r.des_breakdown) return nullptr;
  const DesStepBreakdown& b = *r.des_breakdown;
  return {{"compute", b.compute_s},
          {"exposed_communication", b.exposed_communication_s},
          {"dcn", b.dcn_s},
          {"bubble", b.bubble_s},
          {"offload", b.offload_s}};
}

// What each evaluation assumes of overlap between a step's ops.
json overlap_json(const CandidateResult& r) {
  return {{"book", "none: every op's time added, one after another"},
          {"des", r.pipeline ? "pipeline stages: each stage's ops in program order, the stages' schedule simulated"
                             : "the step's layers in sequence under dataflow-hbm: a layer's collectives overlap its "
                               "neighbours' compute"}};
}

// The parallelisms of the candidate's mirror images (CandidateResult::mirrors), as "parallelism" shows its own.
json mirrors_json(const CandidateResult& r) {
  json out = json::array();
  for (const Parallelism& mirror : r.mirrors)
    out.push_back(parallelism_json(mirror));
  return out;
}

json candidate_json(const ScenarioSpec& spec, const CandidateResult& r, std::optional<std::size_t> rank) {
  const Candidate& c = r.candidate;
  const bool evaluated = was_evaluated(r);
  const auto price = chip_hour_price(spec, c.hardware.name);
  json memory = json::object();
  for (const MemoryColumn& column : kMemoryColumns)
    memory[column.json_key] = or_null(evaluated, r.memory.*column.field);
  json out = {
      // The contract of issue 9, in its order.
      {"rank", rank ? json(*rank) : json(nullptr)},
      {"slice", c.slice},
      {"chips", c.chips()},
      {"mesh", mesh_text(c)},
      {"parallelism", parallelism_json(c.parallelism)},
      {"fits_hbm", r.fits_hbm},
      {"memory_per_chip_bytes", or_null(evaluated, r.memory_per_chip_bytes)},
      {"memory_per_chip", memory},
      {"step_time_s",
       {{"book", or_null(evaluated, r.book_step_s)}, {"des", r.des_step_s ? json(*r.des_step_s) : json(nullptr)}}},
      {"mfu", or_null(evaluated, r.mfu)},
      {"tokens_per_s_per_chip", or_null(evaluated, r.tokens_per_s_per_chip)},
      {"bound", or_null(evaluated && r.bound, step_bound_name(r.bound))},
      {"rejected", r.rejected ? json(*r.rejected) : json(nullptr)},
      // Beside the contract.
      {"hardware", c.hardware.name},
      {"wraparound", c.wraparound},
      {"slices", c.slices},
      {"dcn_s",
       {{"book", or_null(evaluated, r.breakdown.dcn_s)}, {"des", r.des_dcn_s ? json(*r.des_dcn_s) : json(nullptr)}}},
      {"microbatches", c.microbatches},
      {"remat", remat_json(c.remat)},
      {"plan", c.plan.empty() ? json(nullptr) : json(c.plan)},
      {"hbm_bytes", or_null(evaluated, r.hbm_bytes)},
      {"headroom_bytes", or_null(evaluated, headroom_bytes(r))},
      {"step_breakdown_s", or_null(evaluated, {{"compute", r.breakdown.compute_s},
                                               {"hbm", r.breakdown.hbm_s},
                                               {"ici", r.breakdown.ici_s},
                                               {"dcn", r.breakdown.dcn_s},
                                               {"bubble", r.breakdown.bubble_s},
                                               {"offload", r.breakdown.offload_s},
                                               {"recompute", r.breakdown.recompute_s}})},
      {"des_step_breakdown_s", des_breakdown_json(r)},
      {"overlap", overlap_json(r)},
      {"pipeline", r.pipeline && evaluated ? pipeline_json(*r.pipeline) : json(nullptr)},
      {"model_flops_per_step", or_null(evaluated, r.model_flops_per_step)},
      {"token_latency_s", or_null(evaluated && mode_of(spec) != WorkloadMode::train, r.token_latency_s)},
      {"cost_per_million_tokens", r.cost_per_million_tokens ? json(*r.cost_per_million_tokens) : json(nullptr)},
      {"des_failed", r.des_failed ? json(*r.des_failed) : json(nullptr)},
      {"expert_routing", routing_json(spec, c)},
      {"mirrors", mirrors_json(r)},
      {"price_per_chip_hour", price ? json(*price) : json(nullptr)},
  };
  if (c.twist) out["twisted"] = true;  // only on a twisted torus, so plain rows keep their form
  if (spec.goal) add_goal_json(out, r.goal);
  return out;
}

}  // namespace

json plan_json(const PlanReport& report) {
  const ScenarioSpec& spec = report.spec;
  const PlanSearchResult& search = report.search;
  json candidates = json::array();
  for (std::size_t i = 0; i < search.ranked.size(); ++i)
    candidates.push_back(candidate_json(spec, search.ranked[i], i + 1));
  for (const CandidateResult& r : search.rejected)
    candidates.push_back(candidate_json(spec, r, std::nullopt));
  return {{"schema", "podsim/1"},
          {"scenario", spec.name},
          {"model", spec.model ? json(spec.model->name) : json(nullptr)},
          {"mode", kWorkloadModeNames.name(mode_of(spec))},
          {"price_per_chip_hour", price_json<json>(spec)},
          {"candidates", candidates},
          {"search",
           {{"screened", search.screened},
            {"ranked", search.ranked.size()},
            {"rejected", search.rejected.size()},
            {"simulations", search.simulations},
            {"screen_seconds", search.screen_seconds},
            {"simulate_seconds", search.simulate_seconds}}}};
}

json candidate_result_json(const ScenarioSpec& spec, const CandidateResult& result) {
  return candidate_json(spec, result, std::nullopt);
}

void write_plan_csv(const PlanReport& report, std::ostream& out) {
  static const char* const kHeader[] = {"rank",
                                        "hardware",
                                        "slice",
                                        "chips",
                                        "mesh",
                                        "parallelism",
                                        "microbatches",
                                        "remat",
                                        "plan",
                                        "fits_hbm",
                                        "memory_per_chip_bytes",
                                        "memory_params_bytes",
                                        "memory_grads_bytes",
                                        "memory_optimizer_bytes",
                                        "memory_activations_bytes",
                                        "memory_kv_cache_bytes",
                                        "memory_temporaries_bytes",
                                        "hbm_bytes",
                                        "headroom_bytes",
                                        "step_time_book_s",
                                        "step_time_des_s",
                                        "mfu",
                                        "tokens_per_s_per_chip",
                                        "token_latency_s",
                                        "bound",
                                        "cost_per_million_tokens",
                                        "rejected",
                                        "pipeline_stages",
                                        "pipeline_schedule",
                                        "bubble_fraction",
                                        "memory_offloaded_bytes",
                                        "step_recompute_book_s",
                                        "step_offload_book_s",
                                        "step_compute_des_s",
                                        "step_exposed_communication_des_s",
                                        "mirrors",
                                        "price_per_chip_hour"};
  std::string line;
  for (const char* field : kHeader)
    line += (line.empty() ? "" : ",") + std::string(field);
  if (report.spec.goal)
    for (const std::string& field : goal_csv_headers())
      line += "," + field;
  out << line << "\n";
  const auto cell = [](const json& value) -> std::string {
    if (value.is_null()) return "";
    if (value.is_string()) return csv_field(value.get<std::string>());
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number_float()) return fmt::format("{}", value.get<double>());
    return value.dump();
  };
  const auto write_row = [&](const CandidateResult& r, std::optional<std::size_t> rank) {
    const json c = candidate_json(report.spec, r, rank);
    const json& memory = c.at("memory_per_chip");
    const std::vector<std::string> cells = {
        cell(c.at("rank")),
        cell(c.at("hardware")),
        slice_text(r.candidate),
        cell(c.at("chips")),
        cell(c.at("mesh")),
        csv_field(r.candidate.parallelism.to_string()),
        cell(c.at("microbatches")),
        remat_text(r.candidate.remat),
        cell(c.at("plan")),
        cell(c.at("fits_hbm")),
        cell(c.at("memory_per_chip_bytes")),
        cell(memory.at("params")),
        cell(memory.at("grads")),
        cell(memory.at("optimizer")),
        cell(memory.at("activations")),
        cell(memory.at("kv_cache")),
        cell(memory.at("temporaries")),
        cell(c.at("hbm_bytes")),
        cell(c.at("headroom_bytes")),
        cell(c.at("step_time_s").at("book")),
        cell(c.at("step_time_s").at("des")),
        cell(c.at("mfu")),
        cell(c.at("tokens_per_s_per_chip")),
        cell(c.at("token_latency_s")),
        cell(c.at("bound")),
        cell(c.at("cost_per_million_tokens")),
        cell(c.at("rejected")),
        r.pipeline ? std::to_string(r.pipeline->stages) : "",
        r.pipeline ? std::string(kPipelineScheduleNames.name(r.pipeline->schedule)) : "",
        r.pipeline && was_evaluated(r)
            ? fmt::format("{}", r.pipeline->des_bubble_fraction.value_or(r.pipeline->bubble_fraction))
            : "",
        cell(memory.at("offloaded")),
        cell(c.at("step_breakdown_s").is_null() ? json(nullptr) : c.at("step_breakdown_s").at("recompute")),
        cell(c.at("step_breakdown_s").is_null() ? json(nullptr) : c.at("step_breakdown_s").at("offload")),
        r.des_breakdown ? fmt::format("{}", r.des_breakdown->compute_s) : "",
        r.des_breakdown ? fmt::format("{}", r.des_breakdown->exposed_communication_s) : "",
        csv_field(mirrors_text(r)),
        cell(c.at("price_per_chip_hour")),
    };
    std::string row;
    for (std::size_t i = 0; i < cells.size(); ++i)
      row += (i == 0 ? "" : ",") + cells[i];
    if (report.spec.goal)
      for (const std::string& goal_cell : goal_csv_cells(r.goal))
        row += "," + goal_cell;
    out << row << "\n";
  };
  for (std::size_t i = 0; i < report.search.ranked.size(); ++i)
    write_row(report.search.ranked[i], i + 1);
  for (const CandidateResult& r : report.search.rejected)
    write_row(r, std::nullopt);
}

}  // namespace podsim::report
