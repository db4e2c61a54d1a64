// Planned program -> event graph, step by step.
#include "sim/run/program_lowering.hpp"

#include "sim/collectives/collective_builder.hpp"
#include "sim/graph/huge_pages.hpp"

namespace podsim {
namespace {

using ChipDeps = std::vector<std::vector<TaskId>>;  // per chip

void join(ChipDeps& into, const ChipDeps& from) {
  for (std::size_t chip = 0; chip < into.size(); ++chip)
    into[chip].insert(into[chip].end(), from[chip].begin(), from[chip].end());
}

// The request a collective step lowers to: the step's, with its reductions' flops and its op.
CollectiveRequest collective_request(const PlannedOp& op, const PlannedStep& step, double chip_flops) {
  CollectiveRequest request = step.request;
  request.reduce_flops_per_byte = step.reduce_s_per_byte * chip_flops;
  request.op_id = op.index;
  return request;
}

class Lowering {
 public:
  Lowering(const PlannedProgram& program, const ScenarioPlatform& platform, const OpOrder& order)
      : program_(program),
        platform_(platform),
        order_(order),
        chips_(static_cast<std::size_t>(platform.num_chips())),
        graph_(std::make_shared<EventGraph>()),
        symmetry_(std::make_shared<GraphSymmetry>()),
        ready_(program.buffers.size(), ChipDeps(chips_)),
        op_end_(program.ops.size(), ChipDeps(chips_)),
        chip_last_(chips_) {
    graph_->num_chips = static_cast<std::int32_t>(chips_);
  }

  LoweredProgram run() {
    LoweredProgram out;
    // The whole graph's tasks at once: a vector of tens of millions of tasks grown collective by collective would be
    // moved, and first-touched anew, several times (huge pages: a page fault per 2 MiB, not per 4 KiB).
    reserve_huge(graph_->tasks, count_lowered_tasks(program_, platform_));
    for (const auto& op : program_.ops)
      out.step_tasks.push_back(lower(op));
    out.graph = graph_;
    out.symmetry = symmetry_;
    return out;
  }

 private:
  // What every first step of `op` waits for besides its inputs: its `after` ops, the policy's waits, and under
  // program order the op before it on each chip.
  ChipDeps order_deps(const PlannedOp& op) const {
    ChipDeps deps(chips_);
    for (const int k : op.after)
      join(deps, op_end_[static_cast<std::size_t>(k)]);
    if (static_cast<std::size_t>(op.index) < order_.waits.size())
      for (const int k : order_.waits[static_cast<std::size_t>(op.index)])
        join(deps, op_end_[static_cast<std::size_t>(k)]);
    if (order_.policy == SchedulePolicy::program_order) join(deps, chip_last_);
    return deps;
  }

  std::vector<TaskRange> lower(const PlannedOp& op) {
    const ChipDeps first = order_deps(op);
    std::vector<TaskRange> ranges;
    ChipDeps frontier(chips_);
    for (const auto& step : op.steps) {
      // A step waits for the steps that created what it reads; a step that reads nothing created inside this op
      // is one of the op's first steps and also waits for `first`.
      ChipDeps deps(chips_);
      bool reads_inside = false;
      for (const int b : step.reads) {
        join(deps, ready_[static_cast<std::size_t>(b)]);
        const PlannedBuffer& read = program_.buffers[static_cast<std::size_t>(b)];
        // (a transient declared tensor names its first reader as `op`, which did not create it)
        reads_inside |= read.op == op.index && read.role != PlannedBuffer::Role::declared;
      }
      if (!reads_inside) join(deps, first);
      const auto begin = static_cast<TaskId>(graph_->tasks.size());
      switch (step.kind) {
        case StepKind::collective:
          collective(op, step, deps);
          break;
        case StepKind::compute:
          compute(op, step, deps);
          break;
        case StepKind::transfer:
          transfer(op, step, deps);
          break;
        case StepKind::permute:
          permute(op, step, deps);
          break;
      }
      ranges.push_back({begin, static_cast<TaskId>(graph_->tasks.size())});
      if (step.writes >= 0) ready_[static_cast<std::size_t>(step.writes)] = deps;
      frontier = std::move(deps);
    }
    // The op ends with its last step; ops without steps end where they start.
    if (op.steps.empty()) frontier = first;
    for (std::size_t chip = 0; chip < chips_; ++chip)
      if (!frontier[chip].empty()) chip_last_[chip] = frontier[chip];
    op_end_[static_cast<std::size_t>(op.index)] = std::move(frontier);
    return ranges;
  }

  // The collective's tasks after `deps`; `deps` becomes its last tasks on each chip.
  void collective(const PlannedOp& op, const PlannedStep& step, ChipDeps& deps) {
    const CollectiveRequest request = collective_request(op, step, platform_.chip_flops);
    Frontier f(static_cast<std::int32_t>(chips_));
    f.per_chip = std::move(deps);
    append_collective(*graph_, f, request, symmetry_.get());
    deps = std::move(f.per_chip);
  }

  // One compute task per chip lasting the step's book time.
  void compute(const PlannedOp& op, const PlannedStep& step, ChipDeps& deps) {
    PhaseGroups& phase = symmetry_->phases.emplace_back();  // one group per chip
    phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size()));
    for (std::size_t chip = 0; chip < chips_; ++chip) {
      phase.groups.push_back({static_cast<ChipId>(chip)});
      phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size() + 1));
      Task task;
      task.kind = TaskKind::compute;
      task.src_chip = task.dst_chip = static_cast<ChipId>(chip);
      task.flops = des_compute_s(step) * platform_.chip_flops;
      task.deps = std::move(deps[chip]);
      task.op = op.index;
      deps[chip] = {graph_->add(std::move(task))};
    }
  }

  // A compute step's time in the des: its book time, or under a calibration its roofline terms over the MXU and
  // HBM efficiencies (calibrated_compute_s, the HBM one at the bytes the step moves); a step without terms (an add of
  // the collective matmul's loop, a local reshard) scales by the efficiency of what bounds it (for HBM, at its bytes
  // when it has them, else at the curve's smallest size).
  double des_compute_s(const PlannedStep& step) const {
    if (!platform_.calibration) return step.book.time_s;
    const Calibration& calibration = *platform_.calibration;
    if (step.compute_s > 0 || step.memory_s > 0)
      return calibrated_attention_s(calibration, step.attention, step.attention_context, step.compute_s, step.memory_s,
                                    step.flops, step.hbm_bytes);
    if (step.bound == Bound::compute) return calibrated_compute_s(calibration, step.book.time_s, 0, step.flops, 0);
    return step.book.time_s / efficiency_at(calibration.hbm_efficiency, step.hbm_bytes);
  }

  void transfer(const PlannedOp& op, const PlannedStep& step, ChipDeps& deps) {
    Task task;
    task.kind = TaskKind::transfer;
    task.src_chip = step.from;
    task.dst_chip = step.to;
    task.bytes = step.bytes;
    task.deps = std::move(deps[static_cast<std::size_t>(step.from)]);
    task.op = op.index;
    const TaskId id = graph_->add(std::move(task));
    symmetry_->phases.push_back({{{step.from, step.to}}, {id, id + 1}});
    deps.assign(chips_, {});
    deps[static_cast<std::size_t>(step.from)] = {id};
    deps[static_cast<std::size_t>(step.to)] = {id};
  }

  // Every send of the step at once, each after what its sender waits for; `deps` becomes, per chip, the transfer
  // it received (a chip that receives nothing has no block to wait for). One phase, a group per ring.
  void permute(const PlannedOp& op, const PlannedStep& step, ChipDeps& deps) {
    ChipDeps received(chips_);
    PhaseGroups& phase = symmetry_->phases.emplace_back();
    for (const auto& group : step.sends) {
      phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size()));
      std::vector<ChipId>& chips = phase.groups.emplace_back();
      for (const auto& [from, to] : group) {
        Task task;
        task.kind = TaskKind::transfer;
        task.src_chip = from;
        task.dst_chip = to;
        task.bytes = step.bytes;
        task.deps = deps[static_cast<std::size_t>(from)];
        task.op = op.index;
        received[static_cast<std::size_t>(to)].push_back(graph_->add(std::move(task)));
        chips.push_back(from);
      }
    }
    phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size()));
    deps = std::move(received);
  }

  const PlannedProgram& program_;
  const ScenarioPlatform& platform_;
  const OpOrder& order_;
  std::size_t chips_;
  std::shared_ptr<EventGraph> graph_;
  std::shared_ptr<GraphSymmetry> symmetry_;
  std::vector<ChipDeps> ready_;   // per buffer: the tasks that created it, per chip (empty: declared)
  std::vector<ChipDeps> op_end_;  // per op: its last tasks, per chip
  ChipDeps chip_last_;            // per chip: the last tasks of the latest op that ran on it
};

}  // namespace

std::size_t count_lowered_tasks(const PlannedProgram& program, const ScenarioPlatform& platform) {
  const auto chips = static_cast<std::size_t>(platform.num_chips());
  std::size_t tasks = 0;
  for (const auto& op : program.ops)
    for (const auto& step : op.steps)
      switch (step.kind) {
        case StepKind::collective:
          tasks += count_collective_tasks(collective_request(op, step, platform.chip_flops),
                                          static_cast<std::int32_t>(chips));
          break;
        case StepKind::compute:
          tasks += chips;
          break;
        case StepKind::transfer:
          tasks += 1;
          break;
        case StepKind::permute:
          for (const auto& group : step.sends)
            tasks += group.size();
          break;
      }
  return tasks;
}

LoweredProgram lower_program(const PlannedProgram& program, const ScenarioPlatform& platform, const OpOrder& order) {
  return Lowering(program, platform, order).run();
}

}  // namespace podsim
