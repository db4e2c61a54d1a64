// The translation quotient of an event graph: match each chip's k-th task to chip 0's k-th, check that it is that
// task moved (destination, dependencies, route), simulate chip 0's tasks alone behind one link per dim and direction,
// give every task its twin's timing, and compute the routes and the ledger from the whole graph as simulate() does.
#include "sim/engine/translation_quotient.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine/input_check.hpp"
#include "sim/engine/link_ledger.hpp"
#include "sim/engine/quotient_graph.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/graph/huge_pages.hpp"

namespace podsim {
namespace {

constexpr ChipId kRep = 0;  // the representative: coordinate 0 in every dim

// Chip coordinates, flat (chip * rank + dim), and translation by the coordinates of another chip.
class Translations {
 public:
  explicit Translations(const Slice& slice) : rank_(static_cast<std::size_t>(slice.rank())) {
    for (std::size_t d = 0; d < rank_; ++d)
      size_[d] = static_cast<std::int32_t>(slice.size(static_cast<int>(d)));
    coords_.resize(static_cast<std::size_t>(slice.num_chips()) * rank_);
    for (ChipId c = 0; c < static_cast<ChipId>(slice.num_chips()); ++c)
      for (std::size_t d = 0; d < rank_; ++d)
        coords_[static_cast<std::size_t>(c) * rank_ + d] =
            static_cast<std::int32_t>(slice.coord(c, static_cast<int>(d)));
  }
  // The chip at coords(c) + coords(v), modulo the sizes (a pass per task of large graphs: no division).
  ChipId moved(ChipId c, ChipId v) const {
    std::int64_t id = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      std::int32_t x = coord(c, d) + coord(v, d);
      if (x >= size_[d]) x -= size_[d];
      id = id * size_[d] + x;
    }
    return static_cast<ChipId>(id);
  }
  // The class of a link: its dim, and whether it steps +1 along it (both links of a dim of 2 do) or -1.
  int class_of(const Link& link) const {
    const auto d = static_cast<std::size_t>(link.dim);
    const std::int32_t step = (coord(link.dst, d) - coord(link.src, d) + size_[d]) % size_[d];
    return link.dim * 2 + (step == 1 ? 0 : 1);
  }

 private:
  std::int32_t coord(ChipId c, std::size_t d) const { return coords_[static_cast<std::size_t>(c) * rank_ + d]; }
  std::size_t rank_;
  std::int32_t size_[3] = {1, 1, 1};
  std::vector<std::int32_t> coords_;
};

// Per task, chip 0's task it is the translate of (by its source chip), or the reason it is not.
QuotientDecline match_twins(const EventGraph& graph, const Translations& moves, std::vector<TaskId>& twin_of) {
  const std::size_t chips = static_cast<std::size_t>(graph.num_chips);
  std::vector<TaskId> rep_tasks;
  std::vector<TaskId> count(chips, 0);
  reserve_huge(twin_of, graph.tasks.size());
  twin_of.assign(graph.tasks.size(), -1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    if (t.src_chip == kRep) rep_tasks.push_back(static_cast<TaskId>(id));
  }
  if (rep_tasks.empty()) return QuotientDecline::no_tasks;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    TaskId& k = count[static_cast<std::size_t>(graph.tasks[id].src_chip)];
    if (static_cast<std::size_t>(k) >= rep_tasks.size()) return QuotientDecline::tasks_per_chip;
    twin_of[id] = rep_tasks[static_cast<std::size_t>(k++)];
  }
  for (const TaskId k : count)
    if (static_cast<std::size_t>(k) != rep_tasks.size()) return QuotientDecline::tasks_per_chip;

  std::vector<std::pair<TaskId, ChipId>> mine, twins;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    const Task& r = graph.tasks[static_cast<std::size_t>(twin_of[id])];
    const ChipId c = t.src_chip;
    if (t.kind != r.kind || t.bytes != r.bytes || t.flops != r.flops || t.dst_chip != moves.moved(c, r.dst_chip))
      return QuotientDecline::task_not_translated;
    if (!dependencies_moved(
            graph, twin_of, t, r, [&](ChipId chip) { return moves.moved(c, chip); }, mine, twins))
      return QuotientDecline::dependency_not_translated;
  }
  return QuotientDecline::none;
}

// The routes: every chip's route to every offset chip 0 sends to is chip 0's moved, no route of chip 0 crosses a
// class twice, and each used class has one bandwidth and one latency. Sets `class_used`.
QuotientDecline check_routes(const Slice& slice, const NetworkSpec& network, const EventGraph& graph,
                             const Translations& moves, std::vector<bool>& class_used) {
  std::vector<ChipId> offsets;
  for (const Task& t : graph.tasks)
    if (t.src_chip == kRep && t.kind == TaskKind::transfer && t.dst_chip != kRep) offsets.push_back(t.dst_chip);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  const auto num_links = static_cast<std::int32_t>(network.links.size());
  const auto num_chips = static_cast<ChipId>(slice.num_chips());
  class_used.assign(static_cast<std::size_t>(slice.rank()) * 2, false);
  for (const ChipId v : offsets) {
    const std::vector<std::int32_t> route = network.route(kRep, v);
    std::vector<int> classes;
    for (const std::int32_t l : route) {
      if (l < 0 || l >= num_links) return QuotientDecline::route_not_translated;
      classes.push_back(moves.class_of(slice.link(l)));
    }
    std::sort(classes.begin(), classes.end());
    if (std::adjacent_find(classes.begin(), classes.end()) != classes.end())
      return QuotientDecline::route_repeats_class;
    for (const int k : classes)
      class_used[static_cast<std::size_t>(k)] = true;
    for (ChipId c = 1; c < num_chips; ++c) {
      const std::vector<std::int32_t> moved = network.route(c, moves.moved(c, v));
      if (moved.size() != route.size()) return QuotientDecline::route_not_translated;
      for (std::size_t h = 0; h < route.size(); ++h) {
        if (moved[h] < 0 || moved[h] >= num_links) return QuotientDecline::route_not_translated;
        const Link& mine = slice.link(moved[h]);
        const Link& twin = slice.link(route[h]);
        if (mine.dim != twin.dim || mine.src != moves.moved(c, twin.src) || mine.dst != moves.moved(c, twin.dst))
          return QuotientDecline::route_not_translated;
      }
    }
  }
  std::vector<LinkId> first(class_used.size(), -1);
  for (const Link& link : slice.links()) {
    const auto k = static_cast<std::size_t>(moves.class_of(link));
    if (!class_used[k]) continue;
    if (first[k] < 0) first[k] = link.id;
    const LinkSpec& a = network.links[static_cast<std::size_t>(link.id)];
    const LinkSpec& b = network.links[static_cast<std::size_t>(first[k])];
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_s != b.latency_s) return QuotientDecline::link_classes_differ;
  }
  return QuotientDecline::none;
}

// The structural checks of the input that the matching reads (the rest is check_simulation_input's).
bool in_range(const Slice& slice, const NetworkSpec& network, const EventGraph& graph) {
  const auto chips = static_cast<std::int32_t>(slice.num_chips());
  if (network.num_chips != chips || graph.num_chips != chips || !network.route) return false;
  const auto tasks = static_cast<TaskId>(graph.tasks.size());
  bool moves_data = false;
  for (const Task& t : graph.tasks) {
    if (t.src_chip < 0 || t.src_chip >= chips || t.dst_chip < 0 || t.dst_chip >= chips) return false;
    if (!std::all_of(t.deps.begin(), t.deps.end(), [&](TaskId d) { return d >= 0 && d < tasks; })) return false;
    moves_data = moves_data || (t.kind == TaskKind::transfer && t.src_chip != t.dst_chip);
  }
  // Links matter only to a graph that moves data between chips (a network without ICI has none).
  return !moves_data || network.links.size() == static_cast<std::size_t>(slice.num_links());
}

}  // namespace

std::string_view quotient_decline_name(QuotientDecline decline) {
  switch (decline) {
    case QuotientDecline::none:
      return "applies";
    case QuotientDecline::not_the_slice:
      return "not the slice's network";
    case QuotientDecline::no_tasks:
      return "chip 0 has no task";
    case QuotientDecline::tasks_per_chip:
      return "tasks per chip differ";
    case QuotientDecline::task_not_translated:
      return "a task is not chip 0's moved";
    case QuotientDecline::dependency_not_translated:
      return "a dependency is not chip 0's moved";
    case QuotientDecline::route_not_translated:
      return "a route is not chip 0's moved";
    case QuotientDecline::route_repeats_class:
      return "a route crosses two links of one dim and direction";
    case QuotientDecline::link_classes_differ:
      return "links of one dim and direction differ";
  }
  return "unknown";
}

std::optional<SimulationResult> simulate_translation_quotient(const Slice& slice, const NetworkSpec& network,
                                                              const EventGraph& graph, QuotientDecline* declined,
                                                              bool ledger) {
  const auto decline = [&](QuotientDecline why) -> std::optional<SimulationResult> {
    if (declined != nullptr) *declined = why;
    return std::nullopt;
  };
  // Translations move coordinates dim by dim, which is not the group's on a twisted torus, and move failed links onto
  // working ones: the full simulation runs.
  if (slice.twisted() || slice.has_failures() || !in_range(slice, network, graph))
    return decline(QuotientDecline::not_the_slice);
  const Translations moves(slice);
  std::vector<TaskId> twin_of;
  if (const QuotientDecline why = match_twins(graph, moves, twin_of); why != QuotientDecline::none) return decline(why);
  std::vector<bool> class_used;
  if (const QuotientDecline why = check_routes(slice, network, graph, moves, class_used); why != QuotientDecline::none)
    return decline(why);
  if (declined != nullptr) *declined = QuotientDecline::none;

  // The whole graph is validated (and its routes resolved) as simulate() validates it, before anything runs.
  const engine::RouteTable routes = engine::check_simulation_input(network, graph);
  const QuotientGraph quotient =
      build_quotient_graph(network, graph, twin_of, static_cast<std::size_t>(slice.rank()) * 2,
                           [&](std::int32_t l) { return static_cast<std::size_t>(moves.class_of(slice.link(l))); });
  const SimulationResult run = simulate(quotient.network, quotient.graph);

  SimulationResult result;
  const std::vector<TaskId> quotient_id = quotient_ids(graph);
  resize_huge(result.tasks, graph.tasks.size());
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    result.tasks[id] = run.tasks[static_cast<std::size_t>(quotient_id[static_cast<std::size_t>(twin_of[id])])];
  if (ledger) {
    engine::publish_routes(graph, routes, result);
    engine::fill_ledger(network, graph, result);
  } else {
    for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
      result.makespan_s = std::max(result.makespan_s, result.tasks[id].end_s);
      if (graph.tasks[id].kind == TaskKind::transfer) ++result.messages;
    }
  }
  result.wall_s = run.wall_s;
  result.simulated_tasks = run.tasks.size();
  result.child_rss_growth_bytes = run.child_rss_growth_bytes;
  return result;
}

}  // namespace podsim
