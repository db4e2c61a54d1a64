// Composition of collective phases over axes.
#include "sim/collectives/collective_builder.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/common/integer.hpp"
#include "models/common/units.hpp"
#include "sim/collectives/hierarchical.hpp"

namespace podsim {
namespace {

std::int64_t group_size(const AxisGroups& axis) {
  return axis.groups.empty() ? 1 : static_cast<std::int64_t>(axis.groups.front().size());
}

// Builds one composite collective step by step over a frontier.
class Composer {
 public:
  Composer(EventGraph& graph, const CollectiveRequest& request, GraphSymmetry* symmetry)
      : graph_(graph), request_(request), symmetry_(symmetry) {}

  const std::vector<std::size_t>& phase_axes() const { return phase_axes_; }

  // One phase over one axis, every group at once: an all-gather or reduce-scatter of `shard_bytes`, or an all-to-all
  // of the `shard_bytes` each chip holds, by the generator of the algorithm resolved for the axis.
  void phase(Frontier& frontier, const AxisGroups& axis, CollectiveKind op, std::uint64_t shard_bytes) {
    const AlgorithmTraits& algorithm = algorithm_traits(resolve_algorithm(request_.algorithm, op, axis));
    const PhaseSpec spec{op, shard_bytes, request_.reduce_flops_per_byte, request_.op_id, step_};
    Frontier out(static_cast<std::int32_t>(frontier.per_chip.size()));
    PhaseGroups* record = begin_record(axis);
    for (const auto& group : axis.groups) {
      if (group.size() > 1 && shard_bytes > 0) algorithm.generator(graph_, frontier, out, group, spec);
      end_group(record);
    }
    carry_untouched(frontier, out);
    frontier = std::move(out);
    step_ += algorithm.phase_steps(static_cast<std::int32_t>(group_size(axis)));
  }

  // The whole op over `axes` (in this order) for `bytes` of the array.
  void run(Frontier& frontier, const std::vector<const AxisGroups*>& axes, std::uint64_t bytes) {
    std::uint64_t group = 1;
    for (const auto* axis : axes)
      group *= static_cast<std::uint64_t>(group_size(*axis));
    switch (request_.op) {
      case CollectiveKind::all_gather: {
        std::uint64_t shard = ceil_div(bytes, group);
        for (const auto* axis : axes) {
          phase(frontier, *axis, CollectiveKind::all_gather, shard);
          shard *= static_cast<std::uint64_t>(group_size(*axis));
        }
        break;
      }
      case CollectiveKind::reduce_scatter:
        reduce_scatter(frontier, axes, bytes);
        break;
      case CollectiveKind::all_reduce: {
        reduce_scatter(frontier, axes, bytes);
        std::uint64_t shard = ceil_div(bytes, group);
        for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
          phase(frontier, **it, CollectiveKind::all_gather, shard);
          shard *= static_cast<std::uint64_t>(group_size(**it));
        }
        break;
      }
      case CollectiveKind::all_to_all: {
        const std::uint64_t local = ceil_div(bytes, group);
        for (const auto* axis : axes)
          phase(frontier, *axis, CollectiveKind::all_to_all, local);
        break;
      }
    }
  }

 private:
  // The record of a phase over `axis` about to be appended, or nullptr when none is kept.
  PhaseGroups* begin_record(const AxisGroups& axis) {
    phase_axes_.push_back(static_cast<std::size_t>(&axis - request_.axes.data()));
    if (symmetry_ == nullptr) return nullptr;
    PhaseGroups& record = symmetry_->phases.emplace_back();
    record.groups = axis.groups;
    record.begin.push_back(static_cast<TaskId>(graph_.tasks.size()));
    return &record;
  }
  void end_group(PhaseGroups* record) {
    if (record != nullptr) record->begin.push_back(static_cast<TaskId>(graph_.tasks.size()));
  }

  void reduce_scatter(Frontier& frontier, const std::vector<const AxisGroups*>& axes, std::uint64_t bytes) {
    std::uint64_t data = bytes;
    for (const auto* axis : axes) {
      const std::uint64_t shard = ceil_div(data, static_cast<std::uint64_t>(group_size(*axis)));
      phase(frontier, *axis, CollectiveKind::reduce_scatter, shard);
      data = shard;
    }
  }

  EventGraph& graph_;
  const CollectiveRequest& request_;
  GraphSymmetry* symmetry_;
  std::vector<std::size_t> phase_axes_;  // the axis (index in the request) of every phase appended so far
  std::int32_t step_ = 0;
};

// Why `algorithm` cannot run `op`: the algorithm to use when one alone runs the op ("all-to-all runs with the
// direct algorithm, got: line"), else the ops the algorithm runs ("the direct algorithm is for all-to-all, got:
// all-gather").
std::string refusal(const AlgorithmTraits& algorithm, CollectiveKind op) {
  std::vector<std::string_view> runners;
  for (const AlgorithmTraits& row : kAlgorithms)
    if (row.runs(op)) runners.push_back(row.name);
  if (runners.size() == 1)
    return std::string(collective_kind_name(op)) + " runs with the " + std::string(runners.front()) +
           " algorithm, got: " + std::string(algorithm.name);
  std::string kinds;
  for (const CollectiveKind kind : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                                    CollectiveKind::all_reduce, CollectiveKind::all_to_all})
    if (algorithm.runs(kind)) kinds += (kinds.empty() ? "" : ", ") + std::string(collective_kind_name(kind));
  return "the " + std::string(algorithm.name) + " algorithm is for " + kinds +
         ", got: " + std::string(collective_kind_name(op));
}

}  // namespace

std::uint64_t estimate_transfers(const CollectiveRequest& request) {
  const std::uint64_t passes = request.op == CollectiveKind::all_reduce ? 2 : 1;
  const auto in_slice = static_cast<std::uint64_t>(
      std::count_if(request.axes.begin(), request.axes.end(), [](const AxisGroups& axis) { return !axis.dcn; }));
  const std::uint64_t parts = request.multi_axis == MultiAxis::concurrent ? std::max<std::uint64_t>(in_slice, 1) : 1;
  std::uint64_t sends = 0;
  for (const auto& axis : request.axes) {
    const auto directions =
        static_cast<std::uint64_t>(algorithm_traits(resolve_algorithm(request.algorithm, request.op, axis)).directions);
    for (const auto& group : axis.groups) {
      const auto n = static_cast<std::uint64_t>(group.size());
      sends += n * (n > 0 ? n - 1 : 0) * directions;
    }
  }
  return sends * passes * parts;
}

std::string transfers_over_limit(std::uint64_t transfers) {
  constexpr double kBytesPerTransfer = 172;
  return "about " + std::to_string(transfers) + " transfers (about " +
         format_bytes(static_cast<double>(transfers) * kBytesPerTransfer) + " of event graph), above the limit of " +
         std::to_string(kMaxTransfers);
}

void verify_collective(const CollectiveRequest& request, std::int32_t num_chips) {
  if (request.axes.empty()) throw VerifyError("a collective needs at least one axis, got: none");
  if (request.array_bytes > kMaxArrayBytes)
    throw VerifyError("the array must be at most 2^50 bytes (1 PiB), got: " + std::to_string(request.array_bytes));
  if (request.algorithm != Algorithm::automatic && !algorithm_traits(request.algorithm).runs(request.op))
    throw VerifyError(refusal(algorithm_traits(request.algorithm), request.op));
  if (request.reduce_flops_per_byte < 0)
    throw VerifyError("reduction flops per byte must be non-negative, got: " +
                      std::to_string(request.reduce_flops_per_byte));
  if (crosses_slices(request) && request.op == CollectiveKind::all_to_all)
    throw VerifyError(
        "an all-to-all across slices (over the DCN) is not supported, got: an all-to-all over a slice axis");
  for (std::size_t a = 0; a < request.axes.size(); ++a) {
    const auto& axis = request.axes[a];
    std::vector<bool> seen(static_cast<std::size_t>(num_chips), false);
    for (const auto& group : axis.groups) {
      if (group.size() != axis.groups.front().size())
        throw VerifyError("axis " + std::to_string(a) + ": groups must have equal sizes, got: " +
                          std::to_string(group.size()) + " and " + std::to_string(axis.groups.front().size()));
      for (const ChipId chip : group) {
        if (chip < 0 || chip >= num_chips)
          throw VerifyError("axis " + std::to_string(a) + ": chip out of range [0, " + std::to_string(num_chips) +
                            "), got: " + std::to_string(chip));
        if (seen[static_cast<std::size_t>(chip)])
          throw VerifyError("axis " + std::to_string(a) + ": chip in two groups, got: " + std::to_string(chip));
        seen[static_cast<std::size_t>(chip)] = true;
      }
    }
  }
  if (const auto transfers = estimate_transfers(request); transfers > kMaxTransfers)
    throw VerifyError("the collective would build " + transfers_over_limit(transfers) +
                      " (docs/reliability.md): use fewer chips per axis, or the book model");
}

namespace {

// Appends the whole request through `composer` (append_collective without the checks).
void compose(Composer& composer, EventGraph& graph, Frontier& frontier, const CollectiveRequest& request) {
  frontier.per_chip.resize(static_cast<std::size_t>(graph.num_chips));
  // Axes over the DCN go where the data is smallest (hierarchical.hpp); others keep the request's order.
  std::vector<const AxisGroups*> axes;
  for (const std::size_t a : hierarchical_axis_order(request))
    axes.push_back(&request.axes[a]);
  // Concurrent: one part of the array per axis within the slice; part p visits those axes starting at axis p, and
  // every part crosses the DCN axes where the hierarchical order puts them (first in an all-gather, else last).
  std::vector<const AxisGroups*> in_slice;
  for (const AxisGroups* axis : axes)
    if (!axis->dcn) in_slice.push_back(axis);
  if (request.multi_axis == MultiAxis::sequential || in_slice.size() < 2) {
    composer.run(frontier, axes, request.array_bytes);
    return;
  }
  const std::size_t parts = in_slice.size();
  Frontier joined(graph.num_chips);
  for (std::size_t p = 0; p < parts; ++p) {
    std::vector<const AxisGroups*> order;
    std::size_t next = 0;
    for (const AxisGroups* axis : axes)
      order.push_back(axis->dcn ? axis : in_slice[(p + next++) % parts]);
    const std::uint64_t bytes = request.array_bytes / parts + (p < request.array_bytes % parts ? 1 : 0);
    Frontier part = frontier;
    composer.run(part, order, bytes);
    for (std::size_t chip = 0; chip < part.per_chip.size(); ++chip)
      joined.per_chip[chip].insert(joined.per_chip[chip].end(), part.per_chip[chip].begin(), part.per_chip[chip].end());
  }
  frontier = std::move(joined);
}

// Every group of an axis adds as many tasks as its first group: count them on a copy of the request that keeps
// only the first group of each axis, then multiply by the groups.
std::size_t count_tasks(const CollectiveRequest& request, std::int32_t num_chips) {
  CollectiveRequest probe_request = request;
  probe_request.axes.clear();
  for (const AxisGroups& axis : request.axes)
    probe_request.axes.push_back(AxisGroups{
        {axis.groups.begin(), axis.groups.begin() + (axis.groups.empty() ? 0 : 1)}, axis.wraparound, axis.dcn});
  EventGraph probe;
  probe.num_chips = num_chips;
  GraphSymmetry phases;
  Frontier frontier(num_chips);
  Composer composer(probe, probe_request, &phases);
  compose(composer, probe, frontier, probe_request);
  std::size_t total = 0;
  for (std::size_t p = 0; p < phases.phases.size(); ++p) {
    const auto& begin = phases.phases[p].begin;
    const std::size_t per_group = begin.size() < 2 ? 0 : static_cast<std::size_t>(begin[1] - begin[0]);
    total += per_group * request.axes[composer.phase_axes()[p]].groups.size();
  }
  return total;
}

// Reserves the collective's tasks at once (a vector of millions of tasks that grows by doubling holds two copies
// while it moves, and leaves the freed ones resident); a graph reserved for more already (a lowered program reserves
// all its steps' tasks, lower_program) is left alone.
void reserve_tasks(EventGraph& graph, const CollectiveRequest& request) {
  const std::size_t room = graph.tasks.capacity() - graph.tasks.size();
  if (room / 2 >= estimate_transfers(request)) return;  // a transfer adds at most one reduction
  const std::size_t needed = graph.tasks.size() + count_tasks(request, graph.num_chips);
  if (needed > graph.tasks.capacity())
    graph.tasks.reserve(graph.tasks.empty() ? needed : std::max(needed, 2 * graph.tasks.capacity()));
}

}  // namespace

void append_collective(EventGraph& graph, Frontier& frontier, const CollectiveRequest& request,
                       GraphSymmetry* symmetry) {
  verify_collective(request, graph.num_chips);
  reserve_tasks(graph, request);
  Composer composer(graph, request, symmetry);
  compose(composer, graph, frontier, request);
}

std::size_t count_collective_tasks(const CollectiveRequest& request, std::int32_t num_chips) {
  verify_collective(request, num_chips);
  return count_tasks(request, num_chips);
}

EventGraph build_collective(std::int32_t num_chips, const CollectiveRequest& request) {
  EventGraph graph;
  graph.num_chips = num_chips;
  Frontier frontier(num_chips);
  append_collective(graph, frontier, request);
  return graph;
}

}  // namespace podsim
