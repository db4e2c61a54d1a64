// The planner's matmuls (op_planner.hpp): the matmul case analysis' collectives around its compute step, and the
// collective matmul loops that replace an operand's all-gather or the result's reduce-scatter.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/hardware/roofline.hpp"
#include "models/topology/routing.hpp"
#include "sim/plan/op_planner.hpp"

namespace podsim {
namespace {

// The loop that replaces `pc` (one collective over one mesh axis): `n` steps, each moving a block of `block`'s bytes
// per chip `hops` links, the last writing `product`.
CollectiveMatmulLoop loop_over(const PlannedCollective& pc, const PlannedBuffer& block, int product, int n, int hops) {
  CollectiveMatmulLoop loop;
  loop.replaces = pc;
  loop.axis = pc.axes.front().name;
  loop.tensor = block.tensor;
  loop.product_buffer = product;
  loop.steps = n;
  loop.block_bytes = block.bytes_per_chip;
  loop.hops = hops;
  return loop;
}

}  // namespace

void OpPlanner::plan(const ScenarioOp& op, const MatmulOp& mm, PlannedOp& planned) {
  const int lhs = current_.at(mm.lhs), rhs = current_.at(mm.rhs);
  std::optional<TensorSharding> required;
  if (mm.out_sharding) required = mm.out_sharding->sharding();
  if (plan_)
    for (const auto& [name, sharding] : plan_->out_shardings)
      if (name == op.name) required = sharding.sharding();
  MatmulPlan mp;
  try {
    mp = plan_matmul(mm.einsum, buffer(lhs).shape, buffer(lhs).sharding, buffer(rhs).shape, buffer(rhs).sharding,
                     buffer(lhs).dtype, mesh(), required);
  } catch (const Error& e) {
    fail(op, e.what());
  }
  planned.matmul_case = mp.matmul_case;
  const Loop loop = wants_collective_matmul(op, mm, mp);
  std::vector<PlannedCollective> on_lhs, on_rhs;
  if (loop != Loop::gather)
    for (const auto& pc : mp.before)
      (pc.operand == PlannedCollective::Operand::lhs ? on_lhs : on_rhs).push_back(pc);
  const int lhs_ready = collectives(op, planned, on_lhs, lhs, -1);
  const int rhs_ready = collectives(op, planned, on_rhs, rhs, -1);

  std::vector<std::string> out_labels;
  for (const char label : mm.einsum.out)
    out_labels.emplace_back(1, label);
  const int product = mp.after.empty() || loop == Loop::scatter
                          ? result_buffer(op, planned, mp.out, out_labels)
                          : add_buffer(PlannedBuffer::Role::temporary, op.out,
                                       op.out + (mp.local_out.unreduced.empty() ? " local product" : " partial sums"),
                                       op.out_shape, op.out_dtype, mp.local_out, out_labels, planned.index);
  const ChipModel& chip = spec_.hardware.spec.chip;
  MatmulRoofline roofline;
  const DType in = buffer(lhs).dtype;
  try {
    roofline = matmul_roofline(chip, static_cast<std::int64_t>(std::max<std::uint64_t>(mp.m, 1)),
                               static_cast<std::int64_t>(std::max<std::uint64_t>(mp.k, 1)),
                               static_cast<std::int64_t>(std::max<std::uint64_t>(mp.n, 1)), in, op.out_dtype,
                               buffer(rhs).dtype, static_cast<std::int64_t>(std::max<std::uint64_t>(mp.batch, 1)),
                               mm.compute_dtype);
  } catch (const MissingFigureError& e) {
    fail(op, std::string(e.what()) + "; a scenario can add one under hardware overrides, " + e.figure());
  } catch (const Error& e) {
    fail(op, e.what());
  }
  PlannedStep compute;
  compute.kind = StepKind::compute;
  compute.reads = {lhs_ready, rhs_ready};
  compute.writes = product;
  compute.flops = mp.local_flops;
  compute.book.time_s = roofline.time_s;
  compute.compute_s = roofline.compute_time_s;
  compute.memory_s = roofline.memory_time_s;
  compute.hbm_bytes = static_cast<double>(roofline.bytes);
  compute.bound = roofline.bound;
  planned.flops = mp.local_flops;
  planned.compute_time_s = roofline.time_s;
  if (loop == Loop::gather)
    gather_loop(op, mm, mp, planned, compute);
  else if (loop == Loop::scatter)
    scatter_loop(op, mm, mp, planned, compute);
  else
    push(planned, std::move(compute));
  if (mp.after.empty() || loop == Loop::scatter) {
    planned.output = product;
  } else {
    planned.output = result_buffer(op, planned, mp.out, out_labels);
    collectives(op, planned, mp.after, product, planned.output);
  }
  note_working_set(planned);
}

bool OpPlanner::loopable(const PlannedCollective& pc, CollectiveKind kind) {
  return pc.kind == kind && pc.axes.size() == 1 && !pc.axes.front().is_sub_axis();
}

OpPlanner::Loop OpPlanner::wants_collective_matmul(const ScenarioOp& op, const MatmulOp& mm,
                                                   const MatmulPlan& mp) const {
  if (!mm.collective_matmul && !(plan_ && plan_->collective_matmul)) return Loop::none;
  if (mp.before.size() == 1 && loopable(mp.before.front(), CollectiveKind::all_gather)) return Loop::gather;
  if (mp.before.empty() && mp.after.size() == 1 && loopable(mp.after.front(), CollectiveKind::reduce_scatter))
    return Loop::scatter;
  std::vector<std::string> found;
  bool relevant = false;
  for (const auto& list : {&mp.before, &mp.after})
    for (const auto& pc : *list) {
      found.push_back(std::string(collective_kind_name(pc.kind)) + " of " +
                      (list == &mp.before ? std::string(operand_name(pc.operand)) : std::string("the result")) +
                      " over " + join(axis_names(pc.axes), ","));
      relevant |= (list == &mp.before && pc.kind == CollectiveKind::all_gather) ||
                  (list == &mp.after && pc.kind == CollectiveKind::reduce_scatter);
    }
  if (!mm.collective_matmul && !relevant) return Loop::none;
  fail(op,
       "collective_matmul: the matmul must all-gather one operand, or reduce-scatter its result, over one mesh axis "
       "(not a sub-axis) and run no other collective, got: " +
           (found.empty() ? std::string("no collective") : join(found, "; ")));
}

OpPlanner::Ring OpPlanner::ring_of(const std::string& axis) const {
  const AxisGroups& groups = groups_of(axis);
  Ring ring;
  ring.size = static_cast<int>(groups.groups.front().size());
  const int n = ring.size;
  const auto to_of = [n](const std::vector<ChipId>& group, int j) {
    return group[static_cast<std::size_t>((j - 1 + n) % n)];
  };
  const std::vector<ChipId>& first = groups.groups.front();
  for (int j = 0; j < n; ++j)
    ring.hops = std::max(
        ring.hops, static_cast<int>(hop_count(topology_.slice, first[static_cast<std::size_t>(j)], to_of(first, j))));
  if (!topology_.book_only)
    for (const auto& group : groups.groups) {
      auto& sends = ring.sends.emplace_back();
      for (int j = 0; j < n; ++j)
        sends.emplace_back(group[static_cast<std::size_t>(j)], to_of(group, j));
    }
  return ring;
}

PlannedStep OpPlanner::hop_step(const ScenarioOp& op, const Ring& ring, std::uint64_t bytes,
                                const PlannedBuffer& of) const {
  PlannedStep hop;
  hop.kind = StepKind::permute;
  hop.bytes = bytes;
  hop.tensor = of.tensor;
  hop.dtype = of.dtype;
  hop.in_loop = true;
  hop.sends = ring.sends;
  try {
    hop.book = book_point_to_point(bytes, ring.hops, 1, ici().bandwidth_Bps, ici().hop_latency_s);
  } catch (const Error& e) {
    fail(op, e.what());
  }
  hop.bound = hop.book.bound;
  return hop;
}

MatmulRoofline OpPlanner::block_roofline(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, char label,
                                         int n, DType in) const {
  std::uint64_t m = std::max<std::uint64_t>(mp.m, 1), k = std::max<std::uint64_t>(mp.k, 1),
                cols = std::max<std::uint64_t>(mp.n, 1);
  const auto block = [n](std::uint64_t size) {
    return std::max<std::uint64_t>((size + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n), 1);
  };
  if (mm.einsum.out.find(label) == std::string::npos)
    k = block(k);
  else if (mm.einsum.lhs.find(label) != std::string::npos)
    m = block(m);
  else
    cols = block(cols);
  try {
    return matmul_roofline(spec_.hardware.spec.chip, static_cast<std::int64_t>(m), static_cast<std::int64_t>(k),
                           static_cast<std::int64_t>(cols), in, op.out_dtype, in, 1, mm.compute_dtype);
  } catch (const Error& e) {
    fail(op, e.what());
  }
}

PlannedStep OpPlanner::block_step(const PlannedStep& whole, const MatmulRoofline& roofline, int n) const {
  PlannedStep compute;
  compute.kind = StepKind::compute;
  compute.flops = whole.flops / n;
  compute.book.time_s = roofline.time_s;
  compute.compute_s = roofline.compute_time_s;
  compute.memory_s = roofline.memory_time_s;
  compute.hbm_bytes = static_cast<double>(roofline.bytes);
  compute.bound = roofline.bound;
  compute.in_loop = true;
  return compute;
}

void OpPlanner::gather_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
                            const PlannedStep& whole) {
  require_links(op);
  const PlannedCollective& pc = mp.before.front();
  const bool on_lhs = pc.operand == PlannedCollective::Operand::lhs;
  const int operand = on_lhs ? whole.reads[0] : whole.reads[1];
  const int other = on_lhs ? whole.reads[1] : whole.reads[0];
  const PlannedBuffer in = buffer(operand);  // copies: add_buffer below grows the buffer list
  const PlannedBuffer product = buffer(whole.writes);
  const Ring ring = ring_of(pc.axes.front().name);
  const int n = ring.size;
  CollectiveMatmulLoop loop = loop_over(pc, in, whole.writes, n, ring.hops);
  loop.operand_buffer = operand;
  const PlannedStep hop = hop_step(op, ring, loop.block_bytes, in);
  const char label = (on_lhs ? mm.einsum.lhs : mm.einsum.rhs)[static_cast<std::size_t>(pc.dim)];
  const MatmulRoofline roofline = block_roofline(op, mm, mp, label, n, in.dtype);
  loop.step_compute_s = roofline.time_s;
  loop.step_transfer_s = hop.book.time_s;
  loop.book_time_s = std::max(n * loop.step_compute_s, loop.step_compute_s + (n - 1) * loop.step_transfer_s);
  int block_buffer = operand, sum = -1;
  for (int i = 0; i < n; ++i) {
    int next = -1;
    if (i + 1 < n) {
      next =
          add_buffer(PlannedBuffer::Role::temporary, in.tensor,
                     in.tensor + " block " + std::to_string(i + 2) + " of " + std::to_string(n) + " over " + loop.axis,
                     in.shape, in.dtype, in.sharding, in.labels, planned.index);
      PlannedStep step = hop;
      step.reads = {block_buffer};
      step.writes = next;
      push(planned, std::move(step));
    }
    PlannedStep compute = block_step(whole, roofline, n);
    compute.reads = on_lhs ? std::vector<int>{block_buffer, other} : std::vector<int>{other, block_buffer};
    if (sum >= 0) compute.reads.push_back(sum);
    compute.writes =
        i + 1 < n
            ? add_buffer(PlannedBuffer::Role::temporary, product.tensor,
                         product.tensor + " after " + std::to_string(i + 1) + " of " + std::to_string(n) + " blocks",
                         product.shape, product.dtype, product.sharding, product.labels, planned.index)
            : whole.writes;
    sum = compute.writes;
    push(planned, std::move(compute));
    block_buffer = next;
  }
  planned.collective_matmul = std::move(loop);
}

void OpPlanner::scatter_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
                             const PlannedStep& whole) {
  require_links(op);
  const PlannedCollective& pc = mp.after.front();
  const PlannedBuffer out = buffer(whole.writes);  // copies: add_buffer below grows the buffer list
  const Ring ring = ring_of(pc.axes.front().name);
  const int n = ring.size;
  CollectiveMatmulLoop loop = loop_over(pc, out, whole.writes, n, ring.hops);
  const PlannedStep hop = hop_step(op, ring, loop.block_bytes, out);
  const MatmulRoofline roofline =
      block_roofline(op, mm, mp, mm.einsum.out[static_cast<std::size_t>(pc.dim)], n, buffer(whole.reads[0]).dtype);
  loop.step_compute_s = roofline.time_s;
  loop.step_transfer_s = hop.book.time_s;
  loop.step_add_s = static_cast<double>(loop.block_bytes) * spec_.hardware.spec.chip.reduction_s_per_byte(out.dtype);
  loop.book_time_s = std::max(n * loop.step_compute_s + loop.step_add_s,
                              loop.step_compute_s + (n - 1) * (loop.step_transfer_s + loop.step_add_s));
  const auto temporary = [&](const std::string& what) {
    return add_buffer(PlannedBuffer::Role::temporary, out.tensor, what, out.shape, out.dtype, out.sharding, out.labels,
                      planned.index);
  };
  const std::string of_n = " of " + std::to_string(n);
  int previous_block = -1, to_send = -1;
  for (int i = 0; i < n; ++i) {
    // The block's matmul follows the previous block's on the chip (it reads it, for the order only).
    PlannedStep compute = block_step(whole, roofline, n);
    compute.reads = whole.reads;
    if (previous_block >= 0) compute.reads.push_back(previous_block);
    const int block = temporary(out.tensor + " block " + std::to_string(i + 1) + of_n + " partial sums");
    compute.writes = block;
    push(planned, std::move(compute));
    previous_block = block;
    int sum = block;
    if (i > 0) {
      PlannedStep add;
      add.kind = StepKind::compute;
      add.reads = {block, to_send};
      add.writes = i + 1 < n ? temporary(out.tensor + " block sum " + std::to_string(i + 1) + of_n) : whole.writes;
      add.book.time_s = loop.step_add_s;
      add.bound = Bound::memory;
      add.in_loop = true;
      sum = add.writes;
      push(planned, std::move(add));
    }
    if (i + 1 < n) {
      PlannedStep step = hop;
      step.reads = {sum};
      step.writes = temporary(out.tensor + " received sum " + std::to_string(i + 1) + of_n);
      to_send = step.writes;
      push(planned, std::move(step));
    }
  }
  planned.collective_matmul = std::move(loop);
}
}  // namespace podsim
