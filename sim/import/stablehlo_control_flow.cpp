// `stablehlo.while` (docs/import.md, "Loops"): what `jax.lax.scan`, `fori_loop` and a `while_loop` with a static
// bound lower to. Its condition is folded, not simulated: every value it reads must be a constant, the loop counter
// included (the loop's initial values are, and the body computes the next ones from them), so the reader knows the
// trip count by reading the condition once per iteration. The body is read once per iteration, its arguments bound
// to the previous iteration's results; its ops are named after the loop and the iteration (`v0_i3_v5`).
#include <algorithm>
#include <limits>
#include <set>

#include "models/common/shape.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {

std::optional<std::int64_t> fold_integer(const std::string& op, const std::string& direction,
                                         const std::vector<std::optional<std::int64_t>>& args) {
  for (const auto& a : args)
    if (!a) return std::nullopt;
  std::int64_t r = 0;
  const std::int64_t a = args.empty() ? 0 : *args[0];
  const std::int64_t b = args.size() > 1 ? *args[1] : 0;
  if (args.size() == 2) {
    if (op == "stablehlo.add") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    if (op == "stablehlo.subtract") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    if (op == "stablehlo.multiply") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    const bool divisible = b != 0 && !(a == std::numeric_limits<std::int64_t>::min() && b == -1);
    if (op == "stablehlo.divide") return divisible ? std::optional(a / b) : std::nullopt;
    if (op == "stablehlo.remainder") return divisible ? std::optional(a % b) : std::nullopt;
    if (op == "stablehlo.maximum") return std::max(a, b);
    if (op == "stablehlo.minimum") return std::min(a, b);
    if (op == "stablehlo.and") return a & b;
    if (op == "stablehlo.or") return a | b;
    if (op == "stablehlo.xor") return a ^ b;
    if (op == "stablehlo.compare") {
      if (direction == "LT") return a < b;
      if (direction == "LE") return a <= b;
      if (direction == "GT") return a > b;
      if (direction == "GE") return a >= b;
      if (direction == "EQ") return a == b;
      if (direction == "NE") return a != b;
    }
    return std::nullopt;
  }
  if (args.size() == 1) {
    if (op == "stablehlo.negate" && a != std::numeric_limits<std::int64_t>::min()) return -a;
    if (op == "stablehlo.abs" && a != std::numeric_limits<std::int64_t>::min()) return a < 0 ? -a : a;
    return std::nullopt;
  }
  if (args.size() == 3 && op == "stablehlo.select") return a ? *args[1] : *args[2];
  if (args.size() == 3 && op == "stablehlo.clamp") return std::min(std::max(b, a), *args[2]);
  return std::nullopt;
}

std::vector<std::size_t> StablehloReader::order_iteration(std::size_t first, const std::vector<std::size_t>& previous) {
  const std::size_t end = module_.ops.size();
  std::map<std::string, std::size_t> by_name, by_out;  // within the iteration
  for (std::size_t k = first; k < end; ++k) {
    by_name[module_.ops[k].name] = k;
    by_out[module_.ops[k].out] = k;
  }
  std::vector<bool> waited_for(end - first, false);
  for (std::size_t k = first; k < end; ++k) {
    ImportedOp& op = module_.ops[k];
    bool inside = false;
    auto mark = [&](const std::map<std::string, std::size_t>& index, const std::string& key) {
      const auto it = index.find(key);
      if (it == index.end() || it->second == k) return;
      waited_for[it->second - first] = true;
      inside = true;
    };
    for (const auto& d : op.after)
      mark(by_name, d);
    mark(by_out, op.lhs);
    mark(by_out, op.rhs);
    if (inside) continue;
    for (const std::size_t p : previous) {  // but those it reads from already
      const ImportedOp& before = module_.ops[p];
      if (before.out != op.lhs && before.out != op.rhs &&
          std::find(op.after.begin(), op.after.end(), before.name) == op.after.end())
        op.after.push_back(before.name);
    }
  }
  std::vector<std::size_t> last;
  for (std::size_t k = first; k < end; ++k)
    if (!waited_for[k - first]) last.push_back(k);
  return last.empty() ? previous : last;
}

void StablehloReader::read_while(std::size_t op_at, std::size_t op_end, const std::string& ssa, std::size_t results,
                                 Scope& scope, const std::string& name, int depth, std::size_t end) {
  const std::size_t while_line = cur_;
  const std::string where = "the while at line " + std::to_string(line_no_);
  if (depth + 1 > kMaxCallDepth)
    fail(op_at, "calls and loops nested deeper than " + std::to_string(kMaxCallDepth) + ", got: stablehlo.while");
  // `(%iterArg = %init, ...)`, then `: types` and optional `attributes {...}`.
  if (op_end >= line_.size() || line_[op_end] != '(')
    fail(op_end, "malformed stablehlo.while: expected `(%iterArg = %init, ...)`");
  const std::size_t close = match_close(line_, op_end);
  if (close == std::string::npos) fail(op_end, "malformed stablehlo.while: unterminated '('");
  std::vector<std::string> arguments;
  std::vector<SsaValue> state;
  for (const auto& [b, e] : split_top(line_, op_end + 1, close - 1)) {
    const std::size_t a_end = line_[b] == '%' ? ssa_end(line_, b) : b;
    const std::size_t eq = skip_space(line_, a_end);
    const std::size_t init = eq < e && line_[eq] == '=' ? skip_space(line_, eq + 1) : e;
    if (a_end == b || init >= e || line_[init] != '%' || ssa_end(line_, init) != e)
      fail(b, "malformed loop argument, expected `%iterArg = %init`, got: " + line_.substr(b, e - b));
    arguments.push_back(line_.substr(b, a_end - b));
    state.push_back(value(init, line_.substr(init, e - init), scope));
  }
  if (arguments.size() != results)
    fail(op_at, "the while has " + std::to_string(results) + " result(s) but " + std::to_string(arguments.size()) +
                    " loop argument(s)");
  const std::size_t colon = skip_space(line_, close);
  if (colon >= line_.size() || line_[colon] != ':') fail(colon, "malformed stablehlo.while: no types");
  std::size_t types_end = find_top(" attributes", colon);
  if (types_end == std::string::npos) types_end = find_top(" loc(", colon);
  if (types_end == std::string::npos) types_end = line_.size();
  const auto types = split_top(line_, colon + 1, types_end);
  if (types.size() != results)
    fail(colon,
         "the while has " + std::to_string(results) + " result(s) but " + std::to_string(types.size()) + " type(s)");
  for (std::size_t k = 0; k < results; ++k)
    if (read_tensor_type(types[k].first).shape != state[k].shape)
      fail(types[k].first, "loop argument " + arguments[k] + " has type " +
                               line_.substr(types[k].first, types[k].second - types[k].first) +
                               ", its initial value has shape " + format_shape(state[k].shape));
  if (line_.find("sdy.sharding_per_value<[", types_end) != std::string::npos)
    approximate("stablehlo.while", line_no_,
                "the loop's given result shardings are not read: each value keeps the sharding derived in the body");

  // The regions: `cond {` ... `} do {` ... `}`. A line at the region's own depth that starts with `}` closes it.
  auto code_line = [&](std::size_t k) {
    while (k < end) {
      const std::size_t b = skip_space(lines_[k], 0);
      if (b < lines_[k].size() && lines_[k].compare(b, 2, "//") != 0) break;
      ++k;
    }
    return k;
  };
  auto region_end = [&](std::size_t open) {
    int level = 1;
    for (std::size_t k = code_line(open + 1); k < end; k = code_line(k + 1)) {
      if (level == 1 && lines_[k][skip_space(lines_[k], 0)] == '}') return k;
      level += brace_delta(lines_[k]);
    }
    set_line(while_line);
    fail(op_at, "the while's regions are not closed");
  };
  const std::size_t cond_open = code_line(while_line + 1);
  if (cond_open >= end || lines_[cond_open].compare(skip_space(lines_[cond_open], 0), 4, "cond") != 0 ||
      brace_delta(lines_[cond_open]) != 1) {
    if (cond_open < end) set_line(cond_open);
    fail(cond_open < end ? skip_space(line_, 0) : op_at, "expected the while's condition region `cond {`");
  }
  const std::size_t cond_close = region_end(cond_open);
  const std::size_t do_at = skip_space(lines_[cond_close], skip_space(lines_[cond_close], 0) + 1);
  if (lines_[cond_close].compare(do_at, 2, "do") != 0 || brace_delta(lines_[cond_close]) != 0) {
    set_line(cond_close);
    fail(skip_space(line_, 0), "expected `} do {` after the while's condition, got: " + line_.substr(0, 40));
  }
  const std::size_t body_close = region_end(cond_close);
  if (brace_delta(lines_[body_close]) != -1) {
    set_line(body_close);
    fail(skip_space(line_, 0), "expected `}` closing the while's body, got: " + line_.substr(0, 40));
  }

  auto bind = [&](Scope& region) {
    for (std::size_t k = 0; k < results; ++k)
      region.values[arguments[k]] = state[k];
  };
  std::vector<std::size_t> previous;  // the last ops of the iteration before
  std::int64_t iteration = 0;
  for (;; ++iteration) {
    Scope condition{{}, &scope};
    bind(condition);
    ++folding_;
    const auto verdict =
        run_lines(cond_open + 1, cond_close, condition, name + "_cond_", depth + 1, false, "the condition of " + where);
    --folding_;
    if (verdict.size() != 1 || !verdict[0].scalar) {
      set_line(while_line);
      fail(op_at,
           "the loop's trip count is unknown: its condition does not fold to an integer constant (podsim unrolls "
           "loops whose condition folds to one)");
    }
    if (*verdict[0].scalar == 0) break;
    if (iteration == kMaxIterations) {
      set_line(while_line);
      fail(op_at, "the loop runs more than " + std::to_string(kMaxIterations) +
                      " iterations (its condition still holds after them): podsim simulates every iteration's ops, "
                      "and unrolls loops of at most " +
                      std::to_string(kMaxIterations));
    }
    Scope body{{}, &scope};
    bind(body);
    const std::size_t first = module_.ops.size();
    if (iteration > 0) ++quiet_;
    auto next = run_lines(cond_close + 1, body_close, body, name + "_i" + std::to_string(iteration) + "_", depth + 1,
                          false, "the body of " + where);
    if (iteration > 0) --quiet_;
    set_line(while_line);
    if (next.size() != results)
      fail(op_at, "the loop's body returns " + std::to_string(next.size()) + " value(s), the loop carries " +
                      std::to_string(results));
    for (std::size_t k = 0; k < results; ++k)
      if (next[k].shape != state[k].shape)
        fail(op_at, "the loop's body returns shape " + format_shape(next[k].shape) + " for " + arguments[k] +
                        ", which has shape " + format_shape(state[k].shape));
    previous = order_iteration(first, previous);
    state = std::move(next);
    if (module_.ops.size() > kMaxOps)
      fail(op_at, "more than " + std::to_string(kMaxOps) + " ops after inlining calls and unrolling loops (after " +
                      std::to_string(iteration + 1) + " iterations of this loop)");
  }
  set_line(while_line);
  approximate("stablehlo.while", line_no_,
              "unrolled: the body read " + std::to_string(iteration) +
                  " time(s), the trip count its condition folds to (the condition is not simulated); each " +
                  "iteration starts after the one before ends");
  for (std::size_t k = 0; k < results; ++k)
    scope.values[results == 1 ? ssa : ssa + "#" + std::to_string(k)] = state[k];
  cur_ = body_close;  // the caller goes on after the loop
}

// `%r = call @f(%a)`: @f's body read in place (inlined), its arguments bound to the call's operands.
void StablehloReader::read_call(OpLine& op_line) {
  const auto [callee, callee_at] = symbol_at(line_, op_line.op_end);
  const auto it = functions_.find(callee);
  if (callee_at == std::string::npos || it == functions_.end())
    fail(op_line.op_at, "call of an unknown function @" + callee);
  if (callee == entry_) fail(op_line.op_at, "call of the entry function @" + entry_);
  if (op_line.depth + 1 > kMaxCallDepth)
    fail(op_line.op_at, "calls nested deeper than " + std::to_string(kMaxCallDepth) + " (recursion?), got: @" + callee);
  const std::size_t here = cur_;
  std::vector<SsaValue> args;
  for (std::size_t k = 0; k < op_line.operands.size(); ++k)
    args.push_back(operand(op_line, k));
  const Function& fn = it->second;
  set_line(fn.sig);
  const auto [fname, f_at] = symbol_at(line_, 0);
  const std::size_t open = line_.find('(', f_at);
  const std::size_t close = open == std::string::npos ? open : match_close(line_, open);
  if (close == std::string::npos) fail(f_at, "malformed signature (it must fit on one line)");
  const auto params = signature_arguments(line_, open, close);
  if (params.size() != args.size())
    fail(f_at, "@" + callee + " takes " + std::to_string(params.size()) + " arguments, the call at line " +
                   std::to_string(here + 1) + " passes " + std::to_string(args.size()));
  Scope inner;  // no parent: a function reads its arguments only
  for (std::size_t k = 0; k < params.size(); ++k) {
    if (params[k].ssa.empty() || line_[params[k].col] != '%')
      fail(params[k].col, "malformed argument, got: " + line_.substr(params[k].col, params[k].end - params[k].col));
    const TensorType type = read_tensor_type(skip_space(line_, params[k].col + params[k].ssa.size() + 1));
    if (type.shape != args[k].shape)
      fail(params[k].col, "argument " + params[k].ssa + " has shape " + format_shape(type.shape) +
                              ", the call at line " + std::to_string(here + 1) + " passes " +
                              format_shape(args[k].shape));
    const std::size_t attr = line_.find("sharding", params[k].col);
    if (attr != std::string::npos && attr < params[k].end)
      fail(attr, "shardings on a private function's arguments are not read");
    inner.values[params[k].ssa] = args[k];
  }
  if (line_.find("sdy.sharding_per_value<[", op_line.op_end) < op_line.type_colon)
    fail(op_line.op_at, "a sharding on a call's result is not read");
  const auto returned =
      run_lines(fn.sig + 1, fn.end, inner, op_line.name + "_", op_line.depth + 1, false, "@" + callee);
  set_line(here);
  if (returned.size() != op_line.results)
    fail(op_line.op_at, "@" + callee + " returns " + std::to_string(returned.size()) + " value(s), the call takes " +
                            std::to_string(op_line.results));
  for (std::size_t k = 0; k < op_line.results; ++k) {
    if (returned[k].shape != read_tensor_type(op_line.result_types[k]).shape)
      fail(op_line.result_types[k], "the call's result type differs from @" + callee + "'s");
    op_line.scope->values[op_line.results == 1 ? op_line.ssa : op_line.ssa + "#" + std::to_string(k)] = returned[k];
  }
  return;
}

// `%r:N = stablehlo.optimization_barrier %a, %b`: no time, each result is its operand.
void StablehloReader::read_optimization_barrier(OpLine& op_line) {
  // no time: each result is its operand
  need(op_line, op_line.results);
  for (std::size_t k = 0; k < op_line.results; ++k) {
    const TensorType type = read_tensor_type(op_line.result_types[k]);
    if (type.shape != operand(op_line, k).shape)
      fail(op_line.result_types[k], "the result type differs from the operand's");
    op_line.scope->values[op_line.results == 1 ? op_line.ssa : op_line.ssa + "#" + std::to_string(k)] =
        operand(op_line, k);
  }
  if (line_.find("sdy.sharding_per_value<[", op_line.op_end) < op_line.type_colon)
    approximate(op_line.op, line_no_, "the results' given shardings are not read: each result keeps its operand's");
  return;
}

}  // namespace podsim::import::stablehlo_read
