// Scenario -> plans -> event graphs -> simulations -> des beside book, plus checks.
#include "sim/run/run_scenario.hpp"

#include <algorithm>
#include <limits>

#include "models/common/error.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/symmetric_simulation.hpp"
#include "sim/run/checks.hpp"
#include "sim/run/functional_run.hpp"
#include "sim/run/plan_lowering.hpp"

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

void fill_des(PlanRun& plan, const EventGraph& graph, const SimulationResult& sim, const Slice& slice) {
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
  plan.max_link_bytes = sim.max_link_bytes();
  plan.total_link_bytes = sim.total_link_bytes();
  plan.max_link_utilisation = sim.max_link_utilisation();
  plan.messages = sim.messages;
  std::uint64_t busiest = 0;
  for (const Link& link : slice.links()) {
    if (static_cast<std::size_t>(link.id) >= sim.links.size()) break;  // a preset without ICI: no links simulated
    const LinkUsage& usage = sim.links[static_cast<std::size_t>(link.id)];
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
  run.slice_shape = spec.slice_shape;
  run.wraparound = spec.wraparound;
  const ScenarioPlatform platform = build_platform(spec);
  run.slice = platform.slice;
  run.ici = spec.hardware.spec.ici;

  std::vector<const ScenarioPlan*> plans;
  if (spec.plans.empty()) {
    if (options.plan && *options.plan != "default")
      throw InputError("--plan", "the scenario has no plans, got: " + *options.plan);
    plans.push_back(nullptr);
  } else {
    for (const auto& plan : spec.plans)
      if (!options.plan || plan.name == *options.plan) plans.push_back(&plan);
    if (plans.empty()) {
      std::string names;
      for (const auto& plan : spec.plans)
        names += (names.empty() ? "" : ", ") + plan.name;
      throw InputError("--plan", "unknown plan, got: " + *options.plan + " (plans: " + names + ")");
    }
  }

  std::vector<LoweredPlan> lowered;
  for (const auto* plan : plans)
    lowered.push_back(lower_plan(spec, platform, plan));
  std::vector<SimulationResult> results;
  try {
    if (options.symmetry) {
      for (const auto& plan : lowered)
        results.push_back(simulate_symmetric(platform.network, *plan.graph, *plan.symmetry));
    } else {
      std::vector<std::pair<const NetworkSpec*, const EventGraph*>> jobs;
      for (const auto& plan : lowered)
        jobs.emplace_back(&platform.network, plan.graph.get());
      results = simulate_all(jobs, options.parallel);
    }
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(spec.source_file, e.what());
  }
  const bool verify =
      options.verify_values || spec.options.verify_values || scenario_is_small(spec, kAutomaticVerifyElements);
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    PlanRun plan = std::move(lowered[i].run);
    fill_des(plan, *lowered[i].graph, results[i], *platform.slice);
    if (verify) verify_plan_values(spec, plans[i], plan);
    plan.graph = lowered[i].graph;
    plan.simulation = std::make_shared<const SimulationResult>(std::move(results[i]));
    run.plans.push_back(std::move(plan));
  }
  run.checks = evaluate_checks(spec, run);
  return run;
}

}  // namespace podsim
