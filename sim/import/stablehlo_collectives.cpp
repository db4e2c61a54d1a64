// StableHLO's collectives in a manual region's body (docs/import.md, "Manual regions"): `stablehlo.all_reduce`,
// `all_gather`, `reduce_scatter`, `all_to_all` over the mesh axes their replica groups are the groups of, and
// `collective_permute` as the sends of its source-target pairs. They are printed in the generic form,
// `%r = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, ...}> ({ region }) : ...`.
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
#include "models/sharding/shardy_print.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {
namespace {

// `[[0, 1], [2, 3]]` (or `[0, 1]`, one group) -> the groups.
std::optional<std::vector<std::vector<std::int64_t>>> int_groups(const std::string& text) {
  std::vector<std::vector<std::int64_t>> groups;
  std::string t = text;
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return std::nullopt;
  if (t.size() > 2 && t[1] != '[') t = "[" + t + "]";
  std::size_t i = 1;
  while (i < t.size() - 1) {
    if (t[i] == ',') {
      ++i;
      continue;
    }
    if (t[i] != '[') return std::nullopt;
    const std::size_t e = t.find(']', i);
    if (e == std::string::npos) return std::nullopt;
    try {
      groups.push_back(parse_int_list(t.substr(i + 1, e - i - 1)));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    i = e + 1;
  }
  return groups;
}

}  // namespace

// The mesh axes whose groups (the devices that differ only along them) are exactly `groups`, the manual axes of
// the enclosing regions only; fails at `at` naming the groups otherwise.
std::vector<std::string> StablehloReader::axes_of_groups(const std::vector<std::vector<std::int64_t>>& groups,
                                                         std::size_t at, const std::string& what) {
  const Mesh& mesh = *mesh_;
  const std::int64_t n = mesh.num_devices();
  std::set<std::string> manual;
  for (const auto& m : manual_axes_)
    manual.insert(m.begin(), m.end());
  std::vector<std::string> candidates;
  for (const auto& axis : mesh.axes)
    if (manual.count(axis.name)) candidates.push_back(axis.name);
  std::vector<std::vector<std::int64_t>> positions;
  for (const auto& g : groups) {
    positions.emplace_back();
    for (const auto d : g) {
      const auto p = d >= 0 ? mesh.position_of(d) : std::nullopt;
      if (!p) fail(at, what + ": device " + std::to_string(d) + " is not one of the mesh's " + std::to_string(n));
      positions.back().push_back(*p);
    }
  }
  for (std::size_t subset = 1; subset < (std::size_t{1} << candidates.size()); ++subset) {
    std::set<std::string> axes;
    for (std::size_t a = 0; a < candidates.size(); ++a)
      if (subset >> a & 1) axes.insert(candidates[a]);
    // The key of a position: its coordinates along the other axes. Groups match when each holds every position of
    // one key and the groups' keys differ and cover every position.
    auto key = [&](std::int64_t p) {
      std::int64_t k = 0;
      for (const auto& axis : mesh.axes)
        k = k * axis.size + (axes.count(axis.name) ? 0 : p / mesh.axis_stride(axis.name) % axis.size);
      return k;
    };
    std::int64_t size = 1;
    for (const auto& a : axes)
      size *= mesh.axis_size(a);
    std::set<std::int64_t> seen_keys, seen_positions;
    bool ok = static_cast<std::int64_t>(groups.size()) * size == n;
    for (std::size_t g = 0; ok && g < positions.size(); ++g) {
      ok = static_cast<std::int64_t>(positions[g].size()) == size && seen_keys.insert(key(positions[g][0])).second;
      for (const auto p : positions[g])
        ok = ok && key(p) == key(positions[g][0]) && seen_positions.insert(p).second;
    }
    if (ok) {
      std::vector<std::string> ordered;
      for (const auto& axis : mesh.axes)
        if (axes.count(axis.name)) ordered.push_back(axis.name);
      return ordered;
    }
  }
  std::string text;
  for (std::size_t g = 0; g < groups.size() && g < 4; ++g) {
    text += g ? ", [" : "[";
    for (std::size_t i = 0; i < groups[g].size(); ++i)
      text += (i ? ", " : "") + std::to_string(groups[g][i]);
    text += "]";
  }
  fail(at, what + ": replica_groups " + text + (groups.size() > 4 ? ", ..." : "") +
               " are not the groups of any manual mesh axes of the enclosing region(s)");
}

// A stand-in for `in`'s bytes in the layout a collective needs: `shape` and `sharding` (a view, no memory).
std::string StablehloReader::stand_in(const OpLine& op_line, SsaValue& in, const std::vector<std::int64_t>& shape,
                                      const TensorSharding& sharding) {
  materialize(in, op_line.op_at);
  ImportedTensor t{op_line.name + "_in", shape, in.dtype, print_shardy_sharding(sharding), storage_of(in)};
  if (!names_.insert(t.name).second) fail(op_line.op_at, "the scenario name \"" + t.name + "\" is used twice");
  views_[t.name] = t.view_of;
  module_.tensors.push_back(t);
  return t.name;
}

// The attributes `<{...}>` of a StableHLO collective on its first line (stablehlo_collectives.cpp).
struct CollectiveAttrs {
  std::size_t line = 0;             // the op's line index
  std::size_t open = 0, close = 0;  // columns of `<{` and just past `}>`
  std::string text;
};

// `%r = "stablehlo.all_reduce"(%x) <{...}>`: checks the op is in a manual region, binds its one operand in
// `op_line.operands`, and returns its attributes.
CollectiveAttrs StablehloReader::read_collective_head(OpLine& op_line) {
  const std::string& kind = op_line.op;
  if (manual_axes_.empty())
    fail(op_line.op_at, "\"" + kind +
                            "\" outside a manual region (sdy.manual_computation) is not read: podsim plans the "
                            "communication of automatic code from its shardings");
  const std::size_t open = op_line.op_end;
  if (open >= line_.size() || line_[open] != '(') fail(open, kind + ": expected its operand `(%x)`");
  const std::size_t close = match_close(line_, open);
  if (close == std::string::npos) fail(open, kind + ": unterminated '('");
  const auto parts = split_top(line_, open + 1, close - 1);
  if (parts.size() != 1 || line_[parts[0].first] != '%')
    fail(open, kind + " of " + std::to_string(parts.size()) + " operands is not read (one operand only)");
  op_line.operands.emplace_back(line_.substr(parts[0].first, parts[0].second - parts[0].first), parts[0].first);
  CollectiveAttrs attrs;
  attrs.line = cur_;
  attrs.open = line_.find("<{", close);
  if (attrs.open == std::string::npos) fail(close, kind + ": expected its attributes <{...}>");
  attrs.close = match_close(line_, attrs.open);
  if (attrs.close == std::string::npos) fail(attrs.open, kind + ": unterminated attributes");
  attrs.text = line_.substr(attrs.open, attrs.close - attrs.open);
  return attrs;
}

// The column of attribute `key` on the op's line (npos when absent); errors about it are located there.
std::size_t StablehloReader::collective_attr_at(const CollectiveAttrs& attrs, const std::string& key) {
  set_line(attrs.line);
  const std::size_t k = attrs.text.find(key + " = ");
  return k == std::string::npos ? k : attrs.open + k;
}

// An integer attribute (`all_gather_dim = 1 : i64`).
std::int64_t StablehloReader::collective_int(const OpLine& op_line, const CollectiveAttrs& attrs,
                                             const std::string& key) {
  const std::size_t here = cur_;
  const std::size_t k = collective_attr_at(attrs, key);
  if (k == std::string::npos) fail(attrs.open, op_line.op + ": no " + key);
  std::int64_t value = 0;
  try {
    value = std::stoll(line_.substr(k + key.size() + 3, 20));
  } catch (const std::exception&) {
    fail(k, op_line.op + ": malformed " + key);
  }
  set_line(here);
  return value;
}

// A `dense<[[...], ...]>` attribute (replica groups, source-target pairs) and its column.
std::pair<std::vector<std::vector<std::int64_t>>, std::size_t> StablehloReader::collective_groups(
    const OpLine& op_line, const CollectiveAttrs& attrs, const std::string& key) {
  const std::size_t here = cur_;
  const std::size_t k = collective_attr_at(attrs, key);
  if (k == std::string::npos) {
    if (attrs.text.find("replica_group_mesh_axes") != std::string::npos)
      fail(attrs.open,
           op_line.op + ": replica groups given as mesh axes (#stablehlo.replica_group_mesh_axes) are not read");
    fail(attrs.open, op_line.op + ": no " + key);
  }
  const std::size_t d = line_.find("dense<", k);
  const std::size_t e = d == std::string::npos ? d : match_close(line_, d + 5);
  const auto groups = e == std::string::npos ? std::nullopt : int_groups(line_.substr(d + 6, e - d - 7));
  if (!groups) fail(k, op_line.op + ": malformed " + key);
  set_line(here);
  return {*groups, k};
}

// The mesh axes of the op's replica groups (axes_of_groups, located at the attribute).
std::vector<std::string> StablehloReader::collective_axes(const OpLine& op_line, const CollectiveAttrs& attrs) {
  const std::size_t here = cur_;
  const auto [groups, groups_at] = collective_groups(op_line, attrs, "replica_groups");
  set_line(attrs.line);
  std::vector<std::string> axes = axes_of_groups(groups, groups_at, op_line.op);
  set_line(here);
  return axes;
}

// `stablehlo.all_reduce` and `reduce_scatter` with their reduction region, up to `}) : (T) -> T`: podsim's collective
// over the groups' axes on a stand-in unreduced over them.
void StablehloReader::read_reducing_collective(OpLine& op_line, SsaValue& in, const CollectiveAttrs& attrs) {
  const std::string& kind = op_line.op;
  const std::size_t first = cur_;
  std::optional<Reduction> reduction;
  if (brace_delta(line_) != 1) fail(attrs.close, kind + ": expected its reduction region `({`");
  std::size_t k = first + 1;
  for (; k < op_line.end; ++k) {
    const std::size_t b = skip_space(lines_[k], 0);
    if (lines_[k].compare(b, 2, "})") == 0) break;
    for (const auto& [name, r] :
         {std::pair{"stablehlo.add", Reduction::sum}, std::pair{"stablehlo.maximum", Reduction::max},
          std::pair{"stablehlo.minimum", Reduction::min}})
      if (lines_[k].find(std::string("= ") + name + " ") != std::string::npos) reduction = r;
  }
  if (k >= op_line.end) fail(op_line.op_at, kind + "'s region is not closed");
  if (!reduction) fail(op_line.op_at, kind + ": its region must add, take the max or the min");
  const std::vector<std::string> axes = collective_axes(op_line, attrs);
  set_line(k);  // the types on the closing line
  op_line.type_colon = line_.find(" : ", line_.find("})"));
  if (op_line.type_colon == std::string::npos) fail(0, kind + ": no types after its region");
  const std::size_t arrow = line_.find("->", op_line.type_colon);
  if (arrow == std::string::npos) fail(op_line.type_colon, kind + ": malformed types");
  op_line.type_at = skip_space(line_, arrow + 2);
  op_line.out = read_tensor_type(op_line.type_at);
  TensorSharding partial = in.sharding;
  for (const auto& a : axes)
    partial.unreduced.push_back(AxisRef{a, std::nullopt});
  partial.unreduced_reduction = *reduction;
  ImportedOp op;
  op.name = op_line.name;
  op.lhs = stand_in(op_line, in, in.shape, partial);
  op.axes = axes;
  op.after = after_of({}, {&in});
  SsaValue v = derived(op_line, in.sharding);
  if (kind == "stablehlo.all_reduce") {
    if (op_line.out.shape != in.shape) fail(op_line.type_at, kind + ": the result's type differs from the operand's");
    op.kind = ImportedOpKind::all_reduce;
    add_op(op_line, op);
    v.tensor = v.writer = op.name;
  } else {
    const std::int64_t dim = collective_int(op_line, attrs, "scatter_dimension");
    std::int64_t group = 1;
    for (const auto& a : axes)
      group *= mesh_->axis_size(a);
    if (dim < 0 || dim >= static_cast<std::int64_t>(in.shape.size()) || in.shape[dim] % group != 0 ||
        op_line.out.shape.size() != in.shape.size())
      fail(op_line.type_at, kind + ": scatter_dimension out of range or not divisible by the group");
    op.kind = ImportedOpKind::reduce_scatter;
    op.dim = dim;
    add_op(op_line, op);
    v.source = op.name;  // the scattered result as the body sees it: a view of podsim's
    v.name = op.name + "_local";
    v.deps = {op.name};
  }
  v.dtype = in.dtype;
  define(op_line, v);
}

// `stablehlo.collective_permute`: a send per source-target pair of the operand's bytes per chip; the result is a view
// whose readers wait for the sends.
void StablehloReader::read_permute_pairs(OpLine& op_line, SsaValue& in, const CollectiveAttrs& attrs) {
  const auto [pairs, pairs_at] = collective_groups(op_line, attrs, "source_target_pairs");
  materialize(in, op_line.operands[0].second);
  const std::uint64_t bytes = compute_layout(in.shape, parse_dtype(in.dtype), in.sharding, *mesh_).bytes_per_device;
  SsaValue v = derived(op_line, in.sharding);
  v.deps = in.deps;
  if (!in.writer.empty()) v.deps.push_back(in.writer);
  const std::vector<std::string> after = after_of({}, {&in});
  std::size_t k = 0;
  for (const auto& pair : pairs) {
    if (pair.size() != 2) fail(pairs_at, op_line.op + ": source_target_pairs must be pairs");
    const auto from = mesh_->position_of(pair[0]), to = mesh_->position_of(pair[1]);
    if (!from || !to) fail(pairs_at, op_line.op + ": a pair names a device outside the mesh");
    if (*from == *to) continue;
    ImportedOp send;
    send.kind = ImportedOpKind::send;
    send.name = op_line.name + "." + std::to_string(k++);
    send.from_chip = *from;
    send.to_chip = *to;
    send.bytes = static_cast<std::int64_t>(std::max<std::uint64_t>(1, bytes));
    send.after = after;
    add_op(op_line, send);
    v.deps.push_back(send.name);
  }
  v.source = storage_of(in);
  approximate(op_line.op, line_no_,
              std::to_string(k) + " sends `" + op_line.name + ".K` of each sender's " + std::to_string(bytes) +
                  " bytes; the result is a view of \"" + v.source + "\"");
  define(op_line, v);
}

// `%r = "stablehlo.all_reduce"(%x) <{...}> ({ ... }) : (T) -> T` and the other collectives of a manual region.
void StablehloReader::read_stablehlo_collective(OpLine& op_line) {
  const std::string& kind = op_line.op;
  const CollectiveAttrs attrs = read_collective_head(op_line);
  SsaValue& in = operand(op_line, 0);
  if (kind == "stablehlo.all_reduce" || kind == "stablehlo.reduce_scatter")
    return read_reducing_collective(op_line, in, attrs);
  // One line: `... }> : (T) -> T`.
  op_line.type_colon = find_top(" : ", attrs.close);
  const std::size_t arrow =
      op_line.type_colon == std::string::npos ? op_line.type_colon : line_.find("->", op_line.type_colon);
  if (arrow == std::string::npos) fail(attrs.close, kind + ": no types");
  op_line.type_at = skip_space(line_, arrow + 2);
  op_line.out = read_tensor_type(op_line.type_at);
  if (op_line.out.shape.size() != in.shape.size()) fail(op_line.type_at, kind + ": the result's rank differs");
  if (kind == "stablehlo.collective_permute") return read_permute_pairs(op_line, in, attrs);
  const std::vector<std::string> axes = collective_axes(op_line, attrs);
  std::int64_t group = 1;
  for (const auto& a : axes)
    group *= mesh_->axis_size(a);
  ImportedOp op;
  op.name = op_line.name;
  op.axes = axes;
  op.after = after_of({}, {&in});
  // The operand's layout for podsim's collective: dim `d` `group` times larger, sharded by the axes after its own.
  auto spread = [&](std::int64_t d) {
    std::vector<std::int64_t> shape = in.shape;
    shape[d] *= group;
    TensorSharding s = in.sharding;
    for (const auto& a : axes)
      s.dims[d].axes.push_back(AxisRef{a, std::nullopt});
    return stand_in(op_line, in, shape, s);
  };
  SsaValue v = derived(op_line, in.sharding);
  v.dtype = in.dtype;
  if (kind == "stablehlo.all_gather") {
    const std::int64_t d = collective_int(op_line, attrs, "all_gather_dim");
    if (d < 0 || d >= static_cast<std::int64_t>(in.shape.size()) || op_line.out.shape[d] != in.shape[d] * group)
      fail(op_line.type_at, kind + ": all_gather_dim out of range, or the result is not the group's gather");
    op.kind = ImportedOpKind::all_gather;
    op.lhs = spread(d);
    add_op(op_line, op);
    v.tensor = v.writer = op.name;
  } else {  // stablehlo.all_to_all: the concatenated dim's shards move to the split dim
    const std::int64_t split = collective_int(op_line, attrs, "split_dimension"),
                       concat = collective_int(op_line, attrs, "concat_dimension");
    const std::int64_t rank = static_cast<std::int64_t>(in.shape.size());
    if (split < 0 || concat < 0 || split >= rank || concat >= rank || split == concat || in.shape[split] % group != 0)
      fail(op_line.type_at, kind + ": split or concat dimension out of range, equal, or not divisible by the group");
    op.kind = ImportedOpKind::all_to_all;
    op.lhs = spread(concat);
    op.dim = concat;
    op.to_dim = split;
    add_op(op_line, op);
    v.source = op.name;
    v.name = op.name + "_local";
    v.deps = {op.name};
  }
  define(op_line, v);
}

}  // namespace podsim::import::stablehlo_read
