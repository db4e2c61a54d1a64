// Scenario JSON from a partitioned HLO module: see hlo_scenario.hpp. Every HLO value of the ENTRY computation is a
// scenario tensor holding its per-device shape replicated on every chip (podsim's shard of it is then exactly the
// module's shape), or, when an op cannot write such a tensor (a reduce-scatter's result is sharded, a send writes
// nothing), a value without a tensor that its readers replace by a stand-in input ordered after its writers.
#include "sim/import/hlo_scenario.hpp"

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/assumed_peaks.hpp"
#include "sim/import/hlo_builder.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/module_scan.hpp"
#include "sim/import/scenario_writer.hpp"
#include "sim/import/slice_placement.hpp"

namespace podsim::import {

namespace hlo_build {

std::string Builder::dtype_of(const HloInstruction& ins, const HloShape& shape) {
  bool approximated = false;
  const std::string dtype = podsim_dtype(shape.element, approximated);
  if (dtype.empty())
    fail(ins, ins.column,
         "unsupported element type " + shape.element + " of %" + ins.name +
             " (podsim reads bf16, f32, f16, s8, s4, f8e4m3fn, f8e5m2, and pred, u8, u4, s16, u16, "
             "s32, u32 by their size)");
  if (approximated && noted_types_.insert(shape.element).second)
    note(ins, "element type " + shape.element + " read as " + dtype + " (same bytes per element)");
  return dtype;
}

double Builder::bytes_of(const HloInstruction& ins, const HloShape& shape) {
  if (shape.tuple) {
    double sum = 0;
    for (const auto& e : shape.elements)
      sum += bytes_of(ins, e);
    return sum;
  }
  if (shape.element == "token") return 0;
  double n = element_bytes(dtype_of(ins, shape));
  for (const auto d : shape.dims)
    n *= static_cast<double>(d);
  return n;
}

std::string Builder::new_tensor(const std::string& hint) {
  std::string base;
  for (const char c : scoped(hint))
    base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty() || !std::isalpha(static_cast<unsigned char>(base[0]))) base = "t" + base;
  std::string name = base;
  for (int k = 2; tensor_names_.count(name); ++k)
    name = base + "_" + std::to_string(k);
  tensor_names_.insert(name);
  return name;
}

std::string Builder::new_op(const std::string& hint) {
  std::string base;
  for (const char c : scoped(hint))
    base += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  if (base.empty() || !std::isalpha(static_cast<unsigned char>(base[0]))) base = "op_" + base;
  if (base.rfind("op", 0) == 0 && base.size() > 2 &&
      std::all_of(base.begin() + 2, base.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    base = "hlo_" + base;  // never a default name `op<index>`
  std::string name = base;
  for (int k = 2; op_names_.count(name); ++k)
    name = base + "_" + std::to_string(k);
  op_names_.insert(name);
  return name;
}

std::string Builder::declare(const HloInstruction& ins, const std::string& hint, const HloShape& shape,
                             const std::string& sharding, const std::optional<StandIn>& standin) {
  if (shape.tuple || shape.element == "token")
    fail(ins, ins.column, "%" + ins.name + ": expected an array value, got a tuple or token");
  for (const auto d : shape.dims)
    if (d < 1)
      fail(ins, ins.column,
           "%" + ins.name + ": podsim tensors have dims >= 1, got: " + array_text(shape.element, shape.dims));
  const std::string name = new_tensor(hint);
  ImportedTensor t{name, shape.dims, dtype_of(ins, shape), sharding, "", false};
  if (standin && !standin->view_of.empty())
    t.view_of = standin->view_of;
  else if (standin)
    t.transient = true;
  program_.tensors.push_back(std::move(t));  // new_tensor's names are new
  if (standin)
    note(ins, "reads a stand-in input " + name + " (" + array_text(shape.element, shape.dims) +
                  (sharding.empty() ? "" : " " + sharding) + "): " +
                  (standin->view_of.empty()
                       ? "transient, in podsim's memory while its readers run"
                       : "a view of " + standin->view_of + ", whose buffer it holds (no memory of its own)"));
  return name;
}

// The tensor an op reads for value `v`: its own, or a stand-in input of its per-device shape whose writers are
// added to `after`.
std::string Builder::readable(const HloInstruction& ins, const Value& v, const std::string& hint,
                              std::vector<std::string>& after) {
  for (const auto& d : v.deps)
    if (std::find(after.begin(), after.end(), d) == after.end()) after.push_back(d);
  if (v.replicated()) return v.tensor;
  return declare(ins, hint, v.shape, "", StandIn{v.held_by()});
}

const Value& Builder::operand(const HloInstruction& ins, std::size_t k) const {
  if (k >= ins.operands.size())
    fail(ins, ins.column, ins.opcode + " %" + ins.name + " needs at least " + std::to_string(k + 1) + " operand(s)");
  return values_.at(ins.operands[k]);
}

void Builder::push(ImportedOp op, const std::vector<std::string>& after) {
  std::vector<std::string> deps;
  for (const auto& d : after)
    if (std::find(deps.begin(), deps.end(), d) == deps.end()) deps.push_back(d);
  // In a loop body: an op that waits for no op of its iteration waits for the previous iteration to end.
  if (in_iteration_ &&
      std::none_of(deps.begin(), deps.end(), [&](const std::string& d) { return iteration_ops_.count(d) > 0; }))
    for (const auto& d : iteration_after_)
      if (std::find(deps.begin(), deps.end(), d) == deps.end()) deps.push_back(d);
  if (in_iteration_) iteration_ops_.insert(op.name);
  op.after = std::move(deps);
  program_.ops.push_back(std::move(op));
}

// The instructions the builder reads, by opcode: what it makes of each (docs/import.md, "What is read"). A new
// instruction is a handler in its role's file and a row here.
const std::map<std::string, Builder::Handler, std::less<>>& Builder::instruction_table() {
  static const std::map<std::string, Handler, std::less<>> table = [] {
    std::map<std::string, Handler, std::less<>> t;
    t.emplace("call", &Builder::call);
    t.emplace("while", &Builder::loop);
    for (const char* op : {"parameter", "constant", "iota", "partition-id", "replica-id"})
      t.emplace(op, &Builder::input);
    t.emplace("tuple", &Builder::tuple);
    t.emplace("get-tuple-element", &Builder::get_tuple_element);
    for (const char* op : {"bitcast", "reshape", "opt-barrier", "all-gather-done", "all-reduce-done",
                           "collective-permute-done", "after-all"})
      t.emplace(op, &Builder::alias);
    for (const auto& op : collective_opcodes())
      t.emplace(op, &Builder::collective);
    t.emplace("dot", &Builder::top_level_dot);
    t.emplace("convolution", &Builder::top_level_convolution);
    t.emplace("fusion", &Builder::fusion);
    for (const auto& op : arithmetic_opcodes())
      t.emplace(op, &Builder::bytes_only);
    for (const auto& op : data_movement_opcodes())
      t.emplace(op, &Builder::bytes_only);
    return t;
  }();
  return table;
}

void Builder::instruction(const HloInstruction& ins) {
  const std::string& op = ins.opcode;
  if (++walked_ > kMaxInstructions)
    fail(ins, ins.column,
         "%" + ins.name + ": with its loops unrolled and calls inlined the module has more than " +
             std::to_string(kMaxInstructions) + " instructions, which podsim does not simulate one by one");
  const auto it = instruction_table().find(op);
  if (it == instruction_table().end())
    fail(ins, ins.column, "unsupported instruction \"" + op + "\" (%" + ins.name + "): podsim does not simulate it");
  (this->*it->second)(ins);
}

// `parameter`, `constant`, `iota`, `partition-id`, `replica-id`: a tensor (one per array of a tuple parameter).
void Builder::input(const HloInstruction& ins) {
  const std::string& op = ins.opcode;
  Value v;
  v.shape = ins.shape;
  if (ins.shape.tuple) {  // a tuple parameter: one tensor per array element
    for (std::size_t k = 0; k < ins.shape.elements.size(); ++k) {
      Value e;
      e.shape = ins.shape.elements[k];
      if (!e.shape.tuple && e.shape.element != "token")
        e.tensor = declare(ins, ins.name + "_" + std::to_string(k), e.shape);
      v.elements.push_back(e);
    }
  } else if (const auto view = gather_views_.find(ins.name); view != gather_views_.end() && op == "parameter") {
    v.global = view->second.first;
    v.sharding = view->second.second;
    v.tensor = declare(ins, ins.name, HloShape{false, ins.shape.element, v.global, {}}, v.sharding);
  } else if (ins.shape.element != "token") {
    v.tensor = declare(ins, ins.name, ins.shape);
  }
  if (op != "parameter" && op != "constant") note(ins, op + " read as an input tensor (computing it is not simulated)");
  values_[ins.name] = v;
}

// `tuple`: the operands' values, no op.
void Builder::tuple(const HloInstruction& ins) {
  Value v;
  v.shape = ins.shape;
  for (std::size_t k = 0; k < ins.operands.size(); ++k)
    v.elements.push_back(operand(ins, k));
  values_[ins.name] = v;
}

// `get-tuple-element`: the element's value, no op.
void Builder::get_tuple_element(const HloInstruction& ins) {
  const Value& t = operand(ins, 0);
  const auto it = ins.attributes.find("index");
  std::size_t index = 0;
  try {
    index = it == ins.attributes.end() ? t.elements.size() : std::stoul(it->second);
  } catch (const std::exception&) {
    index = t.elements.size();
  }
  if (index >= t.elements.size()) fail_at(ins, "index", "get-tuple-element %" + ins.name + ": no such tuple element");
  values_[ins.name] = t.elements[index];
}

// `bitcast`, `reshape`, `opt-barrier`, the `-done` halves of async collectives, `after-all`: the operand's value (a
// view when the shape changes), no op.
void Builder::alias(const HloInstruction& ins) {
  const std::string& op = ins.opcode;
  Value v = ins.operands.empty() ? Value{} : operand(ins, 0);
  if (op == "after-all") {
    v = Value{};
    for (std::size_t k = 0; k < ins.operands.size(); ++k)
      for (const auto& d : operand(ins, k).deps)
        v.deps.push_back(d);
  }
  if (v.shape.dims != ins.shape.dims || v.shape.element != ins.shape.element || v.shape.tuple != ins.shape.tuple) {
    if (!v.tensor.empty() && bytes_of(ins, v.shape) == bytes_of(ins, ins.shape)) v.storage = v.tensor;
    v.tensor.clear();  // a view of another shape: readers take a stand-in
    if (op == "reshape") note(ins, "reshape read as a view (no data moves); its readers take a stand-in of its shape");
  }
  v.shape = ins.shape;
  values_[ins.name] = v;
}

void Builder::top_level_dot(const HloInstruction& ins) {
  dot(ins, nullptr, nullptr, {});
}

void Builder::top_level_convolution(const HloInstruction& ins) {
  convolution(ins, nullptr, {});
}

// An elementwise or data-movement instruction outside fusions: a fusion of one instruction.
void Builder::bytes_only(const HloInstruction& ins) {
  const bool arithmetic = is_arithmetic(ins.opcode);
  note(ins, "read as its bytes in and out" + std::string(arithmetic ? " and one flop per result element" : ""));
  memory_op(ins, arithmetic ? 1 : 0, {});
}

HloImport Builder::build(const std::string& hardware) {
  devices_ = hlo_device_count(module_);
  if (devices_ > (std::int64_t{1} << 20))
    throw InputError(file_, "the module runs on " + std::to_string(devices_) + " devices; podsim reads at most 2^20");
  if (devices_ > module_.num_partitions * module_.replica_count)
    notes_.push_back({"", "", 0,
                      "the header says " + std::to_string(module_.num_partitions * module_.replica_count) +
                          " device(s) (num_partitions x replica_count), the collectives name " +
                          std::to_string(devices_) + ": the module is read on " + std::to_string(devices_)});
  std::int64_t chips = 1;
  for (const auto d : slice_)
    chips *= d;
  if (chips != devices_)
    throw ImportOptionError(ImportOption::slice, "the module runs on " + std::to_string(devices_) +
                                                     " devices (num_partitions x "
                                                     "replica_count), the slice holds " +
                                                     std::to_string(chips) + " chips, got: " + format_shape(slice_));
  if (slice_.size() > 3) throw ImportOptionError(ImportOption::slice, "at most 3 dims, got: " + format_shape(slice_));
  const HloComputation& entry = module_.computations[static_cast<std::size_t>(module_.entry)];
  std::map<std::string, const HloInstruction*> by_name;
  for (const auto& ins : entry.instructions)
    by_name[ins.name] = &ins;
  for (const auto& ins : entry.instructions) {
    if ((ins.opcode != "all-gather" && ins.opcode != "all-gather-start") || ins.operands.size() != 1) continue;
    const HloInstruction& param = *by_name.at(ins.operands[0]);  // the gathered value's writer
    if (param.shape.tuple || gather_views_.count(param.name)) continue;
    const auto d = collective_dim(ins);
    const auto dims = slice_dims_of_groups(ins.replica_groups, slice_);
    const HloShape& res = gather_result(ins);
    if (!d || !dims || dims->empty() || res.tuple || res.dims.size() != param.shape.dims.size() ||
        *d >= static_cast<std::int64_t>(res.dims.size()))
      continue;
    auto gathered = param.shape.dims;
    gathered[static_cast<std::size_t>(*d)] =
        times(gathered[static_cast<std::size_t>(*d)],
              ins.replica_groups.empty() ? devices_ : static_cast<std::int64_t>(ins.replica_groups.front().size()));
    if (gathered != res.dims) continue;
    std::vector<std::string> axes;
    for (const int a : *dims)
      axes.emplace_back(kAxisNames[a]);
    gather_views_[param.name] = {res.dims, dim_sharding(res.dims.size(), static_cast<std::size_t>(*d), axes)};
  }
  for (const auto& ins : entry.instructions)
    instruction(ins);

  ScenarioFrame frame;
  frame.file = file_;
  frame.format = ImportFormat::hlo_partitioned;
  frame.hardware = hardware;
  frame.slice = slice_;
  frame.assumed_peaks = assumed_peaks(hardware, compute_dtypes_, peak_flops_);
  for (const auto& peak : frame.assumed_peaks)
    notes_.push_back({"", "", 0, assumed_peak_note(peak.dtype)});
  frame.description = "Imported by podsim import from " + file_ + " (partitioned HLO module " + module_.name +
                      ", docs/import.md): " + std::to_string(notes_.size()) + " approximations (see source).";
  for (const auto& n : notes_)
    frame.approximations.push_back(
        {n.line > 0 ? n.opcode + " %" + n.name : "HloModule " + module_.name, n.line, n.how});
  program_.mesh_name = "mesh";  // one axis per slice dim
  for (std::size_t d = 0; d < slice_.size(); ++d) {
    program_.axes.emplace_back(kAxisNames[d], slice_[d]);
    frame.axis_dims.push_back({static_cast<int>(d)});
  }
  HloImport out;
  out.scenario = scenario_json(program_, frame);
  out.notes = notes_;
  return out;
}

}  // namespace hlo_build

HloImport scenario_from_hlo(const HloModule& module, const std::string& file, const std::string& hardware,
                            const std::vector<std::int64_t>& slice, const std::map<std::string, double>& peak_flops) {
  return hlo_build::Builder(module, file, slice, peak_flops).build(hardware);
}

}  // namespace podsim::import
