// The plan search as text (its JSON and CSV: plan_report_json.cpp). The three read the same CandidateResult fields
// through the same helpers (plan_report_cells.hpp), so a figure printed in the table is the figure a script reads.
#include "sim/report/plan_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/goal_report.hpp"
#include "sim/report/plan_report_cells.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {

using nlohmann::json;

WorkloadMode mode_of(const ScenarioSpec& spec) {
  return spec.workload ? spec.workload->mode : WorkloadMode::train;
}

json remat_json(const Remat& remat) {
  if (remat.checkpoints_per_layer > 0) return json{{"checkpoints_per_layer", remat.checkpoints_per_layer}};
  if (remat.policy != RematPolicy::custom) return json(std::string(kRematPolicyNames.name(remat.policy)));
  json tensors = json::object();
  for (std::size_t i = 0; i < kLayerTensorCount; ++i)
    tensors[std::string(kLayerTensorNames.name(static_cast<LayerTensor>(i)))] =
        std::string(kTensorPlacementNames.name(remat.custom[i]));
  return json{{"custom", tensors}};
}

json parallelism_json(const Parallelism& parallelism) {
  json out = json::object();
  for (std::size_t k = 0; k < kParallelKinds; ++k)
    out[std::string(kParallelKindNames.name(static_cast<ParallelKind>(k)))] = parallelism.axes[k];
  return out;
}

namespace {

// Whether the candidates differ in `key` (a column is shown only then).
template <typename Key>
bool varies(const PlanSearchResult& search, Key key) {
  std::optional<std::string> first;
  for (const auto* list : {&search.ranked, &search.rejected})
    for (const CandidateResult& r : *list) {
      const std::string value = key(r.candidate);
      if (!first)
        first = value;
      else if (*first != value)
        return true;
    }
  return false;
}

void add_variable_headers(std::vector<std::string>& headers, const VaryingFields& shown) {
  if (shown.plan) headers.push_back("plan");
  if (shown.hardware) headers.push_back("hardware");
  if (shown.microbatches) headers.push_back("microbatches");
  if (shown.remat) headers.push_back("remat");
}

void add_variable_cells(std::vector<std::string>& row, const Candidate& c, const VaryingFields& shown) {
  if (shown.plan) row.push_back(c.plan);
  if (shown.hardware) row.push_back(c.hardware.name);
  if (shown.microbatches) row.push_back(std::to_string(c.microbatches));
  if (shown.remat) row.push_back(remat_text(c.remat));
}

// Tokens or candidates per second: whole numbers from 100 up, three significant digits below.
std::string rate(double per_s) {
  return per_s >= 100 ? fmt::format("{:.0f}", per_s) : fmt::format("{:.3g}", per_s);
}

std::string headroom_text(const CandidateResult& r) {
  const std::int64_t headroom = headroom_bytes(r);
  return headroom >= 0 ? bytes_text(static_cast<std::uint64_t>(headroom))
                       : "-" + bytes_text(static_cast<std::uint64_t>(-headroom));
}

std::vector<const MemoryColumn*> memory_columns(const PlanSearchResult& search) {
  std::vector<const MemoryColumn*> out;
  for (const MemoryColumn& column : kMemoryColumns) {
    bool used = false;
    for (const CandidateResult& r : search.ranked)
      used = used || r.memory.*column.field > 0;
    if (used) out.push_back(&column);
  }
  return out;
}

}  // namespace

std::string percent_text(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

VaryingFields varying_fields(const PlanSearchResult& search) {
  return {varies(search, [](const Candidate& c) { return c.plan; }),
          varies(search, [](const Candidate& c) { return c.hardware.name; }),
          varies(search, [](const Candidate& c) { return std::to_string(c.microbatches); }),
          varies(search, [](const Candidate& c) { return remat_text(c.remat); })};
}

std::string candidate_label(const Candidate& c, const VaryingFields& varying) {
  std::string out;
  if (varying.plan) out += c.plan + ": ";
  if (varying.hardware) out += c.hardware.name + " ";
  out += slice_text(c) + " " + c.parallelism.to_string();
  if (varying.microbatches) out += fmt::format(", {} microbatches", c.microbatches);
  if (varying.remat) out += ", remat " + remat_text(c.remat);
  return out;
}

std::string mesh_text(const Candidate& candidate) {
  std::string out;
  for (const MeshAxis& axis : candidate.mesh.mesh.axes)
    out += (out.empty() ? "" : ",") + axis.name + "=" + std::to_string(axis.size);
  return out.empty() ? "-" : out;
}

std::string slice_text(const Candidate& candidate) {
  // Several slices over the DCN: `2 x 4x4`.
  const std::string shape = shape_text(candidate.slice) + (candidate.twist ? " twisted" : "");
  return candidate.slices > 1 ? std::to_string(candidate.slices) + " x " + shape : shape;
}

bool memory_kind_header(std::string_view header) {
  return std::any_of(std::begin(kMemoryColumns), std::end(kMemoryColumns),
                     [&](const MemoryColumn& column) { return header == column.header; });
}

std::string mirrors_text(const CandidateResult& result) {
  std::string out;
  for (const Parallelism& mirror : result.mirrors)
    out += (out.empty() ? "" : "; ") + mirror.to_string();
  return out;
}

std::int64_t headroom_bytes(const CandidateResult& result) {
  return static_cast<std::int64_t>(result.hbm_bytes) - static_cast<std::int64_t>(result.memory_per_chip_bytes);
}

bool was_evaluated(const CandidateResult& result) {
  return result.book_step_s > 0;
}

PlanTable ranked_table(const PlanReport& report) {
  const ScenarioSpec& spec = report.spec;
  const PlanSearchResult& search = report.search;
  const bool decode = mode_of(spec) == WorkloadMode::decode;
  const bool priced = podsim::priced(spec);
  const VaryingFields shown = varying_fields(search);
  const auto memory = memory_columns(search);

  PlanTable table;
  table.headers = {"rank", "slice (chips)", "mesh", "parallelism"};
  add_variable_headers(table.headers, shown);
  for (const char* h : {"step book", "step des", "MFU"})
    table.headers.push_back(h);
  const bool pipelined = std::any_of(search.ranked.begin(), search.ranked.end(),
                                     [](const CandidateResult& r) { return r.pipeline.has_value(); });
  if (pipelined)
    for (const char* h : {"stages", "schedule", "bubble"})
      table.headers.push_back(h);
  // Several slices (docs/overlap-pipeline-dcn.md): the DCN seconds of the des when simulated, else the book's.
  const bool multi_slice = std::any_of(search.ranked.begin(), search.ranked.end(),
                                       [](const CandidateResult& r) { return r.candidate.slices > 1; });
  if (multi_slice) table.headers.push_back("DCN");
  if (decode) {
    table.headers.push_back("token latency");
    table.headers.push_back("tokens/s");
  }
  table.headers.push_back("tokens/s/chip");
  for (const MemoryColumn* column : memory)
    table.headers.push_back(column->header);
  for (const char* h : {"memory/chip", "headroom", "bound"})
    table.headers.push_back(h);
  if (priced) table.headers.push_back("$/1M tokens");
  const std::size_t goal_at = table.headers.size();
  if (spec.goal)
    for (const std::string& h : goal_headers(priced))
      table.headers.push_back(h);
  const bool mirrored = std::any_of(search.ranked.begin(), search.ranked.end(),
                                    [](const CandidateResult& r) { return !r.mirrors.empty(); });
  if (mirrored) table.headers.push_back("mirror images");
  table.numeric.assign(table.headers.size(), true);
  if (mirrored) table.numeric.back() = false;
  for (std::size_t i = 1; i < 4 + shown.count(); ++i)
    table.numeric[i] = false;
  table.numeric[goal_at - (priced ? 2 : 1)] = false;                                // the bound
  if (spec.goal) table.numeric[goal_at + goal_headers(priced).size() - 1] = false;  // the goal's verdict
  if (pipelined) table.numeric[4 + shown.count() + 4] = false;                      // the schedule

  for (std::size_t i = 0; i < search.ranked.size(); ++i) {
    const CandidateResult& r = search.ranked[i];
    const Candidate& c = r.candidate;
    std::vector<std::string> row = {std::to_string(i + 1), fmt::format("{} ({})", slice_text(c), c.chips()),
                                    mesh_text(c), c.parallelism.to_string()};
    add_variable_cells(row, c, shown);
    row.push_back(format_seconds(r.book_step_s));
    row.push_back(r.des_step_s ? format_seconds(*r.des_step_s) : r.des_failed ? "failed" : "-");
    row.push_back(percent_text(r.mfu));
    if (pipelined) {
      // The bubble of the des when simulated, else the book's.
      const auto& f = r.pipeline;
      row.push_back(f ? std::to_string(f->stages) : "-");
      row.push_back(f ? std::string(kPipelineScheduleNames.name(f->schedule)) : "-");
      row.push_back(f ? percent_text(f->des_bubble_fraction.value_or(f->bubble_fraction)) : "-");
    }
    if (multi_slice) row.push_back(format_seconds(r.des_dcn_s.value_or(r.breakdown.dcn_s)));
    if (decode) {
      row.push_back(format_seconds(r.token_latency_s));
      row.push_back(rate(r.tokens_per_s_per_chip * static_cast<double>(c.chips())));
    }
    row.push_back(rate(r.tokens_per_s_per_chip));
    for (const MemoryColumn* column : memory)
      row.push_back(bytes_text(r.memory.*column->field));
    row.push_back(bytes_text(r.memory_per_chip_bytes));
    row.push_back(headroom_text(r));
    row.push_back(std::string(step_bound_name(r.bound)));
    if (priced) row.push_back(r.cost_per_million_tokens ? fmt::format("${:.4g}", *r.cost_per_million_tokens) : "-");
    if (spec.goal)
      for (std::string& cell : goal_cells(r.goal, priced))
        row.push_back(std::move(cell));
    if (mirrored) row.push_back(r.mirrors.empty() ? "-" : mirrors_text(r));
    table.rows.push_back(std::move(row));
    if (r.des_failed) table.notes.push_back(fmt::format("rank {}: the simulation failed: {}", i + 1, *r.des_failed));
  }
  return table;
}

PlanTable rejected_table(const PlanReport& report) {
  const VaryingFields shown = varying_fields(report.search);
  PlanTable table;
  table.headers = {"slice (chips)", "mesh", "parallelism"};
  add_variable_headers(table.headers, shown);
  table.headers.push_back("memory/chip");
  table.headers.push_back("reason");
  const bool mirrored = std::any_of(report.search.rejected.begin(), report.search.rejected.end(),
                                    [](const CandidateResult& r) { return !r.mirrors.empty(); });
  if (mirrored) table.headers.push_back("mirror images");
  table.numeric.assign(table.headers.size(), false);
  table.numeric[table.headers.size() - (mirrored ? 3 : 2)] = true;  // memory per chip
  for (const CandidateResult& r : report.search.rejected) {
    const Candidate& c = r.candidate;
    std::vector<std::string> row = {fmt::format("{} ({})", slice_text(c), c.chips()), mesh_text(c),
                                    c.parallelism.to_string()};
    add_variable_cells(row, c, shown);
    row.push_back(was_evaluated(r) ? bytes_text(r.memory_per_chip_bytes) : "-");
    row.push_back(r.rejected.value_or(""));
    if (mirrored) row.push_back(r.mirrors.empty() ? "-" : mirrors_text(r));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string search_summary(const PlanSearchResult& search) {
  const auto simulated = static_cast<std::size_t>(std::count_if(
      search.ranked.begin(), search.ranked.end(), [](const CandidateResult& r) { return r.des_step_s.has_value(); }));
  return fmt::format(
      "screened {} candidates by the closed form in {} ({} candidates/s); simulated {} in {}", search.screened,
      format_seconds(search.screen_seconds),
      search.screen_seconds > 0 ? rate(static_cast<double>(search.screened) / search.screen_seconds) : std::string("-"),
      simulated, format_seconds(search.simulate_seconds));
}

std::string plan_title(const ScenarioSpec& spec) {
  std::string out = spec.name;
  if (spec.model) out += ", model " + spec.model->name;
  if (spec.workload) {
    const Workload& w = *spec.workload;
    if (w.mode == WorkloadMode::train)
      out += fmt::format(", train {} tokens per step (sequence {})", w.batch_tokens, w.seq_len);
    else
      out += fmt::format(", {} batch {} at context {}", kWorkloadModeNames.name(w.mode), w.batch, w.context);
  }
  return out;
}

std::optional<ExpertLoad> routing(const ScenarioSpec& spec, const Candidate& c) {
  if (!spec.model || !spec.workload || spec.model->dims.experts <= 1) return std::nullopt;
  Workload w = *spec.workload;
  w.microbatches = c.microbatches;  // the candidate's passes
  const auto tokens = static_cast<std::int64_t>(w.tokens_per_pass());
  const TransformerDims& d = spec.model->dims;
  return expert_load(w, tokens, d.experts_per_token, d.experts, 1);
}

namespace {

std::vector<TextTable::Align> alignment(const PlanTable& table) {
  std::vector<TextTable::Align> align;
  for (const bool numeric : table.numeric)
    align.push_back(numeric ? TextTable::Align::right : TextTable::Align::left);
  return align;
}

}  // namespace

std::string plan_text(const PlanReport& report) {
  std::string out = "plan search: " + plan_title(report.spec) + "\n" + goal_answer_text(report.spec, report.search);
  const PlanTable ranked = ranked_table(report);
  if (ranked.rows.empty()) {
    out += "no candidate fits\n";
  } else {
    TextTable table(ranked.headers, alignment(ranked));
    for (std::size_t i = 0; i < std::min(report.rows, ranked.rows.size()); ++i)
      table.add_row(ranked.rows[i]);
    out += table.render();
    if (report.rows < ranked.rows.size())
      out += fmt::format("   ... and {} more ranked candidates (--rows; --json and --csv list them all)\n",
                         ranked.rows.size() - report.rows);
  }
  for (const auto& note : ranked.notes)
    out += "  " + note + "\n";
  if (!report.search.ranked.empty() && report.search.ranked.front().des_breakdown) {
    const CandidateResult& best = report.search.ranked.front();
    const DesStepBreakdown& b = *best.des_breakdown;
    out += fmt::format(
        "  overlap (best candidate): the book adds every op's time ({} of collectives); the des runs the layers in "
        "sequence, {} computing, {} of communication exposed{}\n",
        format_seconds(best.breakdown.ici_s + best.breakdown.dcn_s), format_seconds(b.compute_s),
        format_seconds(b.exposed_communication_s + b.dcn_s),
        b.offload_s > 0 ? ", " + format_seconds(b.offload_s) + " of host offload" : std::string());
  }
  if (!report.search.ranked.empty())
    if (const auto load = routing(report.spec, report.search.ranked.front().candidate))
      out += report.spec.workload->moe_dispatch == MoeDispatch::dense
                 ? fmt::format(
                       "  experts (best candidate): dense dispatch, capacity factor {}, {} slots per expert per "
                       "pass, {} of the routed tokens dropped\n",
                       report.spec.workload->capacity_factor, load->capacity, percent_text(load->dropped_fraction))
                 : fmt::format(
                       "  experts (best candidate): dropless dispatch, {} rows for the busiest expert per "
                       "pass, nothing dropped\n",
                       load->capacity);
  const PlanTable rejected = rejected_table(report);
  if (!rejected.rows.empty()) {
    out += fmt::format("rejected ({}):\n", rejected.rows.size());
    TextTable table(rejected.headers, alignment(rejected));
    for (const auto& row : rejected.rows)
      table.add_row(row);
    out += table.render("  ");
  }
  return out + search_summary(report.search) + "\n";
}

}  // namespace podsim::report
