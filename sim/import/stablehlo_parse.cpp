// Line-based reader of the StableHLO + Shardy subset of stablehlo_module.hpp. JAX prints one op per line in the
// pretty form (`%0 = stablehlo.tanh %arg0 : tensor<8x16xbf16>`), the @main signature on one line; this reader
// relies on that layout and refuses what it does not recognise with the line and column.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "models/common/error.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "sim/import/stablehlo_module.hpp"

namespace podsim::import {
namespace {

// Ops read as podsim elementwise ops (one flop per element, see docs/import.md).
const std::set<std::string> kUnaryElementwise = {
    "stablehlo.negate",   "stablehlo.abs",  "stablehlo.exponential", "stablehlo.log",  "stablehlo.tanh",
    "stablehlo.logistic", "stablehlo.sqrt", "stablehlo.rsqrt",       "stablehlo.sine", "stablehlo.cosine"};
const std::set<std::string> kBinaryElementwise = {"stablehlo.add",    "stablehlo.subtract", "stablehlo.multiply",
                                                  "stablehlo.divide", "stablehlo.maximum",  "stablehlo.minimum",
                                                  "stablehlo.power"};

// A value of @main: its scenario tensor, shape and dtype, and the op that wrote it (empty for an argument).
struct Value {
  std::string tensor;
  std::vector<std::int64_t> shape;
  std::string dtype;
  std::string op;  // the ImportedOp's name
  std::size_t op_index = 0;
};

class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  ImportedModule read();

 private:
  [[noreturn]] void fail(std::size_t col, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(line_no_) + ":" + std::to_string(col + 1), message);
  }
  void read_mesh(std::size_t at);
  void read_signature(std::size_t at);
  void read_op(std::size_t at);
  void read_return(std::size_t at);
  std::string read_sharding_text(std::size_t at, std::size_t rank);
  std::pair<std::vector<std::int64_t>, std::string> read_tensor_type(std::size_t at) const;
  const Value& value(std::size_t at, const std::string& ssa) const;
  std::size_t find_top(std::string_view what, std::size_t from) const;

  std::string_view text_;
  std::string file_;
  std::string line_;  // the current line, `loc(...)` suffixes kept (columns stay those of the file)
  int line_no_ = 0;
  bool in_main_ = false, main_seen_ = false, returned_ = false;
  ImportedModule module_;
  std::vector<std::string> result_shardings_;  // per result of @main; empty = none
  std::map<std::string, Value> values_;        // SSA name (with %) -> value
};

// Position after the bracket matching the one at `open` (`<`, `(`, `[`, `{`), skipping quoted strings; npos if
// the line ends first.
std::size_t match_close(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (c == '>' && i > 0 && s[i - 1] == '-') continue;  // `->`
      if (--depth == 0) return i + 1;
    }
  }
  return std::string::npos;
}

std::size_t skip_space(const std::string& s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  return i;
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

// A scenario name for an SSA value: `%arg0` -> `arg0`, `%3` -> `v3`, other characters -> `_`.
std::string tensor_name(const std::string& ssa) {
  std::string out;
  for (char c : ssa.substr(1))
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out[0]))) out = "v" + out;
  return out;
}

std::string podsim_dtype(const std::string& element) {
  static const std::map<std::string, std::string> names = {{"bf16", "bf16"},         {"f32", "f32"},
                                                           {"f16", "f16"},           {"i8", "int8"},
                                                           {"f8E4M3FN", "fp8_e4m3"}, {"f8E5M2", "fp8_e5m2"}};
  const auto it = names.find(element);
  return it == names.end() ? "" : it->second;
}

std::vector<std::int64_t> parse_int_list(const std::string& s) {
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  while (i < s.size()) {
    i = skip_space(s, i);
    if (i >= s.size()) break;
    std::size_t used = 0;
    out.push_back(std::stoll(s.substr(i), &used));
    i = skip_space(s, i + used);
    if (i < s.size() && s[i] == ',') ++i;
  }
  return out;
}

std::size_t Reader::find_top(std::string_view what, std::size_t from) const {
  int depth = 0;
  for (std::size_t i = from; i < line_.size(); ++i) {
    const char c = line_[i];
    if (c == '"') {
      for (++i; i < line_.size() && line_[i] != '"'; ++i) {
      }
      continue;
    }
    if (depth == 0 && line_.compare(i, what.size(), what) == 0) return i;
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if ((c == '>' && !(i > 0 && line_[i - 1] == '-')) || c == ')' || c == ']' || c == '}') --depth;
  }
  return std::string::npos;
}

// `tensor<1024x4096xbf16>` at `at` -> shape and podsim dtype.
std::pair<std::vector<std::int64_t>, std::string> Reader::read_tensor_type(std::size_t at) const {
  if (line_.compare(at, 7, "tensor<") != 0) fail(at, "expected a tensor type, got: " + line_.substr(at, 40));
  const std::size_t end = match_close(line_, at + 6);
  if (end == std::string::npos) fail(at, "unterminated tensor type");
  const std::string body = line_.substr(at + 7, end - at - 8);
  std::vector<std::int64_t> shape;
  std::size_t i = 0;
  while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) {
    std::size_t x = body.find('x', i);
    if (x == std::string::npos) fail(at, "malformed tensor type, got: " + line_.substr(at, end - at));
    shape.push_back(std::stoll(body.substr(i, x - i)));
    i = x + 1;
  }
  if (i < body.size() && (body[i] == '?' || body.find(',', i) != std::string::npos))
    fail(at, "unsupported tensor type (dynamic shape or encoding), got: " + line_.substr(at, end - at));
  const std::string dtype = podsim_dtype(body.substr(i));
  if (dtype.empty()) fail(at + 7 + i, "unsupported element type, got: \"" + body.substr(i) + "\"");
  return {shape, dtype};
}

// The Shardy sharding `<@mesh, [...]>` (optionally `#sdy.sharding`-prefixed) at `at`: checked to parse, to name
// the module's mesh and to have `rank` dims. Returns the text without the prefix.
std::string Reader::read_sharding_text(std::size_t at, std::size_t rank) {
  std::size_t start = at;
  if (line_.compare(start, 13, "#sdy.sharding") == 0) start += 13;
  if (start >= line_.size() || line_[start] != '<') fail(at, "malformed sharding: expected '<'");
  const std::size_t end = match_close(line_, start);
  if (end == std::string::npos) fail(at, "malformed sharding: unterminated '<'");
  const std::string text = line_.substr(start, end - start);
  try {
    const auto sharding = parse_shardy_sharding(text);
    if (sharding.dims.size() != rank)
      fail(at, "sharding rank " + std::to_string(sharding.dims.size()) + " does not match the tensor's rank " +
                   std::to_string(rank) + ", got: " + text);
  } catch (const ParseError& e) {
    fail(start + e.column() - 1, std::string("malformed sharding: ") + e.what() + ", got: " + text);
  }
  const std::string ref = "<@" + module_.mesh_name + ",";
  if (text.compare(0, ref.size(), ref) != 0)
    fail(start, "the sharding must refer to the module's mesh @" + module_.mesh_name + ", got: " + text);
  return text;
}

const Value& Reader::value(std::size_t at, const std::string& ssa) const {
  const auto it = values_.find(ssa);
  if (it == values_.end()) fail(at, "unknown value, got: " + ssa);
  return it->second;
}

// `sdy.mesh @mesh = <["x"=4, "y"=2]>`.
void Reader::read_mesh(std::size_t at) {
  if (!module_.mesh_name.empty()) fail(at, "only one sdy.mesh is supported, got a second: " + line_.substr(at));
  std::size_t i = line_.find('@', at);
  const std::size_t eq = line_.find('=', at);
  if (i == std::string::npos || eq == std::string::npos || eq < i)
    fail(at, "malformed sdy.mesh, got: " + line_.substr(at));
  std::string name = line_.substr(i + 1, eq - i - 1);
  name.erase(name.find_last_not_of(' ') + 1);
  const std::size_t open = skip_space(line_, eq + 1);
  const std::size_t end = open < line_.size() && line_[open] == '<' ? match_close(line_, open) : std::string::npos;
  if (end == std::string::npos) fail(open, "malformed sdy.mesh: expected <[...]>");
  try {
    const auto mesh = parse_shardy_mesh(line_.substr(open, end - open));
    for (const auto& axis : mesh.axes)
      module_.axes.emplace_back(axis.name, axis.size);
    module_.device_ids = mesh.device_ids;
  } catch (const ParseError& e) {
    fail(open + e.column() - 1, std::string("malformed sdy.mesh: ") + e.what());
  }
  if (module_.axes.empty()) fail(open, "the mesh has no axes, got: " + line_.substr(open, end - open));
  module_.mesh_name = name;
}

// Splits [from, to) of the line at top-level commas; returns the start offsets of the parts (spaces skipped).
std::vector<std::pair<std::size_t, std::size_t>> split_top(const std::string& s, std::size_t from, std::size_t to) {
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::size_t start = from;
  int depth = 0;
  for (std::size_t i = from; i < to; ++i) {
    const char c = s[i];
    if (c == '"') {
      for (++i; i < to && s[i] != '"'; ++i) {
      }
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if ((c == '>' && !(i > 0 && s[i - 1] == '-')) || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.emplace_back(skip_space(s, start), i);
      start = i + 1;
    }
  }
  if (skip_space(s, start) < to) parts.emplace_back(skip_space(s, start), to);
  return parts;
}

// `func.func public @main(%arg0: tensor<...> {sdy.sharding = ...}, ...) -> (tensor<...> {...}, ...) {`.
void Reader::read_signature(std::size_t at) {
  const std::size_t at_sign = line_.find('@', at);
  std::size_t name_end = at_sign;
  while (name_end < line_.size() && is_ident(line_[name_end + 1]))
    ++name_end;
  const std::string name = at_sign == std::string::npos ? "" : line_.substr(at_sign + 1, name_end - at_sign);
  if (name != "main") fail(at, "unsupported function @" + name + " (only @main is imported)");
  if (module_.mesh_name.empty()) fail(at, "no sdy.mesh before @main: the module must declare its mesh");
  main_seen_ = in_main_ = true;
  // Shardings first: a malformed one would otherwise show as an unbalanced signature.
  for (std::size_t s = line_.find("#sdy.sharding<"); s != std::string::npos; s = line_.find("#sdy.sharding<", s + 1)) {
    const std::size_t open = s + 13;
    const std::size_t end = match_close(line_, open);
    const std::string text = line_.substr(open, end == std::string::npos ? std::string::npos : end - open);
    try {
      parse_shardy_sharding(text);
    } catch (const ParseError& e) {
      fail(open + e.column() - 1, std::string("malformed sharding: ") + e.what() + ", got: " + text);
    }
  }
  const std::size_t open = line_.find('(', name_end);
  const std::size_t close = open == std::string::npos ? open : match_close(line_, open);
  if (close == std::string::npos) fail(at, "malformed signature (it must fit on one line)");
  for (const auto& [b, e] : split_top(line_, open + 1, close - 1)) {
    const std::size_t colon = line_.find(':', b);
    if (line_[b] != '%' || colon == std::string::npos || colon > e)
      fail(b, "malformed argument, got: " + line_.substr(b, e - b));
    const std::string ssa = line_.substr(b, colon - b);
    const std::size_t type_at = skip_space(line_, colon + 1);
    auto [shape, dtype] = read_tensor_type(type_at);
    ImportedTensor tensor{tensor_name(ssa), shape, dtype, ""};
    const std::size_t attr = line_.find("sdy.sharding", type_at);
    if (attr != std::string::npos && attr < e) {
      const std::size_t eq = line_.find('=', attr);
      tensor.sharding = read_sharding_text(skip_space(line_, eq + 1), shape.size());
    } else if (const std::size_t gspmd = line_.find("mhlo.sharding", type_at);
               gspmd != std::string::npos && gspmd < e) {
      fail(gspmd, "GSPMD shardings (mhlo.sharding) are not read: lower with Shardy (sdy.sharding)");
    }
    values_[ssa] = Value{tensor.name, shape, dtype, "", 0};
    module_.tensors.push_back(tensor);
  }
  // Results: `-> tensor<...>` or `-> (tensor<...> {attrs}, ...)`.
  std::size_t arrow = line_.find("->", close);
  if (arrow == std::string::npos) return;
  std::size_t r = skip_space(line_, arrow + 2);
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  if (line_[r] == '(') {
    const std::size_t rclose = match_close(line_, r);
    if (rclose == std::string::npos) fail(r, "malformed results");
    parts = split_top(line_, r + 1, rclose - 1);
  } else {
    parts.emplace_back(r, match_close(line_, r + 6));
  }
  for (const auto& [b, e] : parts) {
    auto [shape, dtype] = read_tensor_type(b);
    const std::size_t attr = line_.find("sdy.sharding", b);
    if (attr != std::string::npos && attr < e)
      result_shardings_.push_back(read_sharding_text(skip_space(line_, line_.find('=', attr) + 1), shape.size()));
    else
      result_shardings_.push_back("");
  }
}

// `%N = OP operands ... : types`.
void Reader::read_op(std::size_t at) {
  const std::size_t eq = line_.find('=', at);
  std::string ssa = line_.substr(at, eq - at);
  ssa.erase(ssa.find_last_not_of(' ') + 1);
  if (ssa.find(':') != std::string::npos || ssa.find(',') != std::string::npos)
    fail(at, "ops with several results are not supported, got: " + ssa);
  const std::size_t op_at = skip_space(line_, eq + 1);
  std::size_t op_end = op_at;
  const bool generic = line_[op_at] == '"';
  if (generic)
    op_end = line_.find('"', op_at + 1) + 1;
  else
    while (op_end < line_.size() && is_ident(line_[op_end]))
      ++op_end;
  const std::string op_name =
      generic ? line_.substr(op_at + 1, op_end - op_at - 2) : line_.substr(op_at, op_end - op_at);
  const bool supported = op_name == "stablehlo.dot_general" || op_name == "stablehlo.dot" ||
                         op_name == "sdy.sharding_constraint" || kUnaryElementwise.count(op_name) ||
                         kBinaryElementwise.count(op_name);
  if (!supported) fail(op_at, "unsupported op \"" + op_name + "\"");
  if (generic)
    fail(op_at, "the generic op form is not read, print the module in its pretty form, got: \"" + op_name + "\"");
  if (!in_main_ || returned_) fail(at, "op outside @main");

  // Operands: `%a, %b` up to the first top-level `,` that is not followed by `%`, or the attributes.
  std::vector<std::pair<std::string, std::size_t>> operands;
  std::size_t i = skip_space(line_, op_end);
  while (i < line_.size() && line_[i] == '%') {
    std::size_t e = i + 1;
    while (e < line_.size() && is_ident(line_[e]))
      ++e;
    operands.emplace_back(line_.substr(i, e - i), i);
    i = skip_space(line_, e);
    if (i < line_.size() && line_[i] == ',') i = skip_space(line_, i + 1);
  }
  const std::size_t type_colon = find_top(" : ", op_end);
  if (type_colon == std::string::npos) fail(op_at, "malformed op: no result type");
  std::size_t type_at = skip_space(line_, type_colon + 3);
  if (line_[type_at] == '(') {
    const std::size_t arrow = line_.find("->", type_at);
    if (arrow == std::string::npos) fail(type_at, "malformed op type");
    type_at = skip_space(line_, arrow + 2);
  }
  const auto [out_shape, out_dtype] = read_tensor_type(type_at);
  // An optional `{sdy.sharding = #sdy.sharding_per_value<[<@mesh, ...>]>}` before the type.
  std::string value_sharding;
  if (const std::size_t attr = line_.find("sdy.sharding_per_value<[", i);
      attr != std::string::npos && attr < type_colon)
    value_sharding = read_sharding_text(attr + 24, out_shape.size());

  ImportedOp op;
  op.name = tensor_name(ssa);
  op.stablehlo_op = op_name;
  op.line = line_no_;
  auto need = [&](std::size_t n) {
    if (operands.size() != n)
      fail(op_at,
           "\"" + op_name + "\" takes " + std::to_string(n) + " operand(s), got: " + std::to_string(operands.size()));
  };
  if (op_name == "stablehlo.dot_general" || op_name == "stablehlo.dot") {
    need(2);
    const Value& lhs = value(operands[0].second, operands[0].first);
    const Value& rhs = value(operands[1].second, operands[1].first);
    auto dims = [&](const std::string& key) -> std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> {
      const std::size_t k = line_.find(key + " = [", i);
      if (k == std::string::npos || k > type_colon) return {};
      const std::size_t l_open = k + key.size() + 3;
      const std::size_t l_close = line_.find(']', l_open);
      const std::size_t x = line_.find("x [", l_close);
      if (l_close == std::string::npos || x != skip_space(line_, l_close + 1)) fail(k, "malformed " + key);
      const std::size_t r_close = line_.find(']', x + 3);
      try {
        return {parse_int_list(line_.substr(l_open + 1, l_close - l_open - 1)),
                parse_int_list(line_.substr(x + 3, r_close - x - 3))};
      } catch (const std::exception&) {
        fail(k, "malformed " + key);
      }
    };
    const auto batch = dims("batching_dims");
    auto contract = dims("contracting_dims");
    if (op_name == "stablehlo.dot") {  // a matrix product: lhs dim 1 with rhs dim 0
      if (lhs.shape.size() != 2 || rhs.shape.size() != 2) fail(op_at, "stablehlo.dot is read for rank-2 operands only");
      contract = {{1}, {0}};
    }
    // Labels: the lhs dims in order (A, B, ...), a paired rhs dim takes its lhs dim's label, the rhs's free dims
    // the next letters. Output order (StableHLO's): batch dims, lhs free dims, rhs free dims.
    if (lhs.shape.size() + rhs.shape.size() > 26) fail(op_at, "dot_general has more than 26 dims");
    std::vector<int> lhs_role(lhs.shape.size(), 0), rhs_role(rhs.shape.size(), 0);  // 0 free, 1 batch, 2 contracting
    std::vector<int> rhs_pair(rhs.shape.size(), -1);
    auto pair_up = [&](const std::vector<std::int64_t>& l, const std::vector<std::int64_t>& r, int role) {
      if (l.size() != r.size()) fail(op_at, "dot_general dimension lists differ in length");
      for (std::size_t k = 0; k < l.size(); ++k) {
        if (l[k] < 0 || r[k] < 0 || l[k] >= static_cast<std::int64_t>(lhs.shape.size()) ||
            r[k] >= static_cast<std::int64_t>(rhs.shape.size()) || lhs_role[l[k]] != 0 || rhs_role[r[k]] != 0)
          fail(op_at, "dot_general dimension out of range or repeated");
        if (lhs.shape[l[k]] != rhs.shape[r[k]]) fail(op_at, "dot_general paired dimensions differ in size");
        lhs_role[l[k]] = rhs_role[r[k]] = role;
        rhs_pair[r[k]] = static_cast<int>(l[k]);
      }
    };
    pair_up(batch.first, batch.second, 1);
    pair_up(contract.first, contract.second, 2);
    std::string lhs_labels, rhs_labels, out_labels;
    std::vector<std::int64_t> computed;
    for (std::size_t d = 0; d < lhs.shape.size(); ++d)
      lhs_labels += static_cast<char>('A' + d);
    char next = static_cast<char>('A' + lhs.shape.size());
    for (std::size_t d = 0; d < rhs.shape.size(); ++d)
      rhs_labels += rhs_pair[d] >= 0 ? lhs_labels[rhs_pair[d]] : next++;
    for (const auto d : batch.first)
      out_labels += lhs_labels[d], computed.push_back(lhs.shape[d]);
    for (std::size_t d = 0; d < lhs.shape.size(); ++d)
      if (lhs_role[d] == 0) out_labels += lhs_labels[d], computed.push_back(lhs.shape[d]);
    for (std::size_t d = 0; d < rhs.shape.size(); ++d)
      if (rhs_role[d] == 0) out_labels += rhs_labels[d], computed.push_back(rhs.shape[d]);
    if (computed != out_shape) fail(type_at, "the result type does not match the dot_general's dims");
    op.kind = ImportedOpKind::matmul;
    op.lhs = lhs.tensor;
    op.rhs = rhs.tensor;
    op.einsum = lhs_labels + "," + rhs_labels + "->" + out_labels;
    op.sharding = value_sharding;
    values_[ssa] = Value{op.name, out_shape, lhs.dtype, op.name, module_.ops.size()};
    module_.ops.push_back(op);
    return;
  }
  if (op_name == "sdy.sharding_constraint") {
    need(1);
    const Value& in = value(operands[0].second, operands[0].first);
    const std::size_t s = line_.find('<', operands[0].second);
    if (s == std::string::npos || s > type_colon) fail(op_at, "malformed sdy.sharding_constraint: no sharding");
    op.kind = ImportedOpKind::reshard;
    op.lhs = in.tensor;
    op.sharding = read_sharding_text(s, in.shape.size());
    values_[ssa] = Value{op.name, in.shape, in.dtype, op.name, module_.ops.size()};
    module_.ops.push_back(op);
    return;
  }
  need(kBinaryElementwise.count(op_name) ? 2 : 1);
  const Value& in = value(operands[0].second, operands[0].first);
  if (in.shape != out_shape) fail(type_at, "elementwise result shape differs from the operand's");
  if (operands.size() == 2) {
    const Value& other = value(operands[1].second, operands[1].first);
    if (other.shape != in.shape) fail(operands[1].second, "elementwise operands differ in shape");
    if (!other.op.empty() && other.op != in.op) op.after.push_back(other.op);
  }
  op.kind = ImportedOpKind::elementwise;
  op.lhs = in.tensor;
  values_[ssa] = Value{op.name, out_shape, in.dtype, op.name, module_.ops.size()};
  module_.ops.push_back(op);
  if (!value_sharding.empty()) {  // the value's own sharding: a reshard of the result
    ImportedOp reshard;
    reshard.kind = ImportedOpKind::reshard;
    reshard.name = op.name + "_sharded";
    reshard.stablehlo_op = op_name;
    reshard.line = line_no_;
    reshard.lhs = op.name;
    reshard.sharding = value_sharding;
    values_[ssa] = Value{reshard.name, out_shape, in.dtype, reshard.name, module_.ops.size()};
    module_.ops.push_back(reshard);
  }
}

// `return %a, %b : types` (or `func.return`): each result with a sharding is resharded to it; a matmul result
// without an out_sharding takes it instead.
void Reader::read_return(std::size_t at) {
  if (!in_main_) fail(at, "return outside @main");
  std::size_t i = skip_space(line_, line_.find(' ', at));
  std::size_t k = 0;
  while (i < line_.size() && line_[i] == '%') {
    std::size_t e = i + 1;
    while (e < line_.size() && is_ident(line_[e]))
      ++e;
    const Value& v = value(i, line_.substr(i, e - i));
    std::string tensor = v.tensor;
    const std::string sharding = k < result_shardings_.size() ? result_shardings_[k] : "";
    if (!sharding.empty()) {
      if (!v.op.empty() && module_.ops[v.op_index].kind == ImportedOpKind::matmul &&
          module_.ops[v.op_index].sharding.empty()) {
        module_.ops[v.op_index].sharding = sharding;
      } else {
        ImportedOp reshard;
        reshard.kind = ImportedOpKind::reshard;
        reshard.name = "result" + std::to_string(k);
        reshard.stablehlo_op = "func.return";
        reshard.line = line_no_;
        reshard.lhs = v.tensor;
        reshard.sharding = sharding;
        module_.ops.push_back(reshard);
        tensor = reshard.name;
      }
    }
    module_.results.push_back(tensor);
    ++k;
    i = skip_space(line_, e);
    if (i < line_.size() && line_[i] == ',') i = skip_space(line_, i + 1);
  }
  returned_ = true;
  in_main_ = false;
}

ImportedModule Reader::read() {
  std::size_t pos = 0;
  while (pos <= text_.size()) {
    std::size_t nl = text_.find('\n', pos);
    if (nl == std::string_view::npos) nl = text_.size();
    line_ = std::string(text_.substr(pos, nl - pos));
    ++line_no_;
    pos = nl + 1;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    const std::size_t at = skip_space(line_, 0);
    if (at >= line_.size()) continue;
    const std::string_view rest = std::string_view(line_).substr(at);
    auto starts = [&](std::string_view p) { return rest.substr(0, p.size()) == p; };
    if (starts("//") || starts("#loc") || starts("}") || starts("module")) continue;
    if (starts("sdy.mesh"))
      read_mesh(at);
    else if (starts("func.func"))
      read_signature(at);
    else if (starts("return") || starts("func.return"))
      read_return(at);
    else if (starts("%"))
      read_op(at);
    else {
      std::size_t e = at;
      while (e < line_.size() && (is_ident(line_[e]) || line_[e] == '"'))
        ++e;
      fail(at, "unsupported op \"" + line_.substr(at, e - at) + "\"");
    }
  }
  if (!main_seen_) throw InputError(file_, "no func.func @main in the module");
  if (!returned_) throw InputError(file_, "@main has no return");
  return module_;
}

}  // namespace

ImportedModule parse_stablehlo_module(std::string_view text, const std::string& file) {
  return Reader(text, file).read();
}

}  // namespace podsim::import
