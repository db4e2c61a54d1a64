// Scenario -> plans -> event graphs -> simulations -> des beside book, plus checks.
#include "sim/run/run_scenario.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <algorithm>
#include <limits>

#include "models/common/error.hpp"
#include "models/sharding/notation.hpp"
#include "sim/plan/book_evaluation.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/checks.hpp"
#include "sim/run/contention.hpp"
#include "sim/run/functional_run.hpp"
#include "sim/run/plan_schedule.hpp"
#include "sim/run/program_simulation.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/run/scenario_platform.hpp"
#include "sim/run/step_breakdown.hpp"

namespace podsim {
namespace {

// Op names along the simulated critical path, first to last: from the task that ends last, step back to the
// dependency that ended last, until a task without dependencies.
std::vector<std::string> critical_path(const EventGraph& graph, const SimulationResult& sim,
                                       const std::vector<OpRun>& ops) {
  std::vector<std::string> names;
  if (graph.tasks.empty()) return names;
  TaskId task = 0;
  for (TaskId t = 0; t < static_cast<TaskId>(graph.tasks.size()); ++t)
    if (sim.tasks[static_cast<std::size_t>(t)].end_s > sim.tasks[static_cast<std::size_t>(task)].end_s) task = t;
  while (true) {
    const std::string& name = ops.at(static_cast<std::size_t>(graph.tasks[static_cast<std::size_t>(task)].op)).name;
    if (names.empty() || names.back() != name) names.push_back(name);
    const auto& deps = graph.tasks[static_cast<std::size_t>(task)].deps;
    if (deps.empty()) break;
    task = *std::max_element(deps.begin(), deps.end(), [&](TaskId a, TaskId b) {
      return sim.tasks[static_cast<std::size_t>(a)].end_s < sim.tasks[static_cast<std::size_t>(b)].end_s;
    });
  }
  std::reverse(names.begin(), names.end());
  return names;
}

// The report's view of a planned op: its closed form and the collectives it runs.
OpRun op_run(const PlannedOp& op) {
  OpRun run;
  run.name = op.name;
  run.kind = std::string(op_kind_name(op.kind));
  run.pointer = op.pointer;
  run.op_id = op.index;
  run.book_time_s = op.book_time_s;
  run.compute_time_s = op.compute_time_s;
  run.flops = op.flops;
  run.bound = op.bound;
  run.matmul_case = op.matmul_case;
  for (const auto& step : op.steps) {
    if (step.kind != StepKind::collective) continue;
    CollectiveRun c;
    c.kind = step.collective.kind;
    c.tensor = step.tensor;
    c.axes = step.axis_names;
    c.array_bytes = step.collective.array_bytes;
    c.group_size = static_cast<std::int64_t>(step.collective.group_size);
    for (const Algorithm algorithm : step.algorithms)
      c.algorithm += (c.algorithm.empty() ? "" : ",") + std::string(algorithm_name(algorithm));
    c.book_time_s = step.book.time_s;
    c.reason = step.collective.reason;
    run.collectives.push_back(std::move(c));
  }
  if (op.collective_matmul) {
    // The all-gather or reduce-scatter the loop replaces: its blocks move one hop per step, under the blocks'
    // matmuls.
    const CollectiveMatmulLoop& loop = *op.collective_matmul;
    CollectiveRun c;
    c.kind = loop.replaces.kind;
    c.tensor = loop.tensor;
    c.axes = {loop.axis};
    c.array_bytes = loop.replaces.array_bytes;
    c.group_size = loop.steps;
    c.algorithm = "collective-matmul";
    c.book_time_s = (loop.steps - 1) * loop.step_transfer_s;
    c.reason = loop.replaces.reason + (loop.replaces.reason.empty() ? "" : "; ") +
               "run as a collective matmul: " + std::to_string(loop.steps) + " steps, each block's matmul while the " +
               (loop.replaces.kind == CollectiveKind::reduce_scatter ? "previous sum" : "next block") + " moves " +
               std::to_string(loop.hops) + (loop.hops == 1 ? " hop" : " hops");
    run.collectives.push_back(std::move(c));
  }
  return run;
}

// The op that creates buffer `b`, for reports: none for a declared tensor (a transient one is allocated by its
// first reader, which did not create it).
std::string creator(const PlannedProgram& program, const PlannedBuffer& b) {
  return b.op < 0 || b.role == PlannedBuffer::Role::declared ? "" : program.ops[static_cast<std::size_t>(b.op)].name;
}

PlanRun plan_run(const PlannedProgram& program) {
  PlanRun plan;
  plan.name = program.name;
  plan.description = program.description;
  for (const auto& op : program.ops)
    plan.ops.push_back(op_run(op));
  plan.book_time_s = program.book_time_s;
  for (const int id : program.tensor_versions()) {
    const PlannedBuffer& b = program.buffers[static_cast<std::size_t>(id)];
    plan.memory.push_back({b.tensor, b.local_shape, b.bytes_per_chip, b.total_bytes,
                           print_readable(b.sharding, b.tensor, b.labels), creator(program, b), b.view_of,
                           b.transient});
  }
  const BookEvaluation book = evaluate_book(program);
  plan.book_memory_per_chip_bytes = book.memory.peak_bytes;
  plan.hbm_bytes = program.hbm_bytes;
  plan.vmem_working_set_bytes = program.vmem_working_set_bytes;
  plan.vmem_bytes = program.vmem_bytes;
  plan.fits_vmem = plan.vmem_bytes == 0 || plan.vmem_working_set_bytes <= plan.vmem_bytes;
  return plan;
}

void fill_memory(PlanRun& plan, const PlannedProgram& program, const ScheduledPlan& scheduled) {
  const MemoryTimeline& memory = scheduled.memory;
  plan.schedule = std::string(schedule_policy_name(scheduled.policy));
  plan.memory_per_chip_bytes = memory.peak_bytes;
  plan.peak_time_s = memory.peak_time_s;
  plan.peak_chip = memory.peak_chip;
  plan.fits_hbm = fits_hbm(memory.peak_bytes, plan.hbm_bytes);
  for (const int id : memory.alive_at_peak) {
    const PlannedBuffer& b = program.buffers[static_cast<std::size_t>(id)];
    plan.alive_at_peak.push_back({b.what, creator(program, b), b.bytes_per_chip});
  }
  for (const ScheduleWait& wait : scheduled.waits)
    plan.waits.push_back({program.ops[static_cast<std::size_t>(wait.op)].name,
                          program.ops[static_cast<std::size_t>(wait.after)].name, wait.excess_at_s, wait.excess_bytes});
  plan.simulations = scheduled.simulations;
  plan.schedule_exhausted = scheduled.exhausted;
}

void fill_des(PlanRun& plan, const EventGraph& graph, const SimulationResult& sim, const NetworkSpec& network) {
  plan.des_time_s = sim.makespan_s;
  for (auto& op : plan.ops) {
    op.des_start_s = std::numeric_limits<double>::infinity();
    op.des_end_s = 0;
  }
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const Task& task = graph.tasks[t];
    OpRun& op = plan.ops.at(static_cast<std::size_t>(task.op));
    op.des_start_s = std::min(op.des_start_s, sim.tasks[t].start_s);
    op.des_end_s = std::max(op.des_end_s, sim.tasks[t].end_s);
    if (task.kind == TaskKind::transfer && task.src_chip != task.dst_chip) op.bytes_sent += task.bytes;
  }
  for (auto& op : plan.ops) {
    if (op.des_end_s == 0 && op.des_start_s > op.des_end_s) op.des_start_s = 0;
    op.des_time_s = op.des_end_s - op.des_start_s;
  }
  plan.critical_path = critical_path(graph, sim, plan.ops);
  const CriticalChipStep breakdown = step_breakdown(graph, sim, plan.ops.size());
  plan.critical_chip = breakdown.critical_chip;
  plan.step_breakdown = breakdown.breakdown;
  for (auto& op : plan.ops)
    op.exposed_communication_s = breakdown.op_exposed_s.at(static_cast<std::size_t>(op.op_id));
  plan.max_link_bytes = sim.max_link_bytes();
  plan.total_link_bytes = sim.total_link_bytes();
  plan.max_link_utilisation = sim.max_link_utilisation();
  plan.messages = sim.messages;
  std::uint64_t busiest = 0;
  // Every link of the network: one slice's ICI links (the slice's names), or every slice's and the DCN NICs.
  for (std::size_t id = 0; id < network.links.size() && id < sim.links.size(); ++id) {
    const LinkSpec& link = network.links[id];
    const LinkUsage& usage = sim.links[id];
    const double utilisation = sim.makespan_s > 0 ? usage.busy_s / sim.makespan_s : 0.0;
    plan.links.push_back({link.name, usage.bytes, usage.busy_s, utilisation});
    if (usage.bytes > busiest) {
      busiest = usage.bytes;
      plan.busiest_link = link.name;
    }
  }
}

}  // namespace

ScenarioRun run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  ScenarioRun run;
  run.name = spec.name;
  run.description = spec.description;
  run.file = spec.source_file;
  run.hardware = spec.hardware.spec.name;
  if (spec.hardware.spec.calibration) {
    run.calibrated = true;
    run.calibration_source = spec.hardware.spec.calibration->source;
  }
  run.slice_shape = spec.slice_shape;
  run.wraparound = spec.wraparound;
  const ScenarioPlatform platform = build_platform(spec);
  run.slice = platform.slice;
  run.cube_generation = spec.hardware.spec.wrap_rule == WrapRule::whole_cubes;
  run.ici = spec.hardware.spec.ici;

  std::vector<const ScenarioPlan*> plans;
  if (spec.plans.empty()) {
    if (options.plan && *options.plan != "default")
      throw RunError(RunOptions::Field::plan, "the scenario has no plans, got: " + *options.plan);
    plans.push_back(nullptr);
  } else {
    for (const auto& plan : spec.plans)
      if (!options.plan || plan.name == *options.plan) plans.push_back(&plan);
    if (plans.empty()) {
      std::string names;
      for (const auto& plan : spec.plans)
        names += (names.empty() ? "" : ", ") + plan.name;
      throw RunError(RunOptions::Field::plan, "unknown plan, got: " + *options.plan + " (plans: " + names + ")");
    }
  }

  // Every plan is planned (and so checked) before anything is simulated.
  std::vector<PlannedProgram> programs;
  for (const auto* plan : plans)
    programs.push_back(plan_program(spec, platform.topology(), plan));
  const SimulateProgram simulate = [&](const LoweredProgram& lowered) {
    return simulate_program(platform, lowered, {options.symmetry, options.translation_quotient});
  };
  const SchedulePolicy policy = options.schedule.value_or(spec.options.schedule);
  const bool verify =
      options.verify_values || spec.options.verify_values || scenario_is_small(spec, kAutomaticVerifyElements);
  for (const PlannedProgram& program : programs) {
    try {
      check_run_size(program, spec.mesh.mesh, verify);
    } catch (const Error& e) {
      throw InputError(spec.source_file, e.what());
    }
  }
  for (const PlannedProgram& program : programs) {
    ScheduledPlan scheduled;
    try {
      scheduled = schedule_plan(program, platform, policy, simulate);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(spec.source_file, e.what());
    }
    PlanRun plan = plan_run(program);
    fill_des(plan, *scheduled.lowered.graph, scheduled.simulation, platform.network);
    fill_memory(plan, program, scheduled);
    explain_contention(plan, *scheduled.lowered.graph, scheduled.simulation);
    if (verify) verify_plan_values(spec, program, plan);
    plan.graph = scheduled.lowered.graph;
    plan.simulation = std::make_shared<const SimulationResult>(std::move(scheduled.simulation));
    plan.memory_timeline = std::make_shared<const MemoryTimeline>(std::move(scheduled.memory));
    run.plans.push_back(std::move(plan));
  }
  run.checks = evaluate_checks(spec, run);
  return run;
}

}  // namespace podsim
