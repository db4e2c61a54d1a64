// `podsim run` as text, JSON and CSV. Every figure comes from the ScenarioRun; only ratios, fits and rankings are
// derived here, with the same helpers for every format so that they always agree.
#include "sim/report/run_report.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "sim/report/model_run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;
using Align = TextTable::Align;

std::string wrap_text(const std::vector<bool>& wraparound) {
  std::vector<std::string> words;
  for (bool wraps : wraparound)
    words.push_back(wraps ? "wrap" : "line");
  return fmt::format("{}", fmt::join(words, " "));
}

json optional_name(const ScenarioRun& run, std::optional<std::size_t> index) {
  return index ? json(run.plans[*index].name) : json(nullptr);
}

// --- text -----------------------------------------------------------------------------------------------------

std::string ops_text(const PlanRun& plan) {
  TextTable table({"op", "kind", "des", "book", "des/book", "bound", "sent", "collectives"},
                  {Align::left, Align::left, Align::right, Align::right, Align::right, Align::left, Align::right});
  for (const OpRun& op : plan.ops)
    table.add_row({op.name, op.kind, format_seconds(op.des_time_s), format_seconds(op.book_time_s),
                   ratio_text(des_over_book(op.des_time_s, op.book_time_s)),
                   op.bound ? std::string(bound_name(*op.bound)) : "-", bytes_text(op.bytes_sent),
                   collectives_summary(op)});
  return table.render("  ");
}

// "alive then: W2 gathered over X,Y (down) 8 GiB, W1 512 MiB, ...": what holds the peak, largest first, wrapped
// between items.
std::string alive_text(const PlanRun& plan) {
  constexpr std::size_t kIndent = 6, kWidth = 118;
  std::string out = std::string(kIndent, ' ') + "alive then:";
  std::size_t line = out.size();
  if (plan.alive_at_peak.empty()) return out + " nothing\n";
  for (std::size_t i = 0; i < plan.alive_at_peak.size(); ++i) {
    const AliveBuffer& b = plan.alive_at_peak[i];
    std::string item = b.what + (b.op.empty() || b.what == b.op ? "" : " (" + b.op + ")") + " " + bytes_text(b.bytes);
    if (i + 1 < plan.alive_at_peak.size()) item += ",";
    if (line + 1 + item.size() > kWidth) {
      out += "\n" + std::string(kIndent + 2, ' ');
      line = kIndent + 2;
    } else {
      out += " ";
      ++line;
    }
    out += item;
    line += item.size();
  }
  return out + "\n";
}

std::string schedule_text(const PlanRun& plan) {
  std::string out = "schedule: " + plan.schedule;
  for (const OpWait& wait : plan.waits)
    out += fmt::format("; {} waits for {} to end (else {} over HBM at {})", wait.op, wait.after,
                       bytes_text(wait.excess_bytes), format_seconds(wait.excess_at_s));
  if (plan.schedule_exhausted)
    out += fmt::format("; stopped after {} simulations (the limit of waits is 2 x ops + 8), still over HBM",
                       plan.simulations);
  return indented(2, out);
}

std::string contention_text(const PlanRun& plan) {
  std::string out;
  for (const OpRun& op : plan.ops) {
    if (!op.contention) continue;
    const auto ratio = ratio_text(des_over_book(op.des_time_s, op.book_time_s));
    if (op.contention->shared_with.empty()) {
      out += indented(2, fmt::format("{} (des/book {}): no other op shared its links; the excess is its own schedule "
                                     "(algorithm, hops, steps)",
                                     op.name, ratio));
    } else {
      out += indented(
          2, fmt::format("{} (des/book {}) shared links with {}; busiest shared link {} ({} of {})", op.name, ratio,
                         shared_ops_text(op.contention->shared_with), op.contention->busiest_shared_link,
                         bytes_text(op.contention->busiest_shared_bytes), op.name));
    }
  }
  return out;
}

// "step on chip 0: compute 1.2 ms, exposed communication 300 us, bubble 0 s, DCN 0 s": where the critical chip's
// step went (the four add up to the plan's des time).
std::string step_breakdown_text(const PlanRun& plan) {
  const CriticalChipBreakdown& b = plan.step_breakdown;
  return fmt::format("  step on chip {}: compute {}, exposed communication {}, bubble {}, DCN {}\n", plan.critical_chip,
                     format_seconds(b.compute_s), format_seconds(b.exposed_communication_s), format_seconds(b.bubble_s),
                     format_seconds(b.dcn_s));
}

std::string memory_text(const PlanRun& plan) {
  TextTable table({"tensor", "sharding", "local shape", "per chip", "total"},
                  {Align::left, Align::left, Align::left, Align::right, Align::right});
  for (const TensorMemory& tensor : plan.memory)
    table.add_row({tensor_label(tensor), tensor.sharding, shape_text(tensor.local_shape),
                   bytes_text(tensor.bytes_per_device), bytes_text(tensor.total_bytes)});
  std::string out = "  memory per chip\n" + table.render("    ");
  out += fmt::format("    peak {} of {} HBM at {} on chip {}: {}\n", bytes_text(plan.memory_per_chip_bytes),
                     bytes_text(plan.hbm_bytes), format_seconds(plan.peak_time_s), plan.peak_chip,
                     fit_text(plan.memory_per_chip_bytes, plan.hbm_bytes));
  out += alive_text(plan);
  out += fmt::format("    closed form, ops one after another: peak {}\n", bytes_text(plan.book_memory_per_chip_bytes));
  out += fmt::format("    VMEM working set {} of {}: {}\n", bytes_text(plan.vmem_working_set_bytes),
                     bytes_text(plan.vmem_bytes), vmem_fit_text(plan.vmem_working_set_bytes, plan.vmem_bytes));
  return out;
}

std::string plan_text(const PlanRun& plan) {
  std::string out = "plan " + plan.name;
  if (!plan.description.empty()) out += ": " + plan.description;
  out = wrapped(out, 118, 2);
  out += ops_text(plan);
  out += fmt::format("  total: des {}, book {}, des/book {}\n", format_seconds(plan.des_time_s),
                     format_seconds(plan.book_time_s), ratio_text(des_over_book(plan.des_time_s, plan.book_time_s)));
  out += step_breakdown_text(plan);
  out += fmt::format("  critical path: {}\n", plan.critical_path.empty()
                                                  ? std::string("-")
                                                  : fmt::format("{}", fmt::join(plan.critical_path, " -> ")));
  out += contention_text(plan);
  out += schedule_text(plan);
  out += memory_text(plan);
  if (plan.busiest_link.empty()) {
    out += "  busiest link: none (no chip-to-chip traffic)\n";
  } else {
    out += fmt::format("  busiest link: {}, {}, utilisation {:.1f}% (all links {}, {} messages)\n", plan.busiest_link,
                       bytes_text(plan.max_link_bytes), 100 * plan.max_link_utilisation,
                       bytes_text(plan.total_link_bytes), plan.messages);
  }
  if (plan.values_match) {
    out += fmt::format("  values: {}{}\n",
                       *plan.values_match ? "match the dense reference" : "DO NOT MATCH the dense reference",
                       plan.values_note.empty() ? "" : " (" + plan.values_note + ")");
  }
  return out;
}

std::string comparison_text(const ScenarioRun& run) {
  const PlanComparison best = compare_plans(run);
  TextTable table({"plan", "des", "book", "des/book", "memory/chip", "fits HBM", ""},
                  {Align::left, Align::right, Align::right, Align::right, Align::right, Align::left, Align::left});
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    const PlanRun& plan = run.plans[i];
    std::string mark;
    if (best.fastest == i) mark = "fastest";
    if (best.fastest_fitting == i && best.fastest != i) mark = "fastest that fits";
    table.add_row({plan.name, format_seconds(plan.des_time_s), format_seconds(plan.book_time_s),
                   ratio_text(des_over_book(plan.des_time_s, plan.book_time_s)), bytes_text(plan.memory_per_chip_bytes),
                   plan.fits_hbm ? "yes" : "no", mark});
  }
  return "plans\n" + table.render("  ") + verdict_text(run);
}

std::string checks_text(const ScenarioRun& run) {
  if (run.checks.empty()) return "checks: none\n";
  const auto passed = std::count_if(run.checks.begin(), run.checks.end(), [](const auto& c) { return c.passed; });
  TextTable table({"", "check", "value", "target", "tolerance", "source"},
                  {Align::left, Align::left, Align::right, Align::right, Align::left, Align::left});
  // Sources can be long derivations: the table shows their start (JSON, HTML and podsim check show all).
  constexpr std::size_t kSourceWidth = 30;
  for (const CheckResult& check : run.checks) {
    std::string source = check.source;
    if (display_width(source) > kSourceWidth) source = source.substr(0, kSourceWidth - 3) + "...";
    table.add_row({check.passed ? "PASS" : "FAIL", check.description, check_value_text(check.value),
                   check_value_text(check.target), tolerance_text(check), source});
  }
  return fmt::format("checks: {} of {} passed\n", passed, run.checks.size()) + table.render("  ");
}

// --- JSON -----------------------------------------------------------------------------------------------------

json collective_json(const CollectiveRun& c) {
  return {{"kind", collective_kind_name(c.kind)}, {"tensor", c.tensor},         {"axes", c.axes},
          {"array_bytes", c.array_bytes},         {"group_size", c.group_size}, {"algorithm", c.algorithm},
          {"book_time_s", c.book_time_s},         {"reason", c.reason}};
}

json op_json(const OpRun& op) {
  json collectives = json::array();
  for (const CollectiveRun& c : op.collectives)
    collectives.push_back(collective_json(c));
  return {{"name", op.name},
          {"kind", op.kind},
          {"pointer", op.pointer},
          {"op_id", op.op_id},
          {"des_start_s", op.des_start_s},
          {"des_end_s", op.des_end_s},
          {"des_time_s", op.des_time_s},
          {"book_time_s", op.book_time_s},
          {"ratio_des_over_book", optional_number(des_over_book(op.des_time_s, op.book_time_s))},
          {"compute_time_s", op.compute_time_s},
          {"exposed_communication_s", op.exposed_communication_s},
          {"flops", op.flops},
          {"bound", bound_name(op.bound)},
          {"bytes_sent", op.bytes_sent},
          {"matmul_case", op.matmul_case > 0 ? json(op.matmul_case) : json(nullptr)},
          {"collectives", collectives},
          {"contention", op.contention ? json{{"shared_with", op.contention->shared_with},
                                              {"busiest_shared_link", op.contention->busiest_shared_link.empty()
                                                                          ? json(nullptr)
                                                                          : json(op.contention->busiest_shared_link)},
                                              {"busiest_shared_bytes", op.contention->busiest_shared_bytes}}
                                       : json(nullptr)}};
}

json memory_json(const PlanRun& plan) {
  json tensors = json::array();
  for (const TensorMemory& t : plan.memory)
    tensors.push_back({{"name", t.name},
                       {"written_by", t.written_by.empty() ? json(nullptr) : json(t.written_by)},
                       {"sharding", t.sharding},
                       {"local_shape", t.local_shape},
                       {"bytes_per_device", t.bytes_per_device},
                       {"total_bytes", t.total_bytes},
                       {"view_of", t.view_of.empty() ? json(nullptr) : json(t.view_of)},
                       {"transient", t.transient}});
  const std::uint64_t over = bytes_over_hbm(plan.memory_per_chip_bytes, plan.hbm_bytes);
  json alive = json::array();
  for (const AliveBuffer& b : plan.alive_at_peak)
    alive.push_back({{"buffer", b.what}, {"op", b.op.empty() ? json(nullptr) : json(b.op)}, {"bytes", b.bytes}});
  return {{"per_chip_bytes", plan.memory_per_chip_bytes},
          {"peak_time_s", plan.peak_time_s},
          {"peak_chip", plan.peak_chip},
          {"alive_at_peak", alive},
          {"book_per_chip_bytes", plan.book_memory_per_chip_bytes},
          {"hbm_bytes", plan.hbm_bytes},
          {"fits_hbm", plan.fits_hbm},
          {"over_hbm_bytes", over},
          {"vmem_working_set_bytes", plan.vmem_working_set_bytes},
          {"vmem_bytes", plan.vmem_bytes},
          {"fits_vmem", plan.fits_vmem},
          {"tensors", tensors}};
}

constexpr std::size_t kBusiestLinksListed = 10;

json links_json(const PlanRun& plan) {
  json busiest = json::array();
  for (const LinkLoad* link : busiest_links(plan, kBusiestLinksListed))
    busiest.push_back(
        {{"name", link->name}, {"bytes", link->bytes}, {"busy_s", link->busy_s}, {"utilisation", link->utilisation}});
  return {{"max_link_bytes", plan.max_link_bytes},
          {"total_link_bytes", plan.total_link_bytes},
          {"busiest_link", plan.busiest_link.empty() ? json(nullptr) : json(plan.busiest_link)},
          {"max_link_utilisation", plan.max_link_utilisation},
          {"messages", plan.messages},
          {"busiest", busiest}};
}

json plan_json(const PlanRun& plan) {
  json waits = json::array();
  for (const OpWait& wait : plan.waits)
    waits.push_back({{"op", wait.op},
                     {"after", wait.after},
                     {"excess_at_s", wait.excess_at_s},
                     {"excess_bytes", wait.excess_bytes}});
  json ops = json::array();
  for (const OpRun& op : plan.ops)
    ops.push_back(op_json(op));
  json out = {{"name", plan.name},
              {"description", plan.description},
              {"des_time_s", plan.des_time_s},
              {"book_time_s", plan.book_time_s},
              {"ratio_des_over_book", optional_number(des_over_book(plan.des_time_s, plan.book_time_s))},
              {"critical_path", plan.critical_path},
              {"critical_chip", plan.critical_chip},
              {"step_breakdown",
               {{"compute_s", plan.step_breakdown.compute_s},
                {"exposed_communication_s", plan.step_breakdown.exposed_communication_s},
                {"bubble_s", plan.step_breakdown.bubble_s},
                {"dcn_s", plan.step_breakdown.dcn_s}}},
              {"schedule", plan.schedule},
              {"waits", waits},
              {"simulations", plan.simulations},
              {"schedule_exhausted", plan.schedule_exhausted},
              {"ops", ops},
              {"memory", memory_json(plan)},
              {"links", links_json(plan)}};
  if (plan.values_match) {
    out["values_match"] = *plan.values_match;
    out["values_note"] = plan.values_note;
  }
  return out;
}

json check_value_json(const std::variant<double, bool, std::vector<std::int64_t>>& value) {
  return std::visit([](const auto& v) { return json(v); }, value);
}

json check_json(const CheckResult& check) {
  return {{"description", check.description},
          {"pointer", check.pointer},
          {"value", check_value_json(check.value)},
          {"target", check_value_json(check.target)},
          {"rel_tol", check.rel_tol},
          {"abs_tol", check.abs_tol},
          {"passed", check.passed},
          {"source", check.source}};
}

}  // namespace

PlanComparison compare_plans(const ScenarioRun& run) {
  PlanComparison best;
  for (std::size_t i = 0; i < run.plans.size(); ++i) {
    const double time_s = run.plans[i].step_time_s();
    if (!best.fastest || time_s < run.plans[*best.fastest].step_time_s()) best.fastest = i;
    if (run.plans[i].fits_hbm && (!best.fastest_fitting || time_s < run.plans[*best.fastest_fitting].step_time_s()))
      best.fastest_fitting = i;
  }
  return best;
}

std::string scenario_header_text(const ScenarioRun& run) {
  std::string out = "scenario " + run.name;
  if (!run.description.empty()) out += ": " + run.description;
  out = wrapped(out, 118, 2);
  std::vector<std::string> facts;
  if (!run.file.empty()) facts.push_back("file " + run.file);
  if (!run.hardware.empty()) facts.push_back("hardware " + run.hardware);
  if (!run.slice_shape.empty())
    facts.push_back(fmt::format("slice {} ({}{})", shape_text(run.slice_shape), wrap_text(run.wraparound),
                                run.slice && run.slice->twisted() ? ", twisted" : ""));
  if (!facts.empty()) out += fmt::format("  {}\n", fmt::join(facts, ", "));
  if (run.calibrated)
    out += fmt::format("  des calibrated: {} (--uncalibrated for the preset's figures)\n", run.calibration_source);
  return out;
}

std::string verdict_text(const ScenarioRun& run) {
  const PlanComparison best = compare_plans(run);
  if (best.fastest_fitting) {
    std::string out = "verdict: fastest plan that fits: " + run.plans[*best.fastest_fitting].name;
    if (best.fastest != best.fastest_fitting) {
      const PlanRun& fastest = run.plans[*best.fastest];
      out += fmt::format(" (fastest overall: {}, {})", fastest.name,
                         fit_text(fastest.memory_per_chip_bytes, fastest.hbm_bytes));
    }
    return out + "\n";
  }
  if (!best.fastest) return "";
  const PlanRun& fastest = run.plans[*best.fastest];
  if (run.level == RunLevel::model)
    return fmt::format("verdict: no plan fits (fastest overall: {}, {})\n", fastest.name,
                       fit_text(fastest.memory_per_chip_bytes, fastest.hbm_bytes));
  return "verdict: no plan fits in HBM; fastest plan: " + fastest.name + "\n";
}

std::string bytes_text(std::uint64_t bytes) {
  return format_bytes(static_cast<double>(bytes));
}

std::string ratio_text(std::optional<double> ratio) {
  return ratio ? fmt::format("{:.3f}", *ratio) : "-";
}

std::string shared_ops_text(const std::vector<std::string>& ops) {
  if (ops.size() <= kSharedOpsShown) return fmt::format("{}", fmt::join(ops, ", "));
  return fmt::format("{}, and {} more",
                     fmt::join(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(kSharedOpsShown), ", "),
                     ops.size() - kSharedOpsShown);
}

json optional_number(std::optional<double> value) {
  return value ? json(*value) : json(nullptr);
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  return shape.empty() ? "-" : fmt::format("{}", fmt::join(shape, "x"));
}

std::optional<double> des_over_book(double des_time_s, double book_time_s) {
  if (!(book_time_s > 0)) return std::nullopt;
  return des_time_s / book_time_s;
}

std::string collective_summary(const CollectiveRun& collective) {
  return fmt::format("{} {} (V={})", collective_kind_name(collective.kind), fmt::join(collective.axes, ","),
                     bytes_text(collective.array_bytes));
}

std::string collectives_summary(const OpRun& op) {
  std::vector<std::string> parts;
  for (const CollectiveRun& c : op.collectives)
    parts.push_back(collective_summary(c));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string tensor_label(const TensorMemory& tensor) {
  if (!tensor.view_of.empty()) return tensor.name + " (view of " + tensor.view_of + ")";
  if (tensor.transient) return tensor.name + " (transient)";
  return tensor.written_by.empty() ? tensor.name : tensor.name + " (" + tensor.written_by + ")";
}

std::string fit_text(std::uint64_t used_bytes, std::uint64_t capacity_bytes) {
  if (capacity_bytes == 0) return "capacity unknown";
  if (used_bytes <= capacity_bytes) return "fits";
  return "DOES NOT FIT by " + bytes_text(used_bytes - capacity_bytes);
}

std::string vmem_fit_text(std::uint64_t working_set_bytes, std::uint64_t vmem_bytes) {
  if (vmem_bytes == 0 || working_set_bytes <= vmem_bytes) return fit_text(working_set_bytes, vmem_bytes);
  return "streamed in tiles (exceeds VMEM by " + bytes_text(working_set_bytes - vmem_bytes) + ")";
}

std::vector<const LinkLoad*> busiest_links(const PlanRun& plan, std::size_t count) {
  std::vector<const LinkLoad*> loaded;
  for (const LinkLoad& link : plan.links)
    if (link.bytes > 0) loaded.push_back(&link);
  const auto busier = [](const LinkLoad* a, const LinkLoad* b) {
    if (a->bytes != b->bytes) return a->bytes > b->bytes;
    if (a->utilisation != b->utilisation) return a->utilisation > b->utilisation;
    return a->name < b->name;
  };
  const std::size_t kept = std::min(count, loaded.size());
  std::partial_sort(loaded.begin(), loaded.begin() + static_cast<std::ptrdiff_t>(kept), loaded.end(), busier);
  loaded.resize(kept);
  return loaded;
}

std::string check_value_text(const std::variant<double, bool, std::vector<std::int64_t>>& value) {
  if (const auto* number = std::get_if<double>(&value)) return fmt::format("{:.6g}", *number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return fmt::format("[{}]", fmt::join(std::get<std::vector<std::int64_t>>(value), ", "));
}

std::string tolerance_text(const CheckResult& check) {
  std::vector<std::string> parts;
  if (check.rel_tol != 0) parts.push_back(fmt::format("rel {:.6g}", check.rel_tol));
  if (check.abs_tol != 0) parts.push_back(fmt::format("abs {:.6g}", check.abs_tol));
  return parts.empty() ? "exact" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string run_report_text(const ScenarioRun& run) {
  if (run.level == RunLevel::model) return model_run_text(run);
  std::string out = scenario_header_text(run);
  for (const PlanRun& plan : run.plans)
    out += "\n" + plan_text(plan);
  if (run.plans.size() > 1) out += "\n" + comparison_text(run);
  out += "\n" + checks_text(run);
  return out;
}

std::string run_report_text(const std::vector<ScenarioRun>& runs) {
  std::string out;
  for (const ScenarioRun& run : runs)
    out += (out.empty() ? "" : "\n") + run_report_text(run);
  return out;
}

json run_report_json(const ScenarioRun& run) {
  if (run.level == RunLevel::model) return model_run_json(run);
  json plans = json::array();
  for (const PlanRun& plan : run.plans)
    plans.push_back(plan_json(plan));
  json checks = json::array();
  for (const CheckResult& check : run.checks)
    checks.push_back(check_json(check));
  const PlanComparison best = compare_plans(run);
  json out = {
      {"schema", "podsim/1"},
      {"scenario",
       {{"name", run.name},
        {"description", run.description},
        {"file", run.file},
        {"hardware", run.hardware},
        {"slice", run.slice_shape},
        {"wraparound", run.wraparound}}},
      {"plans", plans},
      {"comparison",
       {{"fastest", optional_name(run, best.fastest)}, {"fastest_fitting", optional_name(run, best.fastest_fitting)}}},
      {"checks", checks},
      {"checks_passed", run.checks_passed()}};
  // Only a twisted torus says so, as in `podsim collective --json`: a plain slice's JSON keeps its form.
  if (run.slice && run.slice->twisted()) out["scenario"]["twisted"] = true;
  // Only a calibrated des says so: an uncalibrated run's JSON is as it was before calibrations existed.
  if (run.calibrated) {
    out["scenario"]["calibrated"] = true;
    out["scenario"]["calibration_source"] = run.calibration_source;
  }
  return out;
}

json run_report_json(const std::vector<ScenarioRun>& runs) {
  if (runs.size() == 1) return run_report_json(runs.front());
  json scenarios = json::array();
  bool passed = true, model_level = !runs.empty();
  for (const ScenarioRun& run : runs) {
    scenarios.push_back(run_report_json(run));
    passed = passed && run.checks_passed();
    model_level = model_level && run.level == RunLevel::model;
  }
  // Model-level runs evaluate no checks (`podsim check` does): no verdict on them.
  if (model_level) return {{"schema", "podsim/1"}, {"scenarios", scenarios}};
  return {{"schema", "podsim/1"}, {"scenarios", scenarios}, {"checks_passed", passed}};
}

void write_run_csv(const std::vector<ScenarioRun>& runs, std::ostream& out) {
  if (!runs.empty() && runs.front().level == RunLevel::model) return write_model_run_csv(runs, out);
  out << "scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,bytes_sent,collectives,"
         "exposed_communication_s\n";
  for (const ScenarioRun& run : runs)
    for (const PlanRun& plan : run.plans)
      for (const OpRun& op : plan.ops) {
        const auto ratio = des_over_book(op.des_time_s, op.book_time_s);
        out << fmt::format("{},{},{},{},{:.9g},{:.9g},{},{},{:.9g},{},{},{:.9g}\n", csv_field(run.name),
                           csv_field(plan.name), csv_field(op.name), csv_field(op.kind), op.des_time_s, op.book_time_s,
                           ratio ? fmt::format("{:.9g}", *ratio) : "", csv_field(bound_name(op.bound)), op.flops,
                           op.bytes_sent, csv_field(collectives_summary(op)), op.exposed_communication_s);
      }
}

namespace {

// Whether `text` is one decimal number as a spreadsheet reads it ("-1.5", "+2e3"): harmless however it begins.
bool plain_number(std::string_view text) {
  const std::size_t start = !text.empty() && text.front() == '+' ? 1 : 0;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data() + start, text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && start < text.size() && std::isfinite(value);
}

}  // namespace

std::string csv_field(std::string_view field) {
  // A cell a spreadsheet would run as a formula (OWASP's CSV injection: =, +, -, @, tab, CR first) is text first.
  const bool formula = !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos &&
                       !plain_number(field);
  const std::string text = formula ? "'" + std::string(field) : std::string(field);
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace podsim::report
