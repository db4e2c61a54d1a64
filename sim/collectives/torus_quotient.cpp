// The translation quotient: check the request's axes are the lines of wrapped dims, build the collective on the
// lines through the representative chip only (the skeleton), match every task of every position of a line to the
// representative's task it is a rotation of, simulate the representative's tasks on one chip with one link per
// dim and direction, and lift the ledger to every chip and link.
#include "sim/collectives/torus_quotient.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/collectives/collective_builder.hpp"
#include "sim/engine/graph_symmetry.hpp"
#include "sim/engine/simulator.hpp"

namespace podsim {
namespace {

constexpr ChipId kRep = 0;  // the representative: coordinate 0 in every dim

// The slice dim whose lines `axis` holds (each group the line along it from coordinate 0, in order, and every
// line once), or -1.
int line_dim(const Slice& slice, const AxisGroups& axis) {
  const std::size_t n = axis.groups.front().size();
  for (int d = 0; d < slice.rank(); ++d) {
    if (static_cast<std::size_t>(slice.size(d)) != n || !slice.wraps(d)) continue;
    if (axis.groups.size() * n != static_cast<std::size_t>(slice.num_chips())) continue;
    const std::int64_t stride = slice.stride(d);
    const bool lines = std::all_of(axis.groups.begin(), axis.groups.end(), [&](const std::vector<ChipId>& group) {
      if (group.size() != n || slice.coord(group.front(), d) != 0) return false;
      for (std::size_t i = 0; i < n; ++i)
        if (group[i] != group.front() + static_cast<ChipId>(static_cast<std::int64_t>(i) * stride)) return false;
      return true;
    });
    if (lines) return d;
  }
  return -1;
}

bool rotation_invariant(Algorithm algorithm) {
  return algorithm == Algorithm::unidirectional || algorithm == Algorithm::bidirectional ||
         algorithm == Algorithm::bidirectional_split || algorithm == Algorithm::direct;
}

// What a task of one position is, seen from that position: the rotation maps it to the task of the
// representative's position with the same key (and the same rank among tasks of that key).
using TaskKey = std::tuple<int, std::int32_t, std::int32_t, std::uint64_t, double, std::int32_t>;

// Chip coordinates, flat (chip * rank + dim), and translation by the coordinates of another chip.
class Torus {
 public:
  explicit Torus(const Slice& slice) : slice_(slice), rank_(static_cast<std::size_t>(slice.rank())) {
    coords_.resize(static_cast<std::size_t>(slice.num_chips()) * rank_);
    for (ChipId c = 0; c < static_cast<ChipId>(slice.num_chips()); ++c)
      for (std::size_t d = 0; d < rank_; ++d)
        coords_[static_cast<std::size_t>(c) * rank_ + d] = slice.coord(c, static_cast<int>(d));
  }
  // The chip at coords(c) + coords(v), modulo the sizes.
  ChipId moved(ChipId c, ChipId v) const {
    std::int64_t id = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      const std::int64_t size = slice_.size(static_cast<int>(d));
      id = id * size + (coord(c, d) + coord(v, d)) % size;
    }
    return static_cast<ChipId>(id);
  }

 private:
  std::int64_t coord(ChipId c, std::size_t d) const { return coords_[static_cast<std::size_t>(c) * rank_ + d]; }
  const Slice& slice_;
  std::size_t rank_;
  std::vector<std::int64_t> coords_;
};

// Per task of the skeleton, the representative's task it is a rotation of (itself on the representative), or
// nullopt when a line's positions do not run rotated copies of one schedule.
std::optional<std::vector<TaskId>> match_rotations(const EventGraph& skeleton, const GraphSymmetry& phases) {
  std::vector<TaskId> rep_of(skeleton.tasks.size(), -1);
  std::vector<std::int32_t> position(static_cast<std::size_t>(skeleton.num_chips), -1);
  for (const PhaseGroups& phase : phases.phases) {
    if (phase.groups.size() != 1 || phase.begin.size() != 2) return std::nullopt;
    const std::vector<ChipId>& line = phase.groups.front();
    const auto n = static_cast<std::int32_t>(line.size());
    for (std::int32_t i = 0; i < n; ++i)
      position[static_cast<std::size_t>(line[static_cast<std::size_t>(i)])] = i;
    const TaskId begin = phase.begin[0], end = phase.begin[1];
    const std::int32_t q = position[static_cast<std::size_t>(kRep)];
    const auto pos = [&](ChipId chip) { return position[static_cast<std::size_t>(chip)]; };
    const auto key = [&](const Task& t) {
      return TaskKey{
          static_cast<int>(t.kind), t.step, t.op, t.bytes, t.flops, (pos(t.dst_chip) - pos(t.src_chip) + n) % n};
    };
    bool ok = q >= 0;
    std::vector<std::vector<TaskId>> owned(static_cast<std::size_t>(std::max(n, 0)));
    for (TaskId id = begin; ok && id < end; ++id) {
      const Task& t = skeleton.tasks[static_cast<std::size_t>(id)];
      if (pos(t.src_chip) < 0 || pos(t.dst_chip) < 0)
        ok = false;
      else
        owned[static_cast<std::size_t>(pos(t.src_chip))].push_back(id);
    }
    if (ok) {
      std::map<TaskKey, std::vector<TaskId>> rep_tasks;
      for (const TaskId id : owned[static_cast<std::size_t>(q)])
        rep_tasks[key(skeleton.tasks[static_cast<std::size_t>(id)])].push_back(id);
      for (std::int32_t i = 0; ok && i < n; ++i) {
        if (owned[static_cast<std::size_t>(i)].size() != owned[static_cast<std::size_t>(q)].size()) ok = false;
        std::map<TaskKey, std::size_t> seen;
        for (std::size_t k = 0; ok && k < owned[static_cast<std::size_t>(i)].size(); ++k) {
          const TaskId id = owned[static_cast<std::size_t>(i)][k];
          const TaskKey k_of = key(skeleton.tasks[static_cast<std::size_t>(id)]);
          const auto it = rep_tasks.find(k_of);
          const std::size_t rank = seen[k_of]++;
          if (it == rep_tasks.end() || rank >= it->second.size())
            ok = false;
          else
            rep_of[static_cast<std::size_t>(id)] = it->second[rank];
        }
      }
    }
    // Dependencies inside the line: at the same offsets from the task's position, on the same tasks.
    std::vector<std::pair<std::int32_t, TaskId>> mine, twin;
    const auto inside = [&](const Task& t, std::vector<std::pair<std::int32_t, TaskId>>& out) {
      out.clear();
      for (const TaskId d : t.deps)
        if (d >= begin && d < end)
          out.emplace_back((pos(skeleton.tasks[static_cast<std::size_t>(d)].src_chip) - pos(t.src_chip) + n) % n,
                           rep_of[static_cast<std::size_t>(d)]);
      std::sort(out.begin(), out.end());
    };
    for (TaskId id = begin; ok && id < end; ++id) {
      inside(skeleton.tasks[static_cast<std::size_t>(id)], mine);
      inside(skeleton.tasks[static_cast<std::size_t>(rep_of[static_cast<std::size_t>(id)])], twin);
      if (mine != twin) ok = false;
    }
    for (const ChipId chip : line)
      position[static_cast<std::size_t>(chip)] = -1;
    if (!ok) return std::nullopt;
  }
  if (std::find(rep_of.begin(), rep_of.end(), TaskId{-1}) != rep_of.end()) return std::nullopt;
  return rep_of;
}

}  // namespace

std::optional<SimulationResult> simulate_torus_quotient(const Slice& slice, const NetworkSpec& network,
                                                        const CollectiveRequest& request) {
  const auto num_chips = static_cast<std::int32_t>(slice.num_chips());
  if (network.num_chips != num_chips || network.links.size() != static_cast<std::size_t>(slice.num_links()))
    return std::nullopt;
  verify_collective(request, num_chips);

  // The axes: lines of wrapped dims, ring or direct schedules. The skeleton keeps the line through the
  // representative only.
  CollectiveRequest skeleton_request = request;
  std::vector<bool> dim_used(static_cast<std::size_t>(slice.rank()), false);
  bool any_traffic = false;
  for (std::size_t a = 0; a < request.axes.size(); ++a) {
    const AxisGroups& axis = request.axes[a];
    if (axis.groups.empty()) return std::nullopt;
    if (axis.groups.front().size() <= 1) continue;  // one chip per group: no task at all
    const int d = line_dim(slice, axis);
    if (d < 0 || !rotation_invariant(resolve_algorithm(request.algorithm, request.op, axis))) return std::nullopt;
    dim_used[static_cast<std::size_t>(d)] = true;
    any_traffic = true;
    auto& groups = skeleton_request.axes[a].groups;
    const auto through_rep = std::find_if(groups.begin(), groups.end(), [](const std::vector<ChipId>& group) {
      return std::find(group.begin(), group.end(), kRep) != group.end();
    });
    groups = {*through_rep};
  }
  if (!any_traffic || request.array_bytes == 0) return std::nullopt;

  // One bandwidth and one latency per used dim and direction: the class of a link is dim * 2 + direction.
  const auto class_of = [](const Link& link) { return link.dim * 2 + static_cast<int>(link.dir); };
  std::vector<LinkId> class_link(static_cast<std::size_t>(slice.rank()) * 2, -1);
  for (const Link& link : slice.links()) {
    if (!dim_used[static_cast<std::size_t>(link.dim)]) continue;
    LinkId& first = class_link[static_cast<std::size_t>(class_of(link))];
    if (first < 0) first = link.id;
    const LinkSpec& a = network.links[static_cast<std::size_t>(link.id)];
    const LinkSpec& b = network.links[static_cast<std::size_t>(first)];
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_s != b.latency_s) return std::nullopt;
  }

  EventGraph skeleton;
  skeleton.num_chips = num_chips;
  GraphSymmetry phases;
  Frontier frontier(num_chips);
  append_collective(skeleton, frontier, skeleton_request, &phases);
  const auto rep_of = match_rotations(skeleton, phases);
  if (!rep_of) return std::nullopt;

  // The quotient: chip 0 is the representative; every destination offset it sends to gets a sink chip whose
  // route is the representative's route with each link replaced by its class's one link.
  const Torus torus(slice);
  EventGraph quotient;
  NetworkSpec net;
  net.chip_flops = network.chip_flops;
  std::vector<std::int32_t> quotient_link(class_link.size(), -1);
  std::unordered_map<ChipId, std::int32_t> sink_of;  // destination chip (= offset) -> sink chip
  auto routes = std::make_shared<std::vector<std::vector<std::int32_t>>>(1);  // per sink chip
  const auto sink = [&](ChipId dst) -> std::int32_t {
    if (const auto it = sink_of.find(dst); it != sink_of.end()) return it->second;
    const std::vector<std::int32_t> route = network.route(kRep, dst);
    std::vector<std::int32_t> links;
    for (const std::int32_t l : route) {
      if (l < 0 || static_cast<std::size_t>(l) >= network.links.size()) return -1;
      const Link& link = slice.link(l);
      if (!dim_used[static_cast<std::size_t>(link.dim)]) return -1;
      std::int32_t& mapped = quotient_link[static_cast<std::size_t>(class_of(link))];
      if (mapped < 0) {
        mapped = static_cast<std::int32_t>(net.links.size());
        net.links.push_back(network.links[static_cast<std::size_t>(l)]);
      }
      links.push_back(mapped);
    }
    // A route that crosses two links of one class would cross the class's one link twice: SimGrid 3.32 does not
    // share such a flow as the torus shares its translates (measured: a 3x5 all-to-all), so fall back.
    std::vector<std::int32_t> sorted = links;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return -1;
    // Every chip's route to the same offset is this one moved, hop by hop.
    for (ChipId c = 0; c < num_chips; ++c) {
      const std::vector<std::int32_t> moved = network.route(c, torus.moved(c, dst));
      if (moved.size() != route.size()) return -1;
      for (std::size_t h = 0; h < route.size(); ++h) {
        if (moved[h] < 0 || static_cast<std::size_t>(moved[h]) >= network.links.size()) return -1;
        const Link& mine = slice.link(moved[h]);
        const Link& twin = slice.link(route[h]);
        if (mine.dim != twin.dim || mine.dir != twin.dir || mine.src != torus.moved(c, twin.src)) return -1;
      }
    }
    const auto chip = static_cast<std::int32_t>(routes->size());
    routes->push_back(std::move(links));
    sink_of.emplace(dst, chip);
    return chip;
  };

  std::vector<TaskId> quotient_id(skeleton.tasks.size(), -1);
  for (std::size_t id = 0; id < skeleton.tasks.size(); ++id)
    if (skeleton.tasks[id].src_chip == kRep) {
      quotient_id[id] = static_cast<TaskId>(quotient.tasks.size());
      quotient.tasks.emplace_back();
    }
  for (std::size_t id = 0; id < skeleton.tasks.size(); ++id) {
    if (quotient_id[id] < 0) continue;
    const Task& t = skeleton.tasks[id];
    Task& s = quotient.tasks[static_cast<std::size_t>(quotient_id[id])];
    s.kind = t.kind;
    s.bytes = t.bytes;
    s.flops = t.flops;
    s.op = t.op;
    s.step = t.step;
    s.src_chip = 0;
    s.dst_chip = 0;
    if (t.kind == TaskKind::transfer && t.dst_chip != t.src_chip) {
      s.dst_chip = sink(t.dst_chip);
      if (s.dst_chip < 0) return std::nullopt;
    }
    for (const TaskId d : t.deps) {
      const TaskId mapped = quotient_id[static_cast<std::size_t>((*rep_of)[static_cast<std::size_t>(d)])];
      if (mapped < 0) return std::nullopt;
      if (std::find(s.deps.begin(), s.deps.end(), mapped) == s.deps.end()) s.deps.push_back(mapped);
    }
  }
  skeleton = EventGraph{};
  net.num_chips = quotient.num_chips = static_cast<std::int32_t>(routes->size());
  net.route = [routes](std::int32_t src, std::int32_t dst) {
    return src == 0 && dst > 0 ? (*routes)[static_cast<std::size_t>(dst)] : std::vector<std::int32_t>{};
  };
  const SimulationResult run = simulate(net, quotient);

  // Lift: every chip is the representative moved, every link of a class the class's link.
  SimulationResult out;
  out.makespan_s = run.makespan_s;
  out.links.assign(network.links.size(), LinkUsage{});
  for (const Link& link : slice.links()) {
    const std::int32_t mapped = quotient_link[static_cast<std::size_t>(class_of(link))];
    if (dim_used[static_cast<std::size_t>(link.dim)] && mapped >= 0)
      out.links[static_cast<std::size_t>(link.id)] = run.links[static_cast<std::size_t>(mapped)];
  }
  out.chip_bytes_sent.assign(static_cast<std::size_t>(num_chips), run.chip_bytes_sent.front());
  out.chip_bytes_received.assign(static_cast<std::size_t>(num_chips), run.chip_bytes_sent.front());
  out.messages = run.messages * static_cast<std::uint64_t>(num_chips);
  out.wall_s = run.wall_s;
  out.simulated_tasks = run.tasks.size();
  out.child_rss_growth_bytes = run.child_rss_growth_bytes;
  return out;
}

}  // namespace podsim
