// Per-link and per-chip traffic from task timings. The bandwidth phases of transfers are gathered link by link
// (a counting pass, then a filling pass) and each link merges its own in order of their start: O(hops) memory.
#include "sim/engine/link_ledger.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace podsim::engine {

void fill_ledger(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes,
                 SimulationResult& result) {
  const auto num_chips = static_cast<std::size_t>(network.num_chips);
  result.links.assign(network.links.size(), LinkUsage{});
  result.chip_bytes_sent.assign(num_chips, 0);
  result.chip_bytes_received.assign(num_chips, 0);
  result.messages = 0;
  result.makespan_s = 0;
  for (const TaskTiming& timing : result.tasks)
    result.makespan_s = std::max(result.makespan_s, timing.end_s);

  // Bandwidth phases per link, stored link by link: link l's are spans[first[l] .. first[l + 1]).
  const std::size_t num_links = network.links.size();
  std::vector<std::uint32_t> first(num_links + 1, 0);
  for (const Task& task : graph.tasks) {
    if (task.kind != TaskKind::transfer) continue;
    ++result.messages;
    if (task.src_chip == task.dst_chip) continue;
    result.chip_bytes_sent[static_cast<std::size_t>(task.src_chip)] += task.bytes;
    result.chip_bytes_received[static_cast<std::size_t>(task.dst_chip)] += task.bytes;
    for (const std::int32_t link : routes.links(task.src_chip, task.dst_chip)) {
      LinkUsage& usage = result.links[static_cast<std::size_t>(link)];
      usage.bytes += task.bytes;
      ++usage.messages;
      ++first[static_cast<std::size_t>(link) + 1];
    }
  }
  for (std::size_t l = 0; l < num_links; ++l)
    first[l + 1] += first[l];
  struct Span {
    double begin_s;
    double end_s;
  };
  std::vector<Span> spans(first[num_links]);
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer || task.src_chip == task.dst_chip) continue;
    const TaskTiming& timing = result.tasks[id];
    const double begin_s = std::min(timing.start_s + routes.latency_s(task.src_chip, task.dst_chip), timing.end_s);
    for (const std::int32_t link : routes.links(task.src_chip, task.dst_chip))
      spans[fill[static_cast<std::size_t>(link)]++] = {begin_s, timing.end_s};
  }
  // Per link: the union of its spans, merged in order of their begin (most links get them in order already).
  const auto by_begin = [](const Span& a, const Span& b) { return a.begin_s < b.begin_s; };
  for (std::size_t l = 0; l < num_links; ++l) {
    const auto from = spans.begin() + first[l], to = spans.begin() + first[l + 1];
    if (from == to) continue;
    if (!std::is_sorted(from, to, by_begin)) std::sort(from, to, by_begin);
    double open_begin = from->begin_s, open_end = from->end_s, busy_s = 0;
    for (auto span = from + 1; span != to; ++span) {
      if (span->begin_s > open_end) {
        busy_s += open_end - open_begin;
        open_begin = span->begin_s;
        open_end = span->end_s;
      } else {
        open_end = std::max(open_end, span->end_s);
      }
    }
    result.links[l].busy_s = busy_s + (open_end - open_begin);
  }
}

}  // namespace podsim::engine
