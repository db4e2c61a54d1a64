// Link sharing between ops, by a sweep over each link's bandwidth phases.
#include "sim/run/contention.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace podsim {
namespace {

struct Phase {
  double start_s;
  double end_s;
  std::int32_t op;
};

}  // namespace

void explain_contention(PlanRun& plan, const EventGraph& graph, const SimulationResult& simulation) {
  std::vector<bool> explain(plan.ops.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const OpRun& op = plan.ops[i];
    explain[i] = op.book_time_s > 0 && op.des_time_s > (1 + kContentionThreshold) * op.book_time_s;
    any = any || explain[i];
  }
  if (!any) return;
  // Per link, the bandwidth phases crossing it; per (op, link), the op's bytes on it.
  std::map<LinkId, std::vector<Phase>> phases;
  std::map<std::pair<std::int32_t, LinkId>, std::uint64_t> bytes;
  const std::size_t tasks = std::min(graph.tasks.size(), simulation.tasks.size());
  for (std::size_t t = 0; t < tasks; ++t) {
    const Task& task = graph.tasks[t];
    if (task.kind != TaskKind::transfer) continue;
    const auto id = static_cast<TaskId>(t);
    const double start = simulation.bandwidth_start_s(id), end = simulation.tasks[t].end_s;
    simulation.for_each_part(id, task.bytes, [&](std::span<const LinkId> route, std::uint64_t part_bytes) {
      for (const LinkId link : route) {
        if (end > start) phases[link].push_back({start, end, task.op});
        bytes[{task.op, link}] += part_bytes;
      }
    });
  }
  // Per explained op, the ops it overlapped with and the links where it did.
  std::vector<std::set<std::int32_t>> shared(plan.ops.size());
  std::vector<std::set<LinkId>> shared_links(plan.ops.size());
  for (auto& [link, list] : phases) {
    std::sort(list.begin(), list.end(), [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
    // The latest end among the phases seen so far, per op: a new phase overlaps op b when b's latest end is after
    // its start (phases are sorted by start).
    std::map<std::int32_t, double> latest_end;
    for (const Phase& phase : list) {
      for (const auto& [other, end_s] : latest_end) {
        if (other == phase.op || !(end_s > phase.start_s)) continue;
        for (const auto& [a, b] : {std::pair{phase.op, other}, std::pair{other, phase.op}}) {
          if (!explain[static_cast<std::size_t>(a)]) continue;
          shared[static_cast<std::size_t>(a)].insert(b);
          shared_links[static_cast<std::size_t>(a)].insert(link);
        }
      }
      double& end_s = latest_end[phase.op];
      end_s = std::max(end_s, phase.end_s);
    }
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    if (!explain[i]) continue;
    Contention contention;
    for (const std::int32_t other : shared[i])
      contention.shared_with.push_back(plan.ops[static_cast<std::size_t>(other)].name);
    for (const LinkId link : shared_links[i]) {
      const std::uint64_t on_link = bytes[{static_cast<std::int32_t>(i), link}];
      if (on_link > contention.busiest_shared_bytes || contention.busiest_shared_link.empty()) {
        contention.busiest_shared_bytes = on_link;
        contention.busiest_shared_link =
            static_cast<std::size_t>(link) < plan.links.size() ? plan.links[static_cast<std::size_t>(link)].name : "";
      }
    }
    plan.ops[i].contention = std::move(contention);
  }
}

}  // namespace podsim
