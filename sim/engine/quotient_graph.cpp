// Builds the quotient graph of chip 0's tasks (quotient_graph.hpp).
#include "sim/engine/quotient_graph.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>

#include "sim/graph/huge_pages.hpp"

namespace podsim {
namespace {
constexpr ChipId kRep = 0;  // the representative: coordinate 0 in every dim
}  // namespace

std::vector<TaskId> quotient_ids(const EventGraph& graph) {
  std::vector<TaskId> ids;
  reserve_huge(ids, graph.tasks.size());
  ids.assign(graph.tasks.size(), -1);
  TaskId next = 0;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    if (graph.tasks[id].src_chip == kRep) ids[id] = next++;
  return ids;
}

QuotientGraph build_quotient_graph(const NetworkSpec& network, const EventGraph& graph,
                                   const std::vector<TaskId>& twin_of, std::size_t classes,
                                   const std::function<std::size_t(std::int32_t)>& class_of_link) {
  QuotientGraph out;
  NetworkSpec& net = out.network;
  net.chip_flops = network.chip_flops;
  net.transfer = network.transfer;  // the calibration of transfers, as the whole graph has it
  out.class_link.assign(classes, -1);
  std::unordered_map<ChipId, std::int32_t> sink_of;                           // destination chip -> sink chip
  auto routes = std::make_shared<std::vector<std::vector<std::int32_t>>>(1);  // per sink chip
  const auto sink = [&](ChipId dst) {
    if (const auto it = sink_of.find(dst); it != sink_of.end()) return it->second;
    std::vector<std::int32_t> links;
    for (const std::int32_t l : network.route(kRep, dst)) {
      std::int32_t& mapped = out.class_link[class_of_link(l)];
      if (mapped < 0) {
        mapped = static_cast<std::int32_t>(net.links.size());
        net.links.push_back(network.links[static_cast<std::size_t>(l)]);
      }
      links.push_back(mapped);
    }
    const auto chip = static_cast<std::int32_t>(routes->size());
    routes->push_back(std::move(links));
    sink_of.emplace(dst, chip);
    return chip;
  };
  const std::vector<TaskId> quotient_id = quotient_ids(graph);
  EventGraph& quotient = out.graph;
  quotient.tasks.resize(static_cast<std::size_t>(
      std::count_if(quotient_id.begin(), quotient_id.end(), [](TaskId id) { return id >= 0; })));
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    if (quotient_id[id] < 0) continue;
    const Task& t = graph.tasks[id];
    Task& s = quotient.tasks[static_cast<std::size_t>(quotient_id[id])];
    s.kind = t.kind;
    s.bytes = t.bytes;
    s.flops = t.flops;
    s.op = t.op;
    s.step = t.step;
    s.src_chip = 0;
    s.dst_chip = t.kind == TaskKind::transfer && t.dst_chip != kRep ? sink(t.dst_chip) : 0;
    for (const TaskId d : t.deps) {
      const TaskId mapped = quotient_id[static_cast<std::size_t>(twin_of[static_cast<std::size_t>(d)])];
      if (std::find(s.deps.begin(), s.deps.end(), mapped) == s.deps.end()) s.deps.push_back(mapped);
    }
  }
  net.num_chips = quotient.num_chips = static_cast<std::int32_t>(routes->size());
  net.route = [routes](std::int32_t src, std::int32_t dst) {
    return src == 0 && dst > 0 ? (*routes)[static_cast<std::size_t>(dst)] : std::vector<std::int32_t>{};
  };
  return out;
}

}  // namespace podsim
