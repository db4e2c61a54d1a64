// Shardy's explicit collectives (docs/import.md, "Shardy's explicit collectives"): the communication Shardy decided
// (after its propagation and reshard-to-collectives passes) taken as given. Over whole mesh axes, podsim's own
// collectives; a collective_permute, an all-gather over sub-axes and an all-to-all of several dims as the sends
// that move the shards (reshard_transfers.hpp); an all-slice as a view (local: no communication).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/reshard_transfers.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {
namespace {

// The most sends one explicit collective becomes.
constexpr std::size_t kMaxSends = 65536;

// The axes a list of dim shardings names, in order.
std::vector<AxisRef> all_axes(const std::vector<DimSharding>& dims) {
  std::vector<AxisRef> axes;
  for (const auto& dim : dims)
    axes.insert(axes.end(), dim.axes.begin(), dim.axes.end());
  return axes;
}

bool any_sub_axis(const std::vector<AxisRef>& axes) {
  return std::any_of(axes.begin(), axes.end(), [](const AxisRef& a) { return a.is_sub_axis(); });
}

std::vector<std::string> axis_names(const std::vector<AxisRef>& axes) {
  std::vector<std::string> names;
  for (const auto& a : axes)
    names.push_back(a.name);
  return names;
}

// `s` without `axes` at the end of the dims' lists (an all-gather's result), or nullopt when they are not there.
std::optional<TensorSharding> without_suffixes(TensorSharding s, const std::vector<DimSharding>& axes) {
  for (std::size_t d = 0; d < axes.size() && d < s.dims.size(); ++d) {
    auto& list = s.dims[d].axes;
    const auto& gone = axes[d].axes;
    if (gone.size() > list.size() || !std::equal(gone.begin(), gone.end(), list.end() - gone.size()))
      return std::nullopt;
    list.erase(list.end() - gone.size(), list.end());
  }
  return s;
}

// Whether two shardings place the same shards: the same dims (open or closed alike) and unreduced axes.
bool same_layout(const TensorSharding& a, const TensorSharding& b) {
  if (a.dims.size() != b.dims.size()) return false;
  for (std::size_t d = 0; d < a.dims.size(); ++d)
    if (a.dims[d].axes != b.dims[d].axes) return false;
  return a.unreduced == b.unreduced;
}

}  // namespace

// The bracketed axes after the op name: `[{...}, {...}]` per dim, `{...}` (all_reduce), or all_to_all's
// `[{...}: 0->1, ...]` or its earlier one-parameter form `{...} 0->1` (with each parameter's dims in `moves`).
// Columns in errors are the line's.
std::vector<DimSharding> StablehloReader::read_collective_axes(const OpLine& op_line,
                                                               std::vector<std::pair<int, int>>* moves) {
  const std::size_t open = skip_space(line_, op_line.op_end);
  // all_to_all's earlier form, one parameter: `{"x"} 0->2`.
  const bool old_all_to_all = moves && open < line_.size() && line_[open] == '{';
  const bool braced = op_line.op == "sdy.all_reduce" || old_all_to_all;
  if (open >= line_.size() || line_[open] != (braced ? '{' : '['))
    fail(open, op_line.op + ": expected its axes " + (braced ? "{...}" : "[...]") + " after the op name");
  const std::size_t close = match_close(line_, open);
  if (close == std::string::npos || close > op_line.type_colon) fail(open, op_line.op + ": unterminated axes");
  auto parse_dims = [&](std::size_t from, std::size_t to) {
    const std::string text = "<@" + module_.mesh_name + ", [" + line_.substr(from, to - from) + "]>";
    try {
      return parse_shardy_sharding(text).dims;
    } catch (const ParseError& e) {
      fail(from, std::string("malformed axes: ") + e.what() + ", got: " + line_.substr(from, to - from));
    }
  };
  if (old_all_to_all) {
    const std::size_t arrow = line_.find("->", close);
    const std::size_t operand = op_line.operands.front().second;
    try {
      if (arrow == std::string::npos || arrow > operand) throw std::invalid_argument("no ->");
      moves->emplace_back(std::stoi(line_.substr(close, arrow - close)), std::stoi(line_.substr(arrow + 2)));
    } catch (const std::exception&) {
      fail(close, "malformed all_to_all dims, expected FROM->TO, got: " + line_.substr(close, operand - close));
    }
    return parse_dims(open, close);
  }
  if (braced) return parse_dims(open, close);
  if (!moves) return parse_dims(open + 1, close - 1);
  // all_to_all: `{"y"}: 0->1, {"z"}: 2->0`, one parameter per part.
  std::vector<DimSharding> params;
  for (const auto& [b, e] : split_top(line_, open + 1, close - 1)) {
    const std::size_t brace_end = line_[b] == '{' ? match_close(line_, b) : std::string::npos;
    const std::size_t arrow = line_.find("->", b);
    const std::size_t colon = brace_end == std::string::npos ? brace_end : line_.find(':', brace_end);
    if (brace_end == std::string::npos || colon == std::string::npos || arrow == std::string::npos || arrow > e)
      fail(b, "malformed all_to_all parameter, expected {axes}: FROM->TO, got: " + line_.substr(b, e - b));
    const auto dims = parse_dims(b, brace_end);
    try {
      moves->emplace_back(std::stoi(line_.substr(colon + 1, arrow - colon - 1)), std::stoi(line_.substr(arrow + 2)));
    } catch (const std::exception&) {
      fail(colon, "malformed all_to_all dims, expected FROM->TO, got: " + line_.substr(colon + 1, e - colon - 1));
    }
    params.push_back(dims.front());
  }
  if (params.empty()) fail(open, "all_to_all without parameters");
  return params;
}

// `out_sharding=<@mesh, [...]>` of an explicit collective.
TensorSharding StablehloReader::read_out_sharding(const OpLine& op_line, std::size_t rank) {
  const std::size_t k = line_.find("out_sharding=", op_line.operands.front().second);
  if (k == std::string::npos || k > op_line.type_colon) fail(op_line.op_at, op_line.op + ": no out_sharding");
  return parse_shardy_sharding(read_sharding_text(k + 13, rank));
}

// The sends that move `in`'s shards to the sharding `to`, named `NAME.K`; the result is a view of `in`'s bytes
// whose readers wait for them.
void StablehloReader::sends_for(OpLine& op_line, SsaValue& in, const TensorSharding& to, const std::string& why) {
  std::vector<ShardTransfer> transfers;
  try {
    transfers = reshard_transfers(in.shape, parse_dtype(need_dtype(op_line.out, op_line.type_at, op_line.op)),
                                  in.sharding, to, *mesh_, kMaxSends);
  } catch (const VerifyError& e) {
    fail(op_line.op_at, op_line.op + ": " + e.what());
  }
  materialize(in, op_line.operands.front().second);
  SsaValue v = derived(op_line, to);
  v.deps = in.deps;
  if (!in.writer.empty()) v.deps.push_back(in.writer);
  const std::vector<std::string> after = after_of({}, {&in});
  std::size_t k = 0;
  for (const auto& t : transfers) {
    ImportedOp send;
    send.kind = ImportedOpKind::send;
    send.name = op_line.name + "." + std::to_string(k++);
    send.from_chip = t.from;
    send.to_chip = t.to;
    send.bytes = static_cast<std::int64_t>(t.bytes);
    send.after = after;
    add_op(op_line, send);
    v.deps.push_back(send.name);
  }
  v.source = storage_of(in);
  approximate(op_line.op, line_no_,
              why + ": " + std::to_string(transfers.size()) + " sends `" + op_line.name +
                  ".K` of the shards each chip lacks; the result is a view of \"" + v.source +
                  "\" (no memory of its own)");
  define(op_line, v);
}

// An all-reduce (`gather`) or a reduce-scatter over `axes` that podsim's collectives do not run (sub-axes, several
// scattered dims): its sends, done directly (reduction_transfers), `NAME.rsK` then `NAME.agK`; each gather send
// waits for the pieces its sender sums. The result is a view of the operand's bytes with the out sharding.
void StablehloReader::reduction_sends(OpLine& op_line, SsaValue& in, const std::vector<AxisRef>& axes,
                                      const TensorSharding& out, bool gather) {
  materialize(in, op_line.operands.front().second);
  ReductionTransfers transfers;
  try {
    const auto bytes = compute_layout(in.shape, parse_dtype(in.dtype), in.sharding, *mesh_).bytes_per_device;
    transfers = reduction_transfers(bytes, axes, *mesh_, gather, kMaxSends);
  } catch (const VerifyError& e) {
    fail(op_line.op_at, op_line.op + ": " + e.what());
  }
  SsaValue v = derived(op_line, out);
  v.dtype = in.dtype;
  const std::vector<std::string> after = after_of({}, {&in});
  std::map<std::int64_t, std::vector<std::string>> received;  // per chip, the scatter sends it sums
  auto add = [&](const ShardTransfer& t, const std::string& name, const std::vector<std::string>& waits) {
    ImportedOp send;
    send.kind = ImportedOpKind::send;
    send.name = name;
    send.from_chip = t.from;
    send.to_chip = t.to;
    send.bytes = static_cast<std::int64_t>(std::max<std::uint64_t>(1, t.bytes));
    send.after = waits;
    add_op(op_line, send);
  };
  for (std::size_t k = 0; k < transfers.scatter.size(); ++k) {
    const std::string name = op_line.name + ".rs" + std::to_string(k);
    add(transfers.scatter[k], name, after);
    received[transfers.scatter[k].to].push_back(name);
    if (!gather) v.deps.push_back(name);
  }
  for (std::size_t k = 0; k < transfers.gather.size(); ++k) {
    const std::string name = op_line.name + ".ag" + std::to_string(k);
    add(transfers.gather[k], name, received[transfers.gather[k].from]);
    v.deps.push_back(name);
  }
  v.source = storage_of(in);
  approximate(op_line.op, line_no_,
              std::string(gather ? "an all-reduce" : "a reduce-scatter") + " over " + to_string(axes) +
                  " done directly: " + std::to_string(transfers.scatter.size()) + " sends `" + op_line.name +
                  ".rsK` of the pieces each chip sums" +
                  (gather ? ", then " + std::to_string(transfers.gather.size()) + " sends `" + op_line.name +
                                ".agK` of the sums"
                          : std::string()) +
                  " (the adds are not timed); the result is a view of \"" + v.source + "\"");
  define(op_line, v);
}

// sdy.all_gather, sdy.all_slice, sdy.all_reduce, sdy.reduce_scatter, sdy.all_to_all.
void StablehloReader::read_sdy_collective(OpLine& op_line) {
  need(op_line, 1);
  SsaValue& in = operand(op_line, 0);
  const std::size_t rank = in.shape.size();
  if (op_line.out.shape != in.shape)
    fail(op_line.type_at, op_line.op + ": the result's type differs from the operand's");
  std::vector<std::pair<int, int>> moves;
  const bool to_all = op_line.op == "sdy.all_to_all";
  const std::vector<DimSharding> params = read_collective_axes(op_line, to_all ? &moves : nullptr);
  const TensorSharding out = read_out_sharding(op_line, rank);
  const std::vector<AxisRef> axes = all_axes(params);
  if (!to_all && op_line.op != "sdy.all_reduce" && params.size() != rank)
    fail(op_line.op_at, op_line.op + ": " + std::to_string(params.size()) + " axis lists for a tensor of rank " +
                            std::to_string(rank));
  if (op_line.op == "sdy.all_slice") {  // each chip keeps a slice of what it holds: no communication
    SsaValue v = derived(op_line, out);
    v.deps = in.deps;
    if (!in.writer.empty()) v.deps.push_back(in.writer);
    v.constant = in.constant;
    v.source = in.tensor.empty() ? in.source : storage_of(in);
    define(op_line, v);
    return;
  }
  ImportedOp op;
  op.name = op_line.name;
  if (op_line.op == "sdy.all_gather") {
    const auto expected = without_suffixes(in.sharding, params);
    if (!expected || !same_layout(*expected, out))
      fail(op_line.op_at, "sdy.all_gather of " + to_string(axes) + " from " + print_shardy_sharding(in.sharding) +
                              " does not give its out_sharding " + print_shardy_sharding(out));
    if (axes.empty()) {  // gathers nothing: the operand itself
      define(op_line, in);
      return;
    }
    if (any_sub_axis(axes)) return sends_for(op_line, in, out, "an all-gather over sub-axes");
    op.kind = ImportedOpKind::all_gather;
  } else if (op_line.op == "sdy.all_reduce") {
    if (any_sub_axis(axes)) return reduction_sends(op_line, in, axes, out, true);
    op.kind = ImportedOpKind::all_reduce;
  } else if (op_line.op == "sdy.reduce_scatter") {
    std::vector<std::size_t> scattered;
    for (std::size_t d = 0; d < params.size(); ++d)
      if (!params[d].axes.empty()) scattered.push_back(d);
    if (scattered.size() != 1 || any_sub_axis(axes)) return reduction_sends(op_line, in, axes, out, false);
    op.kind = ImportedOpKind::reduce_scatter;
    op.dim = static_cast<std::int64_t>(scattered.front());
  } else {  // sdy.all_to_all
    for (const auto& [from, to] : moves)
      if (from < 0 || to < 0 || static_cast<std::size_t>(from) >= rank || static_cast<std::size_t>(to) >= rank ||
          from == to)
        fail(op_line.op_at,
             "sdy.all_to_all dims out of range or equal, got: " + std::to_string(from) + "->" + std::to_string(to));
    if (moves.size() > 1 || any_sub_axis(axes))
      return sends_for(op_line, in, out, "an all-to-all of several dims or sub-axes");
    op.kind = ImportedOpKind::all_to_all;
    op.dim = moves.front().first;
    op.to_dim = moves.front().second;
  }
  op.axes = axis_names(axes);
  materialize(in, op_line.operands.front().second);
  op.lhs = in.tensor;
  op.after = after_of({&in}, {});
  add_op(op_line, op);
  SsaValue v = derived(op_line, out);
  v.tensor = v.writer = op_line.name;
  v.dtype = in.dtype;
  define(op_line, v);
}

// `sdy.collective_permute %v out_sharding=<...>`: each chip's shard moves to the chip the out sharding gives it.
void StablehloReader::read_collective_permute(OpLine& op_line) {
  need(op_line, 1);
  SsaValue& in = operand(op_line, 0);
  if (op_line.out.shape != in.shape)
    fail(op_line.type_at, op_line.op + ": the result's type differs from the operand's");
  const TensorSharding out = read_out_sharding(op_line, in.shape.size());
  sends_for(op_line, in, out, "a collective permute");
}

}  // namespace podsim::import::stablehlo_read
