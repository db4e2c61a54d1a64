// Partitioned HLO's compute (docs/import.md, "Partitioned HLO"): dots and convolutions as matmuls, fusions as their
// bytes in and out plus the matmuls inside them, other instructions outside fusions as fusions of one.
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
#include "sim/import/dot_dims.hpp"
#include "sim/import/hlo_builder.hpp"

namespace podsim::import::hlo_build {

// A dot at top level (`inner` null) or inside a fusion (`shapes` maps the fused computation's names to shapes).
void Builder::dot(const HloInstruction& ins, const HloInstruction* inner, const std::map<std::string, HloShape>* shapes,
                  const std::vector<std::string>& after_in) {
  const HloInstruction& d = inner ? *inner : ins;
  if (d.operands.size() != 2) fail(d, d.column, "dot %" + d.name + " needs two operands");
  const HloShape lhs = shapes ? shapes->at(d.operands[0]) : values_.at(d.operands[0]).shape;
  const HloShape rhs = shapes ? shapes->at(d.operands[1]) : values_.at(d.operands[1]).shape;
  if (lhs.tuple || rhs.tuple || d.shape.tuple) fail(d, d.column, "dot %" + d.name + " of tuples");
  auto list = [&](const std::string& key) {
    std::vector<std::int64_t> out;
    const auto it = d.attributes.find(key);
    if (it == d.attributes.end()) return out;
    const std::string& text = it->second;
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
      fail_at(d, key, "malformed " + key + ", got: " + text);
    std::size_t i = 1;
    while (i + 1 < text.size()) {
      std::size_t used = 0;
      try {
        out.push_back(std::stoll(text.substr(i, text.size() - 1 - i), &used));
      } catch (const std::exception&) {
        fail_at(d, key, "malformed " + key + ", got: " + text);
      }
      i += used;
      while (i + 1 < text.size() && (text[i] == ',' || text[i] == ' '))
        ++i;
    }
    return out;
  };
  const auto lb = list("lhs_batch_dims"), rb = list("rhs_batch_dims");
  const auto lc = list("lhs_contracting_dims"), rc = list("rhs_contracting_dims");
  if (lhs.dims.size() + rhs.dims.size() > 26) fail(d, d.column, "dot %" + d.name + " has more than 26 dims");
  DotDims dims(lhs.dims, rhs.dims);
  for (const auto& [l, r, role, key] : {std::tuple{&lb, &rb, DotRole::batch, "rhs_batch_dims"},
                                        std::tuple{&lc, &rc, DotRole::contracting, "rhs_contracting_dims"}})
    switch (dims.pair(*l, *r, role)) {
      case DotDimsProblem::none:
        break;
      case DotDimsProblem::lengths_differ:
        fail_at(d, key, "dot %" + d.name + ": lhs and rhs " + std::string(key).substr(4) + " differ in length");
      case DotDimsProblem::out_of_range_or_repeated:
        fail_at(d, key, "dot %" + d.name + ": dimension out of range or repeated");
      case DotDimsProblem::sizes_differ:
        fail_at(d, key, "dot %" + d.name + ": paired dims differ in size");
    }
  const Einsum einsum = dims.einsum();
  const std::vector<std::int64_t> computed = dims.result_shape();
  if (computed != d.shape.dims)
    fail(d, d.column,
         "dot %" + d.name + ": the result " + array_text(d.shape.element, d.shape.dims) +
             " does not match the operands' dims, which give " + format_shape(computed));
  std::vector<std::string> after = after_in;
  std::string lt, rt;
  const std::string name = new_op(inner ? ins.name + "." + d.name : d.name);
  if (inner) {
    auto direct = [&](const std::string& op, const HloShape& shape, const std::string& hint) {
      const auto it = fused_params_.find(op);
      if (it != fused_params_.end() && it->second->replicated() && it->second->shape.dims == shape.dims &&
          it->second->shape.element == shape.element)
        return it->second->tensor;
      return declare(d, hint, shape, "", StandIn{it != fused_params_.end() ? it->second->held_by() : ""});
    };
    lt = direct(d.operands[0], lhs, name + "_lhs");
    rt = direct(d.operands[1], rhs, name + "_rhs");
  } else {
    lt = readable(d, values_.at(d.operands[0]), name + "_lhs", after);
    rt = readable(d, values_.at(d.operands[1]), name + "_rhs", after);
  }
  const std::string out = new_tensor(name);
  bool approximated = false;
  const std::string lhs_dtype = podsim_dtype(lhs.element, approximated);
  compute_dtype(lhs_dtype);
  push(matmul_op(name, lt, rt, to_string(einsum), out), after);
  if (inner) return;
  Value v;
  v.shape = d.shape;
  v.deps = {name};
  if (podsim_dtype(d.shape.element, approximated) == lhs_dtype)
    v.tensor = out;
  else
    v.holder = out;
  if (v.tensor.empty())
    note(d, "the matmul's result takes the lhs's dtype " + lhs_dtype + " in podsim, the module's is " +
                d.shape.element + "; the result's readers take a stand-in of the module's type");
  values_[d.name] = v;
}

// A convolution read as a matmul with its FLOPs: [M, K] x [K, N], M the result's elements per output feature, K the
// kernel's spatial size times its input features, N the output features.
void Builder::convolution(const HloInstruction& ins, const std::map<std::string, HloShape>* shapes,
                          const std::vector<std::string>& after_in) {
  const HloInstruction& c = ins;
  if (c.operands.size() != 2) fail(c, c.column, "convolution %" + c.name + " needs two operands");
  const HloShape lhs = shapes ? shapes->at(c.operands[0]) : values_.at(c.operands[0]).shape;
  const HloShape rhs = shapes ? shapes->at(c.operands[1]) : values_.at(c.operands[1]).shape;
  const auto it = c.attributes.find("dim_labels");
  if (it == c.attributes.end()) fail(c, c.column, "convolution %" + c.name + " without dim_labels");
  const std::string& labels = it->second;
  const std::size_t us = labels.find('_'), arrow = labels.find("->");
  if (us == std::string::npos || arrow == std::string::npos || arrow < us)
    fail_at(c, "dim_labels", "malformed dim_labels, got: " + labels);
  const std::string kernel = labels.substr(us + 1, arrow - us - 1), output = labels.substr(arrow + 2);
  if (lhs.tuple || rhs.tuple || c.shape.tuple || kernel.size() != rhs.dims.size() ||
      output.size() != c.shape.dims.size() || labels.substr(0, us).size() != lhs.dims.size())
    fail_at(c, "dim_labels", "convolution %" + c.name + ": dim_labels " + labels + " do not match the shapes' ranks");
  std::int64_t k = 1, n = 0, m = 1;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (kernel[i] == 'o')
      n = rhs.dims[i];
    else
      k *= rhs.dims[i];  // input features and spatial dims
  }
  for (std::size_t i = 0; i < output.size(); ++i)
    if (output[i] != 'f') m *= c.shape.dims[i];
  std::int64_t fn = 0;
  for (std::size_t i = 0; i < output.size(); ++i)
    if (output[i] == 'f') fn = c.shape.dims[i];
  if (n < 1 || fn != n || kernel.find('i') == std::string::npos)
    fail_at(
        c, "dim_labels",
        "convolution %" + c.name + ": the kernel's output features (o) must equal the result's (f), got: " + labels);
  if (const auto b = c.attributes.find("batch_group_count"); b != c.attributes.end() && b->second != "1")
    note(c, "batch_group_count " + b->second + " is not read");
  if (static_cast<double>(m) * static_cast<double>(k) > 1125899906842624.0 ||
      static_cast<double>(k) * static_cast<double>(n) > 1125899906842624.0)
    fail(c, c.column, "convolution %" + c.name + ": its matmul operands would exceed 2^50 elements");
  const std::string name = new_op(shapes ? ins.name : c.name);
  HloShape ls{false, lhs.element, {m, k}, {}}, rs{false, rhs.element, {k, n}, {}};
  // The stand-in operands are views of the tensors holding the convolution's operands (inside a fusion, of the
  // fusion's operands they are).
  auto held = [&](const std::string& operand) -> std::string {
    if (!shapes) return values_.at(operand).held_by();
    const auto param = fused_params_.find(operand);
    return param == fused_params_.end() ? "" : param->second->held_by();
  };
  const std::string lt = declare(c, name + "_lhs", ls, "", StandIn{held(c.operands[0])});
  const std::string rt = declare(c, name + "_rhs", rs, "", StandIn{held(c.operands[1])});
  bool approximated = false;
  compute_dtype(podsim_dtype(lhs.element, approximated));
  push(matmul_op(name, lt, rt, "MK,KN->MN", new_tensor(name)), after_in);
  note(c, "convolution read as a matmul " + format_shape({m, k}) + " x " + format_shape({k, n}) + " (its " +
              flops_text(2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n)) +
              " FLOPs per device) on stand-in operands");
  if (shapes) return;
  Value v;
  v.shape = c.shape;
  v.deps = {name};
  values_[c.name] = v;
}

// The dots and convolutions of a fused computation (and of the fusions it calls, up to 8 deep), as matmuls; counts
// its arithmetic instructions.
void Builder::fused_products(const HloInstruction& fusion, const std::string& callee, int depth,
                             std::set<std::string>& seen, const std::vector<std::string>& after,
                             std::vector<std::string>& ops, double& flops_per_element) {
  if (depth > 8 || !seen.insert(callee).second) return;
  const HloComputation* comp = nullptr;
  for (const auto& c : module_.computations)
    if (c.name == callee) comp = &c;
  if (!comp) fail_at(fusion, "calls", "fusion %" + fusion.name + " calls an unknown computation %" + callee);
  std::map<std::string, HloShape> shapes;
  fused_params_.clear();
  for (const auto& ins : comp->instructions) {
    shapes[ins.name] = ins.shape;
    std::size_t number = 0;
    const auto [end, ec] = std::from_chars(ins.arguments.data(), ins.arguments.data() + ins.arguments.size(), number);
    if (depth == 0 && ins.opcode == "parameter" && ec == std::errc() && number < fusion.operands.size())
      fused_params_[ins.name] = &values_.at(fusion.operands[number]);
  }
  for (const auto& ins : comp->instructions) {
    if (ins.opcode == "dot") {
      const std::size_t before = program_.ops.size();
      dot(fusion, &ins, &shapes, after);
      ops.push_back(program_.ops[before].name);
    } else if (ins.opcode == "convolution") {
      const std::size_t before = program_.ops.size();
      HloInstruction named = ins;
      named.name = fusion.name + "." + ins.name;
      convolution(named, &shapes, after);
      ops.push_back(program_.ops[before].name);
    } else if (ins.opcode == "fusion") {
      const auto c = ins.attributes.find("calls");
      if (c != ins.attributes.end())
        fused_products(fusion, c->second.substr(c->second[0] == '%' ? 1 : 0), depth + 1, seen, after, ops,
                       flops_per_element);
    } else if (is_arithmetic(ins.opcode)) {
      flops_per_element += 1;
    }
  }
}

void Builder::fusion(const HloInstruction& ins) {
  const auto c = ins.attributes.find("calls");
  if (c == ins.attributes.end()) fail(ins, ins.column, "fusion %" + ins.name + " without calls=");
  std::vector<std::string> after;
  for (std::size_t k = 0; k < ins.operands.size(); ++k)
    for (const auto& d : operand(ins, k).deps)
      after.push_back(d);
  std::vector<std::string> ops;
  double flops = 0;
  std::set<std::string> seen;
  fused_products(ins, c->second.substr(!c->second.empty() && c->second[0] == '%' ? 1 : 0), 0, seen, after, ops, flops);
  memory_op(ins, flops, ops);
}

// An op read by its bytes: an `elementwise` op per array of the result, reading a stand-in of the result's shape
// (podsim counts it read and written: 2 x the result's bytes), plus a `load` of the bytes the operands hold beyond
// the result's. HBM traffic: max(in + out, 2 out) bytes.
void Builder::memory_op(const HloInstruction& ins, double flops_per_element,
                        const std::vector<std::string>& inner_ops) {
  std::vector<std::string> after;
  for (std::size_t k = 0; k < ins.operands.size(); ++k)
    for (const auto& d : operand(ins, k).deps)
      after.push_back(d);
  for (const auto& o : inner_ops)
    after.push_back(o);
  std::vector<const HloShape*> arrays;
  if (ins.shape.tuple)
    for (const auto& e : ins.shape.elements)
      arrays.push_back(&e);
  else
    arrays.push_back(&ins.shape);
  // Each result array is written by an elementwise op reading an operand of its shape and type when there is one.
  std::vector<int> source(arrays.size(), -1);
  std::vector<bool> used(ins.operands.size(), false);
  for (std::size_t k = 0; k < arrays.size(); ++k)
    for (std::size_t j = 0; j < ins.operands.size() && source[k] < 0; ++j) {
      const Value& v = operand(ins, j);
      if (!used[j] && !v.tensor.empty() && !v.shape.tuple && v.shape.dims == arrays[k]->dims &&
          v.shape.element == arrays[k]->element) {
        source[k] = static_cast<int>(j);
        used[j] = true;
      }
    }
  // The other operands are loaded: their tensors, or one stand-in of the bytes of those without.
  std::vector<std::string> elementwise_after = after;
  double missing = 0;
  std::size_t reads = 0;
  auto load = [&](const std::string& tensor) {
    const std::string name = new_op(ins.name + ".read" + std::to_string(reads++));
    ImportedOp read;
    read.kind = ImportedOpKind::load;
    read.name = name;
    read.lhs = tensor;
    push(std::move(read), after);
    elementwise_after.push_back(name);
  };
  for (std::size_t j = 0; j < ins.operands.size(); ++j) {
    if (used[j]) continue;
    const Value& v = operand(ins, j);
    const std::vector<Value> parts = v.shape.tuple ? v.elements : std::vector<Value>{v};
    for (const auto& part : parts) {
      if (!part.tensor.empty())
        load(part.tensor);
      else if (!part.storage.empty())
        load(part.storage);
      else
        missing += bytes_of(ins, part.shape);
    }
  }
  if (missing > 4.0e18) fail(ins, ins.column, ins.opcode + " %" + ins.name + ": its operands exceed 2^62 bytes");
  if (missing >= 1)
    load(declare(ins, ins.name + "_read", HloShape{false, "s8", {static_cast<std::int64_t>(missing + 0.5)}, {}}, "",
                 StandIn{}));
  Value result;
  result.shape = ins.shape;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const HloShape& a = *arrays[k];
    if (a.tuple || a.element == "token")
      fail(ins, ins.column, ins.opcode + " %" + ins.name + ": nested tuple results are not read");
    const std::string name = new_op(arrays.size() > 1 ? ins.name + "." + std::to_string(k) : ins.name);
    Value v;
    v.shape = a;
    std::string input;
    if (source[k] >= 0) {
      const Value& from = operand(ins, static_cast<std::size_t>(source[k]));
      input = from.tensor;
      v.sharding = from.sharding;  // podsim's elementwise keeps its input's layout
      v.global = from.global;
    } else if (const auto view = gather_views_.find(ins.name); view != gather_views_.end() && !ins.shape.tuple) {
      v.global = view->second.first;
      v.sharding = view->second.second;
      input = declare(ins, name + "_in", HloShape{false, a.element, v.global, {}}, v.sharding, StandIn{});
    } else {
      input = declare(ins, name + "_in", a, "", StandIn{});
    }
    const std::string out = new_tensor(name);
    compute_dtype(dtype_of(ins, a));
    ImportedOp op;
    op.kind = ImportedOpKind::elementwise;
    op.name = name;
    op.lhs = input;
    op.flops_per_element = flops_per_element;
    op.out = out;
    push(std::move(op), elementwise_after);
    v.tensor = out;
    v.deps = {name};
    if (ins.shape.tuple)
      result.elements.push_back(v);
    else
      result = v;
  }
  values_[ins.name] = result;
}

}  // namespace podsim::import::hlo_build
