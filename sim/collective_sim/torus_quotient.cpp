// The translation quotient: check the request's axes are the lines of wrapped dims, build the collective on the
// lines through the representative chip only (the skeleton), match every task of every position of a line to the
// representative's task it is a rotation of, simulate the representative's tasks on one chip with one link per
// dim and direction (or, where a route would cross such a link twice, the line through the representative phase
// by phase, checking afterwards that phases kept apart), and lift the ledger to every chip and link.
#include "sim/collective_sim/torus_quotient.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/collectives/collective_builder.hpp"
#include "sim/engine/quotient_graph.hpp"
#include "sim/engine/release_timers.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/sub_network.hpp"
#include "sim/graph/graph_symmetry.hpp"

namespace podsim {
namespace {

constexpr ChipId kRep = 0;  // the representative: coordinate 0 in every dim

// The slice dim whose lines `axis` holds (each group the line along it from coordinate 0, in order, and every
// line once), or -1.
int line_dim(const Slice& slice, const AxisGroups& axis) {
  // Twisted: its short dims' lines do not close into rings; failed links: no rotation maps them onto themselves.
  if (slice.twisted() || slice.has_failures()) return -1;
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

// The class of a link: its dim and direction.
int class_of(const Link& link) {
  return link.dim * 2 + static_cast<int>(link.dir);
}

// What both quotients start from: the checked request's skeleton and the rotation of every task onto the
// representative's.
struct Quotient {
  const Slice& slice;
  const NetworkSpec& network;
  const EventGraph& skeleton;
  const GraphSymmetry& phases;
  const std::vector<TaskId>& rep_of;
  const std::vector<bool>& dim_used;
};

// Traffic on one class of links, from the spans [bandwidth start, end] of its transfers in task id order: their
// union is merged as fill_ledger merges it (in order, or sorted by begin when a begin comes out of order).
struct ClassTraffic {
  LinkUsage usage;
  std::vector<std::pair<double, double>> spans;
  void add(std::uint64_t bytes, double begin_s, double end_s) {
    usage.bytes += bytes;
    ++usage.messages;
    spans.emplace_back(begin_s, end_s);
  }
  LinkUsage merged() {
    if (!std::is_sorted(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first < b.first; }))
      std::stable_sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    LinkUsage out = usage;
    out.busy_s = 0;
    if (spans.empty()) return out;
    double begin_s = spans.front().first, end_s = spans.front().second;
    for (std::size_t i = 1; i < spans.size(); ++i) {
      if (spans[i].first > end_s) {
        if (end_s > begin_s) out.busy_s += end_s - begin_s;
        begin_s = spans[i].first;
        end_s = spans[i].second;
      } else {
        end_s = std::max(end_s, spans[i].second);
      }
    }
    if (end_s > begin_s) out.busy_s += end_s - begin_s;
    return out;
  }
};

// The whole ledger from one chip's figures: every link of a class as the class, every chip as the representative.
SimulationResult lift(const Quotient& q, double makespan_s, const std::vector<LinkUsage>& per_class,
                      std::uint64_t bytes_sent, std::uint64_t transfers) {
  const auto num_chips = static_cast<std::size_t>(q.slice.num_chips());
  SimulationResult out;
  out.makespan_s = makespan_s;
  out.links.assign(q.network.links.size(), LinkUsage{});
  for (const Link& link : q.slice.links())
    if (q.dim_used[static_cast<std::size_t>(link.dim)])
      out.links[static_cast<std::size_t>(link.id)] = per_class[static_cast<std::size_t>(class_of(link))];
  out.chip_bytes_sent.assign(num_chips, bytes_sent);
  out.chip_bytes_received.assign(num_chips, bytes_sent);
  out.messages = transfers * num_chips;
  return out;
}

// The quotient by every translation: the representative's tasks on one chip, each destination a sink chip behind
// the representative's route with every link replaced by its class's one link (no route crosses two of a class).
SimulationResult by_chip(const Quotient& q) {
  const EventGraph& skeleton = q.skeleton;
  // A dependency on another chip's task becomes one on the representative's task it is a rotation of (the rotation
  // keeps the time).
  const QuotientGraph quotient =
      build_quotient_graph(q.network, skeleton, q.rep_of, static_cast<std::size_t>(q.slice.rank()) * 2,
                           [&](std::int32_t l) { return static_cast<std::size_t>(class_of(q.slice.link(l))); });
  const std::vector<std::int32_t>& quotient_link = quotient.class_link;
  const SimulationResult run = simulate(quotient.network, quotient.graph);

  std::vector<LinkUsage> per_class(quotient_link.size());
  for (std::size_t c = 0; c < quotient_link.size(); ++c)
    if (quotient_link[c] >= 0) per_class[c] = run.links[static_cast<std::size_t>(quotient_link[c])];
  SimulationResult out = lift(q, run.makespan_s, per_class, run.chip_bytes_sent.front(), run.messages);
  out.wall_s = run.wall_s;
  out.simulated_tasks = run.tasks.size();
  out.child_rss_growth_bytes = run.child_rss_growth_bytes;
  return out;
}

// The quotient by the translations across each phase's dim: phase by phase, the line through the representative
// is simulated with its real links, every task released when the representative's twin may start (its
// dependencies on earlier phases have ended); then no two phases may have used one class of links, or the chips'
// processors, at the same time. nullopt when they did.
std::optional<SimulationResult> by_line(const Quotient& q) {
  const EventGraph& skeleton = q.skeleton;
  const NetworkSpec& network = q.network;
  std::vector<TaskTiming> times(skeleton.tasks.size());
  std::vector<std::int32_t> position(static_cast<std::size_t>(skeleton.num_chips), -1);
  SubNetworkBuilder builder(network);
  const auto latency_of = [&](const std::vector<std::int32_t>& route) {
    double latency_s = network.transfer.fixed_s;  // the engine adds it to every route (input_check)
    for (const std::int32_t l : route)
      latency_s += network.links[static_cast<std::size_t>(l)].latency_s;
    return latency_s;
  };
  std::uint64_t simulated = 0, child_rss = 0;
  double wall_s = 0;
  for (const PhaseGroups& phase : q.phases.phases) {
    const std::vector<ChipId>& line = phase.groups.front();
    const TaskId begin = phase.begin[0], end = phase.begin[1];
    if (begin == end) continue;
    for (std::size_t i = 0; i < line.size(); ++i)
      position[static_cast<std::size_t>(line[i])] = static_cast<std::int32_t>(i);
    // Releases, from the representative's twin of each task: its dependencies on earlier phases, or none at all.
    std::vector<double> release(static_cast<std::size_t>(end - begin), -1);
    double base = -1;
    for (TaskId id = begin; id < end; ++id) {
      const Task& twin = skeleton.tasks[static_cast<std::size_t>(q.rep_of[static_cast<std::size_t>(id)])];
      bool released = twin.deps.empty();
      double at = 0;
      for (const TaskId d : twin.deps)
        if (d < begin) {
          released = true;
          at = std::max(at, times[static_cast<std::size_t>(d)].end_s);
        }
      if (!released) continue;
      release[static_cast<std::size_t>(id - begin)] = at;
      base = base < 0 ? at : std::min(base, at);
    }
    EventGraph sub;
    builder.begin();
    const auto chips = static_cast<std::int32_t>(line.size());
    for (TaskId id = begin; id < end; ++id) {
      const Task& t = skeleton.tasks[static_cast<std::size_t>(id)];
      Task s = task_alone(t, begin, 0, [&](ChipId chip) { return position[static_cast<std::size_t>(chip)]; });
      if (t.kind == TaskKind::transfer && t.src_chip != t.dst_chip && !builder.has_route(s.src_chip, s.dst_chip)) {
        const std::vector<std::int32_t> route = network.route(t.src_chip, t.dst_chip);
        // The route stays on the line (so on links no other line of the phase uses).
        for (const std::int32_t l : route) {
          const Link& link = q.slice.link(l);
          if (position[static_cast<std::size_t>(link.src)] < 0 || position[static_cast<std::size_t>(link.dst)] < 0) {
            builder.end();
            return std::nullopt;
          }
        }
        builder.add_route(s.src_chip, s.dst_chip, route);
      }
      sub.add(std::move(s));
    }
    builder.end();
    std::vector<std::pair<TaskId, double>> releases;
    for (TaskId k = 0; k < end - begin; ++k) {
      const double at = release[static_cast<std::size_t>(k)] - base;
      if (release[static_cast<std::size_t>(k)] >= 0 && at > 0) releases.emplace_back(k, at);
    }
    add_release_timers(releases, chips, sub, builder.net, builder.routes);
    const SimulationResult run = simulate(builder.net, sub);
    simulated += run.tasks.size();
    wall_s += run.wall_s;
    child_rss = std::max(child_rss, run.child_rss_growth_bytes);
    for (TaskId k = 0; k < end - begin; ++k)
      times[static_cast<std::size_t>(begin + k)] = {base + run.tasks[static_cast<std::size_t>(k)].start_s,
                                                    base + run.tasks[static_cast<std::size_t>(k)].end_s};
    for (const ChipId chip : line)
      position[static_cast<std::size_t>(chip)] = -1;
  }

  // The representative's links (one per class) and processor: their traffic, phase by phase, in task id order.
  const std::size_t classes = static_cast<std::size_t>(q.slice.rank()) * 2;
  std::vector<ClassTraffic> traffic(classes);
  struct Span {
    std::int32_t resource;  // a class, or `classes` for the representative's processor
    std::size_t phase;
    double lo, hi;
  };
  std::vector<Span> spans;
  double makespan_s = 0;
  std::uint64_t bytes_sent = 0, transfers = 0;
  for (std::size_t p = 0; p < q.phases.phases.size(); ++p) {
    const PhaseGroups& phase = q.phases.phases[p];
    std::vector<Span> hull;
    const auto widen = [&](std::int32_t resource, double lo, double hi) {
      for (Span& span : hull)
        if (span.resource == resource) {
          span.lo = std::min(span.lo, lo);
          span.hi = std::max(span.hi, hi);
          return;
        }
      hull.push_back({resource, p, lo, hi});
    };
    for (TaskId id = phase.begin[0]; id < phase.begin[1]; ++id) {
      const Task& t = skeleton.tasks[static_cast<std::size_t>(id)];
      const TaskTiming& time = times[static_cast<std::size_t>(id)];
      makespan_s = std::max(makespan_s, time.end_s);
      if (t.kind == TaskKind::compute) {
        if (t.src_chip == kRep && time.end_s > time.start_s)
          widen(static_cast<std::int32_t>(classes), time.start_s, time.end_s);
        continue;
      }
      if (t.src_chip == kRep) ++transfers;
      if (t.src_chip == t.dst_chip) continue;
      if (t.src_chip == kRep) bytes_sent += t.bytes;
      const std::vector<std::int32_t> route = network.route(t.src_chip, t.dst_chip);
      const double lo = std::min(time.start_s + latency_of(route), time.end_s);
      for (const std::int32_t l : route) {
        const Link& link = q.slice.link(l);
        if (link.src != kRep) continue;
        traffic[static_cast<std::size_t>(class_of(link))].add(t.bytes, lo, time.end_s);
        widen(class_of(link), lo, time.end_s);
      }
    }
    spans.insert(spans.end(), hull.begin(), hull.end());
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.resource != b.resource ? a.resource < b.resource : a.lo < b.lo;
  });
  const double tolerance = 1e-12 * makespan_s;
  double reach = 0;  // the latest end so far on the current resource
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const bool same = i > 0 && spans[i].resource == spans[i - 1].resource;
    if (same && spans[i].lo < reach - tolerance) return std::nullopt;
    reach = same ? std::max(reach, spans[i].hi) : spans[i].hi;
  }
  std::vector<LinkUsage> per_class(classes);
  for (std::size_t c = 0; c < classes; ++c)
    per_class[c] = traffic[c].merged();
  SimulationResult out = lift(q, makespan_s, per_class, bytes_sent, transfers);
  out.wall_s = wall_s;
  out.simulated_tasks = simulated;
  out.child_rss_growth_bytes = child_rss;
  return out;
}

}  // namespace

std::optional<SimulationResult> simulate_torus_quotient(const Slice& slice, const NetworkSpec& network,
                                                        const CollectiveRequest& request) {
  const auto num_chips = static_cast<std::int32_t>(slice.num_chips());
  if (network.num_chips != num_chips || network.links.size() != static_cast<std::size_t>(slice.num_links()))
    return std::nullopt;
  verify_collective(request, num_chips);

  // The axes: lines of wrapped dims, under translation-invariant algorithms (their rows say). The skeleton keeps the
  // line through the representative only.
  CollectiveRequest skeleton_request = request;
  std::vector<bool> dim_used(static_cast<std::size_t>(slice.rank()), false);
  bool any_traffic = false;
  for (std::size_t a = 0; a < request.axes.size(); ++a) {
    const AxisGroups& axis = request.axes[a];
    if (axis.groups.empty()) return std::nullopt;
    const bool single = axis.groups.front().size() <= 1;  // one chip per group: no task at all
    if (!single) {
      const int d = line_dim(slice, axis);
      if (d < 0 || !algorithm_traits(resolve_algorithm(request.algorithm, request.op, axis)).translation_invariant)
        return std::nullopt;
      dim_used[static_cast<std::size_t>(d)] = true;
      any_traffic = true;
    }
    auto& groups = skeleton_request.axes[a].groups;
    const auto through_rep = std::find_if(groups.begin(), groups.end(), [](const std::vector<ChipId>& group) {
      return std::find(group.begin(), group.end(), kRep) != group.end();
    });
    groups = {*through_rep};
  }
  if (!any_traffic || request.array_bytes == 0) return std::nullopt;

  // One bandwidth and one latency per used dim and direction: the class of a link is dim * 2 + direction.
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

  // Every destination the representative sends to: each chip's route to the same offset must be this one moved.
  const Torus torus(slice);
  bool repeats_a_class = false;
  std::vector<ChipId> offsets;
  for (const Task& t : skeleton.tasks)
    if (t.src_chip == kRep && t.kind == TaskKind::transfer && t.dst_chip != kRep) offsets.push_back(t.dst_chip);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  for (const ChipId v : offsets) {
    const std::vector<std::int32_t> route = network.route(kRep, v);
    std::vector<int> classes;
    for (const std::int32_t l : route) {
      if (l < 0 || static_cast<std::size_t>(l) >= network.links.size()) return std::nullopt;
      if (!dim_used[static_cast<std::size_t>(slice.link(l).dim)]) return std::nullopt;
      classes.push_back(class_of(slice.link(l)));
    }
    std::sort(classes.begin(), classes.end());
    repeats_a_class = repeats_a_class || std::adjacent_find(classes.begin(), classes.end()) != classes.end();
    for (ChipId c = 0; c < num_chips; ++c) {
      const std::vector<std::int32_t> moved = network.route(c, torus.moved(c, v));
      if (moved.size() != route.size()) return std::nullopt;
      for (std::size_t h = 0; h < route.size(); ++h) {
        if (moved[h] < 0 || static_cast<std::size_t>(moved[h]) >= network.links.size()) return std::nullopt;
        const Link& mine = slice.link(moved[h]);
        const Link& twin = slice.link(route[h]);
        if (mine.dim != twin.dim || mine.dir != twin.dir || mine.src != torus.moved(c, twin.src)) return std::nullopt;
      }
    }
  }
  const Quotient quotient{slice, network, skeleton, phases, *rep_of, dim_used};
  if (repeats_a_class) return by_line(quotient);
  return by_chip(quotient);
}

}  // namespace podsim
