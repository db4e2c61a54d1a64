// Per-link and per-chip traffic from task timings. Transfers are visited in order of the start of their
// bandwidth phase, so each link sees its intervals in start order and merges them on the fly: O(hops) memory.
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

  struct Phase {
    double begin_s;
    double end_s;
    TaskId task;
  };
  std::vector<Phase> phases;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& task = graph.tasks[id];
    if (task.kind != TaskKind::transfer) continue;
    ++result.messages;
    if (task.src_chip == task.dst_chip) continue;
    result.chip_bytes_sent[static_cast<std::size_t>(task.src_chip)] += task.bytes;
    result.chip_bytes_received[static_cast<std::size_t>(task.dst_chip)] += task.bytes;
    const TaskTiming& timing = result.tasks[id];
    const double begin_s = std::min(timing.start_s + routes.latency_s(task.src_chip, task.dst_chip), timing.end_s);
    phases.push_back({begin_s, timing.end_s, static_cast<TaskId>(id)});
  }
  std::stable_sort(phases.begin(), phases.end(), [](const Phase& a, const Phase& b) { return a.begin_s < b.begin_s; });

  // Per link: the union interval being grown, [open_begin, open_end]; closed ones are added to busy_s.
  std::vector<double> open_begin(network.links.size(), 0), open_end(network.links.size(), -1);
  for (const Phase& phase : phases) {
    const Task& task = graph.tasks[static_cast<std::size_t>(phase.task)];
    for (std::int32_t link : routes.links(task.src_chip, task.dst_chip)) {
      const auto at = static_cast<std::size_t>(link);
      LinkUsage& usage = result.links[at];
      usage.bytes += task.bytes;
      ++usage.messages;
      if (phase.begin_s > open_end[at]) {
        if (open_end[at] > open_begin[at]) usage.busy_s += open_end[at] - open_begin[at];
        open_begin[at] = phase.begin_s;
        open_end[at] = phase.end_s;
      } else {
        open_end[at] = std::max(open_end[at], phase.end_s);
      }
    }
  }
  for (std::size_t at = 0; at < result.links.size(); ++at)
    if (open_end[at] > open_begin[at]) result.links[at].busy_s += open_end[at] - open_begin[at];
}

}  // namespace podsim::engine
