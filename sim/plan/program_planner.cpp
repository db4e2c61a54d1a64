// Scenario plan -> planned program, op by op: every decision once, with its closed form and its buffers. Here the
// program's walk, its buffers and the simple ops; collectives and matmuls in op_planner_collectives.cpp and
// op_planner_matmul.cpp.
#include "sim/plan/program_planner.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/cost/point_to_point.hpp"
#include "models/hardware/roofline.hpp"
#include "models/sharding/layout.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/routing.hpp"
#include "sim/plan/op_planner.hpp"

namespace podsim {
namespace {

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

}  // namespace

PlannedProgram OpPlanner::run() {
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

int OpPlanner::add_buffer(PlannedBuffer::Role role, std::string tensor, std::string what, Shape shape, DType dtype,
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

void OpPlanner::push(PlannedOp& op, PlannedStep step) {
  const int index = static_cast<int>(op.steps.size());
  for (const int b : step.reads) {
    const PlannedBuffer& read = buffer(b);
    // A view's reads keep the version of the tensor it holds alive (the verifier made sure one is written).
    mark_read(read.view_of.empty() ? b : current_.at(read.view_of), op.index, index);
  }
  if (step.writes >= 0) program_.buffers[static_cast<std::size_t>(step.writes)].step = index;
  op.steps.push_back(std::move(step));
}

void OpPlanner::mark_read(int b, int op, int step) {
  PlannedBuffer& read = program_.buffers[static_cast<std::size_t>(b)];
  if (read.role == PlannedBuffer::Role::declared && !read.transient) return;
  if (read.transient && read.op < 0) {
    read.op = op;
    read.step = step;
  }
  read.last_op = op;
  read.last_step = step;
}

int OpPlanner::result_buffer(const ScenarioOp& op, const PlannedOp& planned, TensorSharding sharding,
                             std::vector<std::string> labels) {
  return add_buffer(PlannedBuffer::Role::result, op.out, op.out, op.out_shape, op.out_dtype, std::move(sharding),
                    std::move(labels), planned.index);
}

std::vector<std::string> OpPlanner::input_labels(const ScenarioOp& op) const {
  if (op.inputs.empty()) return {};
  return buffer(current_.at(op.inputs.front())).labels;
}

void OpPlanner::plan(const ScenarioOp&, const LoadOp&, PlannedOp& planned) {
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

void OpPlanner::plan(const ScenarioOp& op, const SendOp& send, PlannedOp& planned) {
  require_links(op);
  PlannedStep step;
  step.kind = StepKind::transfer;
  if (send.tensor) step.reads = {planned.inputs.front()};
  step.bytes = send.bytes ? *send.bytes : buffer(planned.inputs.front()).bytes_per_chip;
  step.from = static_cast<ChipId>(send.from);
  step.to = static_cast<ChipId>(send.to);
  const auto hops = hop_count(topology_.slice, step.from, step.to);
  try {
    // Under split_minimal the bytes leave through one port per dim the chips differ in (route_policy.hpp).
    const int ports = route_ports(topology_.slice, step.from, step.to, spec_.options.routing);
    step.book =
        book_point_to_point(step.bytes, static_cast<int>(hops), ports, ici().bandwidth_Bps, ici().hop_latency_s);
  } catch (const Error& e) {
    fail(op, e.what());
  }
  step.bound = step.book.bound;
  push(planned, std::move(step));
}

void OpPlanner::plan(const ScenarioOp& op, const ElementwiseOp& e, PlannedOp& planned) {
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

void OpPlanner::note_working_set(const PlannedOp& planned) {
  for (const auto& step : planned.steps) {
    if (step.kind != StepKind::compute) continue;
    std::uint64_t bytes = step.writes >= 0 ? buffer(step.writes).bytes_per_chip : 0;
    for (const int b : step.reads)
      bytes += buffer(b).bytes_per_chip;
    program_.vmem_working_set_bytes = std::max(program_.vmem_working_set_bytes, bytes);
  }
}

PlannedProgram plan_program(const ScenarioSpec& spec, const PlanTopology& topology, const ScenarioPlan* plan) {
  return OpPlanner(spec, topology, plan).run();
}

}  // namespace podsim
