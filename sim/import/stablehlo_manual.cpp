// `sdy.manual_computation` (what JAX's shard_map lowers to) and the StableHLO collectives of its body (docs/import.md,
// "Manual regions"). The body runs per device: its values have the local shapes the module prints along the manual
// axes (free axes keep their automatic shardings). podsim reads each body value as a tensor of its printed shape,
// replicated over the manual axes, so that every chip computes what the body computes; a collective reads its operand
// through a stand-in view in the layout podsim's collective over the groups' mesh axes needs (unreduced for an
// all-reduce or a reduce-scatter, the gathered dim sharded for an all-gather, the concatenated dim for an all-to-all),
// and a collective permute is the sends its pairs name.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {
namespace {

// `s` with the axes named in `manual` taken out of its dims and lists (what the body sees).
TensorSharding without_axes(TensorSharding s, const std::set<std::string>& manual) {
  auto drop = [&](std::vector<AxisRef>& refs) {
    refs.erase(std::remove_if(refs.begin(), refs.end(), [&](const AxisRef& r) { return manual.count(r.name) > 0; }),
               refs.end());
  };
  for (auto& dim : s.dims)
    drop(dim.axes);
  drop(s.replicated);
  drop(s.unreduced);
  return s;
}

// The product of the sizes of the manual axes sharding each dim of `s`.
std::vector<std::int64_t> manual_factors(const TensorSharding& s, const std::set<std::string>& manual,
                                         const Mesh& mesh) {
  std::vector<std::int64_t> f;
  for (const auto& dim : s.dims) {
    std::int64_t p = 1;
    for (const auto& r : dim.axes)
      if (manual.count(r.name)) p *= r.size(mesh);
    f.push_back(p);
  }
  return f;
}

// Whether two shardings place the same shards (dims and unreduced axes; open or closed, priorities aside).
bool same_shards(const TensorSharding& a, const TensorSharding& b) {
  if (a.dims.size() != b.dims.size() || a.unreduced != b.unreduced) return false;
  for (std::size_t d = 0; d < a.dims.size(); ++d)
    if (a.dims[d].axes != b.dims[d].axes) return false;
  return true;
}

}  // namespace

// The op line of `%r:N = sdy.manual_computation(%a, ...) in_shardings=[...] out_shardings=[...] manual_axes={...}
// (%b: T, ...) {`: its operands, shardings, manual axes and body arguments.
ManualHeader StablehloReader::read_manual_header(const OpLine& op_line) {
  const std::size_t op_at = op_line.op_at;
  ManualHeader h;
  const std::size_t open = op_line.op_end;
  if (open >= line_.size() || line_[open] != '(') fail(open, "malformed sdy.manual_computation: expected its operands");
  const std::size_t close = match_close(line_, open);
  if (close == std::string::npos) fail(open, "malformed sdy.manual_computation: unterminated '('");
  for (const auto& [b, e] : split_top(line_, open + 1, close - 1)) {
    if (line_[b] != '%' || ssa_end(line_, b) != e) fail(b, "malformed operand, got: " + line_.substr(b, e - b));
    h.operands.push_back(&value(b, line_.substr(b, e - b), *op_line.scope));
  }
  // in_shardings=[...] out_shardings=[...] manual_axes={...}
  auto list_after = [&](const std::string& key, char bracket) {
    const std::size_t k = line_.find(key, close);
    if (k == std::string::npos || line_[k + key.size()] != bracket)
      fail(op_at, "malformed sdy.manual_computation: no " + key.substr(0, key.size() - 1));
    const std::size_t end = match_close(line_, k + key.size());
    if (end == std::string::npos) fail(k, "malformed " + key.substr(0, key.size() - 1));
    return std::pair{k + key.size(), end};
  };
  const auto [in_open, in_end] = list_after("in_shardings=", '[');
  const auto [out_open, out_end] = list_after("out_shardings=", '[');
  const auto [axes_open, axes_end] = list_after("manual_axes=", '{');
  try {
    const TensorSharding listed =
        parse_shardy_sharding("<@" + module_.mesh_name + ", [" + line_.substr(axes_open, axes_end - axes_open) + "]>");
    for (const auto& r : listed.dims.front().axes) {
      if (r.is_sub_axis()) fail(axes_open, "manual_axes with a sub-axis are not read, got: " + to_string(r));
      mesh_->axis_size(r.name);
      h.manual.insert(r.name);
    }
  } catch (const ParseError& e) {
    fail(axes_open, std::string("malformed manual_axes: ") + e.what());
  } catch (const VerifyError& e) {
    fail(axes_open, std::string("manual_axes: ") + e.what());
  }
  for (const auto& outer : manual_axes_)
    for (const auto& a : h.manual)
      if (outer.count(a)) fail(axes_open, "manual axis \"" + a + "\" is already manual in the enclosing region");
  h.in_parts = split_top(line_, in_open + 1, in_end - 1);
  h.out_parts = split_top(line_, out_open + 1, out_end - 1);
  if (h.in_parts.size() != h.operands.size())
    fail(in_open,
         std::to_string(h.in_parts.size()) + " in_shardings for " + std::to_string(h.operands.size()) + " operands");
  // The block arguments `(%b: tensor<...>, ...) {` after manual_axes.
  const std::size_t args_open = skip_space(line_, axes_end);
  if (args_open >= line_.size() || line_[args_open] != '(')
    fail(args_open, "malformed sdy.manual_computation: expected the body's arguments");
  const std::size_t args_close = match_close(line_, args_open);
  if (args_close == std::string::npos || brace_delta(line_) != 1)
    fail(args_open, "malformed sdy.manual_computation: expected `(%arg: type, ...) {`");
  h.args = signature_arguments(line_, args_open, args_close);
  if (h.args.size() != h.operands.size() && !(h.args.size() == 1 && h.args[0].ssa.empty() && h.operands.empty()))
    fail(args_open,
         std::to_string(h.args.size()) + " body arguments for " + std::to_string(h.operands.size()) + " operands");
  return h;
}

// Binds the body's arguments in `body`: each operand moved to its in_sharding first (a reshard op when it is not
// there: the automatic partitioner's move into the region), then viewed with the local shape along the manual axes.
void StablehloReader::bind_manual_arguments(OpLine& op_line, const ManualHeader& h, Scope& body) {
  for (std::size_t k = 0; k < h.operands.size(); ++k) {
    SsaValue& in = *h.operands[k];
    const std::size_t b = h.args[k].col;
    if (line_[b] != '%' || h.args[k].ssa.empty()) fail(b, "malformed body argument");
    const TensorType type = read_tensor_type(skip_space(line_, line_.find(':', b) + 1));
    const std::string text = read_sharding_text(h.in_parts[k].first, in.shape.size());
    const TensorSharding given_in = parse_shardy_sharding(text);
    // The automatic partitioner moves the operand to its in_sharding first.
    SsaValue* source = &in;
    SsaValue resharded;
    if (!same_shards(in.sharding, given_in)) {
      materialize(in, h.in_parts[k].first);
      ImportedOp op;
      op.kind = ImportedOpKind::reshard;
      op.name = op_line.name + "_in" + std::to_string(k);
      op.lhs = in.tensor;
      op.sharding = text;
      op.after = after_of({&in}, {});
      add_op(op_line, op);
      resharded = in;
      resharded.tensor = resharded.writer = op.name;
      resharded.deps.clear();
      resharded.sharding = given_in;
      source = &resharded;
    }
    std::vector<std::int64_t> local = in.shape;
    const auto factors = manual_factors(given_in, h.manual, *mesh_);
    for (std::size_t d = 0; d < local.size(); ++d) {
      if (local[d] % factors[d] != 0)
        fail(h.in_parts[k].first, "dim " + std::to_string(d) + " of " + format_shape(in.shape) +
                                      " does not divide among the manual axes' " + std::to_string(factors[d]) +
                                      " shards");
      local[d] /= factors[d];
    }
    if (type.shape != local)
      fail(b, "body argument " + h.args[k].ssa + " has shape " + format_shape(type.shape) + ", its in_sharding gives " +
                  format_shape(local));
    materialize(*source, h.in_parts[k].first);
    SsaValue arg = *source;
    arg.shape = type.shape;
    arg.sharding = without_axes(given_in, h.manual);
    arg.source = storage_of(*source);
    arg.tensor.clear();
    arg.name = op_line.name + "_" + tensor_name(h.args[k].ssa);
    arg.deps = source->deps;
    if (!source->writer.empty()) arg.deps.push_back(source->writer);
    arg.writer.clear();
    arg.pending = -1;
    arg.stablehlo_op = "sdy.manual_computation";
    arg.line = line_no_;
    body.values[h.args[k].ssa] = arg;
  }
}

// The region's results: views of what the body returns (`results`, read up to `body_close`, whose line has the
// result types), with the op's result types and out_shardings.
std::vector<SsaValue> StablehloReader::manual_results(const OpLine& op_line, const ManualHeader& h,
                                                      std::vector<SsaValue>& results, std::size_t body_close) {
  const std::size_t op_line_index = cur_;
  if (results.size() != op_line.results || h.out_parts.size() != op_line.results)
    fail(op_line.op_at, "the manual computation has " + std::to_string(op_line.results) +
                            " result(s), its body returns " + std::to_string(results.size()) + " and it has " +
                            std::to_string(h.out_parts.size()) + " out_shardings");
  std::vector<TensorSharding> out_shardings;
  for (std::size_t k = 0; k < h.out_parts.size(); ++k)
    out_shardings.push_back(parse_shardy_sharding(read_sharding_text(h.out_parts[k].first, results[k].shape.size())));
  // The result types on the closing line: `} : (T, ...) -> T` or `-> (T, ...)`.
  set_line(body_close);
  const std::size_t arrow = line_.find("->");
  if (arrow == std::string::npos) fail(skip_space(line_, 0), "expected the manual computation's types after `}`");
  std::vector<std::size_t> types;
  std::size_t t = skip_space(line_, arrow + 2);
  if (t < line_.size() && line_[t] == '(') {
    const std::size_t tc = match_close(line_, t);
    if (tc == std::string::npos) fail(t, "malformed types");
    for (const auto& p : split_top(line_, t + 1, tc - 1))
      types.push_back(p.first);
  } else {
    types.push_back(t);
  }
  if (types.size() != op_line.results)
    fail(arrow, std::to_string(types.size()) + " result type(s) for " + std::to_string(op_line.results) + " results");
  std::vector<SsaValue> bound;
  for (std::size_t k = 0; k < types.size(); ++k) {
    const TensorType type = read_tensor_type(types[k]);
    SsaValue r = results[k];
    std::vector<std::int64_t> local = type.shape;
    const auto factors = manual_factors(out_shardings[k], h.manual, *mesh_);
    for (std::size_t d = 0; d < local.size() && d < factors.size(); ++d)
      local[d] = local[d] % factors[d] == 0 ? local[d] / factors[d] : -1;
    if (local != r.shape)
      fail(types[k], "result " + std::to_string(k) + " of the manual computation has type " + format_shape(type.shape) +
                         ", its body returns " + format_shape(r.shape) + " per device");
    materialize(results[k], types[k]);
    SsaValue v;
    v.name = op_line.results == 1 ? op_line.name : op_line.name + "_" + std::to_string(k);
    v.shape = type.shape;
    v.element = type.element;
    v.dtype = results[k].dtype;
    v.sharding = out_shardings[k];
    v.source = storage_of(results[k]);
    v.deps = results[k].deps;
    if (!results[k].writer.empty()) v.deps.push_back(results[k].writer);
    v.stablehlo_op = "sdy.manual_computation";
    v.line = static_cast<int>(op_line_index) + 1;
    bound.push_back(v);
  }
  return bound;
}

// `%r:N = sdy.manual_computation(...) ... {`, its body, and `} : (T, ...) -> (T, ...)`: the op line, the body read
// per device with the manual axes in force, then the results.
void StablehloReader::read_manual_computation(OpLine& op_line) {
  const std::size_t op_line_index = cur_;
  const std::size_t op_at = op_line.op_at;
  if (op_line.depth + 1 > kMaxCallDepth)
    fail(op_at, "calls, loops and manual regions nested deeper than " + std::to_string(kMaxCallDepth));
  const ManualHeader h = read_manual_header(op_line);
  // The body: up to the line at the op's level that starts with `}` (with the types).
  std::size_t body_close = op_line_index + 1;
  for (int level = 1; body_close < op_line.end; ++body_close) {
    const std::size_t b = skip_space(lines_[body_close], 0);
    if (lines_[body_close].compare(b, 2, "//") == 0) continue;
    if (level == 1 && b < lines_[body_close].size() && lines_[body_close][b] == '}') break;
    level += brace_delta(lines_[body_close]);
  }
  if (body_close >= op_line.end) fail(op_at, "the manual computation's body is not closed");
  const std::string where = "the manual computation at line " + std::to_string(line_no_);
  Scope body;  // isolated from above, as Shardy's op is
  bind_manual_arguments(op_line, h, body);
  manual_axes_.push_back(h.manual);
  auto results = run_lines(op_line_index + 1, body_close, body, op_line.name + "_", op_line.depth + 1, false, where);
  manual_axes_.pop_back();
  set_line(op_line_index);
  const std::vector<SsaValue> bound = manual_results(op_line, h, results, body_close);
  set_line(op_line_index);
  approximate("sdy.manual_computation", line_no_,
              "its body runs per device on the local shapes (" + std::to_string(h.manual.size()) +
                  " manual axes); its results are views of what the body returns");
  for (std::size_t k = 0; k < bound.size(); ++k)
    op_line.scope->values[op_line.results == 1 ? op_line.ssa : op_line.ssa + "#" + std::to_string(k)] = bound[k];
  cur_ = body_close;  // the caller goes on after the region
}

}  // namespace podsim::import::stablehlo_read
