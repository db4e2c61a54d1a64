// `podsim run` of a model-level scenario as text, JSON, CSV and its trace. The figures come from each PlanRun's
// candidate (the plan search's evaluation); the heading, ratios, fits and the comparison are the op-level report's.
#include "sim/report/model_run_report.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <cstddef>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "sim/capacity/candidate_timeline.hpp"
#include "sim/report/candidate_trace.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;
using Align = TextTable::Align;

// The plan's candidate figures (every plan of a model-level run has them).
const CandidateResult& figures(const PlanRun& plan) {
  if (!plan.candidate) throw InternalError("model-level report: plan " + plan.name + " has no candidate figures");
  return *plan.candidate;
}

std::optional<double> des_step(const PlanRun& plan) {
  return figures(plan).des_step_s;
}

std::optional<double> model_op_des_step(const OpRun& op) {
  if (!model_op_des_s(op)) return std::nullopt;
  return *model_op_des_s(op) * static_cast<double>(op.repeats);
}

std::string seconds_or_dash(std::optional<double> s) {
  return s ? format_seconds(*s) : "-";
}

std::string remat_words(const Remat& remat) {
  if (remat.checkpoints_per_layer > 0)
    return fmt::format("{} checkpoint{} per layer", remat.checkpoints_per_layer,
                       remat.checkpoints_per_layer == 1 ? "" : "s");
  if (remat.policy == RematPolicy::none) return "no remat";
  return "remat " + remat_text(remat);
}

std::string model_plan_text(const PlanRun& plan) {
  const CandidateResult& r = figures(plan);
  std::string out = fmt::format("plan {}", plan.name);
  if (!plan.description.empty()) out += ": " + plan.description;
  out = wrapped(out, 118, 2);
  out += "  " + model_plan_summary(plan) + "\n";
  out += indented(2, "simulated: " + model_run_simulated_text(plan));
  TextTable table(
      {"op", "kind", "phase", "repeats", "des", "book", "des/book", "des x repeats", "book x repeats", "bound"},
      {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
       Align::right, Align::left});
  for (const OpRun& op : plan.ops)
    table.add_row({op.name, op.kind, op.phase, std::to_string(op.repeats), seconds_or_dash(model_op_des_s(op)),
                   format_seconds(op.book_time_s),
                   model_op_des_s(op) ? ratio_text(des_over_book(*model_op_des_s(op), op.book_time_s)) : "-",
                   seconds_or_dash(model_op_des_step(op)),
                   format_seconds(op.book_time_s * static_cast<double>(op.repeats)),
                   std::string(bound_name(op.bound))});
  out += table.render("  ");
  const auto des = des_step(plan);
  out += fmt::format("  step: des {}, book {}, des/book {}\n", seconds_or_dash(des), format_seconds(r.book_step_s),
                     des ? ratio_text(des_over_book(*des, r.book_step_s)) : "-");
  if (r.book_step_s > 0) {
    const CriticalChipBreakdown& b = plan.step_breakdown;
    out += fmt::format("  step breakdown ({}): compute {}, exposed communication {}, bubble {}, DCN {}\n",
                       des ? "des" : "book", format_seconds(b.compute_s), format_seconds(b.exposed_communication_s),
                       format_seconds(b.bubble_s), format_seconds(b.dcn_s));
    if (r.breakdown.recompute_s > 0 || r.breakdown.offload_s > 0)
      out += fmt::format("  of it (book): recomputed by remat {}, host offload exposed {}\n",
                         format_seconds(r.breakdown.recompute_s), format_seconds(r.breakdown.offload_s));
  }
  if (r.pipeline) {
    const PipelineFigures& f = *r.pipeline;
    out += fmt::format("  pipeline: {} stages over {}, {} layers each, {} microbatches; bubble des {}, book {}\n",
                       f.stages, fmt::join(f.axes, ","), f.layers_per_stage, f.microbatches,
                       seconds_or_dash(f.des_bubble_s), format_seconds(f.bubble_s));
  }
  const MemoryByKind& m = r.memory;
  out += indented(
      2, fmt::format("memory per chip: params {}, grads {}, optimizer {}, activations {}, KV cache {}, "
                     "temporaries {}: {} of {} HBM: {}",
                     bytes_text(m.params), bytes_text(m.grads), bytes_text(m.optimizer), bytes_text(m.activations),
                     bytes_text(m.kv_cache), bytes_text(m.temporaries), bytes_text(r.memory_per_chip_bytes),
                     bytes_text(r.hbm_bytes), fit_text(r.memory_per_chip_bytes, r.hbm_bytes)));
  if (m.offloaded > 0) out += indented(2, "offloaded to host memory: " + bytes_text(m.offloaded) + " per chip");
  if (r.rejected) out += indented(2, "not simulated: " + *r.rejected);
  out += fmt::format("  MFU {} ({}), {:.0f} tokens/s/chip, bound {}\n", percent_text(r.mfu), des ? "des" : "book",
                     r.tokens_per_s_per_chip, step_bound_name(r.bound));
  return out;
}

std::string model_scenario_text(const ScenarioRun& run) {
  std::string out = scenario_header_text(run);
  if (run.spec) out += indented(2, plan_title(*run.spec));
  for (const PlanRun& plan : run.plans)
    out += "\n" + model_plan_text(plan);
  if (run.plans.size() > 1) out += "\n" + verdict_text(run);
  return out;
}

json model_op_json(const OpRun& op) {
  const auto des = model_op_des_step(op);
  return {{"name", op.name},
          {"kind", op.kind},
          {"phase", op.phase},
          {"place", op.place},
          {"repeats", op.repeats},
          {"des_time_s", optional_number(model_op_des_s(op))},
          {"book_time_s", op.book_time_s},
          {"ratio_des_over_book",
           model_op_des_s(op) ? optional_number(des_over_book(*model_op_des_s(op), op.book_time_s)) : json(nullptr)},
          {"des_step_s", optional_number(des)},
          {"book_step_s", op.book_time_s * static_cast<double>(op.repeats)},
          {"compute_time_s", op.compute_time_s},
          {"flops", op.flops},
          {"bound", bound_name(op.bound)}};
}

json model_plan_json(const ScenarioRun& run, const PlanRun& plan) {
  const CandidateResult& r = figures(plan);
  const CriticalChipBreakdown& b = plan.step_breakdown;
  json ops = json::array();
  for (const OpRun& op : plan.ops)
    ops.push_back(model_op_json(op));
  const MemoryByKind& m = r.memory;
  return {{"name", plan.name},
          {"description", plan.description},
          {"des_time_s", optional_number(r.des_step_s)},
          {"book_time_s", r.book_step_s},
          {"ratio_des_over_book",
           r.des_step_s ? optional_number(des_over_book(*r.des_step_s, r.book_step_s)) : json(nullptr)},
          {"step_breakdown",
           {{"compute_s", b.compute_s},
            {"exposed_communication_s", b.exposed_communication_s},
            {"bubble_s", b.bubble_s},
            {"dcn_s", b.dcn_s}}},
          {"schedule", "program-order"},
          {"simulated", model_run_simulated_text(plan)},
          {"ops", ops},
          {"memory",
           {{"per_chip_bytes", r.memory_per_chip_bytes},
            {"hbm_bytes", r.hbm_bytes},
            {"fits_hbm", r.fits_hbm},
            {"over_hbm_bytes", bytes_over_hbm(r.memory_per_chip_bytes, r.hbm_bytes)},
            {"by_kind",
             {{"params", m.params},
              {"grads", m.grads},
              {"optimizer", m.optimizer},
              {"activations", m.activations},
              {"kv_cache", m.kv_cache},
              {"temporaries", m.temporaries}}},
            {"offloaded_bytes", m.offloaded}}},
          {"mfu", r.mfu},
          {"tokens_per_s_per_chip", r.tokens_per_s_per_chip},
          {"rejected", r.rejected ? json(*r.rejected) : json(nullptr)},
          {"candidate", run.spec ? candidate_result_json(*run.spec, r) : json(nullptr)}};
}

}  // namespace

std::optional<double> model_op_des_s(const OpRun& op) {
  if (!op.simulated) return std::nullopt;
  return op.des_time_s;
}

std::string model_plan_summary(const PlanRun& plan) {
  const Candidate& c = figures(plan).candidate;
  std::vector<std::string> assigned;
  for (std::size_t k = 0; k < kParallelKinds; ++k) {
    const auto kind = static_cast<ParallelKind>(k);
    if (!c.parallelism.of(kind).empty())
      assigned.push_back(fmt::format("{}={}", kParallelKindNames.name(kind), fmt::join(c.parallelism.of(kind), ",")));
  }
  if (assigned.empty()) assigned.push_back("no parallelism");
  return fmt::format("{} on mesh {}, {} chip{}, {} microbatch{}, {}", fmt::join(assigned, " "), mesh_text(c), c.chips(),
                     c.chips() == 1 ? "" : "s", c.microbatches, c.microbatches == 1 ? "" : "es", remat_words(c.remat));
}

std::string model_run_simulated_text(const PlanRun& plan) {
  const CandidateResult& r = figures(plan);
  if (!r.des_step_s) return "nothing (the candidate does not fit HBM: the des simulates candidates that can run)";
  bool training = false;
  for (const OpRun& op : plan.ops)
    training = training || op.phase == "backward";
  std::string out = training ? "the step program once under program order: one layer's forward and backward plus "
                               "the edges (embedding, unembedding and loss, optimizer update)"
                             : "the step program once under program order: one layer's forward plus the edges "
                               "(embedding, unembedding)";
  out += "; each op's simulated span counts its repeats times";
  if (r.pipeline)
    out +=
        "; then the pipeline stages' schedule as an event graph of the stages' forwards, backwards and sends, "
        "plus the longest stage tail";
  return out;
}

std::string model_run_text(const ScenarioRun& run) {
  return model_scenario_text(run);
}

json model_run_json(const ScenarioRun& run) {
  json plans = json::array();
  for (const PlanRun& plan : run.plans)
    plans.push_back(model_plan_json(run, plan));
  const PlanComparison best = compare_plans(run);
  const auto name = [&](std::optional<std::size_t> i) { return i ? json(run.plans[*i].name) : json(nullptr); };
  return {{"schema", "podsim/1"},
          {"level", "model"},
          {"scenario",
           {{"name", run.name},
            {"description", run.description},
            {"file", run.file},
            {"hardware", run.hardware},
            {"slice", run.slice_shape},
            {"wraparound", run.wraparound},
            {"model", run.spec && run.spec->model ? json(run.spec->model->name) : json(nullptr)}}},
          {"plans", plans},
          {"comparison", {{"fastest", name(best.fastest)}, {"fastest_fitting", name(best.fastest_fitting)}}}};
}

void write_model_run_csv(const std::vector<ScenarioRun>& runs, std::ostream& out) {
  out << "scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,phase,place,repeats,des_step_s,"
         "book_step_s\n";
  const auto number = [](std::optional<double> v) { return v ? fmt::format("{:.9g}", *v) : std::string(); };
  for (const ScenarioRun& run : runs)
    for (const PlanRun& plan : run.plans)
      for (const OpRun& op : plan.ops) {
        const auto ratio = model_op_des_s(op) ? des_over_book(*model_op_des_s(op), op.book_time_s) : std::nullopt;
        out << fmt::format("{},{},{},{},{},{:.9g},{},{},{:.9g},{},{},{},{},{:.9g}\n", csv_field(run.name),
                           csv_field(plan.name), csv_field(op.name), csv_field(op.kind), number(model_op_des_s(op)),
                           op.book_time_s, number(ratio), csv_field(bound_name(op.bound)), op.flops, op.phase, op.place,
                           op.repeats, number(model_op_des_step(op)), op.book_time_s * static_cast<double>(op.repeats));
      }
}

std::string model_run_trace_problem(const ScenarioRun& run) {
  if (run.plans.size() != 1)
    return "a model-level trace shows one plan's step: give --plan NAME, got: " + std::to_string(run.plans.size()) +
           " plans";
  const PlanRun& plan = run.plans.front();
  if (!plan.candidate_timeline)
    return "the trace shows a simulated step, got: plan " + plan.name + ", not simulated (" +
           figures(plan).rejected.value_or("") + ")";
  return "";
}

void write_model_run_trace(const ScenarioRun& run, std::ostream& out) {
  const std::string problem = model_run_trace_problem(run);
  if (!problem.empty()) throw InternalError("write_run_trace: " + problem);
  const PlanRun& plan = run.plans.front();
  write_candidate_trace(*plan.candidate_timeline,
                        CandidateTraceInfo{run.name, 1, "plan " + plan.name, figures(plan).step_s()}, out);
}

}  // namespace podsim::report
