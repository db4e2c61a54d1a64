// StableHLO `reduce` (docs/import.md, "Reductions"): an elementwise op of one flop per input element, and over a
// sharded dim the partial results declared unreduced and all-reduced by a reshard.
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

// `stablehlo.reduce` of one operand with one reducer op (`applies` or its region): an elementwise op, and over
// sharded dims a partial result reduced by a reshard.
void StablehloReader::read_reduce(OpLine& op_line) {
  // `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : ...`, or the same without
  // `applies ...` followed by the region `reducer(%a: ..., %b: ...) { %r = stablehlo.add %a, %b ...; return }`.
  if (op_line.operands.size() != 2 || line_.find("), (", op_line.op_end) < op_line.type_colon)
    fail(op_line.op_at, "stablehlo.reduce of several operands (e.g. an argmax) is not read");
  SsaValue& in = operand(op_line, 0);
  const std::size_t k = line_.find("dimensions = [", op_line.op_end);
  if (k == std::string::npos || k > op_line.type_colon)
    fail(op_line.op_at, "malformed stablehlo.reduce: no dimensions");
  std::vector<std::int64_t> reduced;
  try {
    reduced = parse_int_list(line_.substr(k + 14, line_.find(']', k) - k - 14));
  } catch (const std::exception&) {
    fail(k, "malformed dimensions");
  }
  std::string body;
  if (const std::size_t ap = line_.find("applies ", op_line.op_end);
      ap != std::string::npos && ap < op_line.type_colon) {
    std::size_t e = ap + 8;
    while (e < line_.size() && is_ident(line_[e]))
      ++e;
    body = line_.substr(ap + 8, e - ap - 8);
  } else {
    const std::size_t reduce_line = cur_;
    if (cur_ + 1 >= op_line.end) fail(op_line.op_at, "stablehlo.reduce without its region");
    set_line(cur_ + 1);
    std::size_t r = skip_space(line_, 0);
    if (line_.compare(r, 8, "reducer(") != 0 || brace_delta(line_) != 1)
      fail(r, "expected the reduce's region `reducer(...) {`, got: " + line_.substr(r, 40));
    int ops = 0;
    while (true) {
      if (cur_ + 1 >= op_line.end) {
        set_line(reduce_line);
        fail(op_line.op_at, "stablehlo.reduce's region is not closed");
      }
      set_line(cur_ + 1);
      r = skip_space(line_, 0);
      if (r >= line_.size() || line_.compare(r, 2, "//") == 0) continue;
      if (line_[r] == '}') break;
      if (line_.compare(r, 16, "stablehlo.return") == 0) continue;
      const std::size_t b_eq = line_.find("= ", r);
      if (line_[r] != '%' || b_eq == std::string::npos || ++ops > 1)
        fail(r, "the reduce's region must hold one op and stablehlo.return, got: " + line_.substr(r, 60));
      const std::size_t b_at = skip_space(line_, b_eq + 1);
      std::size_t e = b_at;
      while (e < line_.size() && is_ident(line_[e]))
        ++e;
      body = line_.substr(b_at, e - b_at);
    }
    if (ops != 1) fail(skip_space(line_, 0), "the reduce's region must hold one op");
    const std::size_t last = cur_;
    set_line(reduce_line);
    cur_ = last;  // read_op's caller goes on after the region
  }
  std::optional<Reduction> reduction;
  if (body == "stablehlo.add") reduction = Reduction::sum;
  if (body == "stablehlo.maximum" || body == "stablehlo.or") reduction = Reduction::max;
  if (body == "stablehlo.minimum" || body == "stablehlo.and") reduction = Reduction::min;
  const bool known = reduction || body == "stablehlo.multiply" || body == "stablehlo.xor";
  if (!known) fail(op_line.op_at, "stablehlo.reduce applying \"" + body + "\" is not read");
  std::vector<bool> is_reduced(in.shape.size(), false);
  for (const auto d : reduced) {
    if (d < 0 || d >= static_cast<std::int64_t>(in.shape.size()) || is_reduced[d])
      fail(k, "reduce dimension out of range or repeated");
    is_reduced[d] = true;
  }
  TensorSharding kept = replicated(0);
  std::vector<std::int64_t> kept_shape;
  std::vector<AxisRef> summed;
  for (std::size_t d = 0; d < in.shape.size(); ++d) {
    if (is_reduced[d]) {
      summed.insert(summed.end(), in.sharding.dims[d].axes.begin(), in.sharding.dims[d].axes.end());
    } else {
      kept.dims.push_back(in.sharding.dims[d]);
      kept_shape.push_back(in.shape[d]);
    }
  }
  if (kept_shape != op_line.out.shape) fail(op_line.type_at, "the reduce's result type does not match its dimensions");
  if (!summed.empty() && !reduction)
    fail(op_line.op_at, "stablehlo.reduce applying \"" + body +
                            "\" over a sharded dim: podsim's collectives sum, take " + "the max or the min only");
  SsaValue& init = operand(op_line, 1);
  if (in.constant) {
    SsaValue v = derived(op_line, kept);
    v.constant = true;
    define(op_line, v);
    return;
  }
  materialize(in, op_line.operands[0].second);
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = op_line.name;
  op.out = op_line.name + "_scratch";
  op.lhs = in.tensor;
  op.after = after_of({&in}, {&init});
  const int pending = in.pending;
  add_op(op_line, op);
  std::string how = "an elementwise op \"" + op_line.name + "\" of 1 flop per input element (" + body +
                    "), writing an input-shaped scratch tensor \"" + op.out + "\"";
  SsaValue v = derived(op_line, kept);
  v.pending = pending;
  v.deps = {op_line.name};
  if (!summed.empty()) {
    // The partial results: a program input unreduced over the summed axes, and a reshard that reduces them
    // (podsim plans the all-reduce).
    if (pending >= 0) pin(pending, "the reduce at line " + std::to_string(line_no_) + " sums over its sharded dims");
    TensorSharding partial = kept;
    partial.unreduced = summed;
    partial.unreduced_reduction = *reduction;
    ImportedTensor t{op_line.name + "_partial", op_line.out.shape, "", print_shardy_sharding(partial), ""};
    t.dtype = need_dtype(op_line.out, op_line.type_at, op_line.op);
    if (!names_.insert(t.name).second) fail(op_line.op_at, "the scenario name \"" + t.name + "\" is used twice");
    module_.tensors.push_back(t);
    if (explicit_reductions_) {  // the module's own sdy.all_reduce reduces them
      how += "; the partial results are the program input \"" + t.name + "\" (" + t.sharding +
             "), left to the module's explicit reduction";
      approximate(op_line.op, line_no_, how);
      v.tensor = t.name;
      v.writer.clear();
      v.pending = -1;
      v.dtype = t.dtype;
      v.sharding = partial;
      define(op_line, v);
      return;
    }
    ImportedOp finish;
    finish.kind = ImportedOpKind::reshard;
    finish.name = op_line.name + "_finish";
    finish.out = op_line.name;
    finish.lhs = t.name;
    finish.sharding = op_line.value_sharding.empty() ? print_shardy_sharding(kept) : op_line.value_sharding;
    finish.after = {op_line.name};
    add_op(op_line, finish);
    how += "; the partial results are the program input \"" + t.name + "\" (" + t.sharding + ") and the reshard \"" +
           finish.name + "\" to " + finish.sharding + " makes podsim plan their reduction over the sharded dims";
    v.tensor = v.writer = op_line.name;
    v.deps.clear();
    v.pending = -1;
    v.dtype = t.dtype;
    if (!op_line.value_sharding.empty()) v.sharding = parse_shardy_sharding(op_line.value_sharding);
  } else if (const auto g = given(op_line); g && *g != kept) {
    how += "; the result's sharding " + op_line.value_sharding + " differs from the kept dims' (" +
           print_shardy_sharding(kept) + "): the resharding between them is not simulated";
    v.sharding = *g;
    v.pending = -1;
  }
  approximate(op_line.op, line_no_, how);
  define(op_line, v);
  return;
}

}  // namespace podsim::import::stablehlo_read
