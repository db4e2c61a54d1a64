// The representative path: check the hint's structure, then phase by phase put groups in classes by the start
// times their external dependencies allow (equal to the last bit), simulate one group per class from time 0
// (releases become one-byte transfers to a timer chip over a link whose latency is the release), copy the timings
// to the class, and check afterwards that no two phases shared a link or a chip's processor at the same time.
#include "sim/engine/symmetric_simulation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>

#include "sim/engine/input_check.hpp"
#include "sim/engine/link_ledger.hpp"
#include "sim/engine/release_timers.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/sub_network.hpp"
#include "sim/engine/validated_run.hpp"

namespace podsim {
namespace {

using engine::RouteTable;

// A task whose start waits on an earlier phase, or on nothing at all (it starts at 0).
bool has_release(const Task& task, TaskId phase_first) {
  return task.deps.empty() ||
         std::any_of(task.deps.begin(), task.deps.end(), [&](TaskId d) { return d < phase_first; });
}

// The checks before simulating (simulate_symmetric's first two rules).
bool structure_holds(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry& symmetry,
                     const RouteTable& routes) {
  const auto num_chips = static_cast<std::size_t>(network.num_chips);
  TaskId next = 0;
  for (const PhaseGroups& phase : symmetry.phases) {
    if (phase.begin.size() != phase.groups.size() + 1 || phase.begin.front() != next) return false;
    for (std::size_t g = 0; g + 1 < phase.begin.size(); ++g)
      if (phase.begin[g + 1] < phase.begin[g]) return false;
    next = phase.begin.back();
  }
  if (next != static_cast<TaskId>(graph.tasks.size())) return false;

  std::vector<std::int32_t> group_of(num_chips), position(num_chips);
  std::vector<std::int32_t> link_phase(network.links.size(), -1), link_group(network.links.size(), -1);
  for (std::size_t p = 0; p < symmetry.phases.size(); ++p) {
    const PhaseGroups& phase = symmetry.phases[p];
    if (phase.groups.empty()) continue;
    std::fill(group_of.begin(), group_of.end(), -1);
    for (std::size_t g = 0; g < phase.groups.size(); ++g)
      for (std::size_t i = 0; i < phase.groups[g].size(); ++i) {
        const ChipId chip = phase.groups[g][i];
        if (chip < 0 || static_cast<std::size_t>(chip) >= num_chips || group_of[static_cast<std::size_t>(chip)] >= 0)
          return false;
        group_of[static_cast<std::size_t>(chip)] = static_cast<std::int32_t>(g);
        position[static_cast<std::size_t>(chip)] = static_cast<std::int32_t>(i);
      }
    const TaskId first = phase.begin.front();
    const TaskId length = phase.begin[1] - phase.begin[0];
    for (std::size_t g = 0; g < phase.groups.size(); ++g) {
      const TaskId begin = phase.begin[g], end = phase.begin[g + 1];
      if (end - begin != length) return false;
      for (TaskId k = 0; k < length; ++k) {
        const Task& t = graph.tasks[static_cast<std::size_t>(begin + k)];
        const Task& r = graph.tasks[static_cast<std::size_t>(first + k)];
        if (t.kind != r.kind || t.bytes != r.bytes || t.flops != r.flops) return false;
        const auto src = static_cast<std::size_t>(t.src_chip), dst = static_cast<std::size_t>(t.dst_chip);
        if (group_of[src] != static_cast<std::int32_t>(g) || group_of[dst] != static_cast<std::int32_t>(g))
          return false;
        if (position[src] != position[static_cast<std::size_t>(r.src_chip)] ||
            position[dst] != position[static_cast<std::size_t>(r.dst_chip)])
          return false;
        // Dependencies inside the group at the same offsets, in order; the others (any number) on earlier phases.
        if (has_release(t, first) != has_release(r, first)) return false;
        std::size_t j = 0;
        for (const TaskId d : t.deps) {
          if (d < first) continue;
          if (d < begin || d >= end) return false;  // on another group of this phase, or on a later phase
          while (j < r.deps.size() && r.deps[j] < first)
            ++j;
          if (j == r.deps.size() || r.deps[j] != first + (d - begin)) return false;
          ++j;
        }
        while (j < r.deps.size() && r.deps[j] < first)
          ++j;
        if (j != r.deps.size()) return false;
        if (t.kind != TaskKind::transfer || t.src_chip == t.dst_chip) continue;
        const auto mine = routes.links(t.src_chip, t.dst_chip);
        const auto twin = routes.links(r.src_chip, r.dst_chip);
        if (mine.size() != twin.size()) return false;
        for (std::size_t h = 0; h < mine.size(); ++h) {
          const auto l = static_cast<std::size_t>(mine[h]);
          const LinkSpec& a = network.links[l];
          const LinkSpec& b = network.links[static_cast<std::size_t>(twin[h])];
          if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_s != b.latency_s) return false;
          if (link_phase[l] == static_cast<std::int32_t>(p) && link_group[l] != static_cast<std::int32_t>(g))
            return false;
          link_phase[l] = static_cast<std::int32_t>(p);
          link_group[l] = static_cast<std::int32_t>(g);
        }
      }
    }
  }
  return true;
}

// The time span of one phase's traffic on one resource (a link, or a chip's processor for computes).
struct Span {
  std::int32_t resource;
  std::int32_t phase;
  double lo, hi;
};

// Spans are widened while a phase runs through its tasks and recorded once per (resource, phase).
class SpanBook {
 public:
  explicit SpanBook(std::size_t resources) : open_(resources, Span{-1, -1, 0, 0}) {}
  void widen(std::size_t resource, std::int32_t phase, double lo, double hi) {
    Span& span = open_[resource];
    if (span.phase != phase) {
      if (span.phase >= 0) closed_.push_back(span);
      span = {static_cast<std::int32_t>(resource), phase, lo, hi};
    } else {
      span.lo = std::min(span.lo, lo);
      span.hi = std::max(span.hi, hi);
    }
  }
  // True when no two spans of one resource overlap by more than `tolerance`.
  bool disjoint(double tolerance) {
    for (const Span& span : open_)
      if (span.phase >= 0) closed_.push_back(span);
    std::sort(closed_.begin(), closed_.end(), [](const Span& a, const Span& b) {
      return a.resource != b.resource ? a.resource < b.resource : a.lo < b.lo;
    });
    double reach = 0;  // the latest end so far on the current resource
    for (std::size_t i = 0; i < closed_.size(); ++i) {
      if (i > 0 && closed_[i].resource == closed_[i - 1].resource && closed_[i].lo < reach - tolerance) return false;
      reach = i > 0 && closed_[i].resource == closed_[i - 1].resource ? std::max(reach, closed_[i].hi) : closed_[i].hi;
    }
    return true;
  }

 private:
  std::vector<Span> open_;
  std::vector<Span> closed_;
};

// The check after simulating: the bandwidth phases of transfers (and the computes) of different phases never
// overlap on one link (one chip). Reads the timings and the routes published in `result`.
bool phases_kept_apart(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry& symmetry,
                       const SimulationResult& result) {
  SpanBook on_link(network.links.size()), on_chip(static_cast<std::size_t>(network.num_chips));
  double makespan_s = 0;
  for (const TaskTiming& timing : result.tasks)
    makespan_s = std::max(makespan_s, timing.end_s);
  for (std::size_t p = 0; p < symmetry.phases.size(); ++p) {
    const PhaseGroups& phase = symmetry.phases[p];
    const auto at = static_cast<std::int32_t>(p);
    for (TaskId id = phase.begin.front(); id < phase.begin.back(); ++id) {
      const Task& task = graph.tasks[static_cast<std::size_t>(id)];
      const TaskTiming& timing = result.tasks[static_cast<std::size_t>(id)];
      if (task.kind == TaskKind::compute) {
        if (timing.end_s > timing.start_s)
          on_chip.widen(static_cast<std::size_t>(task.src_chip), at, timing.start_s, timing.end_s);
        continue;
      }
      const double lo = result.bandwidth_start_s(id);
      for (const LinkId link : result.route_of(id))
        on_link.widen(static_cast<std::size_t>(link), at, lo, timing.end_s);
    }
  }
  const double tolerance = 1e-12 * makespan_s;
  return on_link.disjoint(tolerance) && on_chip.disjoint(tolerance);
}

// Simulates the phases one after another; fills `timings` and the counters of `result`.
void run_phases(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry& symmetry,
                const RouteTable& routes, std::vector<TaskTiming>& timings, SimulationResult& result) {
  std::vector<std::int32_t> position(static_cast<std::size_t>(network.num_chips), 0);
  SubNetworkBuilder builder(network);
  for (const PhaseGroups& phase : symmetry.phases) {
    if (phase.groups.empty()) continue;
    const TaskId first = phase.begin.front();
    const TaskId length = phase.begin[1] - phase.begin[0];
    if (length == 0) continue;
    for (const auto& group : phase.groups)
      for (std::size_t i = 0; i < group.size(); ++i)
        position[static_cast<std::size_t>(group[i])] = static_cast<std::int32_t>(i);

    // Tasks (offsets in a group) that wait on earlier phases, or on nothing: they carry a release time.
    std::vector<TaskId> released;
    for (TaskId k = 0; k < length; ++k) {
      const Task& task = graph.tasks[static_cast<std::size_t>(first + k)];
      if (has_release(task, first)) released.push_back(k);
    }
    // Per group: its releases (absolute times) and its class. Groups whose releases are the same doubles, bit for
    // bit, form a class: its representative, simulated from time 0 with those releases, computes the very doubles
    // the full simulation computes for each of them (relative times shifted by a group's start would not: the
    // sums round differently in the last bits).
    const std::size_t num_groups = phase.groups.size();
    std::vector<std::int32_t> class_of(num_groups);
    std::vector<std::size_t> reps;
    std::vector<std::vector<double>> rep_release;
    std::map<std::vector<std::uint64_t>, std::int32_t> classes;
    std::vector<double> release(released.size());
    std::vector<std::uint64_t> key(released.size());
    for (std::size_t g = 0; g < num_groups; ++g) {
      const TaskId begin = phase.begin[g];
      for (std::size_t j = 0; j < released.size(); ++j) {
        double at = 0;
        for (const TaskId d : graph.tasks[static_cast<std::size_t>(begin + released[j])].deps)
          if (d < first) at = std::max(at, timings[static_cast<std::size_t>(d)].end_s);
        release[j] = at;
      }
      for (std::size_t j = 0; j < released.size(); ++j)
        key[j] = std::bit_cast<std::uint64_t>(release[j]);
      const auto [it, added] = classes.emplace(key, static_cast<std::int32_t>(reps.size()));
      if (added) {
        reps.push_back(g);
        rep_release.push_back(release);
      }
      class_of[g] = it->second;
    }

    // One graph with a representative of every class side by side (their links are disjoint).
    EventGraph sub;
    builder.begin();
    std::int32_t chips = 0;
    std::vector<std::pair<TaskId, double>> timers;
    for (std::size_t c = 0; c < reps.size(); ++c) {
      const std::size_t g = reps[c];
      const TaskId begin = phase.begin[g];
      const auto offset = static_cast<TaskId>(sub.tasks.size());
      const std::int32_t chip_base = chips;
      chips += static_cast<std::int32_t>(phase.groups[g].size());
      for (TaskId k = 0; k < length; ++k) {
        const Task& t = graph.tasks[static_cast<std::size_t>(begin + k)];
        Task s = task_alone(t, begin, offset,
                            [&](ChipId chip) { return chip_base + position[static_cast<std::size_t>(chip)]; });
        if (t.kind == TaskKind::transfer && t.src_chip != t.dst_chip)
          builder.add_route(s.src_chip, s.dst_chip, routes.links(t.src_chip, t.dst_chip));
        sub.add(std::move(s));
      }
      for (std::size_t j = 0; j < released.size(); ++j)
        if (rep_release[c][j] > 0) timers.emplace_back(offset + released[j], rep_release[c][j]);
    }
    builder.end();
    add_release_timers(timers, chips, sub, builder.net, builder.routes);
    const SimulationResult run = simulate(builder.net, sub);
    result.simulated_tasks += run.tasks.size();
    result.wall_s += run.wall_s;
    result.child_rss_growth_bytes = std::max(result.child_rss_growth_bytes, run.child_rss_growth_bytes);
    for (std::size_t g = 0; g < num_groups; ++g) {
      const TaskId begin = phase.begin[g];
      const auto offset = static_cast<std::size_t>(class_of[g]) * static_cast<std::size_t>(length);
      for (TaskId k = 0; k < length; ++k) {
        const TaskTiming& rep = run.tasks[offset + static_cast<std::size_t>(k)];
        timings[static_cast<std::size_t>(begin + k)] = rep;
      }
    }
  }
}

}  // namespace

SimulationResult simulate_symmetric(const NetworkSpec& network, const EventGraph& graph, const GraphSymmetry& symmetry,
                                    bool* symmetric) {
  const RouteTable routes = engine::check_simulation_input(network, graph);
  if (symmetric != nullptr) *symmetric = false;
  if (!structure_holds(network, graph, symmetry, routes)) return engine::run_validated(network, graph, routes);
  SimulationResult result;
  std::vector<TaskTiming> timings(graph.tasks.size());
  run_phases(network, graph, symmetry, routes, timings, result);
  result.tasks = std::move(timings);
  // Every group's own routes (not its representative's), from the whole graph's route table.
  engine::publish_routes(graph, routes, result);
  if (!phases_kept_apart(network, graph, symmetry, result)) return engine::run_validated(network, graph, routes);
  engine::fill_ledger(network, graph, result);
  if (symmetric != nullptr) *symmetric = true;
  return result;
}

}  // namespace podsim
