// The critical chip's step breakdown and each op's exposed communication, by unions of intervals.
#include "sim/run/step_breakdown.hpp"

#include <algorithm>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Length of the union of `intervals` (sorted in place).
double union_length(Intervals& intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, start = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : intervals) {
    if (!(e > s)) continue;
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - start;
    start = s;
    end = e;
    open = true;
  }
  if (open) total += end - start;
  return total;
}

// Length of `part` outside `compute`: |part ∪ compute| - |compute|, never below 0.
double outside(const Intervals& part, const Intervals& compute, double compute_s) {
  if (part.empty()) return 0;
  Intervals both = compute;
  both.insert(both.end(), part.begin(), part.end());
  return std::max(0.0, union_length(both) - compute_s);
}

bool is_communication(const Task& task) {
  return task.kind == TaskKind::transfer && task.src_chip != task.dst_chip;
}

}  // namespace

std::int32_t critical_chip(const EventGraph& graph, const SimulationResult& simulation) {
  if (simulation.tasks.size() < graph.tasks.size())
    throw InternalError("critical chip: the simulation has " + std::to_string(simulation.tasks.size()) +
                        " task times for " + std::to_string(graph.tasks.size()) + " tasks");
  const auto chips = static_cast<std::size_t>(std::max<std::int32_t>(graph.num_chips, 0));
  if (chips == 0) return 0;
  // Its last task (a compute of it, a transfer it sends or receives) ends last.
  std::vector<double> last(chips, -1.0);
  const auto note = [&](ChipId chip, double end_s) {
    auto& slot = last.at(static_cast<std::size_t>(chip));
    slot = std::max(slot, end_s);
  };
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const Task& task = graph.tasks[t];
    const double end_s = simulation.tasks[t].end_s;
    note(task.src_chip, end_s);
    if (task.kind == TaskKind::transfer) note(task.dst_chip, end_s);
  }
  std::size_t critical = 0;
  for (std::size_t chip = 1; chip < chips; ++chip)
    if (last[chip] > last[critical]) critical = chip;
  return static_cast<std::int32_t>(critical);
}

CriticalChipStep step_breakdown(const EventGraph& graph, const SimulationResult& simulation, std::size_t ops) {
  if (simulation.tasks.size() < graph.tasks.size())
    throw InternalError("step breakdown: the simulation has " + std::to_string(simulation.tasks.size()) +
                        " task times for " + std::to_string(graph.tasks.size()) + " tasks");
  CriticalChipStep out;
  out.op_exposed_s.assign(ops, 0.0);
  out.op_dcn_s.assign(ops, 0.0);
  const auto chips = static_cast<std::size_t>(std::max<std::int32_t>(graph.num_chips, 0));
  if (graph.tasks.empty() || chips == 0) return out;

  out.critical_chip = critical_chip(graph, simulation);
  const auto chip = static_cast<ChipId>(out.critical_chip);

  Intervals compute, communication, dcn;  // communication: ICI transfers; dcn: transfers between slices
  std::vector<Intervals> per_op(ops), per_op_dcn(ops);
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const Task& task = graph.tasks[t];
    const std::pair<double, double> interval{simulation.tasks[t].start_s, simulation.tasks[t].end_s};
    if (task.kind == TaskKind::compute) {
      if (task.src_chip == chip) compute.push_back(interval);
    } else if (is_communication(task) && (task.src_chip == chip || task.dst_chip == chip)) {
      const bool crosses = simulation.crosses_dcn(static_cast<TaskId>(t));
      (crosses ? dcn : communication).push_back(interval);
      if (task.op >= 0 && static_cast<std::size_t>(task.op) < ops) {
        per_op[static_cast<std::size_t>(task.op)].push_back(interval);
        if (crosses) per_op_dcn[static_cast<std::size_t>(task.op)].push_back(interval);
      }
    }
  }
  const double makespan_s = simulation.makespan_s;
  CriticalChipBreakdown& b = out.breakdown;
  b.compute_s = union_length(compute);
  b.exposed_communication_s = outside(communication, compute, b.compute_s);
  // DCN time: outside compute and outside ICI transfers (docs/overlap-pipeline-dcn.md): |dcn ∪ ici ∪ compute| - |ici ∪
  // compute|.
  out.op_dcn_s.assign(ops, 0.0);
  if (!dcn.empty()) {
    Intervals busy = compute;
    busy.insert(busy.end(), communication.begin(), communication.end());
    const double busy_s = union_length(busy);
    b.dcn_s = outside(dcn, busy, busy_s);
    for (std::size_t op = 0; op < ops; ++op)
      out.op_dcn_s[op] = outside(per_op_dcn[op], busy, busy_s);
  }
  b.bubble_s = std::max(0.0, makespan_s - b.compute_s - b.exposed_communication_s - b.dcn_s);
  for (std::size_t op = 0; op < ops; ++op)
    out.op_exposed_s[op] = outside(per_op[op], compute, b.compute_s);
  return out;
}

std::vector<CriticalChipBreakdown> chip_breakdowns(const EventGraph& graph, const SimulationResult& simulation,
                                                   ChipId chip, const std::vector<std::pair<double, double>>& windows) {
  if (simulation.tasks.size() < graph.tasks.size())
    throw InternalError("chip breakdown: the simulation has " + std::to_string(simulation.tasks.size()) +
                        " task times for " + std::to_string(graph.tasks.size()) + " tasks");
  struct Window {
    double begin_s = 0, end_s = 0;
    Intervals compute, communication, dcn;
  };
  std::vector<Window> in;
  for (const auto& [begin_s, end_s] : windows)
    if (end_s > begin_s) in.push_back({begin_s, end_s, {}, {}, {}});
  // One pass over the graph for every window: each window collects the intervals (clipped) in task order, as a pass
  // of its own would.
  for (std::size_t t = 0; t < graph.tasks.size() && !in.empty(); ++t) {
    const Task& task = graph.tasks[t];
    const bool compute = task.kind == TaskKind::compute;
    if (compute ? task.src_chip != chip : !is_communication(task) || (task.src_chip != chip && task.dst_chip != chip))
      continue;
    const bool crosses = !compute && simulation.crosses_dcn(static_cast<TaskId>(t));
    for (Window& w : in) {
      const double s = std::max(w.begin_s, simulation.tasks[t].start_s),
                   e = std::min(w.end_s, simulation.tasks[t].end_s);
      if (!(e > s)) continue;
      (compute ? w.compute : crosses ? w.dcn : w.communication).emplace_back(s, e);
    }
  }
  std::vector<CriticalChipBreakdown> out;
  std::size_t next = 0;
  for (const auto& [begin_s, end_s] : windows) {
    CriticalChipBreakdown& b = out.emplace_back();
    if (!(end_s > begin_s)) continue;
    Window& w = in[next++];
    b.compute_s = union_length(w.compute);
    b.exposed_communication_s = outside(w.communication, w.compute, b.compute_s);
    if (!w.dcn.empty()) {
      Intervals busy = w.compute;
      busy.insert(busy.end(), w.communication.begin(), w.communication.end());
      b.dcn_s = outside(w.dcn, busy, union_length(busy));
    }
    b.bubble_s = std::max(0.0, (end_s - begin_s) - b.compute_s - b.exposed_communication_s - b.dcn_s);
  }
  return out;
}

CriticalChipBreakdown chip_breakdown(const EventGraph& graph, const SimulationResult& simulation, ChipId chip,
                                     double begin_s, double end_s) {
  return chip_breakdowns(graph, simulation, chip, {{begin_s, end_s}}).front();
}

}  // namespace podsim
