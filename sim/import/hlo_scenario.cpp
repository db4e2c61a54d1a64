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
namespace {

// Ops read as arithmetic: one flop per element of the result each (at top level, or counted in a fusion).
const std::set<std::string> kArithmetic = {"add",
                                           "subtract",
                                           "multiply",
                                           "divide",
                                           "maximum",
                                           "minimum",
                                           "power",
                                           "remainder",
                                           "exponential",
                                           "exponential-minus-one",
                                           "log",
                                           "log-plus-one",
                                           "tanh",
                                           "logistic",
                                           "sqrt",
                                           "rsqrt",
                                           "cbrt",
                                           "sine",
                                           "cosine",
                                           "tan",
                                           "negate",
                                           "abs",
                                           "sign",
                                           "floor",
                                           "ceil",
                                           "round-nearest-afz",
                                           "round-nearest-even",
                                           "compare",
                                           "select",
                                           "and",
                                           "or",
                                           "xor",
                                           "not",
                                           "clamp",
                                           "atan2",
                                           "erf",
                                           "reduce",
                                           "reduce-window",
                                           "is-finite",
                                           "shift-left",
                                           "shift-right-logical",
                                           "shift-right-arithmetic",
                                           "popcnt"};
// Ops read as data movement: bytes in and out, no flops.
const std::set<std::string> kDataMovement = {"copy",
                                             "transpose",
                                             "convert",
                                             "broadcast",
                                             "slice",
                                             "concatenate",
                                             "pad",
                                             "dynamic-slice",
                                             "dynamic-update-slice",
                                             "reverse",
                                             "gather",
                                             "scatter",
                                             "select-and-scatter",
                                             "sort",
                                             "reduce-precision",
                                             "bitcast-convert"};
const std::set<std::string> kCollectives = {
    "all-gather",       "all-reduce",       "reduce-scatter",     "all-to-all",
    "all-gather-start", "all-reduce-start", "collective-permute", "collective-permute-start"};

// podsim's dtype for an HLO element type (module_scan.hpp's table); `approximated` says when only the byte size is
// kept. Empty: refused.
std::string podsim_dtype(const std::string& element, bool& approximated) {
  const auto type = scan::element_type(scan::Dialect::hlo, element);
  approximated = !type.exact;
  return type.dtype;
}

// Bytes per element of a podsim dtype name (0.5 for int4), from models/common/dtype.
double element_bytes(const std::string& dtype) {
  return dtype_bits(parse_dtype(dtype)) / 8.0;
}

std::string groups_text(const std::vector<std::vector<std::int64_t>>& groups) {
  std::string out = "{";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += g ? ",{" : "{";
    for (std::size_t k = 0; k < groups[g].size(); ++k)
      out += (k ? "," : "") + std::to_string(groups[g][k]);
    out += "}";
    if (out.size() > 200) return out + ",...}";
  }
  return out + "}";
}

std::string array_text(const std::string& element, const std::vector<std::int64_t>& dims) {
  std::string out = element + "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

const char* kAxisNames[] = {"X", "Y", "Z"};

ImportedOp matmul_op(const std::string& name, const std::string& lhs, const std::string& rhs, const std::string& einsum,
                     const std::string& out) {
  ImportedOp op;
  op.kind = ImportedOpKind::matmul;
  op.name = name;
  op.lhs = lhs;
  op.rhs = rhs;
  op.einsum = einsum;
  op.out = out;
  return op;
}

// a x b for a dim and a group size (both >= 0); -1 (no dim's size) when it overflows.
std::int64_t times(std::int64_t a, std::int64_t b) {
  if (b != 0 && a > std::numeric_limits<std::int64_t>::max() / b) return -1;
  return a * b;
}

// A count of FLOPs, without a fraction.
std::string flops_text(double flops) {
  std::ostringstream out;
  out << std::setprecision(15) << flops;
  return out.str();
}

std::string axes_list(const std::vector<std::string>& axes) {
  std::string list;
  for (const auto& a : axes)
    list += (list.empty() ? "\"" : ", \"") + a + "\"";
  return list;
}

// `<@mesh, [{}, {"X", "Y"}, {}]>`: dim `sharded` of a rank-`rank` tensor over `axes`.
std::string dim_sharding(std::size_t rank, std::size_t sharded, const std::vector<std::string>& axes) {
  std::string s = "<@mesh, [";
  for (std::size_t i = 0; i < rank; ++i)
    s += std::string(i ? ", " : "") + (i == sharded ? "{" + axes_list(axes) + "}" : "{}");
  return s + "]>";
}

// `<@mesh, [{}, {}], unreduced={"X"}>`.
std::string unreduced_sharding(std::size_t rank, const std::vector<std::string>& axes) {
  std::string s = "<@mesh, [";
  for (std::size_t i = 0; i < rank; ++i)
    s += i ? ", {}" : "{}";
  return s + "], unreduced={" + axes_list(axes) + "}>";
}

// The one dim of a collective's `dimensions={D}`; nullopt when absent or not one integer.
std::optional<std::int64_t> collective_dim(const HloInstruction& ins) {
  const auto it = ins.attributes.find("dimensions");
  if (it == ins.attributes.end()) return std::nullopt;
  const std::string& text = it->second;
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return std::nullopt;
  std::int64_t v = 0;
  const char* b = text.data() + 1;
  const char* e = text.data() + text.size() - 1;
  const auto [end, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || end != e || v < 0) return std::nullopt;
  return v;
}

// The result shape of an all-gather(-start) of one operand.
const HloShape& gather_result(const HloInstruction& ins) {
  if (ins.opcode == "all-gather-start" && ins.shape.tuple && ins.shape.elements.size() >= 2)
    return ins.shape.elements[1];
  return ins.shape;
}

}  // namespace

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
  tensors_.push_back(std::move(t));  // new_tensor's names are new
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
  program_.push_back(std::move(op));
}

// The mesh axes of a collective's replica groups, refused with the groups named when they are not lines or planes.
std::vector<std::string> Builder::axes_of(const HloInstruction& ins) {
  for (const auto& g : ins.replica_groups)
    for (const auto d : g)
      if (d < 0 || d >= devices_)
        fail_at(ins, "replica_groups",
                ins.opcode + " %" + ins.name + ": device " + std::to_string(d) + " is outside the module's " +
                    std::to_string(devices_) + " devices");
  const auto dims = slice_dims_of_groups(ins.replica_groups, slice_);
  if (!dims)
    fail_at(ins, "replica_groups",
            ins.opcode + " %" + ins.name + ": replica_groups " + groups_text(ins.replica_groups) +
                " are not lines or planes of the slice " + format_shape(slice_) +
                " (device id = chip id, row-major), so no mesh axes run it; give --slice");
  std::vector<std::string> axes;
  for (const int d : *dims)
    axes.emplace_back(kAxisNames[d]);
  return axes;
}

void Builder::collective(const HloInstruction& ins) {
  const bool start = ins.opcode.size() > 6 && ins.opcode.compare(ins.opcode.size() - 6, 6, "-start") == 0;
  const std::string kind = start ? ins.opcode.substr(0, ins.opcode.size() - 6) : ins.opcode;
  if (ins.operands.empty()) fail(ins, ins.column, kind + " %" + ins.name + " has no operand");
  // The results, one per operand.
  std::vector<HloShape> results;
  HloShape out = ins.shape;
  if (start && (kind == "all-gather" || kind == "collective-permute")) {  // (operands, results[, contexts])
    if (!out.tuple || out.elements.size() < 2)
      fail(ins, ins.column, ins.opcode + " %" + ins.name + ": expected a tuple (operands, results) shape");
    out = out.elements[1];
  }
  if (out.tuple && ins.operands.size() > 1)
    results = out.elements;
  else
    results = {out};
  if (results.size() != ins.operands.size())
    fail(ins, ins.column,
         kind + " %" + ins.name + ": " + std::to_string(ins.operands.size()) + " operands but " +
             std::to_string(results.size()) + " results");
  Value result;
  if (results.size() > 1) result.shape = out;

  if (kind == "collective-permute") {
    const Value& in = operand(ins, 0);
    if (in.shape.tuple || results[0].tuple) fail(ins, ins.column, "collective-permute of a tuple is not read");
    const double bytes = bytes_of(ins, in.shape);
    Value v;
    v.shape = results[0];
    std::size_t k = 0;
    for (const auto& [from, to] : ins.source_target_pairs) {
      if (from < 0 || to < 0 || from >= devices_ || to >= devices_)
        fail_at(ins, "source_target_pairs",
                "collective-permute %" + ins.name + ": pair {" + std::to_string(from) + "," + std::to_string(to) +
                    "} names a device outside the module's " + std::to_string(devices_));
      if (from == to) continue;
      const std::string name = new_op(ins.name + "." + std::to_string(k++));
      ImportedOp send;
      send.kind = ImportedOpKind::send;
      send.name = name;
      send.from_chip = from;
      send.to_chip = to;
      send.bytes = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes + 0.5));
      push(std::move(send), in.deps);
      v.deps.push_back(name);
    }
    if (k == 0) v.deps = in.deps;
    if (ins.source_target_pairs.size() != k)
      note(ins, "pairs from a device to itself move nothing and are not simulated");
    values_[ins.name] = v;
    return;
  }

  const auto axes = axes_of(ins);
  const std::int64_t g =
      ins.replica_groups.empty() ? devices_ : static_cast<std::int64_t>(ins.replica_groups.front().size());
  std::int64_t dim = -1;
  if (kind != "all-reduce") {
    const auto d = collective_dim(ins);
    if (!d) fail_at(ins, "dimensions", kind + " %" + ins.name + ": expected dimensions={D}");
    dim = *d;
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Value& in = operand(ins, k);
    const HloShape& res = results[k];
    if (in.shape.tuple || res.tuple || in.shape.element != res.element)
      fail(ins, ins.column, kind + " %" + ins.name + ": operand and result must be arrays of one element type");
    const std::string name = new_op(results.size() > 1 ? ins.name + "." + std::to_string(k) : ins.name);
    Value v;
    v.shape = res;
    if (axes.empty()) {  // groups of one device: nothing moves
      if (in.shape.dims != res.dims)
        fail(ins, ins.column, kind + " %" + ins.name + ": shapes differ over groups of one device");
      v = in;
      if (k == 0) note(ins, "replica groups of one device each move nothing; the result is the operand");
      (results.size() > 1 ? result.elements.push_back(v) : (void)(result = v));
      continue;
    }
    if (dim >= static_cast<std::int64_t>(in.shape.dims.size()) || (dim < 0 && kind != "all-reduce"))
      fail_at(ins, "dimensions",
              kind + " %" + ins.name + ": dimension " + std::to_string(dim) + " is not a dim of " +
                  array_text(in.shape.element, in.shape.dims));
    const auto d = static_cast<std::size_t>(std::max<std::int64_t>(dim, 0));
    const std::string want = array_text(in.shape.element, in.shape.dims) + " -> " + array_text(res.element, res.dims);
    auto expect = [&](bool ok, const std::string& rule) {
      if (!ok)
        fail(ins, ins.column,
             kind + " %" + ins.name + " over groups of " + std::to_string(g) + ": " + rule + ", got: " + want);
    };
    std::vector<std::string> after = in.deps;
    v.deps = {name};
    ImportedOp op;
    op.name = name;
    op.out = new_tensor(name);
    op.axes = axes;
    if (kind == "all-gather") {
      auto gathered = in.shape.dims;
      gathered[d] = times(gathered[d], g);
      expect(gathered == res.dims, "the result is the operand with dim " + std::to_string(d) + " times the group size");
      const std::string view = dim_sharding(res.dims.size(), d, axes);
      const std::string source = !in.tensor.empty() && in.sharding == view && in.global == res.dims
                                     ? in.tensor
                                     : declare(ins, name + "_in", res, view, StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_gather;
      op.lhs = source;
    } else if (kind == "all-reduce") {
      expect(in.shape.dims == res.dims, "the result has the operand's shape");
      const std::string standin =
          declare(ins, name + "_in", in.shape, unreduced_sharding(in.shape.dims.size(), axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_reduce;
      op.lhs = standin;
    } else if (kind == "reduce-scatter") {
      auto scattered = res.dims;
      scattered[d] = times(scattered[d], g);
      expect(scattered == in.shape.dims,
             "the result is the operand with dim " + std::to_string(d) + " divided by the group size");
      const std::string standin =
          declare(ins, name + "_in", in.shape, unreduced_sharding(in.shape.dims.size(), axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::reduce_scatter;
      op.lhs = standin;
      op.dim = static_cast<std::int64_t>(d);  // sharded: ops that need the replicated per-device view read a stand-in
      v.sharding = dim_sharding(in.shape.dims.size(), d, axes);
      v.global = in.shape.dims;
    } else {  // all-to-all, the array form: split and concatenate along one dim
      expect(in.shape.dims == res.dims && in.shape.dims[d] % g == 0,
             "the result has the operand's shape and dim " + std::to_string(d) + " divides by the group size");
      HloShape global = in.shape;
      global.dims[d] = times(global.dims[d], g);
      std::size_t to = global.dims.size();
      for (std::size_t e = 0; e < global.dims.size() && to == global.dims.size(); ++e)
        if (e != d && global.dims[e] % g == 0) to = e;
      if (to == global.dims.size())
        fail(ins, ins.column,
             "all-to-all %" + ins.name +
                 ": podsim's all-to-all moves the axes to another dim, and no "
                 "dim other than " +
                 std::to_string(d) + " of " + want + " divides by the group size " + std::to_string(g));
      const std::string standin =
          declare(ins, name + "_in", global, dim_sharding(global.dims.size(), d, axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_to_all;
      op.lhs = standin;
      op.dim = static_cast<std::int64_t>(d);
      op.to_dim = static_cast<std::int64_t>(to);
      v.sharding = dim_sharding(global.dims.size(), to, axes);
      v.global = global.dims;
      note(ins, "all-to-all along dim " + std::to_string(d) + " run as podsim's all-to-all of a stand-in " +
                    format_shape(global.dims) + " from dim " + std::to_string(d) + " to dim " + std::to_string(to) +
                    " (the same bytes per device; the result is that stand-in's layout)");
    }
    v.tensor = op.out;
    push(std::move(op), after);
    if (results.size() > 1)
      result.elements.push_back(v);
    else
      result = v;
  }
  if (results.size() > 1)
    note(ins, "a collective of " + std::to_string(results.size()) +
                  " operands runs as one podsim collective per operand, all after the same operands");
  values_[ins.name] = result;
}

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
  std::vector<int> lrole(lhs.dims.size(), 0), rrole(rhs.dims.size(), 0), rpair(rhs.dims.size(), -1);
  auto pair_up = [&](const std::vector<std::int64_t>& l, const std::vector<std::int64_t>& r, int role,
                     const std::string& key) {
    if (l.size() != r.size())
      fail_at(d, key, "dot %" + d.name + ": lhs and rhs " + key.substr(4) + " differ in length");
    for (std::size_t k = 0; k < l.size(); ++k) {
      if (l[k] < 0 || r[k] < 0 || l[k] >= static_cast<std::int64_t>(lhs.dims.size()) ||
          r[k] >= static_cast<std::int64_t>(rhs.dims.size()) || lrole[l[k]] || rrole[r[k]])
        fail_at(d, key, "dot %" + d.name + ": dimension out of range or repeated");
      if (lhs.dims[l[k]] != rhs.dims[r[k]]) fail_at(d, key, "dot %" + d.name + ": paired dims differ in size");
      lrole[l[k]] = rrole[r[k]] = role;
      rpair[r[k]] = static_cast<int>(l[k]);
    }
  };
  pair_up(lb, rb, 1, "rhs_batch_dims");
  pair_up(lc, rc, 2, "rhs_contracting_dims");
  std::string ll, rl, ol;
  std::vector<std::int64_t> computed;
  for (std::size_t k = 0; k < lhs.dims.size(); ++k)
    ll += static_cast<char>('A' + k);
  char next = static_cast<char>('A' + lhs.dims.size());
  for (std::size_t k = 0; k < rhs.dims.size(); ++k)
    rl += rpair[k] >= 0 ? ll[rpair[k]] : next++;
  for (const auto k : lb)
    ol += ll[k], computed.push_back(lhs.dims[k]);
  for (std::size_t k = 0; k < lhs.dims.size(); ++k)
    if (!lrole[k]) ol += ll[k], computed.push_back(lhs.dims[k]);
  for (std::size_t k = 0; k < rhs.dims.size(); ++k)
    if (!rrole[k]) ol += rl[k], computed.push_back(rhs.dims[k]);
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
  push(matmul_op(name, lt, rt, ll + "," + rl + "->" + ol, out), after);
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
      const std::size_t before = program_.size();
      dot(fusion, &ins, &shapes, after);
      ops.push_back(program_[before].name);
    } else if (ins.opcode == "convolution") {
      const std::size_t before = program_.size();
      HloInstruction named = ins;
      named.name = fusion.name + "." + ins.name;
      convolution(named, &shapes, after);
      ops.push_back(program_[before].name);
    } else if (ins.opcode == "fusion") {
      const auto c = ins.attributes.find("calls");
      if (c != ins.attributes.end())
        fused_products(fusion, c->second.substr(c->second[0] == '%' ? 1 : 0), depth + 1, seen, after, ops,
                       flops_per_element);
    } else if (kArithmetic.count(ins.opcode)) {
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

void Builder::instruction(const HloInstruction& ins) {
  const std::string& op = ins.opcode;
  if (++walked_ > kMaxInstructions)
    fail(ins, ins.column,
         "%" + ins.name + ": with its loops unrolled and calls inlined the module has more than " +
             std::to_string(kMaxInstructions) + " instructions, which podsim does not simulate one by one");
  if (op == "call") return call(ins);
  if (op == "while") return loop(ins);
  if (op == "parameter" || op == "constant" || op == "iota" || op == "partition-id" || op == "replica-id") {
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
    if (op != "parameter" && op != "constant")
      note(ins, op + " read as an input tensor (computing it is not simulated)");
    values_[ins.name] = v;
    return;
  }
  if (op == "tuple") {
    Value v;
    v.shape = ins.shape;
    for (std::size_t k = 0; k < ins.operands.size(); ++k)
      v.elements.push_back(operand(ins, k));
    values_[ins.name] = v;
    return;
  }
  if (op == "get-tuple-element") {
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
    return;
  }
  if (op == "bitcast" || op == "reshape" || op == "opt-barrier" || op == "all-gather-done" || op == "all-reduce-done" ||
      op == "collective-permute-done" || op == "after-all") {
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
      if (op == "reshape")
        note(ins, "reshape read as a view (no data moves); its readers take a stand-in of its shape");
    }
    v.shape = ins.shape;
    values_[ins.name] = v;
    return;
  }
  if (kCollectives.count(op)) return collective(ins);
  if (op == "dot") return dot(ins, nullptr, nullptr, {});
  if (op == "convolution") return convolution(ins, nullptr, {});
  if (op == "fusion") return fusion(ins);
  if (kArithmetic.count(op) || kDataMovement.count(op)) {
    note(ins,
         "read as its bytes in and out" + std::string(kArithmetic.count(op) ? " and one flop per result element" : ""));
    return memory_op(ins, kArithmetic.count(op) ? 1 : 0, {});
  }
  fail(ins, ins.column, "unsupported instruction \"" + op + "\" (%" + ins.name + "): podsim does not simulate it");
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
  ImportedProgram program;
  program.mesh_name = "mesh";  // one axis per slice dim
  for (std::size_t d = 0; d < slice_.size(); ++d) {
    program.axes.emplace_back(kAxisNames[d], slice_[d]);
    frame.axis_dims.push_back({static_cast<int>(d)});
  }
  program.tensors = std::move(tensors_);
  program.ops = std::move(program_);
  HloImport out;
  out.scenario = scenario_json(program, frame);
  out.notes = notes_;
  return out;
}

}  // namespace hlo_build

std::int64_t hlo_device_count(const HloModule& module) {
  constexpr std::int64_t kCap = std::int64_t{1} << 20;  // larger ids are refused at their collective
  std::int64_t n = module.num_partitions * module.replica_count;
  if (n > 1) return n;
  for (const auto& c : module.computations)  // the ENTRY's and those its calls and loops read
    for (const auto& ins : c.instructions) {
      for (const auto& g : ins.replica_groups)
        for (const auto d : g)
          n = std::max(n, std::min(d, kCap) + 1);
      for (const auto& [from, to] : ins.source_target_pairs)
        n = std::max({n, std::min(from, kCap) + 1, std::min(to, kCap) + 1});
    }
  return n;
}

std::optional<std::vector<int>> slice_dims_of_groups(const std::vector<std::vector<std::int64_t>>& groups,
                                                     const std::vector<std::int64_t>& slice) {
  const int rank = static_cast<int>(slice.size());
  std::int64_t n = 1;
  for (const auto d : slice)
    n *= d;
  std::vector<std::int64_t> stride(slice.size(), 1);
  for (int d = rank - 1; d > 0; --d)
    stride[d - 1] = stride[d] * slice[d];
  if (groups.empty()) {  // one group of all devices, row-major
    std::vector<int> all;
    for (int d = 0; d < rank; ++d)
      if (slice[d] > 1) all.push_back(d);
    return all;
  }
  const std::size_t size = groups.front().size();
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (const auto& g : groups) {
    if (g.size() != size) return std::nullopt;
    for (const auto d : g) {
      if (d < 0 || d >= n || seen[static_cast<std::size_t>(d)]) return std::nullopt;
      seen[static_cast<std::size_t>(d)] = 1;
    }
  }
  if (static_cast<std::int64_t>(size * groups.size()) != n) return std::nullopt;
  if (size == 1) return std::vector<int>{};
  for (int mask = 1; mask < (1 << rank); ++mask) {
    std::vector<int> dims;
    std::int64_t product = 1;
    for (int d = 0; d < rank; ++d)
      if (mask & (1 << d)) dims.push_back(d), product *= slice[d];
    if (product != static_cast<std::int64_t>(size) ||
        std::any_of(dims.begin(), dims.end(), [&](int d) { return slice[d] == 1; }))
      continue;
    do {
      bool ok = true;
      for (const auto& g : groups) {
        const std::int64_t base = g.front();
        for (const int d : dims)
          if ((base / stride[d]) % slice[d] != 0) ok = false;
        for (std::size_t j = 0; ok && j < size; ++j) {
          std::int64_t rest = static_cast<std::int64_t>(j), expect = base;
          for (std::size_t q = dims.size(); q-- > 0;) {
            expect += (rest % slice[dims[q]]) * stride[dims[q]];
            rest /= slice[dims[q]];
          }
          if (g[j] != expect) ok = false;
        }
        if (!ok) break;
      }
      if (ok) return dims;
    } while (std::next_permutation(dims.begin(), dims.end()));
  }
  return std::nullopt;
}

std::vector<std::int64_t> hlo_default_slice(const HloModule& module, const std::vector<std::int64_t>& pod_shape,
                                            const std::string& file, const std::string& where) {
  const std::int64_t n = hlo_device_count(module);
  if (n > (std::int64_t{1} << 20))
    throw InputError(file, "the module runs on " + std::to_string(n) + " devices; podsim reads at most 2^20");
  const std::size_t rank = slice_rank(pod_shape, 3);
  std::vector<const HloInstruction*> collectives;
  for (const auto& c : module.computations)
    for (const auto& ins : c.instructions)
      if (kCollectives.count(ins.opcode) && ins.opcode.rfind("collective-permute", 0) != 0) collectives.push_back(&ins);
  // Ordered factorisations of n into k factors >= 2 (n = 1: the one-chip slice).
  std::vector<std::vector<std::int64_t>> candidates;
  std::vector<std::int64_t> current;
  auto factor = [&](auto&& self, std::int64_t rest, std::size_t k) -> void {
    if (candidates.size() > 4096) return;
    if (current.size() + 1 == k) {
      if (rest >= 2 || (n == 1 && k == 1)) {
        current.push_back(rest);
        candidates.push_back(current);
        current.pop_back();
      }
      return;
    }
    for (std::int64_t f = 2; f * 2 <= rest; ++f)
      if (rest % f == 0) {
        current.push_back(f);
        self(self, rest / f, k);
        current.pop_back();
      }
  };
  for (std::size_t k = 1; k <= rank; ++k)
    factor(factor, n, k);
  std::vector<std::vector<std::int64_t>> fitting;
  for (auto shape : candidates)
    if (place_on_pod(shape, pod_shape, rank) == Placement::fits) fitting.push_back(shape);
  for (const auto& shape : fitting)
    if (std::all_of(collectives.begin(), collectives.end(), [&](const HloInstruction* c) {
          return slice_dims_of_groups(c->replica_groups, shape).has_value();
        }))
      return shape;
  for (const HloInstruction* c : collectives)  // a collective no slice can run: located at its groups
    if (std::none_of(fitting.begin(), fitting.end(),
                     [&](const auto& shape) { return slice_dims_of_groups(c->replica_groups, shape).has_value(); })) {
      const auto col = c->attribute_column.find("replica_groups");
      throw InputError(file + ":" + std::to_string(c->line) + ":" +
                           std::to_string(col == c->attribute_column.end() ? c->column : col->second),
                       c->opcode + " %" + c->name + ": replica_groups " + groups_text(c->replica_groups) +
                           " are not lines or planes of any slice of " + std::to_string(n) +
                           " chips that fits the generation's pod (device id = chip id, row-major)");
    }
  throw InputError(where, "no slice of the generation's pod holds the module's " + std::to_string(n) +
                              " devices with every collective's replica groups on lines or planes of it; give --slice");
}

HloImport scenario_from_hlo(const HloModule& module, const std::string& file, const std::string& hardware,
                            const std::vector<std::int64_t>& slice, const std::map<std::string, double>& peak_flops) {
  return hlo_build::Builder(module, file, slice, peak_flops).build(hardware);
}

}  // namespace podsim::import
