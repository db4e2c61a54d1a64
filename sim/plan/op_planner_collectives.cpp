// The planner's collectives (op_planner.hpp): a collective step's request, groups and book cost, the lane of
// collectives a resharding runs, reshards and explicit collectives.
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/cost/dcn_cost.hpp"
#include "models/sharding/notation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/plan/collective_target.hpp"
#include "sim/plan/op_planner.hpp"

namespace podsim {
namespace {

// How a report names the buffer a collective leaves behind.
std::string collective_result_text(CollectiveKind kind, const std::string& tensor,
                                   const std::vector<std::string>& axes) {
  const std::string over = " over " + join(axes, ",");
  switch (kind) {
    case CollectiveKind::all_gather:
      return tensor + " gathered" + over;
    case CollectiveKind::reduce_scatter:
      return tensor + " reduce-scattered" + over;
    case CollectiveKind::all_reduce:
      return tensor + " all-reduced" + over;
    case CollectiveKind::all_to_all:
      return tensor + " all-to-all" + over;
  }
  return tensor;
}

}  // namespace

void OpPlanner::require_links(const ScenarioOp& op) const {
  if (!ici().present())
    fail(op, "the hardware " + spec_.hardware.spec.name + " has no ICI links, so data cannot move between chips");
}

PlannedStep OpPlanner::collective_step(const ScenarioOp& op, const PlannedCollective& pc,
                                       std::vector<std::string> run_axes, int from, int into) const {
  for (const auto& axis : pc.axes)
    if (axis.is_sub_axis()) fail(op, "collectives over sub-axes are not simulated, got: " + to_string(axis));
  require_links(op);
  PlannedStep step;
  step.kind = StepKind::collective;
  step.reads = {from};
  step.writes = into;
  step.collective = pc;
  step.axis_names = std::move(run_axes);
  step.tensor = buffer(from).tensor;
  step.dtype = buffer(from).dtype;
  step.request.op = pc.kind;
  step.request.array_bytes = pc.array_bytes;
  step.request.algorithm = spec_.options.algorithm;
  step.request.multi_axis = spec_.options.multi_axis;
  // Each axis's groups are verified once per plan (groups_of); the step's own figures are verified on the first
  // group of each axis, so that a large slice does not walk all its chips per collective.
  CollectiveRequest probe = step.request;
  try {
    for (const auto& name : step.axis_names) {
      const AxisGroups& groups = groups_of(name);
      probe.axes.push_back(AxisGroups{{groups.groups.front()}, groups.wraparound, groups.dcn});
    }
    verify_collective(probe, total_chips());
  } catch (const Error& e) {
    fail(op, e.what());
  }
  for (const auto& name : step.axis_names) {
    const AxisGroups& groups = groups_of(name);
    step.algorithms.push_back(resolve_algorithm(step.request.algorithm, pc.kind, groups));
    if (!topology_.book_only) step.request.axes.push_back(groups);
  }
  step.reduce_s_per_byte = spec_.hardware.spec.chip.reduction_s_per_byte(step.dtype);
  step.book = book_cost(pc, step.axis_names);
  step.bound = step.book.bound;
  return step;
}

CostBreakdown OpPlanner::book_cost(const PlannedCollective& pc, const std::vector<std::string>& names) const {
  std::vector<std::string> in_slice;
  for (const auto& name : names)
    if (!(topology_.slices > 1 && name == kSliceAxisName)) in_slice.push_back(name);
  const auto axes = collective_axes(topology_.slice, topology_.mapping, in_slice);
  if (in_slice.size() == names.size())
    return book_collective_cost(pc.kind, axes, pc.array_bytes, ici().bandwidth_Bps, ici().hop_latency_s);
  return book_hierarchical_cost(pc.kind, axes, topology_.slices, pc.array_bytes, ici().bandwidth_Bps,
                                ici().hop_latency_s, topology_.dcn_bandwidth_Bps, topology_.dcn_latency_s);
}

const AxisGroups& OpPlanner::groups_of(const std::string& axis) const {
  auto found = groups_.find(axis);
  if (found == groups_.end()) {
    CollectiveRequest whole;
    if (topology_.slices > 1) {
      // Several slices: the slice axis, or an in-slice axis (placed on the mesh without the slice axis) repeated
      // in every slice.
      const std::int64_t per_slice = topology_.slice.num_chips();
      whole.axes.push_back(
          axis == kSliceAxisName
              ? slice_axis_groups(per_slice, topology_.slices)
              : repeat_over_slices(axis_groups(topology_.mapping, topology_.slice, axis), per_slice, topology_.slices));
    } else {
      whole.axes.push_back(axis_groups(topology_.mapping, topology_.slice, mesh(), axis));
    }
    verify_collective(whole, total_chips());
    if (whole.axes.front().groups.empty()) throw VerifyError("axis " + axis + " has no groups");
    found = groups_.emplace(axis, std::move(whole.axes.front())).first;
  }
  return found->second;
}

int OpPlanner::collectives(const ScenarioOp& op, PlannedOp& planned, const std::vector<PlannedCollective>& list,
                           int from, int final) {
  int current = from;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PlannedCollective& pc = list[i];
    const PlannedBuffer& in = buffer(current);
    int into = final;
    if (i + 1 < list.size() || final < 0) {
      into = add_buffer(PlannedBuffer::Role::temporary, in.tensor,
                        collective_result_text(pc.kind, in.tensor, axis_names(pc.axes)), in.shape, in.dtype, pc.after,
                        in.labels, planned.index);
    }
    push(planned, collective_step(op, pc, axis_names(pc.axes), current, into));
    current = into;
  }
  return current;
}

void OpPlanner::reshard(const ScenarioOp& op, PlannedOp& planned, const TensorSharding& to) {
  const int from = planned.inputs.front();
  const std::vector<PlannedCollective> list = resharding(op, buffer(from), to);
  planned.output = result_buffer(op, planned, to, buffer(from).labels);
  if (list.empty()) {
    PlannedStep local;
    local.kind = StepKind::compute;
    local.reads = {from};
    local.writes = planned.output;
    local.bound = Bound::memory;
    push(planned, std::move(local));
    return;
  }
  collectives(op, planned, list, from, planned.output);
}

std::vector<PlannedCollective> OpPlanner::resharding(const ScenarioOp& op, const PlannedBuffer& in,
                                                     const TensorSharding& to) const {
  try {
    return plan_resharding(in.shape, in.sharding, to, in.dtype, mesh(), PlannedCollective::Operand::out, "", nullptr);
  } catch (const Error& e) {
    fail(op, e.what());
  }
}

void OpPlanner::plan(const ScenarioOp& op, const CollectiveOp& c, PlannedOp& planned) {
  const int from = planned.inputs.front();
  TensorSharding to;
  try {
    to = collective_target(c, buffer(from).sharding,
                           print_readable(buffer(from).sharding, c.tensor, buffer(from).labels));
  } catch (const Error& e) {
    fail(op, e.what());
  }
  std::vector<PlannedCollective> moves = resharding(op, buffer(from), to);
  PlannedCollective pc;
  pc.kind = c.kind;
  pc.operand = PlannedCollective::Operand::out;
  for (const auto& name : c.axes) {
    pc.axes.push_back(AxisRef{name, std::nullopt});
    pc.group_size *= static_cast<std::uint64_t>(mesh().axis_size(name));
  }
  pc.before = buffer(from).sharding;
  pc.after = to;
  const bool gathers = c.kind == CollectiveKind::all_gather || c.kind == CollectiveKind::all_to_all;
  pc.array_bytes = buffer(from).bytes_per_chip * (gathers ? pc.group_size : 1);
  if (moves.size() == 1 && moves.front().kind == c.kind) {
    pc.dim = moves.front().dim;
    pc.to_dim = moves.front().to_dim;
    pc.axes = moves.front().axes;
    moves.clear();
  }
  planned.output = result_buffer(op, planned, to, buffer(from).labels);
  PlannedStep step = collective_step(op, pc, c.axes, from, planned.output);
  step.value_moves = std::move(moves);
  push(planned, std::move(step));
}
}  // namespace podsim
