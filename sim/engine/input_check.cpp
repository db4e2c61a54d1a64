// Validation of the engine's input: network parameters, task chips and amounts, dependency ranges, cycles and
// observability, and routes. Messages follow the house shape "where: rule, got: value".
#include "sim/engine/input_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

std::string describe(const Task& task) {
  if (task.kind == TaskKind::compute) return fmt::format("a compute on chip {}", task.src_chip);
  return fmt::format("a transfer from chip {} to chip {}", task.src_chip, task.dst_chip);
}

bool observable_on(const Task& dep, ChipId chip) {
  if (dep.kind == TaskKind::compute) return dep.src_chip == chip;
  return dep.src_chip == chip || dep.dst_chip == chip;
}

void check_network(const NetworkSpec& network, const EventGraph& graph) {
  if (network.num_chips <= 0)
    throw VerifyError(fmt::format("network: num_chips must be positive, got: {}", network.num_chips));
  if (!std::isfinite(network.chip_flops) || network.chip_flops <= 0)
    throw VerifyError(fmt::format("network: chip_flops must be finite and positive, got: {}", network.chip_flops));
  if (graph.num_chips > network.num_chips)
    throw VerifyError(fmt::format("event graph: num_chips must not exceed the network's {}, got: {}", network.num_chips,
                                  graph.num_chips));
  for (std::size_t id = 0; id < network.links.size(); ++id) {
    const LinkSpec& link = network.links[id];
    if (!std::isfinite(link.bandwidth_Bps) || link.bandwidth_Bps <= 0)
      throw VerifyError(fmt::format("link {} (\"{}\"): bandwidth_Bps must be finite and positive, got: {}", id,
                                    link.name, link.bandwidth_Bps));
    if (!std::isfinite(link.latency_s) || link.latency_s < 0)
      throw VerifyError(fmt::format("link {} (\"{}\"): latency_s must be finite and non-negative, got: {}", id,
                                    link.name, link.latency_s));
  }
  if (network.transfer.active()) {
    Calibration figures;
    figures.collective_step_s = network.transfer.fixed_s;
    figures.link_efficiency = network.transfer.link_efficiency;
    try {
      verify_calibration(figures);
    } catch (const VerifyError& e) {
      throw VerifyError(std::string("network: transfer calibration: ") + e.what());
    }
  }
}

void check_tasks(const NetworkSpec& network, const EventGraph& graph) {
  const auto num_tasks = static_cast<TaskId>(graph.tasks.size());
  for (TaskId id = 0; id < num_tasks; ++id) {
    const Task& task = graph.tasks[static_cast<std::size_t>(id)];
    if (task.src_chip < 0 || task.src_chip >= network.num_chips)
      throw VerifyError(
          fmt::format("task {}: src_chip must be in [0, {}), got: {}", id, network.num_chips, task.src_chip));
    if (task.dst_chip < 0 || task.dst_chip >= network.num_chips)
      throw VerifyError(
          fmt::format("task {}: dst_chip must be in [0, {}), got: {}", id, network.num_chips, task.dst_chip));
    if (task.kind == TaskKind::compute) {
      if (task.dst_chip != task.src_chip)
        throw VerifyError(fmt::format("task {}: a compute task must have dst_chip == src_chip ({}), got: {}", id,
                                      task.src_chip, task.dst_chip));
      if (!std::isfinite(task.flops) || task.flops < 0)
        throw VerifyError(fmt::format("task {}: flops must be finite and non-negative, got: {}", id, task.flops));
    }
    for (TaskId dep : task.deps) {
      if (dep < 0 || dep >= num_tasks)
        throw VerifyError(fmt::format("task {}: dependency must be in [0, {}), got: {}", id, num_tasks, dep));
      if (dep == id) throw VerifyError(fmt::format("task {}: a task cannot depend on itself", id));
      const Task& dep_task = graph.tasks[static_cast<std::size_t>(dep)];
      if (!observable_on(dep_task, task.src_chip))
        throw VerifyError(fmt::format("task {}: dependency {} must be observable on chip {} (its src_chip), got: {}",
                                      id, dep, task.src_chip, describe(dep_task)));
    }
  }
}

// Kahn's algorithm; on failure, walks unfinished dependencies from a blocked task until one repeats, which
// finds a task on a cycle (every blocked task has a blocked dependency).
void check_acyclic(const EventGraph& graph) {
  const std::size_t n = graph.tasks.size();
  // Builders append tasks after their dependencies: then the graph is acyclic with no further work.
  bool ordered = true;
  for (std::size_t id = 0; id < n && ordered; ++id)
    for (TaskId dep : graph.tasks[id].deps)
      ordered = ordered && static_cast<std::size_t>(dep) < id;
  if (ordered) return;
  std::vector<std::int32_t> waiting(n, 0);
  // Dependents of task t: dependents[head[t] .. head[t + 1]).
  std::vector<std::uint32_t> head(n + 1, 0);
  for (std::size_t id = 0; id < n; ++id)
    for (TaskId dep : graph.tasks[id].deps) {
      ++waiting[id];
      ++head[static_cast<std::size_t>(dep) + 1];
    }
  for (std::size_t id = 0; id < n; ++id)
    head[id + 1] += head[id];
  std::vector<TaskId> dependents(head[n]);
  std::vector<std::uint32_t> fill(head.begin(), head.end() - 1);
  for (std::size_t id = 0; id < n; ++id)
    for (TaskId dep : graph.tasks[id].deps)
      dependents[fill[static_cast<std::size_t>(dep)]++] = static_cast<TaskId>(id);
  std::vector<TaskId> ready;
  for (std::size_t id = 0; id < n; ++id)
    if (waiting[id] == 0) ready.push_back(static_cast<TaskId>(id));
  std::size_t done = 0;
  while (!ready.empty()) {
    const TaskId id = ready.back();
    ready.pop_back();
    ++done;
    for (std::uint32_t i = head[static_cast<std::size_t>(id)]; i < head[static_cast<std::size_t>(id) + 1]; ++i)
      if (const TaskId next = dependents[i]; --waiting[static_cast<std::size_t>(next)] == 0) ready.push_back(next);
  }
  if (done == n) return;
  TaskId at = 0;
  while (waiting[static_cast<std::size_t>(at)] == 0)
    ++at;
  std::vector<std::int32_t> seen_at(n, -1);
  std::vector<TaskId> walk;
  while (seen_at[static_cast<std::size_t>(at)] < 0) {
    seen_at[static_cast<std::size_t>(at)] = static_cast<std::int32_t>(walk.size());
    walk.push_back(at);
    for (TaskId dep : graph.tasks[static_cast<std::size_t>(at)].deps)
      if (waiting[static_cast<std::size_t>(dep)] > 0) {
        at = dep;
        break;
      }
  }
  // The cycle is walk[seen_at[at]..]; print it from its smallest task id, each task waiting on the next.
  std::vector<TaskId> cycle(walk.begin() + seen_at[static_cast<std::size_t>(at)], walk.end());
  std::size_t first = 0;
  for (std::size_t i = 1; i < cycle.size(); ++i)
    if (cycle[i] < cycle[first]) first = i;
  std::string text;
  for (std::size_t i = 0; i <= cycle.size(); ++i)
    text += (i ? " -> " : "") + std::to_string(cycle[(first + i) % cycle.size()]);
  throw VerifyError("event graph: dependencies must be acyclic, got a cycle (each task waits on the next): " + text);
}

// The routes a transfer splits over (NetworkSpec::split_routes): the first is the pair's route, the others in range,
// of the same latency, and no link twice among them. Stored in `routes` when there are two or more.
void check_split(const NetworkSpec& network, const std::string& where, const std::vector<std::int32_t>& route,
                 RouteTable& routes, const Task& task) {
  const std::vector<std::vector<std::int32_t>> parts = network.split_routes(task.src_chip, task.dst_chip);
  if (parts.size() < 2) return;
  if (parts.front() != route)
    throw VerifyError(where + ": the first split route must be the pair's route, got: another route");
  const auto num_links = static_cast<std::int32_t>(network.links.size());
  std::vector<std::int32_t> seen;
  for (const auto& part : parts) {
    double latency_s = 0;
    for (const std::int32_t link : part) {
      if (link < 0 || link >= num_links)
        throw VerifyError(fmt::format("{}: split route link ids must be in [0, {}), got: {}", where, num_links, link));
      if (std::find(seen.begin(), seen.end(), link) != seen.end())
        throw VerifyError(fmt::format("{}: split routes must be link-disjoint, got: link {} twice", where, link));
      seen.push_back(link);
      latency_s += network.links[static_cast<std::size_t>(link)].latency_s;
    }
    if (part.empty() || network.links[static_cast<std::size_t>(part.front())].tier != LinkTier::ici)
      throw VerifyError(where + ": split routes must be non-empty and on ICI links, got: another route");
    // Every part has the pair's latency (the runner defers a split transfer once): minimal routes over ICI links.
    double route_s = 0;
    for (const std::int32_t link : route)
      route_s += network.links[static_cast<std::size_t>(link)].latency_s;
    if (latency_s != route_s)
      throw VerifyError(
          fmt::format("{}: split routes must have the route's latency {} s, got: {} s", where, route_s, latency_s));
  }
  routes.add_parts(task.src_chip, task.dst_chip, parts);
}

RouteTable resolve_routes(const NetworkSpec& network, const EventGraph& graph) {
  RouteTable routes(network.num_chips);
  const auto num_links = static_cast<std::int32_t>(network.links.size());
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer || task.src_chip == task.dst_chip) continue;
    if (routes.contains(task.src_chip, task.dst_chip)) continue;
    const std::string where = fmt::format("task {}: route from chip {} to chip {}", id, task.src_chip, task.dst_chip);
    if (!network.route) throw VerifyError(where + ": the network must have a route function, got: none");
    std::vector<std::int32_t> links = network.route(task.src_chip, task.dst_chip);
    if (links.empty()) throw VerifyError(where + ": must cross at least one link, got: an empty route");
    double latency_s = 0;
    for (std::int32_t link : links) {
      if (link < 0 || link >= num_links)
        throw VerifyError(fmt::format("{}: link ids must be in [0, {}), got: {}", where, num_links, link));
      latency_s += network.links[static_cast<std::size_t>(link)].latency_s;
    }
    // A release timer's wait is no transfer of the machine: no fixed cost (release_timers.hpp).
    const bool timer = network.links[static_cast<std::size_t>(links.front())].tier == LinkTier::timer;
    routes.add(task.src_chip, task.dst_chip, links, timer ? latency_s : latency_s + network.transfer.fixed_s);
    if (network.split_routes) check_split(network, where, links, routes, task);
  }
  return routes;
}

}  // namespace

RouteTable check_simulation_input(const NetworkSpec& network, const EventGraph& graph) {
  check_network(network, graph);
  check_tasks(network, graph);
  check_acyclic(graph);
  return resolve_routes(network, graph);
}

}  // namespace podsim::engine
