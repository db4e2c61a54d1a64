// Scenario plan -> event graph, op by op, with the book time of each op beside it.
#include "sim/run/plan_lowering.hpp"

#include <algorithm>
#include <map>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/hardware/roofline.hpp"
#include "models/plan/matmul_plan.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/notation.hpp"
#include "models/topology/routing.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/slice_network.hpp"
#include "sim/run/collective_target.hpp"
#include "sim/run/plan_memory.hpp"

namespace podsim {
namespace {

using ChipDeps = std::vector<std::vector<TaskId>>;  // per chip

void join(ChipDeps& into, const ChipDeps& from) {
  for (std::size_t chip = 0; chip < into.size(); ++chip)
    into[chip].insert(into[chip].end(), from[chip].begin(), from[chip].end());
}

struct TensorState {
  LoweredTensor tensor;
  ChipDeps ready;  // per chip, the tasks that produced this version
};

class Lowering {
 public:
  Lowering(const ScenarioSpec& spec, const ScenarioPlatform& platform, const ScenarioPlan* plan)
      : spec_(spec),
        platform_(platform),
        plan_(plan),
        chips_(static_cast<std::size_t>(platform.slice->num_chips())),
        graph_(std::make_shared<EventGraph>()),
        symmetry_(std::make_shared<GraphSymmetry>()) {
    graph_->num_chips = static_cast<std::int32_t>(chips_);
    const auto& ici = spec.hardware.spec.ici;
    w_ = ici.bandwidth_Bps;
    alpha_ = ici.hop_latency_s;
  }

  LoweredPlan run() {
    LoweredPlan out;
    out.run.name = plan_ ? plan_->name : "default";
    out.run.description = plan_ ? plan_->description : spec_.description;
    for (const auto& declared : spec_.tensors) {
      TensorState state;
      state.tensor = {declared.name,
                      declared.shape,
                      declared.dtype,
                      declared.sharding.sharding(),
                      true,
                      -1,
                      declared.sharding.parsed.dim_labels};
      if (plan_)
        for (const auto& [name, sharding] : plan_->shardings)
          if (name == declared.name) {
            state.tensor.sharding = sharding.sharding();
            if (!sharding.parsed.dim_labels.empty()) state.tensor.labels = sharding.parsed.dim_labels;
          }
      state.ready.assign(chips_, {});
      out.tensors.push_back(state.tensor);
      tensors_[declared.name] = std::move(state);
    }
    out.temporary_bytes.assign(spec_.program.size(), 0);
    for (std::size_t i = 0; i < spec_.program.size(); ++i) {
      const ScenarioOp& op = spec_.program[i];
      OpRun run;
      run.name = op.name;
      run.kind = std::string(op_kind_name(op.kind));
      run.pointer = op.pointer;
      run.op_id = static_cast<std::int32_t>(i);
      ChipDeps start = start_of(op);
      ChipDeps end = lower_op(op, run, std::move(start), out);
      op_end_[op.name] = std::move(end);
      out.run.ops.push_back(std::move(run));
    }
    double book = 0;
    for (const auto& op : out.run.ops)
      book += op.book_time_s;
    out.run.book_time_s = book;
    account_memory(spec_, out);
    out.graph = graph_;
    out.symmetry = symmetry_;
    return out;
  }

 private:
  // Errors name the op's place in the file and, when the scenario has plans, the plan that broke the rule.
  [[noreturn]] void fail(const ScenarioOp& op, const std::string& message) const {
    throw InputError(spec_.source_file + ": " + op.pointer, (plan_ ? "plan " + plan_->name + ": " : "") + message);
  }

  const Mesh& mesh() const { return spec_.mesh.mesh; }

  void require_links(const ScenarioOp& op) const {
    if (!(w_ > 0))
      fail(op, "the hardware " + spec_.hardware.spec.name + " has no ICI links, so data cannot move between chips");
  }

  // Each chip's dependencies before `op`: its input tensors and its `after` ops.
  ChipDeps start_of(const ScenarioOp& op) {
    ChipDeps deps(chips_);
    for (const auto& input : op.inputs)
      join(deps, tensors_.at(input).ready);
    for (const auto& name : op.after)
      join(deps, op_end_.at(name));
    return deps;
  }

  TensorState& tensor(const std::string& name) { return tensors_.at(name); }

  std::vector<std::string> axis_names(const ScenarioOp& op, const std::vector<AxisRef>& axes) const {
    std::vector<std::string> names;
    for (const auto& axis : axes) {
      if (axis.is_sub_axis()) fail(op, "collectives over sub-axes are not simulated, got: " + to_string(axis));
      names.push_back(axis.name);
    }
    return names;
  }

  AxisGroups groups_of(const std::string& axis) const {
    AxisGroups groups = axis_groups(*platform_.mapping, *platform_.slice, axis);
    if (!mesh().device_ids.empty()) {
      // Explicit device ids place mesh position p on chip device_ids[p]; such groups are not physical rings.
      std::vector<ChipId> chip_of_position(chips_);
      for (std::size_t p = 0; p < chips_; ++p)
        chip_of_position[static_cast<std::size_t>(platform_.mapping->chip_at_position(static_cast<std::int64_t>(p)))] =
            static_cast<ChipId>(mesh().device_ids[p]);
      for (auto& group : groups.groups)
        for (auto& chip : group)
          chip = chip_of_position[static_cast<std::size_t>(chip)];
      groups.wraparound = false;
    }
    return groups;
  }

  // Appends one collective; returns its book time and records it on the op.
  void collective(const ScenarioOp& op, OpRun& run, ChipDeps& frontier, CollectiveKind kind,
                  const std::vector<AxisRef>& axes, std::uint64_t array_bytes, const std::string& tensor_name,
                  DType dtype, const std::string& reason) {
    const auto names = axis_names(op, axes);
    require_links(op);
    CollectiveRequest request;
    request.op = kind;
    for (const auto& name : names)
      request.axes.push_back(groups_of(name));
    request.array_bytes = array_bytes;
    request.algorithm = spec_.options.algorithm;
    request.multi_axis = spec_.options.multi_axis;
    request.reduce_flops_per_byte = reduce_flops_per_byte(dtype);
    request.op_id = run.op_id;
    Frontier f(static_cast<std::int32_t>(chips_));
    f.per_chip = std::move(frontier);
    try {
      append_collective(*graph_, f, request, symmetry_.get());
    } catch (const Error& e) {
      fail(op, e.what());
    }
    frontier = std::move(f.per_chip);

    CollectiveRun record;
    record.kind = kind;
    record.tensor = tensor_name;
    record.axes = names;
    record.array_bytes = array_bytes;
    for (const auto& axis : axes)
      record.group_size *= axis.size(mesh());
    std::string algorithms;
    for (const auto& groups : request.axes)
      algorithms += (algorithms.empty() ? "" : ",") +
                    std::string(algorithm_name(resolve_algorithm(request.algorithm, kind, groups)));
    record.algorithm = algorithms;
    record.reason = reason;
    const CostBreakdown cost = book_collective_cost(kind, collective_axes(*platform_.slice, *platform_.mapping, names),
                                                    array_bytes, w_, alpha_);
    record.book_time_s = cost.time_s;
    run.book_time_s += cost.time_s;
    note_bound(run, cost.time_s, bound_name(cost.bound));
    run.collectives.push_back(std::move(record));
  }

  // Engine flops per byte reduced: one add per element at the chip's peak for the dtype (the bf16 peak when the
  // preset has none for it), scaled to the engine's host speed.
  double reduce_flops_per_byte(DType dtype) const {
    const auto& peaks = spec_.hardware.spec.chip.peak_flops_by_dtype;
    auto found = peaks.find(dtype);
    if (found == peaks.end()) found = peaks.find(DType::bf16);
    if (found == peaks.end() || !(found->second > 0)) return 0;
    return 8.0 / dtype_bits(dtype) * platform_.chip_flops / found->second;
  }

  // Keeps the name of the largest book-time component of an op as its bound.
  void note_bound(OpRun& run, double time_s, std::string_view bound) {
    if (time_s >= largest_[run.op_id]) {
      largest_[run.op_id] = time_s;
      run.bound = std::string(bound);
    }
  }

  // One compute task per chip lasting `time_s`, after `frontier`.
  void compute(OpRun& run, ChipDeps& frontier, double time_s) {
    PhaseGroups& phase = symmetry_->phases.emplace_back();  // one group per chip
    phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size()));
    for (std::size_t chip = 0; chip < chips_; ++chip) {
      phase.groups.push_back({static_cast<ChipId>(chip)});
      phase.begin.push_back(static_cast<TaskId>(graph_->tasks.size() + 1));
      Task task;
      task.kind = TaskKind::compute;
      task.src_chip = task.dst_chip = static_cast<ChipId>(chip);
      task.flops = time_s * platform_.chip_flops;
      task.deps = std::move(frontier[chip]);
      task.op = run.op_id;
      frontier[chip] = {graph_->add(std::move(task))};
    }
  }

  void planned(const ScenarioOp& op, OpRun& run, ChipDeps& frontier, const std::vector<PlannedCollective>& list,
               const std::string& tensor_name, DType dtype) {
    for (const auto& pc : list)
      collective(op, run, frontier, pc.kind, pc.axes, pc.array_bytes, tensor_name, dtype, pc.reason);
  }

  ChipDeps lower_op(const ScenarioOp& op, OpRun& run, ChipDeps frontier, LoweredPlan& out) {
    std::visit([&](const auto& detail) { lower(op, detail, run, frontier, out); }, op.detail);
    return frontier;
  }

  void write(const ScenarioOp& op, TensorSharding sharding, const ChipDeps& frontier, LoweredPlan& out) {
    TensorState state;
    state.tensor = {
        op.out, op.out_shape, op.out_dtype, std::move(sharding), false, static_cast<int>(&op - spec_.program.data()),
        {}};
    if (const auto* mm = std::get_if<MatmulOp>(&op.detail)) {
      for (const char label : mm->einsum.out)
        state.tensor.labels.emplace_back(1, label);
    } else if (!op.inputs.empty() && tensors_.count(op.inputs.front())) {
      state.tensor.labels = tensors_.at(op.inputs.front()).tensor.labels;
    }
    state.ready = frontier;
    out.tensors.push_back(state.tensor);
    tensors_[op.out] = std::move(state);
  }

  void lower(const ScenarioOp& op, const MatmulOp& mm, OpRun& run, ChipDeps& frontier, LoweredPlan& out) {
    const TensorState& lhs = tensor(mm.lhs);
    const TensorState& rhs = tensor(mm.rhs);
    std::optional<TensorSharding> required;
    if (mm.out_sharding) required = mm.out_sharding->sharding();
    if (plan_)
      for (const auto& [name, sharding] : plan_->out_shardings)
        if (name == op.name) required = sharding.sharding();
    MatmulPlan plan;
    try {
      plan = plan_matmul(mm.einsum, lhs.tensor.shape, lhs.tensor.sharding, rhs.tensor.shape, rhs.tensor.sharding,
                         lhs.tensor.dtype, mesh(), required);
    } catch (const Error& e) {
      fail(op, e.what());
    }
    run.matmul_case = plan.matmul_case;
    // A gathered operand is a temporary copy beside the tensor itself.
    auto local_bytes = [](const std::vector<std::int64_t>& shape, DType dtype) {
      std::uint64_t elements = 1;
      for (const auto dim : shape)
        elements *= static_cast<std::uint64_t>(dim);
      return dtype_bytes(dtype, elements);
    };
    std::uint64_t temporary = 0;
    bool lhs_moved = false, rhs_moved = false;
    for (const auto& pc : plan.before)
      (pc.operand == PlannedCollective::Operand::lhs ? lhs_moved : rhs_moved) = true;
    if (lhs_moved) temporary += local_bytes(plan.local_lhs_shape, lhs.tensor.dtype);
    if (rhs_moved) temporary += local_bytes(plan.local_rhs_shape, rhs.tensor.dtype);
    out.temporary_bytes[static_cast<std::size_t>(run.op_id)] = temporary;
    // Collectives on an operand wait only for that operand; the local matmul waits for both.
    ChipDeps lhs_ready = lhs.ready, rhs_ready = rhs.ready;
    for (const auto& name : op.after) {
      join(lhs_ready, op_end_.at(name));
      join(rhs_ready, op_end_.at(name));
    }
    for (const auto& pc : plan.before) {
      ChipDeps& f = pc.operand == PlannedCollective::Operand::lhs ? lhs_ready : rhs_ready;
      collective(op, run, f, pc.kind, pc.axes, pc.array_bytes,
                 pc.operand == PlannedCollective::Operand::lhs ? mm.lhs : mm.rhs, lhs.tensor.dtype, pc.reason);
    }
    frontier = std::move(lhs_ready);
    join(frontier, rhs_ready);
    const ChipModel& chip = spec_.hardware.spec.chip;
    MatmulRoofline roofline;
    try {
      roofline = matmul_roofline(chip, static_cast<std::int64_t>(std::max<std::uint64_t>(plan.m, 1)),
                                 static_cast<std::int64_t>(std::max<std::uint64_t>(plan.k, 1)),
                                 static_cast<std::int64_t>(std::max<std::uint64_t>(plan.n, 1)), lhs.tensor.dtype,
                                 op.out_dtype);
    } catch (const Error& e) {
      const std::string message = e.what();
      const bool no_peak = message.find("peak FLOP/s") != std::string::npos;
      fail(op, message + (no_peak ? "; a scenario can add one under hardware overrides, chip.peak_flops" : ""));
    }
    run.flops = plan.local_flops;
    run.compute_time_s = roofline.time_s;
    run.book_time_s += roofline.time_s;
    note_bound(run, roofline.time_s, bound_name(roofline.bound));
    compute(run, frontier, roofline.time_s);
    planned(op, run, frontier, plan.after, op.out, op.out_dtype);
    write(op, plan.out, frontier, out);
  }

  void reshard(const ScenarioOp& op, OpRun& run, ChipDeps& frontier, const TensorState& state, const TensorSharding& to,
               LoweredPlan& out) {
    std::vector<PlannedCollective> list;
    try {
      list = plan_resharding(state.tensor.shape, state.tensor.sharding, to, state.tensor.dtype, mesh(),
                             PlannedCollective::Operand::out, "", nullptr);
    } catch (const Error& e) {
      fail(op, e.what());
    }
    planned(op, run, frontier, list, state.tensor.name, state.tensor.dtype);
    write(op, to, frontier, out);
  }

  // An explicit collective is one collective over all its axes, as the book writes AllGather_XY: V is the array
  // a device holds once gathered (all-gather, all-to-all: bytes per device x group) or reduces (the local array).
  void lower(const ScenarioOp& op, const CollectiveOp& c, OpRun& run, ChipDeps& frontier, LoweredPlan& out) {
    const TensorState state = tensor(c.tensor);
    TensorSharding to;
    try {
      to = collective_target(c, state.tensor.sharding,
                             print_readable(state.tensor.sharding, c.tensor, state.tensor.labels));
    } catch (const Error& e) {
      fail(op, e.what());
    }
    std::vector<AxisRef> axes;
    std::uint64_t group = 1;
    for (const auto& name : c.axes) {
      axes.push_back(AxisRef{name, std::nullopt});
      group *= static_cast<std::uint64_t>(mesh().axis_size(name));
    }
    const std::uint64_t local = bytes_per_device(state);
    const bool gathers = c.kind == CollectiveKind::all_gather || c.kind == CollectiveKind::all_to_all;
    collective(op, run, frontier, c.kind, axes, gathers ? local * group : local, c.tensor, state.tensor.dtype, "");
    write(op, to, frontier, out);
  }

  void lower(const ScenarioOp& op, const ReshardOp& r, OpRun& run, ChipDeps& frontier, LoweredPlan& out) {
    const TensorState state = tensor(r.tensor);
    reshard(op, run, frontier, state, r.to.sharding(), out);
  }

  std::uint64_t bytes_per_device(const TensorState& state) const {
    return compute_layout(state.tensor.shape, state.tensor.dtype, state.tensor.sharding, mesh()).bytes_per_device;
  }

  void lower(const ScenarioOp&, const LoadOp& load, OpRun& run, ChipDeps& frontier, LoweredPlan&) {
    const double time =
        hbm_load_time(static_cast<double>(bytes_per_device(tensor(load.tensor))), spec_.hardware.spec.chip);
    run.compute_time_s = time;
    run.book_time_s += time;
    note_bound(run, time, "memory");
    compute(run, frontier, time);
  }

  void lower(const ScenarioOp& op, const SendOp& send, OpRun& run, ChipDeps& frontier, LoweredPlan&) {
    require_links(op);
    const std::uint64_t bytes = send.bytes ? *send.bytes : bytes_per_device(tensor(*send.tensor));
    const auto from = static_cast<std::size_t>(send.from), to = static_cast<std::size_t>(send.to);
    Task task;
    task.kind = TaskKind::transfer;
    task.src_chip = static_cast<ChipId>(from);
    task.dst_chip = static_cast<ChipId>(to);
    task.bytes = bytes;
    task.deps = std::move(frontier[from]);
    task.op = run.op_id;
    const TaskId id = graph_->add(std::move(task));
    symmetry_->phases.push_back({{{static_cast<ChipId>(from), static_cast<ChipId>(to)}}, {id, id + 1}});
    frontier.assign(chips_, {});
    frontier[from] = {id};
    frontier[to] = {id};
    const auto hops = hop_count(*platform_.slice, static_cast<ChipId>(from), static_cast<ChipId>(to));
    CostBreakdown cost;
    try {
      cost = book_point_to_point(bytes, static_cast<int>(hops), 1, w_, alpha_);
    } catch (const Error& e) {
      fail(op, e.what());
    }
    run.book_time_s += cost.time_s;
    note_bound(run, cost.time_s, bound_name(cost.bound));
  }

  void lower(const ScenarioOp& op, const ElementwiseOp& e, OpRun& run, ChipDeps& frontier, LoweredPlan& out) {
    const TensorState& state = tensor(e.tensor);
    const Layout layout = compute_layout(state.tensor.shape, state.tensor.dtype, state.tensor.sharding, mesh());
    std::uint64_t elements = 1;
    for (const auto dim : layout.local_shape)
      elements *= static_cast<std::uint64_t>(dim);
    const ChipModel& chip = spec_.hardware.spec.chip;
    run.flops = e.flops_per_element * static_cast<double>(elements);
    double peak = 0;
    const auto found = chip.peak_flops_by_dtype.find(state.tensor.dtype);
    if (found != chip.peak_flops_by_dtype.end()) peak = found->second;
    if (peak <= 0) fail(op, "the chip has no peak FLOP/s for " + std::string(dtype_name(state.tensor.dtype)));
    const double compute_s = run.flops / peak;
    const double memory_s = hbm_load_time(2.0 * static_cast<double>(layout.bytes_per_device), chip);  // read + write
    run.compute_time_s = std::max(compute_s, memory_s);
    run.book_time_s += run.compute_time_s;
    note_bound(run, run.compute_time_s, compute_s >= memory_s ? "compute" : "memory");
    compute(run, frontier, run.compute_time_s);
    write(op, state.tensor.sharding, frontier, out);
  }

  const ScenarioSpec& spec_;
  const ScenarioPlatform& platform_;
  const ScenarioPlan* plan_;
  std::size_t chips_;
  std::shared_ptr<EventGraph> graph_;
  std::shared_ptr<GraphSymmetry> symmetry_;
  double w_ = 0, alpha_ = 0;
  std::map<std::string, TensorState> tensors_;
  std::map<std::string, ChipDeps> op_end_;
  std::map<std::int32_t, double> largest_;
};

}  // namespace

ScenarioPlatform build_platform(const ScenarioSpec& spec) {
  ScenarioPlatform platform;
  platform.slice = std::make_shared<Slice>(spec.slice_shape, spec.wraparound);
  try {
    platform.mapping = std::make_shared<MeshMapping>(spec.mesh.mesh, *platform.slice, spec.mesh.axis_dims);
  } catch (const Error& e) {
    throw InputError(spec.source_file + ": /mesh", e.what());
  }
  const HardwareSpec& hw = spec.hardware.spec;
  // The engine's hosts run compute tasks whose flops encode their roofline time: any positive speed works.
  platform.chip_flops = 1e15;
  if (hw.ici.bandwidth_Bps > 0) {
    platform.network = slice_network(*platform.slice, hw.ici.bandwidth_Bps, hw.ici.hop_latency_s, platform.chip_flops);
  } else {
    // No ICI figures (a GPU preset): chips without links; a program that moves data is rejected when lowered.
    platform.network.num_chips = static_cast<std::int32_t>(platform.slice->num_chips());
    platform.network.chip_flops = platform.chip_flops;
    platform.network.route = [](std::int32_t, std::int32_t) { return std::vector<std::int32_t>{}; };
  }
  return platform;
}

LoweredPlan lower_plan(const ScenarioSpec& spec, const ScenarioPlatform& platform, const ScenarioPlan* plan) {
  return Lowering(spec, platform, plan).run();
}

}  // namespace podsim
