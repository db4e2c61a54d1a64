// The slice quotient of an event graph over several slices: match each chip's k-th task to the k-th of the chip at its
// position in slice 0, check that it is that task moved to its slice (destination, dependencies, route), simulate
// slice 0's tasks alone with transfers to other slices sent to sink chips over slice 0's NIC links, give every task
// its twin's timing, and compute the routes and the ledger from the whole graph as simulate() does.
#include "sim/engine/slice_quotient.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine/input_check.hpp"
#include "sim/engine/link_ledger.hpp"
#include "sim/engine/quotient_graph.hpp"
#include "sim/engine/simulator.hpp"

namespace podsim {
namespace {

// multi_slice_network's numbering: chips slice by slice; links: every slice's ICI links, then every slice's NIC links
// (2 per host: up, down).
class SliceLayout {
 public:
  SliceLayout(std::int32_t slices, std::int64_t chips, std::int64_t ici_links, std::int64_t nic_links)
      : slices_(slices), chips_(chips), ici_(ici_links), nics_(nic_links) {}
  std::int32_t slices() const { return slices_; }
  std::int64_t chips() const { return chips_; }
  std::int64_t slice_of_chip(ChipId c) const { return c / chips_; }
  // The chip at c's position, `by` slices further (modulo the slices).
  ChipId moved_chip(ChipId c, std::int64_t by) const {
    return static_cast<ChipId>(((c / chips_ + by) % slices_) * chips_ + c % chips_);
  }
  std::int64_t slice_of_link(std::int32_t l) const {
    return l < slices_ * ici_ ? l / ici_ : (l - slices_ * ici_) / nics_;
  }
  // The link that plays l's part `by` slices further.
  std::int32_t moved_link(std::int32_t l, std::int64_t by) const {
    const std::int64_t first_nic = slices_ * ici_;
    if (l < first_nic) return static_cast<std::int32_t>(((l / ici_ + by) % slices_) * ici_ + l % ici_);
    const std::int64_t at = l - first_nic;
    return static_cast<std::int32_t>(first_nic + ((at / nics_ + by) % slices_) * nics_ + at % nics_);
  }
  // Its class: the link of slice 0 that plays its part, numbered in the quotient (ICI links, then slice 0's NICs).
  std::int32_t class_of(std::int32_t l) const {
    const std::int64_t first_nic = slices_ * ici_;
    if (l < first_nic) return static_cast<std::int32_t>(l % ici_);
    return static_cast<std::int32_t>(ici_ + (l - first_nic) % nics_);
  }
  std::int32_t classes() const { return static_cast<std::int32_t>(ici_ + nics_); }
  // The link of class k in the whole network (slice 0's).
  std::int32_t link_of_class(std::int32_t k) const {
    return static_cast<std::int32_t>(k < ici_ ? k : slices_ * ici_ + (k - ici_));
  }

 private:
  std::int32_t slices_;
  std::int64_t chips_, ici_, nics_;
};

// Per task, its slice-0 twin (by its source chip's position), or the reason there is none.
SliceQuotientDecline match_twins(const EventGraph& graph, const SliceLayout& layout, std::vector<TaskId>& twin_of) {
  const auto chips = static_cast<std::size_t>(layout.chips());
  std::vector<std::vector<TaskId>> rep_tasks(chips);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    if (layout.slice_of_chip(graph.tasks[id].src_chip) == 0)
      rep_tasks[static_cast<std::size_t>(graph.tasks[id].src_chip)].push_back(static_cast<TaskId>(id));
  std::vector<std::size_t> count(static_cast<std::size_t>(graph.num_chips), 0);
  twin_of.assign(graph.tasks.size(), -1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const ChipId c = graph.tasks[id].src_chip;
    const auto& mine = rep_tasks[static_cast<std::size_t>(c) % chips];
    std::size_t& k = count[static_cast<std::size_t>(c)];
    if (k >= mine.size()) return SliceQuotientDecline::tasks_per_chip;
    twin_of[id] = mine[k++];
  }
  for (std::size_t c = 0; c < count.size(); ++c)
    if (count[c] != rep_tasks[c % chips].size()) return SliceQuotientDecline::tasks_per_chip;

  std::vector<std::pair<TaskId, ChipId>> mine, twins;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    const Task& r = graph.tasks[static_cast<std::size_t>(twin_of[id])];
    const std::int64_t by = layout.slice_of_chip(t.src_chip);
    if (t.kind != r.kind || t.bytes != r.bytes || t.flops != r.flops || t.dst_chip != layout.moved_chip(r.dst_chip, by))
      return SliceQuotientDecline::task_not_moved;
    if (!dependencies_moved(
            graph, twin_of, t, r, [&](ChipId c) { return layout.moved_chip(c, by); }, mine, twins))
      return SliceQuotientDecline::dependency_not_moved;
  }
  return SliceQuotientDecline::none;
}

// Every transfer's route is its twin's moved, and no route of slice 0 crosses two links of one class.
bool routes_moved(const EventGraph& graph, const SliceLayout& layout, const engine::RouteTable& routes,
                  const std::vector<TaskId>& twin_of) {
  std::vector<std::int32_t> classes;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    if (t.kind != TaskKind::transfer || t.src_chip == t.dst_chip) continue;
    const Task& r = graph.tasks[static_cast<std::size_t>(twin_of[id])];
    const auto route = routes.links(t.src_chip, t.dst_chip);
    const auto twin = routes.links(r.src_chip, r.dst_chip);
    if (route.size() != twin.size()) return false;
    const std::int64_t by = layout.slice_of_chip(t.src_chip);
    for (std::size_t h = 0; h < route.size(); ++h)
      if (route[h] != layout.moved_link(twin[h], by)) return false;
    if (by != 0) continue;
    classes.clear();
    for (const std::int32_t l : route)
      classes.push_back(layout.class_of(l));
    std::sort(classes.begin(), classes.end());
    if (std::adjacent_find(classes.begin(), classes.end()) != classes.end()) return false;
  }
  return true;
}

// Whether the links of each class are copies of slice 0's (bandwidth, latency, tier).
bool links_alike(const NetworkSpec& network, const SliceLayout& layout) {
  for (std::size_t l = 0; l < network.links.size(); ++l) {
    const LinkSpec& a = network.links[l];
    const LinkSpec& b =
        network.links[static_cast<std::size_t>(layout.link_of_class(layout.class_of(static_cast<std::int32_t>(l))))];
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_s != b.latency_s || a.tier != b.tier) return false;
  }
  return true;
}

struct SliceQuotientGraph {
  EventGraph graph;
  NetworkSpec network;
  std::vector<TaskId> quotient_id;  // per task of the whole graph: its id in `graph` (slice 0's tasks), else -1
};

// Slice 0's tasks on chips 0..M-1 and a sink chip per destination in another slice, the links of slice 0 (one per
// class), routes with every link replaced by its class. Returns nullopt when a task of slice 0 cannot observe the
// twin of one of its dependencies.
std::optional<SliceQuotientGraph> build_quotient(const NetworkSpec& network, const EventGraph& graph,
                                                 const SliceLayout& layout, const engine::RouteTable& routes,
                                                 const std::vector<TaskId>& twin_of) {
  SliceQuotientGraph out;
  NetworkSpec& net = out.network;
  net.chip_flops = network.chip_flops;
  net.transfer = network.transfer;
  for (std::int32_t k = 0; k < layout.classes(); ++k)
    net.links.push_back(network.links[static_cast<std::size_t>(layout.link_of_class(k))]);
  const auto chips = static_cast<ChipId>(layout.chips());
  std::unordered_map<ChipId, ChipId> sink_of;  // destination chip in another slice -> its sink
  auto route_of = std::make_shared<std::unordered_map<std::uint64_t, std::vector<std::int32_t>>>();
  ChipId next_chip = chips;
  out.quotient_id.assign(graph.tasks.size(), -1);
  TaskId next = 0;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    if (layout.slice_of_chip(graph.tasks[id].src_chip) == 0) out.quotient_id[id] = next++;
  out.graph.tasks.resize(static_cast<std::size_t>(next));
  // A pair's key; the route function reads the map with it (chips of the quotient fit 32 bits each).
  const auto key = [](ChipId a, ChipId b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  };
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    if (out.quotient_id[id] < 0) continue;
    const Task& t = graph.tasks[id];
    Task& s = out.graph.tasks[static_cast<std::size_t>(out.quotient_id[id])];
    s.kind = t.kind;
    s.bytes = t.bytes;
    s.flops = t.flops;
    s.op = t.op;
    s.step = t.step;
    s.src_chip = t.src_chip;
    s.dst_chip = t.dst_chip;
    if (t.kind == TaskKind::transfer && t.dst_chip != t.src_chip) {
      if (layout.slice_of_chip(t.dst_chip) != 0) {
        const auto [it, added] = sink_of.emplace(t.dst_chip, next_chip);
        if (added) ++next_chip;
        s.dst_chip = it->second;
      }
      auto& links = (*route_of)[key(s.src_chip, s.dst_chip)];
      if (links.empty())
        for (const std::int32_t l : routes.links(t.src_chip, t.dst_chip))
          links.push_back(layout.class_of(l));
    }
    for (const TaskId d : t.deps) {
      const auto twin = static_cast<std::size_t>(twin_of[static_cast<std::size_t>(d)]);
      const TaskId mapped = out.quotient_id[twin];
      if (std::find(s.deps.begin(), s.deps.end(), mapped) == s.deps.end()) s.deps.push_back(mapped);
    }
  }
  // Every dependency must be observable on its task's chip in the quotient (its source; or its destination there).
  for (const Task& s : out.graph.tasks)
    for (const TaskId d : s.deps) {
      const Task& dep = out.graph.tasks[static_cast<std::size_t>(d)];
      if (dep.src_chip != s.src_chip && (dep.kind != TaskKind::transfer || dep.dst_chip != s.src_chip))
        return std::nullopt;
    }
  net.num_chips = out.graph.num_chips = next_chip;
  net.route = [route_of, key](std::int32_t src, std::int32_t dst) {
    const auto it = route_of->find(key(src, dst));
    return it == route_of->end() ? std::vector<std::int32_t>{} : it->second;
  };
  return out;
}

}  // namespace

std::string_view slice_quotient_decline_name(SliceQuotientDecline decline) {
  switch (decline) {
    case SliceQuotientDecline::none:
      return "applies";
    case SliceQuotientDecline::not_several_slices:
      return "not several slices of one layout";
    case SliceQuotientDecline::tasks_per_chip:
      return "tasks per chip differ";
    case SliceQuotientDecline::task_not_moved:
      return "a task is not slice 0's moved";
    case SliceQuotientDecline::dependency_not_moved:
      return "a dependency is not slice 0's moved";
    case SliceQuotientDecline::route_not_moved:
      return "a route is not slice 0's moved";
    case SliceQuotientDecline::dependency_not_observable:
      return "a transfer from another slice is not the twin of one the chip sends";
  }
  return "unknown";
}

std::optional<SimulationResult> simulate_slice_quotient(const Slice& slice, std::int32_t slices,
                                                        const NetworkSpec& network, const EventGraph& graph,
                                                        SliceQuotientDecline* declined) {
  const auto decline = [&](SliceQuotientDecline why) -> std::optional<SimulationResult> {
    if (declined != nullptr) *declined = why;
    return std::nullopt;
  };
  const std::int64_t chips = slice.num_chips(), ici = slice.num_links();
  const auto links = static_cast<std::int64_t>(network.links.size());
  if (slices < 2 || network.num_chips != slices * chips || graph.num_chips != network.num_chips ||
      links <= slices * ici || (links - slices * ici) % (2 * slices) != 0)
    return decline(SliceQuotientDecline::not_several_slices);
  // The whole graph is validated (and its routes resolved) as simulate() validates it, before anything runs.
  const engine::RouteTable routes = engine::check_simulation_input(network, graph);
  const SliceLayout layout(slices, chips, ici, (links - slices * ici) / slices);
  if (!links_alike(network, layout)) return decline(SliceQuotientDecline::not_several_slices);
  std::vector<TaskId> twin_of;
  if (const SliceQuotientDecline why = match_twins(graph, layout, twin_of); why != SliceQuotientDecline::none)
    return decline(why);
  if (!routes_moved(graph, layout, routes, twin_of)) return decline(SliceQuotientDecline::route_not_moved);
  const std::optional<SliceQuotientGraph> quotient = build_quotient(network, graph, layout, routes, twin_of);
  if (!quotient) return decline(SliceQuotientDecline::dependency_not_observable);
  if (declined != nullptr) *declined = SliceQuotientDecline::none;

  const SimulationResult run = simulate(quotient->network, quotient->graph);
  SimulationResult result;
  result.tasks.resize(graph.tasks.size());
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    result.tasks[id] =
        run.tasks[static_cast<std::size_t>(quotient->quotient_id[static_cast<std::size_t>(twin_of[id])])];
  // The routes and the ledger always: which transfers cross the DCN is read from them (the step's DCN seconds).
  engine::publish_routes(graph, routes, result);
  engine::fill_ledger(network, graph, result);
  result.wall_s = run.wall_s;
  result.simulated_tasks = run.tasks.size();
  result.child_rss_growth_bytes = run.child_rss_growth_bytes;
  return result;
}

}  // namespace podsim
