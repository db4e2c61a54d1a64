// How the StableHLO reader reads one op line (stablehlo_reader.hpp): the line parsed into an OpLine (its results,
// op name, operands, types and given sharding), then the handler its op name maps to in one table. A new op is a
// handler in its family's file (stablehlo_ops_*.cpp, stablehlo_control_flow.cpp) and one row of kOpTable.
#include <map>
#include <optional>
#include <string>

#include "models/sharding/shardy_parse.hpp"
#include "sim/import/module_scan.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {

// The ops the reader reads, by name: the handler, and whether the op may have several results.
const std::map<std::string, OpEntry, std::less<>>& StablehloReader::op_table() {
  using R = StablehloReader;
  static const std::map<std::string, OpEntry, std::less<>> table = [] {
    std::map<std::string, OpEntry, std::less<>> t;
    // Elementwise ops: one flop per element (docs/import.md); compare, select and clamp too.
    for (const char* op : {"stablehlo.negate",
                           "stablehlo.abs",
                           "stablehlo.exponential",
                           "stablehlo.exponential_minus_one",
                           "stablehlo.log",
                           "stablehlo.log_plus_one",
                           "stablehlo.tanh",
                           "stablehlo.logistic",
                           "stablehlo.sqrt",
                           "stablehlo.rsqrt",
                           "stablehlo.cbrt",
                           "stablehlo.sine",
                           "stablehlo.cosine",
                           "stablehlo.tan",
                           "stablehlo.sign",
                           "stablehlo.floor",
                           "stablehlo.ceil",
                           "stablehlo.round_nearest_afz",
                           "stablehlo.round_nearest_even",
                           "stablehlo.not",
                           "stablehlo.is_finite",
                           "chlo.erf",
                           "stablehlo.add",
                           "stablehlo.subtract",
                           "stablehlo.multiply",
                           "stablehlo.divide",
                           "stablehlo.maximum",
                           "stablehlo.minimum",
                           "stablehlo.power",
                           "stablehlo.remainder",
                           "stablehlo.atan2",
                           "stablehlo.and",
                           "stablehlo.or",
                           "stablehlo.xor",
                           "stablehlo.compare",
                           "stablehlo.select",
                           "stablehlo.clamp"})
      t[op] = {&R::read_elementwise, false};
    for (const char* op : {"stablehlo.constant", "sdy.constant", "stablehlo.iota"})
      t[op] = {&R::read_constant, false};
    // Layout ops: no time; the result is the operand's data with a new shape, layout or dtype.
    for (const char* op : {"stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
                           "stablehlo.convert", "stablehlo.bitcast_convert"})
      t[op] = {&R::read_layout, false};
    // Data movement: a memory-bound copy of the first operand, then the result.
    for (const char* op : {"stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad", "stablehlo.dynamic_slice"})
      t[op] = {&R::read_data_movement, false};
    t["stablehlo.dynamic_update_slice"] = {&R::read_dynamic_update_slice, false};
    t["stablehlo.dot_general"] = {&R::read_dot, false};
    t["stablehlo.dot"] = {&R::read_dot, false};
    t["stablehlo.reduce"] = {&R::read_reduce, false};
    t["sdy.sharding_constraint"] = {&R::read_sharding_constraint, false};
    t["sdy.reshard"] = {&R::read_sharding_constraint, false};
    for (const char* op : {"sdy.all_gather", "sdy.all_slice", "sdy.all_reduce", "sdy.reduce_scatter", "sdy.all_to_all"})
      t[op] = {&R::read_sdy_collective, false};
    t["sdy.collective_permute"] = {&R::read_collective_permute, false};
    t["sdy.manual_computation"] = {&R::read_manual_computation, true, true};
    for (const char* op : {"stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
                           "stablehlo.all_to_all", "stablehlo.collective_permute"})
      t[op] = {&R::read_stablehlo_collective, false, true, true};
    t["stablehlo.optimization_barrier"] = {&R::read_optimization_barrier, true};
    t["call"] = {&R::read_call, true};
    t["func.call"] = {&R::read_call, true};
    t["stablehlo.while"] = {&R::read_while_op, true, true};
    return t;
  }();
  return table;
}

// `%r:N = OP` up to the op name: the results, the op and its scenario name; refuses an op outside the table (some
// with the reason), the generic form, several results where the op has one, a value defined twice, too many ops.
OpLine StablehloReader::read_op_head(std::size_t at, Scope& scope, const std::string& prefix) {
  OpLine op_line;
  op_line.scope = &scope;
  op_line.prefix = prefix;
  const std::size_t eq = line_.find('=', at);
  if (eq == std::string::npos) fail(at, "malformed op: no '=' after the result");
  std::string ssa = line_.substr(at, eq - at);
  ssa.erase(ssa.find_last_not_of(' ') + 1);
  std::size_t results = 1;
  if (const std::size_t colon = ssa.find(':'); colon != std::string::npos) {
    const std::string count = ssa.substr(colon + 1);
    if (count.empty() || count.size() > 6 || count.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(count) < 1)
      fail(at, "malformed op results, got: " + ssa);
    results = std::stoul(count);
    ssa.erase(colon);
  }
  if (ssa.empty() || ssa_end(ssa, 0) != ssa.size() || ssa.find('#') != std::string::npos)
    fail(at, "malformed op result, got: " + ssa);
  const std::size_t op_at = skip_space(line_, eq + 1);
  if (op_at >= line_.size()) fail(at, "malformed op: nothing after '='");
  std::size_t op_end = op_at;
  const bool generic = line_[op_at] == '"';
  if (generic) {
    op_end = line_.find('"', op_at + 1);
    if (op_end == std::string::npos) fail(op_at, "malformed op name");
    ++op_end;
  } else {
    while (op_end < line_.size() && is_ident(line_[op_end]))
      ++op_end;
  }
  const std::string op_name =
      generic ? line_.substr(op_at + 1, op_end - op_at - 2) : line_.substr(op_at, op_end - op_at);
  if (op_name == "stablehlo.custom_call") {
    const auto [target, t_at] = symbol_at(line_, op_end);
    fail(op_at, "unsupported op \"stablehlo.custom_call\" (target @" + target +
                    "): custom calls are not simulated; for a sharding, lower with Shardy (sdy.sharding_constraint)");
  }
  if (op_name == "stablehlo.case" || op_name == "stablehlo.if")
    fail(op_at, "unsupported op \"" + op_name +
                    "\": which branch runs is known only at run time (podsim reads loops whose trip count folds to "
                    "a constant, not conditionals)");
  const auto entry = op_table().find(op_name);
  if (entry == op_table().end()) fail(op_at, "unsupported op \"" + op_name + "\"");
  if (generic && !entry->second.generic)
    fail(op_at, "the generic op form is not read, print the module in its pretty form, got: \"" + op_name + "\"");
  if (results > 1 && !entry->second.several_results)
    fail(at, "\"" + op_name + "\" with several results is not read (only stablehlo.while, " +
                 "stablehlo.optimization_barrier and calls), got: " + ssa + ":" + std::to_string(results));
  op_line.name = prefix + tensor_name(ssa);
  if (scope.values.count(ssa) || scope.values.count(ssa + "#0")) fail(at, "value defined twice, got: " + ssa);
  if (module_.ops.size() > kMaxOps)
    fail(op_at, "more than " + std::to_string(kMaxOps) + " ops after inlining calls and unrolling loops");
  op_line.ssa = ssa;
  op_line.results = results;
  op_line.op = op_name;
  op_line.op_at = op_at;
  op_line.op_end = op_end;
  op_line.entry = &entry->second;
  return op_line;
}

// The rest of the line: the operands (every `%name` before the type, outside quoted strings), the result types and
// the optional `{sdy.sharding = #sdy.sharding_per_value<[<@mesh, ...>]>}` before them.
void StablehloReader::read_op_types(OpLine& op_line) {
  const std::size_t op_at = op_line.op_at, op_end = op_line.op_end, results = op_line.results;
  const std::size_t type_colon = find_top(" : ", op_end);
  if (type_colon == std::string::npos) fail(op_at, "malformed op: no result type");
  auto& operands = op_line.operands;
  for (std::size_t i = op_end; i < type_colon; ++i) {
    if (line_[i] == '"') {
      i = scan::closing_quote(line_, i, type_colon);
      continue;
    }
    if (line_[i] != '%') continue;
    const std::size_t e = ssa_end(line_, i);
    operands.emplace_back(line_.substr(i, e - i), i);
    i = e - 1;
  }
  // In a loop's condition every operand must be a constant: the condition is folded, not simulated.
  if (folding_ > 0)
    for (const auto& [operand_ssa, operand_at] : operands)
      if (!value(operand_at, operand_ssa, *op_line.scope).constant)
        fail(operand_at, "the loop's trip count is unknown: its condition reads " + operand_ssa +
                             ", which is known only at run time (podsim unrolls loops whose condition folds to a "
                             "constant)");
  // The result types: after `->` in a functional type, else the listed types (an op of one result: the last).
  std::size_t type_at = skip_space(line_, type_colon + 3);
  auto& result_types = op_line.result_types;
  if (type_at < line_.size() && line_[type_at] == '(') {
    const std::size_t close = match_close(line_, type_at);
    const std::size_t arrow = close == std::string::npos ? close : line_.find("->", close);
    if (arrow == std::string::npos) fail(type_at, "malformed op type");
    type_at = skip_space(line_, arrow + 2);
    if (type_at < line_.size() && line_[type_at] == '(') {
      const std::size_t list_close = match_close(line_, type_at);
      if (list_close == std::string::npos) fail(type_at, "malformed op type");
      for (const auto& part : split_top(line_, type_at + 1, list_close - 1))
        result_types.push_back(part.first);
    } else {
      result_types.push_back(type_at);
    }
  } else {
    for (const auto& part : split_top(line_, type_at, line_.size()))
      result_types.push_back(part.first);
    if (results == 1 && !result_types.empty()) result_types.erase(result_types.begin(), result_types.end() - 1);
  }
  if (result_types.size() != results)
    fail(type_at, "the op has " + std::to_string(results) + " result(s) but " + std::to_string(result_types.size()) +
                      " result type(s)");
  op_line.type_colon = type_colon;
  op_line.type_at = result_types.front();
  op_line.out = read_tensor_type(op_line.type_at);
  if (const std::size_t attr = line_.find("sdy.sharding_per_value<[", op_end);
      attr != std::string::npos && attr < type_colon && results == 1)
    op_line.value_sharding = read_sharding_text(attr + 24, op_line.out.shape.size());
}

// An op line: its head, its operands and types unless the op reads its own syntax, then its handler.
void StablehloReader::read_op(std::size_t at, Scope& scope, const std::string& prefix, int depth, std::size_t end) {
  OpLine op_line = read_op_head(at, scope, prefix);
  op_line.depth = depth;
  op_line.end = end;
  if (!op_line.entry->own_syntax) read_op_types(op_line);
  (this->*op_line.entry->handler)(op_line);
}

// The table's row for `stablehlo.while`, which reads its loop arguments and regions itself.
void StablehloReader::read_while_op(OpLine& op_line) {
  read_while(op_line.op_at, op_line.op_end, op_line.ssa, op_line.results, *op_line.scope, op_line.name, op_line.depth,
             op_line.end);
}

void StablehloReader::need(const OpLine& op_line, std::size_t n) const {
  if (op_line.operands.size() != n)
    fail(op_line.op_at, "\"" + op_line.op + "\" takes " + std::to_string(n) +
                            " operand(s), got: " + std::to_string(op_line.operands.size()));
}

SsaValue& StablehloReader::operand(const OpLine& op_line, std::size_t k) const {
  return value(op_line.operands[k].second, op_line.operands[k].first, *op_line.scope);
}

SsaValue StablehloReader::derived(const OpLine& op_line, const TensorSharding& sharding) const {
  SsaValue v;
  v.name = op_line.name;
  v.shape = op_line.out.shape;
  v.element = op_line.out.element;
  v.dtype = op_line.out.dtype;
  v.sharding = sharding;
  v.stablehlo_op = op_line.op;
  v.line = line_no_;
  return v;
}

int StablehloReader::add_op(const OpLine& op_line, ImportedOp op) {
  if (folding_ > 0)
    fail(op_line.op_at,
         "the loop's condition must fold to a constant, got an op podsim would simulate: \"" + op_line.op + "\"");
  op.stablehlo_op = op_line.op;
  op.line = line_no_;
  if (op.out.empty()) op.out = op.name;
  if (!names_.insert(op.out).second) fail(op_line.op_at, "the scenario name \"" + op.out + "\" is used twice");
  module_.ops.push_back(op);
  return static_cast<int>(module_.ops.size()) - 1;
}

std::optional<TensorSharding> StablehloReader::given(const OpLine& op_line) const {
  return op_line.value_sharding.empty() ? std::nullopt : std::optional(parse_shardy_sharding(op_line.value_sharding));
}

}  // namespace podsim::import::stablehlo_read
