// Route and bandwidth-phase accessors and summary helpers of SimulationResult.
#include "sim/engine/simulation_result.hpp"

#include <algorithm>

#include "models/topology/route_policy.hpp"

namespace podsim {
namespace {

// The number of the task's route in `routes`, or -1.
std::int32_t route_number(const SimulationResult& result, TaskId task) {
  const auto at = static_cast<std::size_t>(task);
  return at < result.task_route.size() ? result.task_route[at] : -1;
}

}  // namespace

std::span<const LinkId> SimulationResult::route_of(TaskId task) const {
  const std::int32_t route = route_number(*this, task);
  return route < 0 ? std::span<const LinkId>{} : routes.links(route);
}

std::span<const std::int32_t> SimulationResult::parts_of(TaskId task) const {
  const std::int32_t route = route_number(*this, task);
  if (route < 0 || static_cast<std::size_t>(route) >= route_parts.size()) return {};
  return route_parts[static_cast<std::size_t>(route)];
}

std::uint64_t split_part_bytes(std::uint64_t bytes, std::size_t parts, std::size_t part) {
  return split_bytes(bytes, static_cast<std::int64_t>(parts), static_cast<std::int64_t>(part));
}

bool SimulationResult::crosses_dcn(TaskId task) const {
  for (const LinkId link : route_of(task))
    if (static_cast<std::size_t>(link) < links.size() && links[static_cast<std::size_t>(link)].dcn) return true;
  return false;
}

double SimulationResult::bandwidth_start_s(TaskId task) const {
  const TaskTiming& timing = tasks[static_cast<std::size_t>(task)];
  const std::int32_t route = route_number(*this, task);
  return route < 0 ? timing.start_s : std::min(timing.start_s + routes.latency_s(route), timing.end_s);
}

std::uint64_t SimulationResult::max_link_bytes() const {
  std::uint64_t best = 0;
  for (const LinkUsage& link : links)
    best = std::max(best, link.bytes);
  return best;
}

std::uint64_t SimulationResult::total_link_bytes() const {
  std::uint64_t total = 0;
  for (const LinkUsage& link : links)
    total += link.bytes;
  return total;
}

double SimulationResult::max_link_utilisation() const {
  if (makespan_s <= 0) return 0;
  double busiest = 0;
  for (const LinkUsage& link : links)
    busiest = std::max(busiest, link.busy_s);
  return busiest / makespan_s;
}

}  // namespace podsim
