// Scenario plan -> planned program, op by op: every decision once, with its closed form and its buffers.
#include "sim/plan/program_planner.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/cost/dcn_cost.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/hardware/roofline.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/notation.hpp"
#include "models/topology/routing.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/plan/collective_target.hpp"

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

// What dominates the op's book time: its steps' book times summed per bound; the on-chip side (compute, memory)
// against the communication side (bandwidth, latency), and within the larger side its largest sum (ties to the bound
// met first). A collective matmul's loop counts as one term of its book time: its compute steps' bound when N blocks'
// compute (and the last add) is the larger side of the loop's formula, else its hops' bound.
std::optional<Bound> op_bound(const PlannedOp& op) {
  std::vector<std::pair<Bound, double>> totals;  // in the order the bounds are met
  const auto add = [&](Bound bound, double time_s) {
    const auto found = std::find_if(totals.begin(), totals.end(), [&](const auto& t) { return t.first == bound; });
    if (found == totals.end())
      totals.emplace_back(bound, time_s);
    else
      found->second += time_s;
  };
  for (const auto& step : op.steps)
    if (!step.in_loop) add(step.bound, step.book.time_s);
  if (op.collective_matmul) {
    const CollectiveMatmulLoop& loop = *op.collective_matmul;
    const bool computing = loop.steps * loop.step_compute_s + loop.step_add_s >= loop.book_time_s;
    const StepKind kind = computing ? StepKind::compute : StepKind::permute;
    const auto step = std::find_if(op.steps.begin(), op.steps.end(),
                                   [&](const PlannedStep& s) { return s.in_loop && s.kind == kind; });
    if (step != op.steps.end()) add(step->bound, loop.book_time_s);
  }
  double chip_s = 0, communication_s = 0;
  for (const auto& [bound, time_s] : totals)
    (on_chip(bound) ? chip_s : communication_s) += time_s;
  const bool chip_side =
      totals.empty() || on_chip(totals.front().first) ? chip_s >= communication_s : chip_s > communication_s;
  std::optional<Bound> bound;
  double largest = -1;
  for (const auto& [candidate, time_s] : totals)
    if (on_chip(candidate) == chip_side && time_s > largest) {
      largest = time_s;
      bound = candidate;
    }
  return bound;
}

class Planner {
 public:
  Planner(const ScenarioSpec& spec, const PlanTopology& topology, const ScenarioPlan* plan)
      : spec_(spec), topology_(topology), plan_(plan) {}

  PlannedProgram run() {
    program_.name = plan_ ? plan_->name : "default";
    program_.description = plan_ ? plan_->description : spec_.description;
    const ChipModel& chip = spec_.hardware.spec.chip;
    program_.hbm_bytes = chip.hbm_bytes;
    program_.vmem_bytes = chip.vmem_bytes_per_core * static_cast<std::uint64_t>(std::max(chip.tensorcores, 1));
    for (const auto& declared : spec_.tensors) {
      TensorSharding sharding = declared.sharding.sharding();
      std::vector<std::string> labels = declared.sharding.parsed.dim_labels;
      if (plan_)
        for (const auto& [name, s] : plan_->shardings)
          if (name == declared.name) {
            sharding = s.sharding();
            if (!s.parsed.dim_labels.empty()) labels = s.parsed.dim_labels;
          }
      current_[declared.name] = add_buffer(PlannedBuffer::Role::declared, declared.name, declared.name, declared.shape,
                                           declared.dtype, std::move(sharding), std::move(labels), -1);
      PlannedBuffer& buffer = program_.buffers.back();
      buffer.view_of = declared.view_of;
      buffer.transient = declared.transient;
    }
    for (std::size_t i = 0; i < spec_.program.size(); ++i) {
      const ScenarioOp& op = spec_.program[i];
      PlannedOp planned;
      planned.index = static_cast<int>(i);
      planned.name = op.name;
      planned.kind = op.kind;
      planned.pointer = op.pointer;
      for (const auto& name : op.after)
        planned.after.push_back(index_of_.at(name));
      for (const auto& input : op.inputs)
        planned.inputs.push_back(current_.at(input));
      std::visit([&](const auto& detail) { plan(op, detail, planned); }, op.detail);
      if (planned.output >= 0) current_[op.out] = planned.output;
      if (planned.collective_matmul) planned.book_time_s = planned.collective_matmul->book_time_s;
      for (const auto& step : planned.steps)
        if (!step.in_loop) planned.book_time_s += step.book.time_s;
      planned.bound = op_bound(planned);
      program_.book_time_s += planned.book_time_s;
      index_of_[op.name] = planned.index;
      program_.ops.push_back(std::move(planned));
    }
    return std::move(program_);
  }

 private:
  [[noreturn]] void fail(const ScenarioOp& op, const std::string& message) const {
    throw InputError(spec_.source_file + ": " + op.pointer, (plan_ ? "plan " + plan_->name + ": " : "") + message);
  }

  const Mesh& mesh() const { return spec_.mesh.mesh; }
  const IciModel& ici() const { return spec_.hardware.spec.ici; }

  int add_buffer(PlannedBuffer::Role role, std::string tensor, std::string what, Shape shape, DType dtype,
                 TensorSharding sharding, std::vector<std::string> labels, int op) {
    PlannedBuffer buffer;
    buffer.role = role;
    buffer.tensor = std::move(tensor);
    buffer.what = std::move(what);
    const Layout layout = compute_layout(shape, dtype, sharding, mesh());
    buffer.shape = std::move(shape);
    buffer.dtype = dtype;
    buffer.sharding = std::move(sharding);
    buffer.labels = std::move(labels);
    buffer.local_shape = layout.local_shape;
    buffer.bytes_per_chip = layout.bytes_per_device;
    buffer.total_bytes = layout.total_bytes;
    buffer.op = op;  // its step is set when the step that creates it is pushed
    program_.buffers.push_back(std::move(buffer));
    return static_cast<int>(program_.buffers.size() - 1);
  }

  // Appends `step` to `op`, recording it as the last reader of what it reads and the creator of what it writes.
  void push(PlannedOp& op, PlannedStep step) {
    const int index = static_cast<int>(op.steps.size());
    for (const int b : step.reads) {
      const PlannedBuffer& read = buffer(b);
      // A view's reads keep the version of the tensor it holds alive (the verifier made sure one is written).
      mark_read(read.view_of.empty() ? b : current_.at(read.view_of), op.index, index);
    }
    if (step.writes >= 0) program_.buffers[static_cast<std::size_t>(step.writes)].step = index;
    op.steps.push_back(std::move(step));
  }

  const PlannedBuffer& buffer(int id) const { return program_.buffers[static_cast<std::size_t>(id)]; }

  // Step `step` of op `op` reads buffer `b`: it is that buffer's last reader so far (and a transient input's first,
  // when none read it before). Declared tensors other than transient ones are the model's state, kept throughout.
  void mark_read(int b, int op, int step) {
    PlannedBuffer& read = program_.buffers[static_cast<std::size_t>(b)];
    if (read.role == PlannedBuffer::Role::declared && !read.transient) return;
    if (read.transient && read.op < 0) {
      read.op = op;
      read.step = step;
    }
    read.last_op = op;
    read.last_step = step;
  }

  void require_links(const ScenarioOp& op) const {
    if (!ici().present())
      fail(op, "the hardware " + spec_.hardware.spec.name + " has no ICI links, so data cannot move between chips");
  }

  // One collective step: `pc` on the buffer `from`, creating the buffer `into`. `run_axes` are the mesh axes in the
  // order the collective runs them (an explicit collective's listed order; else the planner's).
  PlannedStep collective_step(const ScenarioOp& op, const PlannedCollective& pc, std::vector<std::string> run_axes,
                              int from, int into) const {
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

  std::int32_t total_chips() const { return static_cast<std::int32_t>(topology_.slice.num_chips() * topology_.slices); }

  // The book's cost of a collective: over one slice's axes, or hierarchical when an axis runs over the slices.
  CostBreakdown book_cost(const PlannedCollective& pc, const std::vector<std::string>& names) const {
    std::vector<std::string> in_slice;
    for (const auto& name : names)
      if (!(topology_.slices > 1 && name == kSliceAxisName)) in_slice.push_back(name);
    const auto axes = collective_axes(topology_.slice, topology_.mapping, in_slice);
    if (in_slice.size() == names.size())
      return book_collective_cost(pc.kind, axes, pc.array_bytes, ici().bandwidth_Bps, ici().hop_latency_s);
    return book_hierarchical_cost(pc.kind, axes, topology_.slices, pc.array_bytes, ici().bandwidth_Bps,
                                  ici().hop_latency_s, topology_.dcn_bandwidth_Bps, topology_.dcn_latency_s);
  }

  // The groups of a mesh axis, computed and verified once per plan (a slice of 4096 chips has 4096 entries per
  // axis). Throws VerifyError when they do not partition the chips into equal groups.
  const AxisGroups& groups_of(const std::string& axis) const {
    auto found = groups_.find(axis);
    if (found == groups_.end()) {
      CollectiveRequest whole;
      if (topology_.slices > 1) {
        // Several slices: the slice axis, or an in-slice axis (placed on the mesh without the slice axis) repeated
        // in every slice.
        const std::int64_t per_slice = topology_.slice.num_chips();
        whole.axes.push_back(axis == kSliceAxisName
                                 ? slice_axis_groups(per_slice, topology_.slices)
                                 : repeat_over_slices(axis_groups(topology_.mapping, topology_.slice, axis), per_slice,
                                                      topology_.slices));
      } else {
        whole.axes.push_back(axis_groups(topology_.mapping, topology_.slice, mesh(), axis));
      }
      verify_collective(whole, total_chips());
      if (whole.axes.front().groups.empty()) throw VerifyError("axis " + axis + " has no groups");
      found = groups_.emplace(axis, std::move(whole.axes.front())).first;
    }
    return found->second;
  }

  static std::vector<std::string> axis_names(const std::vector<AxisRef>& axes) {
    std::vector<std::string> names;
    for (const auto& axis : axes)
      names.push_back(axis.name);
    return names;
  }

  // Runs `list` on the buffer `from`, each collective creating a buffer; the last one creates `final`
  // (or a temporary when `final` < 0). Returns the buffer the lane ends with.
  int collectives(const ScenarioOp& op, PlannedOp& planned, const std::vector<PlannedCollective>& list, int from,
                  int final) {
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

  int result_buffer(const ScenarioOp& op, const PlannedOp& planned, TensorSharding sharding,
                    std::vector<std::string> labels) {
    return add_buffer(PlannedBuffer::Role::result, op.out, op.out, op.out_shape, op.out_dtype, std::move(sharding),
                      std::move(labels), planned.index);
  }

  std::vector<std::string> input_labels(const ScenarioOp& op) const {
    if (op.inputs.empty()) return {};
    return buffer(current_.at(op.inputs.front())).labels;
  }

  void plan(const ScenarioOp& op, const MatmulOp& mm, PlannedOp& planned) {
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

  enum class Loop { none, gather, scatter };

  static bool loopable(const PlannedCollective& pc, CollectiveKind kind) {
    return pc.kind == kind && pc.axes.size() == 1 && !pc.axes.front().is_sub_axis();
  }

  // Whether the matmul runs as a collective matmul, and which: asked by the op or the plan, it all-gathers exactly
  // one operand over one mesh axis (and nothing else before the matmul), or it gathers nothing and reduce-scatters
  // its result over one mesh axis (and nothing else after). Asked by the op of a matmul that does neither, an error
  // naming the rule; asked by the plan, matmuls that neither gather an operand nor reduce-scatter their result are
  // left as they are, and a gather or scatter it cannot loop over is an error.
  Loop wants_collective_matmul(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp) const {
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

  // The ring of a collective matmul over `axis`: every group's chip at position j sends to position j - 1 (mod N),
  // as the book's loop does; `hops` is the longest such send (a line's wrap pair crosses N - 1 links).
  struct Ring {
    int size = 0;
    int hops = 1;
    std::vector<std::vector<std::pair<ChipId, ChipId>>> sends;
  };

  Ring ring_of(const std::string& axis) const {
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

  // One permute step of the loop: `bytes` per chip, one hop along `ring`.
  PlannedStep hop_step(const ScenarioOp& op, const Ring& ring, std::uint64_t bytes, const PlannedBuffer& of) const {
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

  // The roofline of one block's matmul: the local matmul with `label`'s size divided by N (its k when `label` is
  // contracted, else its m or n).
  MatmulRoofline block_roofline(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, char label, int n,
                                DType in) const {
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

  PlannedStep block_step(const PlannedStep& whole, const MatmulRoofline& roofline, int n) const {
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

  // The matmul's gather and compute as a collective matmul (CollectiveMatmulLoop): `whole` is the compute step the
  // matmul would run after the gather (its reads, its product, its roofline terms).
  void gather_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
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
    CollectiveMatmulLoop loop;
    loop.replaces = pc;
    loop.axis = pc.axes.front().name;
    loop.tensor = in.tensor;
    loop.operand_buffer = operand;
    loop.product_buffer = whole.writes;
    loop.steps = n;
    loop.block_bytes = in.bytes_per_chip;
    loop.hops = ring.hops;
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
        next = add_buffer(
            PlannedBuffer::Role::temporary, in.tensor,
            in.tensor + " block " + std::to_string(i + 2) + " of " + std::to_string(n) + " over " + loop.axis, in.shape,
            in.dtype, in.sharding, in.labels, planned.index);
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

  // The matmul's compute and the reduce-scatter of its result as a collective matmul: step i computes the block of
  // the result that is i + 1 hops from its owner, adds the partial block it received, and passes the sum on; the
  // last step's sum is the chip's own block. `whole` is the compute step the matmul would run before the scatter,
  // here writing the result.
  void scatter_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
                    const PlannedStep& whole) {
    require_links(op);
    const PlannedCollective& pc = mp.after.front();
    const PlannedBuffer out = buffer(whole.writes);  // copies: add_buffer below grows the buffer list
    const Ring ring = ring_of(pc.axes.front().name);
    const int n = ring.size;
    CollectiveMatmulLoop loop;
    loop.replaces = pc;
    loop.axis = pc.axes.front().name;
    loop.tensor = out.tensor;
    loop.product_buffer = whole.writes;
    loop.steps = n;
    loop.block_bytes = out.bytes_per_chip;
    loop.hops = ring.hops;
    const PlannedStep hop = hop_step(op, ring, loop.block_bytes, out);
    const MatmulRoofline roofline =
        block_roofline(op, mm, mp, mm.einsum.out[static_cast<std::size_t>(pc.dim)], n, buffer(whole.reads[0]).dtype);
    loop.step_compute_s = roofline.time_s;
    loop.step_transfer_s = hop.book.time_s;
    loop.step_add_s = static_cast<double>(loop.block_bytes) * spec_.hardware.spec.chip.reduction_s_per_byte(out.dtype);
    loop.book_time_s = std::max(n * loop.step_compute_s + loop.step_add_s,
                                loop.step_compute_s + (n - 1) * (loop.step_transfer_s + loop.step_add_s));
    const auto temporary = [&](const std::string& what) {
      return add_buffer(PlannedBuffer::Role::temporary, out.tensor, what, out.shape, out.dtype, out.sharding,
                        out.labels, planned.index);
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

  // The tensor a reshard leads to, through plan_resharding's collectives (local slices only: a step without
  // communication or time that creates the result).
  void reshard(const ScenarioOp& op, PlannedOp& planned, const TensorSharding& to) {
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

  std::vector<PlannedCollective> resharding(const ScenarioOp& op, const PlannedBuffer& in,
                                            const TensorSharding& to) const {
    try {
      return plan_resharding(in.shape, in.sharding, to, in.dtype, mesh(), PlannedCollective::Operand::out, "", nullptr);
    } catch (const Error& e) {
      fail(op, e.what());
    }
  }

  // An explicit collective is one collective over all its axes in the listed order, as the book writes
  // AllGather_XY: V is the array a device holds once gathered (all-gather, all-to-all: bytes per device x group) or
  // reduces (the local array). On values it is plan_resharding's moves to the same target.
  void plan(const ScenarioOp& op, const CollectiveOp& c, PlannedOp& planned) {
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

  void plan(const ScenarioOp& op, const ReshardOp& r, PlannedOp& planned) { reshard(op, planned, r.to.sharding()); }

  void plan(const ScenarioOp&, const LoadOp&, PlannedOp& planned) {
    const int tensor = planned.inputs.front();
    PlannedStep load;
    load.kind = StepKind::compute;
    load.reads = {tensor};
    load.book.time_s = hbm_load_time(static_cast<double>(buffer(tensor).bytes_per_chip), spec_.hardware.spec.chip);
    load.memory_s = load.book.time_s;
    load.hbm_bytes = static_cast<double>(buffer(tensor).bytes_per_chip);
    load.bound = Bound::memory;
    planned.compute_time_s = load.book.time_s;
    push(planned, std::move(load));
    note_working_set(planned);
  }

  void plan(const ScenarioOp& op, const SendOp& send, PlannedOp& planned) {
    require_links(op);
    PlannedStep step;
    step.kind = StepKind::transfer;
    if (send.tensor) step.reads = {planned.inputs.front()};
    step.bytes = send.bytes ? *send.bytes : buffer(planned.inputs.front()).bytes_per_chip;
    step.from = static_cast<ChipId>(send.from);
    step.to = static_cast<ChipId>(send.to);
    const auto hops = hop_count(topology_.slice, step.from, step.to);
    try {
      step.book = book_point_to_point(step.bytes, static_cast<int>(hops), 1, ici().bandwidth_Bps, ici().hop_latency_s);
    } catch (const Error& e) {
      fail(op, e.what());
    }
    step.bound = step.book.bound;
    push(planned, std::move(step));
  }

  void plan(const ScenarioOp& op, const ElementwiseOp& e, PlannedOp& planned) {
    const int from = planned.inputs.front();
    const PlannedBuffer& in = buffer(from);
    std::uint64_t elements = 1;
    for (const auto dim : in.local_shape)
      elements *= static_cast<std::uint64_t>(dim);
    const ChipModel& chip = spec_.hardware.spec.chip;
    const auto found = chip.peak_flops_by_dtype.find(in.dtype);
    if (found == chip.peak_flops_by_dtype.end() || !(found->second > 0))
      fail(op, "the chip has no peak FLOP/s for " + std::string(dtype_name(in.dtype)));
    PlannedStep step;
    step.kind = StepKind::compute;
    step.reads = {from};
    step.flops = e.flops_per_element * static_cast<double>(elements);
    const double compute_s = step.flops / found->second;
    const double hbm_bytes = e.tensor_passes * static_cast<double>(in.bytes_per_chip);
    const double memory_s = hbm_load_time(hbm_bytes, chip);
    step.book.time_s = std::max(compute_s, memory_s);
    step.compute_s = compute_s;
    step.memory_s = memory_s;
    step.hbm_bytes = hbm_bytes;
    step.attention = e.attention;
    step.attention_context = static_cast<double>(e.attention_context);
    step.bound = compute_s >= memory_s ? Bound::compute : Bound::memory;
    planned.flops = step.flops;
    planned.compute_time_s = step.book.time_s;
    planned.output = result_buffer(op, planned, in.sharding, input_labels(op));
    step.writes = planned.output;
    push(planned, std::move(step));
    note_working_set(planned);
  }

  // The VMEM working set of a compute op: what its compute step reads and writes, per chip.
  void note_working_set(const PlannedOp& planned) {
    for (const auto& step : planned.steps) {
      if (step.kind != StepKind::compute) continue;
      std::uint64_t bytes = step.writes >= 0 ? buffer(step.writes).bytes_per_chip : 0;
      for (const int b : step.reads)
        bytes += buffer(b).bytes_per_chip;
      program_.vmem_working_set_bytes = std::max(program_.vmem_working_set_bytes, bytes);
    }
  }

  const ScenarioSpec& spec_;
  const PlanTopology& topology_;
  const ScenarioPlan* plan_;
  PlannedProgram program_;
  std::map<std::string, int> current_;                // tensor name -> buffer of its current version
  std::map<std::string, int> index_of_;               // op name -> index
  mutable std::map<std::string, AxisGroups> groups_;  // mesh axis -> its groups (groups_of)
};

}  // namespace

PlannedProgram plan_program(const ScenarioSpec& spec, const PlanTopology& topology, const ScenarioPlan* plan) {
  return Planner(spec, topology, plan).run();
}

}  // namespace podsim
