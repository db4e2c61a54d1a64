// Route publication, then per-link and per-chip traffic from task timings in one pass over the transfers with
// O(links) state; links whose transfers do not come in order of their start are merged again from their own sorted
// spans, bucketed by link.
#include "sim/engine/link_ledger.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace podsim::engine {

void publish_routes(const EventGraph& graph, const RouteTable& routes, SimulationResult& result) {
  result.routes = routes.list();
  result.task_route.assign(graph.tasks.size(), -1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind == TaskKind::transfer && task.src_chip != task.dst_chip)
      result.task_route[id] = routes.index(task.src_chip, task.dst_chip);
  }
  result.route_parts = routes.all_parts();
}

void fill_ledger(const NetworkSpec& network, const EventGraph& graph, SimulationResult& result) {
  if (result.tasks.size() != graph.tasks.size() || result.task_route.size() != graph.tasks.size())
    throw std::logic_error("link ledger: needs a timing and a published route per task of the graph");
  const auto num_chips = static_cast<std::size_t>(network.num_chips);
  result.links.assign(network.links.size(), LinkUsage{});
  for (std::size_t id = 0; id < network.links.size(); ++id)
    result.links[id].dcn = network.links[id].tier == LinkTier::dcn;
  result.chip_bytes_sent.assign(num_chips, 0);
  result.chip_bytes_received.assign(num_chips, 0);
  result.messages = 0;
  result.makespan_s = 0;
  for (const TaskTiming& timing : result.tasks)
    result.makespan_s = std::max(result.makespan_s, timing.end_s);

  // Per link, the union of the bandwidth phases [start + route latency, end] of its transfers, merged in order of
  // their begin. Transfers are visited in id order; a link that sees a begin earlier than the one before is
  // marked and merged again afterwards from its own sorted spans (schedules rarely need it).
  const std::size_t num_links = network.links.size();
  struct Open {
    double begin_s = 0, end_s = -1, last_begin_s = 0;
    bool unsorted = false;
  };
  std::vector<Open> open(num_links);
  const auto phase_of = [&](std::size_t id) {
    return std::pair{result.bandwidth_start_s(static_cast<TaskId>(id)), result.tasks[id].end_s};
  };
  std::size_t unsorted_links = 0;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer) continue;
    ++result.messages;
    if (task.src_chip == task.dst_chip) continue;
    result.chip_bytes_sent[static_cast<std::size_t>(task.src_chip)] += task.bytes;
    result.chip_bytes_received[static_cast<std::size_t>(task.dst_chip)] += task.bytes;
    const auto phase = phase_of(id);  // not a structured binding: clang 14's lambdas cannot capture one
    const double begin_s = phase.first, end_s = phase.second;
    // A split transfer's parts each count their own bytes on their own links, over the transfer's bandwidth phase
    // (the parts end with the last one's end: they are equal and link-disjoint).
    result.for_each_part(static_cast<TaskId>(id), task.bytes, [&](std::span<const LinkId> route, std::uint64_t bytes) {
      for (const LinkId link : route) {
        const auto at = static_cast<std::size_t>(link);
        LinkUsage& usage = result.links[at];
        usage.bytes += bytes;
        ++usage.messages;
        Open& state = open[at];
        if (state.unsorted) continue;
        if (state.end_s >= 0 && begin_s < state.last_begin_s) {
          state.unsorted = true;
          ++unsorted_links;
          continue;
        }
        state.last_begin_s = begin_s;
        if (begin_s > state.end_s) {
          if (state.end_s > state.begin_s) usage.busy_s += state.end_s - state.begin_s;
          state.begin_s = begin_s;
          state.end_s = end_s;
        } else {
          state.end_s = std::max(state.end_s, end_s);
        }
      }
    });
  }
  for (std::size_t at = 0; at < num_links; ++at)
    if (!open[at].unsorted && open[at].end_s > open[at].begin_s)
      result.links[at].busy_s += open[at].end_s - open[at].begin_s;
  if (unsorted_links == 0) return;

  // The marked links: their spans bucketed by link in id order (a counting pass, then a filling pass), each bucket
  // sorted by begin (stable: ties in id order) and merged. The same order as one stable sort by (link, begin) over
  // all spans, in buckets small enough for the caches (a concurrent multi-axis collective marks every link it uses:
  // its parts cross one axis's links at different times in id order).
  std::vector<std::size_t> first(num_links + 1, 0);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer || task.src_chip == task.dst_chip) continue;
    result.for_each_part(static_cast<TaskId>(id), task.bytes, [&](std::span<const LinkId> route, std::uint64_t) {
      for (const LinkId link : route)
        if (open[static_cast<std::size_t>(link)].unsorted) ++first[static_cast<std::size_t>(link) + 1];
    });
  }
  for (std::size_t at = 0; at < num_links; ++at)
    first[at + 1] += first[at];
  struct Span {
    double begin_s, end_s;
  };
  std::vector<Span> spans(first[num_links]);
  std::vector<std::size_t> next(first.begin(), first.end() - 1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer || task.src_chip == task.dst_chip) continue;
    const auto phase = phase_of(id);  // not a structured binding: clang 14's lambdas cannot capture one
    const double begin_s = phase.first, end_s = phase.second;
    result.for_each_part(static_cast<TaskId>(id), task.bytes, [&](std::span<const LinkId> route, std::uint64_t) {
      for (const LinkId link : route)
        if (open[static_cast<std::size_t>(link)].unsorted)
          spans[next[static_cast<std::size_t>(link)]++] = {begin_s, end_s};
    });
  }
  for (std::size_t at = 0; at < num_links; ++at) {
    if (first[at] == first[at + 1]) continue;
    const auto begin = spans.begin() + static_cast<std::ptrdiff_t>(first[at]);
    const auto end = spans.begin() + static_cast<std::ptrdiff_t>(first[at + 1]);
    std::stable_sort(begin, end, [](const Span& a, const Span& b) { return a.begin_s < b.begin_s; });
    double busy_s = 0, begin_s = begin->begin_s, end_s = begin->end_s;
    for (auto span = begin + 1; span != end; ++span) {
      if (span->begin_s > end_s) {
        busy_s += end_s - begin_s;
        begin_s = span->begin_s;
        end_s = span->end_s;
      } else {
        end_s = std::max(end_s, span->end_s);
      }
    }
    result.links[at].busy_s = busy_s + (end_s - begin_s);
  }
}

}  // namespace podsim::engine
