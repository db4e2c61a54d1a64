// StableHLO layout and data-movement ops (docs/import.md): reshape, transpose, broadcast_in_dim and converts take no
// time and derive the result's sharding; slice, pad, dynamic_slice and concatenate are memory-bound copies through a
// view; dynamic_update_slice a copy of the update into a buffer of its own.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {

namespace {

// The result sharding of a reshape from `in` to `out` with operand sharding `s`, or nullopt when podsim cannot
// derive it. Dims are grouped where the running products of sizes meet; in each group only the major-most operand
// dim of size > 1 may be sharded, and its axes go to the major-most result dim of size > 1, which must be divisible
// by their size (a merge keeps the data each device holds contiguous; so does a split whose major part the shards
// divide).
std::optional<TensorSharding> reshape_sharding(const std::vector<std::int64_t>& in, const TensorSharding& s,
                                               const std::vector<std::int64_t>& out, const Mesh& mesh,
                                               std::string& why) {
  TensorSharding r = s;
  r.dims.assign(out.size(), DimSharding{});
  std::size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    std::vector<std::size_t> gi, gj;
    std::int64_t pi = 1, pj = 1;
    if (i < in.size()) gi.push_back(i), pi *= in[i++];
    if (j < out.size()) gj.push_back(j), pj *= out[j++];
    while (pi != pj) {
      if (pi < pj && i < in.size())
        gi.push_back(i), pi *= in[i++];
      else if (pj < pi && j < out.size())
        gj.push_back(j), pj *= out[j++];
      else {
        why = "the element counts of the shapes differ";
        return std::nullopt;
      }
    }
    // Dims of size 1 hold no data: the major-most dims are the major-most of size > 1 (a scan's `1xDxF -> DxF`).
    std::size_t major_in = 0, major_out = 0;
    while (major_in + 1 < gi.size() && in[gi[major_in]] == 1)
      ++major_in;
    while (major_out + 1 < gj.size() && out[gj[major_out]] == 1)
      ++major_out;
    for (std::size_t k = 0; k < gi.size(); ++k) {
      const DimSharding& d = s.dims[gi[k]];
      if (d.axes.empty()) continue;
      if (k != major_in || gj.empty()) {
        why = "operand dim " + std::to_string(gi[k]) + " is sharded but is not the major-most dim of the dims it " +
              "is merged or split with";
        return std::nullopt;
      }
      const std::size_t to = gj[major_out];
      const std::int64_t n = d.sharded_size(mesh);
      if (out[to] % n != 0) {
        why = "operand dim " + std::to_string(gi[k]) + " is sharded " + std::to_string(n) + " ways but result dim " +
              std::to_string(to) + " has size " + std::to_string(out[to]);
        return std::nullopt;
      }
      r.dims[to].axes = d.axes;
    }
  }
  return r;
}

}  // namespace

// reshape, transpose, broadcast_in_dim, convert, bitcast_convert: the operand's data with the derived sharding.
void StablehloReader::read_layout(OpLine& op_line) {
  need(op_line, 1);
  SsaValue& in = operand(op_line, 0);
  TensorSharding sharding = in.sharding;
  // The op's `dims = [...]` (transpose's permutation, broadcast_in_dim's map); `where` is set to where it starts.
  const auto dims_attribute = [&](std::size_t& where) {
    where = line_.find("dims = [", op_line.op_end);
    if (where == std::string::npos || where > op_line.type_colon)
      fail(op_line.op_at, "malformed " + op_line.op + ": no dims");
    try {
      return parse_int_list(line_.substr(where + 8, line_.find(']', where) - where - 8));
    } catch (const std::exception&) {
      fail(where, "malformed dims");
    }
  };
  if (op_line.op == "stablehlo.convert" || op_line.op == "stablehlo.bitcast_convert") {
    if (in.shape != op_line.out.shape) fail(op_line.type_at, op_line.op + " changes the shape; not read");
  } else if (op_line.op == "stablehlo.transpose") {
    std::size_t k = 0;
    const std::vector<std::int64_t> perm = dims_attribute(k);
    std::vector<bool> seen(in.shape.size(), false);
    if (perm.size() != in.shape.size() || op_line.out.shape.size() != in.shape.size())
      fail(k, "transpose dims mismatch");
    for (std::size_t d = 0; d < perm.size(); ++d) {
      if (perm[d] < 0 || perm[d] >= static_cast<std::int64_t>(perm.size()) || seen[perm[d]] ||
          op_line.out.shape[d] != in.shape[perm[d]])
        fail(k, "transpose dims mismatch");
      seen[perm[d]] = true;
      sharding.dims[d] = in.sharding.dims[perm[d]];
    }
  } else if (op_line.op == "stablehlo.broadcast_in_dim") {
    std::size_t k = 0;
    const std::vector<std::int64_t> map = dims_attribute(k);
    if (map.size() != in.shape.size()) fail(k, "broadcast dims mismatch");
    sharding = replicated(op_line.out.shape.size());
    sharding.replicated = in.sharding.replicated;
    for (std::size_t d = 0; d < map.size(); ++d) {
      if (map[d] < 0 || map[d] >= static_cast<std::int64_t>(op_line.out.shape.size()) ||
          (in.shape[d] != 1 && in.shape[d] != op_line.out.shape[map[d]]))
        fail(k, "broadcast dims mismatch");
      if (in.shape[d] == op_line.out.shape[map[d]])
        sharding.dims[map[d]] = in.sharding.dims[d];
      else if (!in.sharding.dims[d].axes.empty())
        fail(op_line.op_at, op_line.op + ": cannot derive the result's sharding: operand dim " + std::to_string(d) +
                                " of size 1 is sharded");
    }
  } else {  // reshape
    std::string why;
    const auto r = reshape_sharding(in.shape, in.sharding, op_line.out.shape, *mesh_, why);
    if (!r && op_line.value_sharding.empty())
      fail(op_line.op_at, op_line.op + ": cannot derive the result's sharding from the operand's " +
                              print_shardy_sharding(in.sharding) + ": " + why +
                              "; give the result a sharding (sdy.sharding_constraint) before and after");
    if (!r)
      approximate(op_line.op, line_no_,
                  "the result takes its given sharding " + op_line.value_sharding +
                      " (none follows from the operand's: " + why + "); the resharding is not simulated");
    sharding = r ? *r : *given(op_line);
  }
  SsaValue v = derived(op_line, sharding);
  if (const auto g = given(op_line); g && *g != sharding) {
    approximate(op_line.op, line_no_,
                "the result's sharding " + op_line.value_sharding + " differs from the one derived from the operand (" +
                    print_shardy_sharding(sharding) + "); the resharding between them is not simulated");
    v.sharding = *g;
  }
  v.pending = op_line.value_sharding.empty() ? in.pending : -1;
  v.deps = in.deps;
  if (!in.writer.empty()) v.deps.push_back(in.writer);
  v.constant = in.constant;
  v.source = in.tensor.empty() ? in.source : storage_of(in);
  if (is_integer_element(op_line.out.element) && product(op_line.out.shape) == 1) v.scalar = in.scalar;
  define(op_line, v);
  return;
}

// slice, pad, dynamic_slice, concatenate (along unsharded dims): a memory-bound copy through a view.
void StablehloReader::read_data_movement(OpLine& op_line) {
  if (op_line.operands.empty()) fail(op_line.op_at, "\"" + op_line.op + "\" takes an operand");
  SsaValue& in = operand(op_line, 0);
  if (in.shape.size() != op_line.out.shape.size())
    fail(op_line.type_at, op_line.op + ": result rank differs from the operand's");
  std::vector<bool> moved(in.shape.size(), false);
  for (std::size_t d = 0; d < in.shape.size(); ++d)
    moved[d] = in.shape[d] != op_line.out.shape[d];
  if (op_line.op == "stablehlo.concatenate") {
    const std::size_t k = line_.find("dim = ", op_line.op_end);
    if (k == std::string::npos || k > op_line.type_colon)
      fail(op_line.op_at, "malformed stablehlo.concatenate: no dim");
    std::size_t d = 0;
    try {
      d = static_cast<std::size_t>(std::stoll(line_.substr(k + 6, 12)));
    } catch (const std::exception&) {
      fail(k, "malformed dim");
    }
    if (d >= moved.size()) fail(k, "concatenate dim out of range");
    moved[d] = true;
  }
  for (std::size_t d = 0; d < moved.size(); ++d)
    if (moved[d] && !in.sharding.dims[d].axes.empty())
      fail(op_line.op_at, op_line.op + " along dim " + std::to_string(d) + ", which is sharded (" +
                              print_shardy_sharding(in.sharding) +
                              "): moving data across shards is not simulated; replicate that dim first");
  SsaValue v = derived(op_line, given(op_line).value_or(in.sharding));
  v.pending = op_line.value_sharding.empty() ? in.pending : -1;
  bool all_constant = true;
  std::vector<const SsaValue*> others;
  for (std::size_t k = 0; k < op_line.operands.size(); ++k) {
    all_constant = all_constant && operand(op_line, k).constant;
    if (k) others.push_back(&operand(op_line, k));
  }
  if (all_constant) {
    v.constant = true;
    define(op_line, v);
    return;
  }
  // The copy reads the result's bytes from the operand's buffer (a view of it in the result's shape) and writes
  // the result.
  materialize(in, op_line.operands[0].second);
  if (in.pending >= 0) pin(in.pending, op_line.op + " at line " + std::to_string(line_no_) + " reads a view of it");
  ImportedTensor window{op_line.name + "_window", op_line.out.shape, in.dtype, print_shardy_sharding(v.sharding), ""};
  window.view_of = storage_of(in);
  if (!names_.insert(window.name).second)
    fail(op_line.op_at, "the scenario name \"" + window.name + "\" is used twice");
  module_.tensors.push_back(window);
  views_[window.name] = window.view_of;
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = op_line.name + "_copy";
  op.out = op_line.name;
  op.lhs = window.name;
  op.flops_per_element = 0;
  others.insert(others.begin(), &in);  // the view has no writer: the copy waits for the operand's
  op.after = after_of({}, others);
  add_op(op_line, op);
  approximate(op_line.op, line_no_,
              "a memory-bound copy (elementwise \"" + op.name + "\", 0 flops per element) of the result's bytes, " +
                  "read through the view \"" + window.name + "\" of \"" + window.view_of + "\"");
  v.tensor = op_line.name;
  v.writer = op.name;
  v.dtype = in.dtype;
  v.pending = -1;
  define(op_line, v);
  return;
}

// dynamic_update_slice: a copy of the update into a buffer of its own; the result is the buffer, read after it.
void StablehloReader::read_dynamic_update_slice(OpLine& op_line) {
  // `%r = stablehlo.dynamic_update_slice %buffer, %update, %i, %j : (...) -> ...`: in place, as XLA does it. A
  // copy of the update's bytes into the buffer; the result is the buffer, read after the copy.
  if (op_line.operands.size() < 2) fail(op_line.op_at, "\"" + op_line.op + "\" takes a buffer, an update and indices");
  SsaValue& buffer = operand(op_line, 0);
  SsaValue& update = operand(op_line, 1);
  if (buffer.shape != op_line.out.shape || update.shape.size() != op_line.out.shape.size())
    fail(op_line.type_at, op_line.op + ": the result type differs from the buffer's, or the update's rank");
  for (std::size_t d = 0; d < op_line.out.shape.size(); ++d)
    if (update.shape[d] != op_line.out.shape[d] && !buffer.sharding.dims[d].axes.empty())
      fail(op_line.op_at, op_line.op + " along dim " + std::to_string(d) + ", which is sharded (" +
                              print_shardy_sharding(buffer.sharding) +
                              "): moving data across shards is not simulated; replicate that dim first");
  std::vector<const SsaValue*> indices;
  bool all_constant = buffer.constant && update.constant;
  for (std::size_t k = 2; k < op_line.operands.size(); ++k) {
    indices.push_back(&operand(op_line, k));
    all_constant = all_constant && operand(op_line, k).constant;
  }
  if (all_constant) {
    SsaValue v = derived(op_line, buffer.sharding);
    v.constant = true;
    define(op_line, v);
    return;
  }
  // A constant initial buffer (the zeros a scan stacks its outputs into) takes no memory of its own: the updates'
  // copies, which podsim holds as buffers of their own, hold its bytes once every slot is written.
  const bool fresh_constant = buffer.constant && buffer.tensor.empty() && !materialized_.count(buffer.name);
  materialize(buffer, op_line.operands[0].second);
  if (fresh_constant)
    for (auto& t : module_.tensors)
      if (t.name == buffer.tensor) t.transient = true;
  materialize(update, op_line.operands[1].second);
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = op_line.name + "_update";
  op.lhs = update.tensor;
  op.flops_per_element = 0;
  std::vector<const SsaValue*> waited = indices;
  waited.push_back(&buffer);
  op.after = after_of({&update}, waited);
  add_op(op_line, op);
  approximate(op_line.op, line_no_,
              "a memory-bound copy of the update (elementwise \"" + op.name +
                  "\", 0 flops per element) into a buffer of its own, held while read or to the end; the result " +
                  "is \"" + storage_of(buffer) + "\" read after the copy" +
                  (fresh_constant ? ", a transient constant (no memory while nothing reads it)" : ""));
  SsaValue v = buffer;
  v.deps = {op.name};  // the copy waits for the buffer's writer and deps
  v.stablehlo_op = op_line.op;
  v.line = line_no_;
  define(op_line, v);
  return;
}

}  // namespace podsim::import::stablehlo_read
