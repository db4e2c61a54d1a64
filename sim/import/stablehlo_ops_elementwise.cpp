// StableHLO elementwise ops and constants (docs/import.md): an elementwise op runs as podsim's elementwise op on one
// operand and loads the others; ops of constants only fold, as XLA folds them, integers of one element exactly.
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

// The elementwise ops of two operands (select and clamp take three, the others one).
const std::set<std::string> kBinaryElementwise = {
    "stablehlo.add",     "stablehlo.subtract", "stablehlo.multiply",  "stablehlo.divide", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.power",    "stablehlo.remainder", "stablehlo.atan2",  "stablehlo.and",
    "stablehlo.or",      "stablehlo.xor",      "stablehlo.compare"};

}  // namespace

// An elementwise op: podsim's elementwise op on its primary operand, `load`s of the others; folded when all are
// constants.
void StablehloReader::read_elementwise(OpLine& op_line) {
  // Elementwise ops: the op runs on one operand (its "primary": the first that is a tensor of the result's shape,
  // preferring the data operands of select and clamp); the others are waited for.
  const std::size_t arity = op_line.op == "stablehlo.select" || op_line.op == "stablehlo.clamp" ? 3
                            : kBinaryElementwise.count(op_line.op)                              ? 2
                                                                                                : 1;
  need(op_line, arity);
  std::vector<std::size_t> order;
  if (op_line.op == "stablehlo.select")
    order = {1, 2, 0};
  else if (op_line.op == "stablehlo.clamp")
    order = {1, 0, 2};
  else
    for (std::size_t k = 0; k < arity; ++k)
      order.push_back(k);
  int primary = -1;
  for (int pass = 0; pass < 3 && primary < 0; ++pass)
    for (const auto k : order) {
      const SsaValue& v = operand(op_line, k);
      if (v.shape == op_line.out.shape && (pass == 2 || (pass == 0 ? !v.tensor.empty() : !v.constant))) {
        primary = static_cast<int>(k);
        break;
      }
    }
  if (primary < 0) fail(op_line.type_at, "elementwise result shape differs from the operands'");
  SsaValue& in = operand(op_line, primary);
  std::vector<const SsaValue*> others;
  bool all_constant = true;
  for (std::size_t k = 0; k < arity; ++k) {
    all_constant = all_constant && operand(op_line, k).constant;
    if (static_cast<int>(k) != primary) others.push_back(&operand(op_line, k));
  }
  if (all_constant) {  // folded, as XLA does
    SsaValue v = derived(op_line, given(op_line).value_or(in.sharding));
    v.constant = true;
    if (is_integer_element(op_line.out.element) && product(op_line.out.shape) == 1) {
      std::vector<std::optional<std::int64_t>> args;
      for (std::size_t k = 0; k < arity; ++k)
        args.push_back(operand(op_line, k).scalar);
      std::string direction;  // `stablehlo.compare  LT, %a, %b, SIGNED`
      for (std::size_t k = skip_space(line_, op_line.op_end);
           k < line_.size() && std::isupper(static_cast<unsigned char>(line_[k])); ++k)
        direction += line_[k];
      v.scalar = fold_integer(op_line.op, direction, args);
    }
    define(op_line, v);
    return;
  }
  materialize(in, op_line.operands[primary].second);
  // The other operands held in tensors are read by `load` ops (their bytes from HBM, and their buffers kept until
  // then); a layout result by the tensor it comes from (a broadcast reads its source's bytes). Constants are not.
  std::vector<std::string> loads;
  for (const SsaValue* other : others) {
    const std::string& tensor = other->tensor.empty() ? other->source : other->tensor;
    if (other->constant || tensor.empty() || tensor == in.tensor) continue;
    ImportedOp load;
    load.kind = ImportedOpKind::load;
    load.name = op_line.name + "_read" + std::to_string(loads.size());
    load.lhs = tensor;
    load.after = after_of({}, {other});
    load.after.erase(std::remove(load.after.begin(), load.after.end(), other->writer), load.after.end());
    add_op(op_line, load);
    loads.push_back(load.name);
  }
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = op_line.name;
  op.lhs = in.tensor;
  op.after = after_of({&in}, others);
  op.after.insert(op.after.end(), loads.begin(), loads.end());
  const int pending = in.pending;
  const std::string in_dtype = in.dtype;
  const TensorSharding in_sharding = in.sharding;
  add_op(op_line, op);
  if (!op_line.out.dtype.empty() && op_line.out.dtype != in_dtype)
    approximate(op_line.op, line_no_,
                "the result (" + op_line.out.element + ") is held as " + in_dtype +
                    ": podsim's elementwise op keeps its operand's dtype");
  SsaValue v = derived(op_line, in_sharding);
  v.tensor = v.writer = op_line.name;
  v.dtype = in_dtype;
  v.pending = pending;
  if (!op_line.value_sharding.empty()) {  // the value's own sharding: a reshard of the result
    ImportedOp reshard;
    reshard.kind = ImportedOpKind::reshard;
    reshard.name = op_line.name + "_sharded";
    reshard.lhs = op_line.name;
    reshard.sharding = op_line.value_sharding;
    add_op(op_line, reshard);
    v.tensor = v.writer = reshard.name;
    v.sharding = parse_shardy_sharding(op_line.value_sharding);
    v.pending = -1;
  }
  define(op_line, v);
}

// `stablehlo.constant`, `sdy.constant`, `stablehlo.iota`: a replicated constant value (an integer of one element
// kept for folding), a tensor only when an op reads it.
void StablehloReader::read_constant(OpLine& op_line) {
  need(op_line, 0);
  SsaValue v = derived(op_line, given(op_line).value_or(replicated(op_line.out.shape.size())));
  v.constant = true;
  if ((op_line.op != "stablehlo.iota") && is_integer_element(op_line.out.element) && product(op_line.out.shape) == 1) {
    const std::size_t dense = line_.find("dense<", op_line.op_end);
    if (dense != std::string::npos && dense < op_line.type_colon)
      v.scalar = integer_literal(line_.substr(dense + 6, 24));
  }
  define(op_line, v);
  return;
}

}  // namespace podsim::import::stablehlo_read
