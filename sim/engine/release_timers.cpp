#include "sim/engine/release_timers.hpp"

#include <map>

namespace podsim {
namespace {

constexpr double kReleaseBandwidth_Bps = 1e30;

}  // namespace

void add_release_timers(const std::vector<std::pair<TaskId, double>>& releases, std::int32_t chips, EventGraph& graph,
                        NetworkSpec& network, const std::shared_ptr<SubRoutes>& routes) {
  std::map<double, std::pair<std::int32_t, std::int32_t>> timer_of;  // release -> (timer chip, its link)
  for (const auto& [task, at] : releases) {
    auto [it, added] = timer_of.emplace(at, std::pair{chips + static_cast<std::int32_t>(timer_of.size()),
                                                      static_cast<std::int32_t>(network.links.size())});
    if (added) network.links.push_back({"release", kReleaseBandwidth_Bps, at, LinkTier::timer});
    Task wait;
    wait.kind = TaskKind::transfer;
    wait.bytes = 1;
    wait.src_chip = graph.tasks[static_cast<std::size_t>(task)].src_chip;
    wait.dst_chip = it->second.first;
    routes->emplace(sub_route_key(wait.src_chip, wait.dst_chip), std::vector<std::int32_t>{it->second.second});
    const TaskId id = graph.add(std::move(wait));
    graph.tasks[static_cast<std::size_t>(task)].deps.push_back(id);
  }
  network.num_chips = graph.num_chips = chips + static_cast<std::int32_t>(timer_of.size());
  network.route = [routes](std::int32_t src, std::int32_t dst) { return routes->at(sub_route_key(src, dst)); };
}

}  // namespace podsim
