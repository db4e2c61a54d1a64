// What one simulation of an event graph returns: per-task start/end times, the route every transfer took and so
// its bandwidth phase, the makespan, and the per-link and per-chip traffic ledger that podsim computes itself from
// the task timings and the routes (exact, unlike SimGrid's link-load plugin). Reports read routes and phases here
// and never re-derive them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/common/ids.hpp"
#include "sim/engine/route_list.hpp"
#include "sim/graph/event_graph.hpp"  // TaskId

namespace podsim {

struct TaskTiming {
  double start_s = 0;  // when all its dependencies had completed and the task began
  double end_s = 0;    // compute: start + flops / speed when alone; transfer: when the last byte arrived
};

// Traffic on one directed link.
struct LinkUsage {
  std::uint64_t bytes = 0;     // sum of the bytes of the transfers crossing it (each transfer counted once per link)
  double busy_s = 0;           // length of the union of its transfers' bandwidth phases [start + route latency, end]
  std::uint32_t messages = 0;  // transfers crossing it
  bool dcn = false;            // a DCN link (a host NIC's up or down link, docs/overlap-pipeline-dcn.md), else ICI
};

struct SimulationResult {
  double makespan_s = 0;          // end of the last task (the simulation starts at 0)
  std::vector<TaskTiming> tasks;  // per task id
  // The distinct routes the engine sent transfers along (links in order, summed latency), and per task id the
  // number of its route in `routes`: -1 for a compute or a chip-local transfer. Four bytes per task, so a pod-scale
  // graph (millions of transfers over far fewer chip pairs) stays small.
  RouteList routes;
  std::vector<std::int32_t> task_route;
  // Per route number, the route numbers a transfer along it splits over (itself first; options.routing
  // split_minimal, NetworkSpec::split_routes), empty when it does not split; empty when no route splits.
  std::vector<std::vector<std::int32_t>> route_parts;
  std::vector<LinkUsage> links;                    // per link id
  std::vector<std::uint64_t> chip_bytes_sent;      // per chip, transfers to another chip only
  std::vector<std::uint64_t> chip_bytes_received;  // per chip, transfers from another chip only
  std::uint64_t messages = 0;                      // transfer tasks executed (including chip-local ones)
  double wall_s = 0;                               // wall time of the child's simulation (engine, platform and run)
  std::uint64_t simulated_tasks = 0;               // tasks SimGrid executed (fewer than tasks when a symmetry is used)
  std::uint64_t child_rss_growth_bytes = 0;  // simulation child: peak resident memory above its start (largest child)

  // The directed links the task crossed, in order; empty for a compute, a chip-local transfer or no published route.
  std::span<const LinkId> route_of(TaskId task) const;
  // The route numbers (in `routes`) of a split transfer's parts, part k carrying split_bytes(bytes, parts, k); empty
  // for any other task (its one route is route_of).
  std::span<const std::int32_t> parts_of(TaskId task) const;
  // Calls `visit(links, bytes)` once per route the transfer `task` of `bytes` used: its parts when split, else its
  // route (none for a compute or a chip-local transfer).
  template <typename Visit>
  void for_each_part(TaskId task, std::uint64_t bytes, Visit&& visit) const;
  // True when the task is a transfer whose route crosses a DCN link (between slices, docs/overlap-pipeline-dcn.md).
  bool crosses_dcn(TaskId task) const;
  // Seconds: min(start + route latency, end) (start if no route); the bytes flow on route_of(task) from then to end.
  double bandwidth_start_s(TaskId task) const;

  std::uint64_t max_link_bytes() const;
  std::uint64_t total_link_bytes() const;
  // max over links of busy_s / makespan_s; 0 when the makespan is 0.
  double max_link_utilisation() const;
};

std::uint64_t split_part_bytes(std::uint64_t bytes, std::size_t parts, std::size_t part);

template <typename Visit>
void SimulationResult::for_each_part(TaskId task, std::uint64_t bytes, Visit&& visit) const {
  const std::span<const std::int32_t> parts = parts_of(task);
  if (parts.empty()) {
    const std::span<const LinkId> route = route_of(task);
    if (!route.empty()) visit(route, bytes);
    return;
  }
  for (std::size_t k = 0; k < parts.size(); ++k)
    visit(routes.links(parts[k]), split_part_bytes(bytes, parts.size(), k));
}

}  // namespace podsim
