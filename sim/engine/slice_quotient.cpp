// The slice quotient of an event graph over several slices: match each chip's k-th task to the k-th of its
// representative (the chip of slice 0's first host block at its position modulo the block), check that it is that
// task moved (destination, dependencies, route), simulate the representatives' tasks alone on one link per class of
// links, give every task its twin's timing, and compute the routes and the ledger from the whole graph as simulate()
// does.
#include "sim/engine/slice_quotient.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
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

// One move of the quotient's group: `slices` slices further (modulo the slices) and `shift` along each dim (a
// multiple of the block's size there, modulo the dim's size).
struct SliceMove {
  std::uint32_t slices = 0;
  std::array<std::int32_t, 3> shift{0, 0, 0};
};

// multi_slice_network's numbering (chips slice by slice; links: every slice's ICI links, then every slice's hosts' NIC
// up and down links) and the moves that keep it: to any slice, and, along each wrapped dim, by multiples of a host's
// extent there (the hosts' chips are consecutive ids, so a host is a box of the trailing dims; a move by whole hosts
// keeps every host together with its NIC). The representatives are slice 0's chips of the first block: coordinates
// below the block's size in every dim, where the block is a host's extent along the wrapped dims and the whole dim
// along the others. Without hosts that tile the slice in whole boxes, the block is the whole slice.
class SliceMoves {
 public:
  // `by_hosts` false: no move within a slice (the block is the whole slice).
  SliceMoves(const Slice& slice, std::int32_t slices, std::int64_t hosts, bool by_hosts)
      : slice_(slice),
        slices_(slices),
        chips_(slice.num_chips()),
        ici_(slice.num_links()),
        hosts_(hosts),
        rank_(static_cast<std::size_t>(slice.rank())) {
    for (std::size_t d = 0; d < rank_; ++d)
      size_[d] = block_[d] = slice.size(static_cast<int>(d));
    per_host_ = hosts > 0 && chips_ % hosts == 0 ? chips_ / hosts : 0;
    std::array<std::int64_t, 3> host{1, 1, 1};  // a host's extent per dim
    std::int64_t left = per_host_;
    for (std::size_t d = rank_; d-- > 0 && left > 1;) {
      if (left % size_[d] == 0) {
        host[d] = size_[d];
        left /= size_[d];
      } else if (size_[d] % left == 0) {
        host[d] = left;
        left = 1;
      } else {
        break;
      }
    }
    if (by_hosts && per_host_ > 0 && left == 1)
      for (std::size_t d = 0; d < rank_; ++d)
        if (slice.wraps(static_cast<int>(d)) && !slice.twisted() && !slice.has_failures())
          block_[d] = host[d];  // twisted or failed links: whole slices
    coords_.resize(static_cast<std::size_t>(chips_) * rank_);
    shift_.resize(static_cast<std::size_t>(chips_) * rank_);
    rep_.resize(static_cast<std::size_t>(chips_));
    for (ChipId c = 0; c < static_cast<ChipId>(chips_); ++c) {
      std::int64_t rep = 0;
      for (std::size_t d = 0; d < rank_; ++d) {
        const std::int64_t x = slice.coord(c, static_cast<int>(d));
        coords_[static_cast<std::size_t>(c) * rank_ + d] = static_cast<std::int32_t>(x);
        shift_[static_cast<std::size_t>(c) * rank_ + d] = static_cast<std::int32_t>(x - x % block_[d]);
        rep = rep * size_[d] + x % block_[d];
      }
      rep_[static_cast<std::size_t>(c)] = static_cast<ChipId>(rep);
    }
  }

  std::int32_t slices() const { return slices_; }
  std::int64_t chips() const { return chips_; }
  // Chip ids are below 2^31 (multi_slice_network): 32-bit divisions, a pass per task and dependency of large graphs.
  std::uint32_t slice_of_chip(ChipId c) const { return static_cast<std::uint32_t>(c) / chips32_; }
  std::uint32_t position(ChipId c) const { return static_cast<std::uint32_t>(c) % chips32_; }
  // The representative of chip c: a chip of slice 0 (its id there).
  ChipId rep(ChipId c) const { return rep_[position(c)]; }
  bool is_rep(ChipId c) const { return c < chips_ && rep_[static_cast<std::size_t>(c)] == c; }
  // The move that takes c's representative to c.
  SliceMove move_of(ChipId c) const {
    SliceMove m;
    const std::uint32_t slice = slice_of_chip(c);
    m.slices = slice;
    const std::size_t at = static_cast<std::size_t>(c) - static_cast<std::size_t>(slice) * chips32_;
    for (std::size_t d = 0; d < rank_; ++d)
      m.shift[d] = shift_[at * rank_ + d];
    return m;
  }
  // Chip c moved by m.
  ChipId moved(ChipId c, const SliceMove& m) const {
    const std::uint32_t from = slice_of_chip(c);
    std::uint32_t slice = from + m.slices;
    if (slice >= slices32_) slice -= slices32_;
    const std::uint32_t p = static_cast<std::uint32_t>(c) - from * chips32_;
    return static_cast<ChipId>(static_cast<std::int64_t>(slice) * chips_ + moved_position(p, m));
  }
  // Link l moved by m, or -1 when the slice has no such link.
  std::int32_t moved_link(std::int32_t l, const SliceMove& m) const {
    const std::int64_t first_nic = slices_ * ici_;
    if (l < first_nic) {
      const Link& link = slice_.link(static_cast<LinkId>(l % ici_));
      const auto to = slice_.find_link(static_cast<ChipId>(moved_position(link.src, m)), link.dim, link.dir);
      if (!to) return -1;
      return static_cast<std::int32_t>(((l / ici_ + m.slices) % slices_) * ici_ + *to);
    }
    const std::int64_t at = l - first_nic;
    const std::int64_t slice = (at / (2 * hosts_) + m.slices) % slices_;
    const std::int64_t host = moved_host((at % (2 * hosts_)) / 2, m);
    return static_cast<std::int32_t>(first_nic + 2 * (slice * hosts_ + host) + at % 2);
  }
  // Its class: the link of slice 0's representatives that plays its part (ICI links first, then NIC links), or -1.
  std::int32_t class_of(std::int32_t l) const {
    const std::int64_t first_nic = slices_ * ici_;
    if (l < first_nic) {
      const Link& link = slice_.link(static_cast<LinkId>(l % ici_));
      const auto rep_link = slice_.find_link(rep(link.src), link.dim, link.dir);
      return rep_link ? static_cast<std::int32_t>(*rep_link) : -1;
    }
    const std::int64_t at = (l - first_nic) % (2 * hosts_);
    return static_cast<std::int32_t>(ici_ + 2 * rep_host(at / 2) + at % 2);
  }
  std::int32_t classes() const { return static_cast<std::int32_t>(ici_ + 2 * hosts_); }
  // The link of class k in the whole network (slice 0's).
  std::int32_t link_of_class(std::int32_t k) const {
    return static_cast<std::int32_t>(k < ici_ ? k : slices_ * ici_ + (k - ici_));
  }

 private:
  std::int64_t moved_position(std::int64_t p, const SliceMove& m) const {
    std::int64_t id = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      std::int64_t x = coords_[static_cast<std::size_t>(p) * rank_ + d] + m.shift[d];
      if (x >= size_[d]) x -= size_[d];
      id = id * size_[d] + x;
    }
    return id;
  }
  // A host moved (whole hosts map to whole hosts: the block is made of them), and its representative.
  std::int64_t moved_host(std::int64_t h, const SliceMove& m) const {
    return per_host_ == 0 ? h : moved_position(h * per_host_, m) / per_host_;
  }
  std::int64_t rep_host(std::int64_t h) const {
    return per_host_ == 0 ? h : rep(static_cast<ChipId>(h * per_host_)) / per_host_;
  }

  const Slice& slice_;
  std::int32_t slices_;
  std::int64_t chips_, ici_, hosts_, per_host_ = 0;
  std::size_t rank_;
  std::array<std::int64_t, 3> size_{1, 1, 1}, block_{1, 1, 1};
  std::uint32_t chips32_ = static_cast<std::uint32_t>(chips_), slices32_ = static_cast<std::uint32_t>(slices_);
  std::vector<std::int32_t> coords_;  // chip * rank + dim, of a chip of a slice
  std::vector<std::int32_t> shift_;   // chip * rank + dim: the move from its representative
  std::vector<ChipId> rep_;           // per chip of a slice
};

// Per task, its twin: the task of its source's representative with the same rank among that chip's tasks, or the
// reason there is none.
SliceQuotientDecline match_twins(const EventGraph& graph, const SliceMoves& moves, std::vector<TaskId>& twin_of) {
  const auto chips = static_cast<std::size_t>(moves.chips());
  std::vector<std::vector<TaskId>> rep_tasks(chips);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    if (moves.is_rep(graph.tasks[id].src_chip))
      rep_tasks[static_cast<std::size_t>(graph.tasks[id].src_chip)].push_back(static_cast<TaskId>(id));
  std::vector<std::size_t> count(static_cast<std::size_t>(graph.num_chips), 0);
  reserve_huge(twin_of, graph.tasks.size());
  twin_of.assign(graph.tasks.size(), -1);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const ChipId c = graph.tasks[id].src_chip;
    const auto& mine = rep_tasks[static_cast<std::size_t>(moves.rep(c))];
    std::size_t& k = count[static_cast<std::size_t>(c)];
    if (k >= mine.size()) return SliceQuotientDecline::tasks_per_chip;
    twin_of[id] = mine[k++];
  }
  for (std::size_t c = 0; c < count.size(); ++c)
    if (count[c] != rep_tasks[static_cast<std::size_t>(moves.rep(static_cast<ChipId>(c)))].size())
      return SliceQuotientDecline::tasks_per_chip;

  std::vector<std::pair<TaskId, ChipId>> mine, twins;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    const Task& r = graph.tasks[static_cast<std::size_t>(twin_of[id])];
    const SliceMove m = moves.move_of(t.src_chip);
    if (t.kind != r.kind || t.bytes != r.bytes || t.flops != r.flops || t.dst_chip != moves.moved(r.dst_chip, m))
      return SliceQuotientDecline::task_not_moved;
    if (!dependencies_moved(
            graph, twin_of, t, r, [&](ChipId c) { return moves.moved(c, m); }, mine, twins))
      return SliceQuotientDecline::dependency_not_moved;
  }
  return SliceQuotientDecline::none;
}

// Every transfer's route is its twin's moved, and no route of a representative crosses two links of one class. A
// route is checked once per pair of chips: a transfer's twin and move follow from its source and destination.
bool routes_moved(const EventGraph& graph, const SliceMoves& moves, const engine::RouteTable& routes,
                  const std::vector<TaskId>& twin_of) {
  std::vector<std::int32_t> classes;
  std::vector<std::uint8_t> checked(routes.list().size(), 0);
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const Task& t = graph.tasks[id];
    if (t.kind != TaskKind::transfer || t.src_chip == t.dst_chip) continue;
    const auto number = static_cast<std::size_t>(routes.index(t.src_chip, t.dst_chip));
    if (checked[number] != 0) continue;
    checked[number] = 1;
    const auto route = routes.list().links(static_cast<std::int32_t>(number));
    if (twin_of[id] == static_cast<TaskId>(id)) {
      classes.clear();
      for (const std::int32_t l : route)
        classes.push_back(moves.class_of(l));
      std::sort(classes.begin(), classes.end());
      if (std::adjacent_find(classes.begin(), classes.end()) != classes.end() ||
          (!classes.empty() && classes.front() < 0))
        return false;
      continue;
    }
    const Task& r = graph.tasks[static_cast<std::size_t>(twin_of[id])];
    const auto twin = routes.links(r.src_chip, r.dst_chip);
    if (route.size() != twin.size()) return false;
    const SliceMove m = moves.move_of(t.src_chip);
    for (std::size_t h = 0; h < route.size(); ++h)
      if (route[h] != moves.moved_link(twin[h], m)) return false;
  }
  return true;
}

// Whether the links of each class are copies of its representative's (bandwidth, latency, tier).
bool links_alike(const NetworkSpec& network, const SliceMoves& moves) {
  for (std::size_t l = 0; l < network.links.size(); ++l) {
    const std::int32_t k = moves.class_of(static_cast<std::int32_t>(l));
    if (k < 0) return false;
    const LinkSpec& a = network.links[l];
    const LinkSpec& b = network.links[static_cast<std::size_t>(moves.link_of_class(k))];
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_s != b.latency_s || a.tier != b.tier) return false;
  }
  return true;
}

struct SliceQuotientGraph {
  EventGraph graph;
  NetworkSpec network;
  std::vector<TaskId> quotient_id;  // per task of the whole graph: its id in `graph` (the representatives'), else -1
};

// The representatives' tasks, on chips 0..R-1 (the representatives in id order) and sink chips, over one link per
// class used. A transfer goes to the representative of its destination, so that the chip that waits on its twin
// observes it there; to a sink of its own when that representative is its source, or when the pair already has
// another route. Routes have every link replaced by its class's. Returns nullopt when a task cannot observe the twin
// of one of its dependencies.
std::optional<SliceQuotientGraph> build_quotient(const NetworkSpec& network, const EventGraph& graph,
                                                 const SliceMoves& moves, const engine::RouteTable& routes,
                                                 const std::vector<TaskId>& twin_of) {
  SliceQuotientGraph out;
  NetworkSpec& net = out.network;
  net.chip_flops = network.chip_flops;
  net.transfer = network.transfer;
  std::vector<std::int32_t> class_link(static_cast<std::size_t>(moves.classes()), -1);
  std::vector<ChipId> chip_of(static_cast<std::size_t>(moves.chips()), -1);  // representative -> quotient chip
  ChipId next_chip = 0;
  for (ChipId c = 0; c < static_cast<ChipId>(moves.chips()); ++c)
    if (moves.is_rep(c)) chip_of[static_cast<std::size_t>(c)] = next_chip++;
  std::unordered_map<ChipId, ChipId> sink_of;  // destination chip -> its sink
  // A pair's key; the route function reads the map with it (chips of the quotient fit 32 bits each).
  const auto key = [](ChipId a, ChipId b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  };
  auto route_of = std::make_shared<std::unordered_map<std::uint64_t, std::vector<std::int32_t>>>();
  reserve_huge(out.quotient_id, graph.tasks.size());
  out.quotient_id.assign(graph.tasks.size(), -1);
  TaskId next = 0;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    if (twin_of[id] == static_cast<TaskId>(id)) out.quotient_id[id] = next++;
  out.graph.tasks.resize(static_cast<std::size_t>(next));
  std::vector<std::int32_t> links;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    if (out.quotient_id[id] < 0) continue;
    const Task& t = graph.tasks[id];
    Task& s = out.graph.tasks[static_cast<std::size_t>(out.quotient_id[id])];
    s.kind = t.kind;
    s.bytes = t.bytes;
    s.flops = t.flops;
    s.op = t.op;
    s.step = t.step;
    s.src_chip = s.dst_chip = chip_of[static_cast<std::size_t>(t.src_chip)];
    if (t.kind == TaskKind::transfer && t.dst_chip != t.src_chip) {
      links.clear();
      for (const std::int32_t l : routes.links(t.src_chip, t.dst_chip)) {
        std::int32_t& mapped = class_link[static_cast<std::size_t>(moves.class_of(l))];
        if (mapped < 0) {
          mapped = static_cast<std::int32_t>(net.links.size());
          net.links.push_back(network.links[static_cast<std::size_t>(l)]);
        }
        links.push_back(mapped);
      }
      const ChipId rep = moves.rep(t.dst_chip);
      bool placed = false;
      if (rep != t.src_chip) {
        s.dst_chip = chip_of[static_cast<std::size_t>(rep)];
        const auto [it, added] = route_of->emplace(key(s.src_chip, s.dst_chip), links);
        placed = added || it->second == links;
      }
      if (!placed) {
        const auto [sink, added] = sink_of.emplace(t.dst_chip, next_chip);
        if (added) ++next_chip;
        s.dst_chip = sink->second;
        route_of->emplace(key(s.src_chip, s.dst_chip), links);  // a pair with a sink has one route
      }
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
                                                        SliceQuotientDecline* declined, bool ledger) {
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
  // Moves by whole hosts where the links allow them (hosts of unequal NICs do not), else by whole slices.
  const std::int64_t hosts = (links - slices * ici) / (2 * slices);
  std::optional<SliceMoves> by_hosts;
  by_hosts.emplace(slice, slices, hosts, true);
  if (!links_alike(network, *by_hosts)) {
    by_hosts.emplace(slice, slices, hosts, false);
    if (!links_alike(network, *by_hosts)) return decline(SliceQuotientDecline::not_several_slices);
  }
  const SliceMoves& moves = *by_hosts;
  std::vector<TaskId> twin_of;
  if (const SliceQuotientDecline why = match_twins(graph, moves, twin_of); why != SliceQuotientDecline::none)
    return decline(why);
  if (!routes_moved(graph, moves, routes, twin_of)) return decline(SliceQuotientDecline::route_not_moved);
  const std::optional<SliceQuotientGraph> quotient = build_quotient(network, graph, moves, routes, twin_of);
  if (!quotient) return decline(SliceQuotientDecline::dependency_not_observable);
  if (declined != nullptr) *declined = SliceQuotientDecline::none;

  const SimulationResult run = simulate(quotient->network, quotient->graph);
  SimulationResult result;
  resize_huge(result.tasks, graph.tasks.size());
  for (std::size_t id = 0; id < graph.tasks.size(); ++id)
    result.tasks[id] =
        run.tasks[static_cast<std::size_t>(quotient->quotient_id[static_cast<std::size_t>(twin_of[id])])];
  // The routes always, and each link's tier: which transfers cross the DCN is read from them (the step's DCN
  // seconds); the ledger when asked.
  engine::publish_routes(graph, routes, result);
  if (ledger) {
    engine::fill_ledger(network, graph, result);
  } else {
    result.links.assign(network.links.size(), LinkUsage{});
    for (std::size_t l = 0; l < network.links.size(); ++l)
      result.links[l].dcn = network.links[l].tier == LinkTier::dcn;
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
