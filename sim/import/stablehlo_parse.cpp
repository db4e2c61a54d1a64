// Line-based reader of the StableHLO + Shardy subset of stablehlo_module.hpp. JAX prints one op per line in the
// pretty form (`%0 = stablehlo.tanh %arg0 : tensor<8x16xbf16>`), each signature on one line; this reader relies on
// that layout and refuses what it does not recognise with the line and column. A first pass finds the mesh and the
// functions' extents; then @main's body is read op by op, calls of private functions read in place (inlined).
// Each value carries its derived sharding (docs/import.md); values no op writes (constants, layout results) become
// scenario tensors only when an op reads them.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/plan/natural_out_sharding.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/module_scan.hpp"
#include "sim/import/module_text.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import {
namespace stablehlo_read {
namespace {

// Ops read as podsim elementwise ops (one flop per element, see docs/import.md). `compare`, `select` and `clamp`
// are elementwise too; their operands are read by read_op's special cases.
const std::set<std::string> kElementwise = {"stablehlo.negate",
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
                                            "stablehlo.clamp"};
// Layout ops: no time; the result is the operand's data with a new shape, layout or dtype.
const std::set<std::string> kLayout = {"stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
                                       "stablehlo.convert", "stablehlo.bitcast_convert"};
// Data movement: a memory-bound copy of the first operand, then the result.
const std::set<std::string> kStablehloDataMovement = {"stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad",
                                                      "stablehlo.dynamic_slice"};
// The elementwise ops of two operands (select and clamp take three, the others one).
const std::set<std::string> kBinary = {
    "stablehlo.add",     "stablehlo.subtract", "stablehlo.multiply",  "stablehlo.divide", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.power",    "stablehlo.remainder", "stablehlo.atan2",  "stablehlo.and",
    "stablehlo.or",      "stablehlo.xor",      "stablehlo.compare"};
}  // namespace

std::size_t match_close(const std::string& s, std::size_t open) {
  const std::size_t close = scan::closing_bracket(s, open, scan::kMlirBrackets);
  return close == std::string::npos ? close : close + 1;
}

std::size_t skip_space(const std::string& s, std::size_t i) {
  return scan::skip_space(s, i);
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

std::size_t ssa_end(const std::string& s, std::size_t i) {
  std::size_t e = i + 1;
  while (e < s.size() && is_ident(s[e]))
    ++e;
  if (e + 1 < s.size() && s[e] == '#' && std::isdigit(static_cast<unsigned char>(s[e + 1]))) {
    ++e;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e])))
      ++e;
  }
  return e;
}

bool is_integer_element(const std::string& element) {
  const std::size_t digits = element.rfind("si", 0) == 0 || element.rfind("ui", 0) == 0 ? 2
                             : element.rfind('i', 0) == 0                               ? 1
                                                                                        : 0;
  return digits > 0 && element.size() > digits && element.find_first_not_of("0123456789", digits) == std::string::npos;
}

// Other characters than letters and digits become `_`.
std::string tensor_name(const std::string& ssa) {
  std::string out;
  for (char c : ssa.substr(1))
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out[0]))) out = "v" + out;
  return out;
}

namespace {

// The integer a `dense<...>` constant of one element starts with (`7`, `-1`, `true`, `false`); nullopt otherwise.
std::optional<std::int64_t> integer_literal(const std::string& s) {
  if (s.rfind("true>", 0) == 0) return 1;
  if (s.rfind("false>", 0) == 0) return 0;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data() || end == s.data() + s.size() || *end != '>') return std::nullopt;
  return value;
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

}  // namespace

// Net count of `{` minus `}` on a line, outside quoted strings.
int brace_delta(const std::string& s) {
  int delta = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = scan::closing_quote(s, i, s.size());
      continue;
    }
    if (s[i] == '{') ++delta;
    if (s[i] == '}') --delta;
  }
  return delta;
}

std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < std::min(to, v.size()); ++i)
    p *= v[i];
  return p;
}

std::size_t StablehloReader::find_top(std::string_view what, std::size_t from) const {
  return scan::find_top(line_, what, from, scan::kMlirBrackets);
}

// `tensor<1024x4096xbf16>` at `at` -> shape and element type (dtype "" when podsim has none for it).
TensorType StablehloReader::read_tensor_type(std::size_t at) const {
  if (line_.compare(at, 7, "tensor<") != 0) fail(at, "expected a tensor type, got: " + line_.substr(at, 40));
  const std::size_t end = match_close(line_, at + 6);
  if (end == std::string::npos) fail(at, "unterminated tensor type");
  const std::string body = line_.substr(at + 7, end - at - 8);
  TensorType type;
  std::size_t i = 0;
  while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) {
    std::size_t x = body.find('x', i);
    if (x == std::string::npos || x - i > 12) fail(at, "malformed tensor type, got: " + line_.substr(at, end - at));
    type.shape.push_back(std::stoll(body.substr(i, x - i)));
    i = x + 1;
  }
  if (type.shape.size() > 16) fail(at, "tensor rank above 16, got: " + line_.substr(at, end - at));
  if (product(type.shape) > (std::int64_t{1} << 48) || (!type.shape.empty() && product(type.shape) == 0))
    fail(at, "tensor with no elements or more than 2^48, got: " + line_.substr(at, end - at));
  if (i < body.size() && (body[i] == '?' || body.find(',', i) != std::string::npos))
    fail(at, "unsupported tensor type (dynamic shape or encoding), got: " + line_.substr(at, end - at));
  type.element = body.substr(i);
  type.element_at = at + 7 + i;
  type.dtype = scan::element_type(scan::Dialect::mlir, type.element).dtype;
  return type;
}

// The podsim dtype of a type that becomes a scenario tensor (`what` names it in the note); refuses a type podsim
// has none for, lists one mapped by its bytes per element.
std::string StablehloReader::need_dtype(const TensorType& type, std::size_t at, const std::string& what) {
  if (type.dtype.empty()) fail(at, "unsupported element type, got: \"" + type.element + "\"");
  if (!scan::element_type(scan::Dialect::mlir, type.element).exact)
    approximate(what, line_no_,
                "element type " + type.element + " held as " + type.dtype + " (same bytes per element)");
  return type.dtype;
}

TensorSharding StablehloReader::replicated(std::size_t rank) const {
  TensorSharding s;
  s.mesh_name = module_.mesh_name;
  s.dims.resize(rank);
  return s;
}

// The Shardy sharding `<@mesh, [...]>` (optionally `#sdy.sharding`-prefixed) at `at`: checked to parse, to name
// the module's mesh and to have `rank` dims. Returns the text without the prefix.
std::string StablehloReader::read_sharding_text(std::size_t at, std::size_t rank) {
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

SsaValue& StablehloReader::value(std::size_t at, const std::string& ssa, Scope& scope) const {
  SsaValue* v = scope.find(ssa);
  if (!v) fail(at, "unknown value, got: " + ssa);
  return *v;
}

std::string StablehloReader::storage_of(const SsaValue& v) const {
  const auto it = views_.find(v.tensor);
  return it == views_.end() ? v.tensor : it->second;
}

// Declares `v` as a scenario tensor when no op writes it: a view of its source's tensor (a layout result), or a
// program input whose bytes are resident from the start (a constant); its readers wait for `v.deps`. Fixes the sharding
// of a matmul it derives from first.
void StablehloReader::materialize(SsaValue& v, std::size_t at) {
  if (!v.tensor.empty()) return;
  if (v.constant)  // one tensor per constant of the text, however often its line is read (calls, loop iterations)
    v.name =
        constant_names_.emplace(std::to_string(v.line) + ":" + print_shardy_sharding(v.sharding), v.name).first->second;
  if (materialized_.count(v.name)) {  // declared already, through a copy of the value (a call's argument)
    v.tensor = v.name;
    return;
  }
  if (v.pending >= 0) pin(v.pending, v.stablehlo_op + " at line " + std::to_string(v.line) + " needs its layout");
  TensorType type{v.shape, v.element, v.dtype, at};
  ImportedTensor tensor{v.name, v.shape, need_dtype(type, at, v.stablehlo_op), print_shardy_sharding(v.sharding), ""};
  if (!v.constant && !v.source.empty()) {  // the operand's bytes in another shape or type: a view of them
    tensor.view_of = v.source;
    views_[v.name] = v.source;
  }
  if (!names_.insert(v.name).second) fail(at, "the scenario name \"" + v.name + "\" is used twice");
  module_.tensors.push_back(tensor);
  materialized_.insert(v.name);
  v.tensor = v.name;
  v.dtype = tensor.dtype;
  approximate(v.stablehlo_op, v.line,
              v.constant
                  ? "a constant read as the program input \"" + v.name + "\" (bytes resident, no time)"
                  : (tensor.view_of.empty() ? "its result is declared as the program input \"" + v.name +
                                                  "\" (no time, bytes resident from the start)"
                                            : "its result is the view \"" + v.name + "\" of \"" + tensor.view_of +
                                                  "\" (no time, no memory of its own)") +
                        (v.deps.empty()
                             ? std::string()
                             : "; its readers wait for " + v.deps.front() +
                                   (v.deps.size() > 1 ? " and " + std::to_string(v.deps.size() - 1) + " more" : "")));
}

// Fixes matmul `index`'s out_sharding to the sharding the import derived for it (Shardy-style propagation).
void StablehloReader::pin(int index, const std::string& why) {
  ImportedOp& op = module_.ops[static_cast<std::size_t>(index)];
  if (!op.sharding.empty()) return;
  op.sharding = pinned_.at(index);
  approximate(op.stablehlo_op, op.line,
              "out_sharding fixed to " + op.sharding + " (propagated from the operands) because " + why);
}

// The `after` list of an op reading `read` (its tensors) and waiting for `waited` (operands it does not read):
// their deps, and the writers of `waited`, without the writers of `read` (implied) and without repeats.
std::vector<std::string> StablehloReader::after_of(const std::vector<const SsaValue*>& read,
                                                   const std::vector<const SsaValue*>& waited) {
  std::vector<std::string> out;
  std::set<std::string> implied;
  for (const SsaValue* v : read)
    if (!v->writer.empty()) implied.insert(v->writer);
  auto add = [&](const std::string& op) {
    if (!op.empty() && !implied.count(op) && std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  };
  for (const SsaValue* v : read)
    for (const auto& d : v->deps)
      add(d);
  for (const SsaValue* v : waited) {
    for (const auto& d : v->deps)
      add(d);
    add(v->writer);
  }
  return out;
}

// `sdy.mesh @mesh = <["x"=4, "y"=2]>`.
void StablehloReader::read_mesh(std::size_t at) {
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
    mesh_ = mesh;
  } catch (const ParseError& e) {
    fail(open + e.column() - 1, std::string("malformed sdy.mesh: ") + e.what());
  }
  if (module_.axes.empty()) fail(open, "the mesh has no axes, got: " + line_.substr(open, end - open));
  module_.mesh_name = name;
}

std::vector<std::pair<std::size_t, std::size_t>> split_top(const std::string& s, std::size_t from, std::size_t to) {
  return scan::split_top(s, from, to, scan::kMlirBrackets);
}

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

// `func.func ... @NAME(%arg0: tensor<...> {...}, ...)` at the current line: the arguments' SSA names, types and
// columns, and where the list ends.
struct Argument {
  std::string ssa;
  std::size_t col = 0, end = 0;
};

std::vector<Argument> signature_arguments(const std::string& line, std::size_t open, std::size_t close) {
  std::vector<Argument> out;
  for (const auto& [b, e] : split_top(line, open + 1, close - 1)) {
    const std::size_t colon = line.find(':', b);
    out.push_back({colon == std::string::npos || colon > e ? "" : line.substr(b, colon - b), b, e});
  }
  return out;
}

// The function name after `@` in the current line, with the position of `@`.
std::pair<std::string, std::size_t> symbol_at(const std::string& line, std::size_t from) {
  const std::size_t at_sign = line.find('@', from);
  if (at_sign == std::string::npos) return {"", std::string::npos};
  std::size_t end = at_sign + 1;
  if (end < line.size() && line[end] == '"') {
    const std::size_t q = line.find('"', end + 1);
    return {q == std::string::npos ? "" : line.substr(end + 1, q - end - 1), at_sign};
  }
  while (end < line.size() && is_ident(line[end]))
    ++end;
  return {line.substr(at_sign + 1, end - at_sign - 1), at_sign};
}

}  // namespace

// `func.func public @main(%arg0: tensor<...> {sdy.sharding = ...}, ...) -> (tensor<...> {...}, ...) {`.
void StablehloReader::read_signature(std::size_t at, Scope& scope) {
  const auto [name, at_sign] = symbol_at(line_, at);
  const std::size_t open = line_.find('(', at_sign);
  const std::size_t close = open == std::string::npos ? open : match_close(line_, open);
  if (close == std::string::npos) fail(at, "malformed signature (it must fit on one line)");
  for (const auto& arg : signature_arguments(line_, open, close)) {
    const std::size_t b = arg.col, e = arg.end;
    if (line_[b] != '%' || arg.ssa.empty()) fail(b, "malformed argument, got: " + line_.substr(b, e - b));
    const std::size_t type_at = skip_space(line_, b + arg.ssa.size() + 1);
    const TensorType type = read_tensor_type(type_at);
    ImportedTensor tensor{tensor_name(arg.ssa), type.shape, "", "", ""};
    tensor.dtype = need_dtype(type, type.element_at, "argument " + arg.ssa);
    const std::size_t attr = line_.find("sdy.sharding", type_at);
    if (attr != std::string::npos && attr < e) {
      const std::size_t eq = line_.find('=', attr);
      tensor.sharding = read_sharding_text(skip_space(line_, eq + 1), type.shape.size());
    } else if (const std::size_t gspmd = line_.find("mhlo.sharding", type_at);
               gspmd != std::string::npos && gspmd < e) {
      fail(gspmd, "GSPMD shardings (mhlo.sharding) are not read: lower with Shardy (sdy.sharding)");
    }
    if (!names_.insert(tensor.name).second) fail(b, "argument name used twice, got: " + arg.ssa);
    SsaValue v;
    v.tensor = v.name = tensor.name;
    v.shape = type.shape;
    v.element = type.element;
    v.dtype = tensor.dtype;
    v.sharding = tensor.sharding.empty() ? replicated(type.shape.size()) : parse_shardy_sharding(tensor.sharding);
    v.stablehlo_op = "func.func";
    v.line = line_no_;
    scope.values[arg.ssa] = v;
    module_.tensors.push_back(tensor);
  }
  // Results: `-> tensor<...>` or `-> (tensor<...> {attrs}, ...)`.
  std::size_t arrow = line_.find("->", close);
  if (arrow == std::string::npos) return;
  std::size_t r = skip_space(line_, arrow + 2);
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  if (r < line_.size() && line_[r] == '(') {
    const std::size_t rclose = match_close(line_, r);
    if (rclose == std::string::npos) fail(r, "malformed results");
    parts = split_top(line_, r + 1, rclose - 1);
  } else {
    parts.emplace_back(r, match_close(line_, r + 6));
  }
  for (const auto& [b, e] : parts) {
    const TensorType type = read_tensor_type(b);
    const std::size_t attr = line_.find("sdy.sharding", b);
    if (attr != std::string::npos && attr < e)
      result_shardings_.push_back(read_sharding_text(skip_space(line_, line_.find('=', attr) + 1), type.shape.size()));
    else
      result_shardings_.push_back("");
  }
}

// `%N = OP operands ... : types` (and, for a reduce printed with its region or a while, the regions' lines up to
// `end`). An op of several results (`%N:2 = ...`) defines `%N#0`, `%N#1`, ...
void StablehloReader::read_op(std::size_t at, Scope& scope, const std::string& prefix, int depth, std::size_t end) {
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
  const bool is_call = op_name == "call" || op_name == "func.call";
  const bool is_constant = op_name == "stablehlo.constant" || op_name == "sdy.constant";
  const bool supported =
      op_name == "stablehlo.dot_general" || op_name == "stablehlo.dot" || op_name == "sdy.sharding_constraint" ||
      is_constant || op_name == "stablehlo.iota" || op_name == "stablehlo.reduce" || op_name == "stablehlo.while" ||
      op_name == "stablehlo.optimization_barrier" || op_name == "stablehlo.dynamic_update_slice" || is_call ||
      kElementwise.count(op_name) || kLayout.count(op_name) || kStablehloDataMovement.count(op_name);
  if (op_name == "stablehlo.custom_call") {
    const auto [target, t_at] = symbol_at(line_, op_end);
    fail(op_at, "unsupported op \"stablehlo.custom_call\" (target @" + target +
                    "): custom calls are not simulated; for a sharding, lower with Shardy (sdy.sharding_constraint)");
  }
  if (op_name == "sdy.manual_computation")
    fail(op_at,
         "unsupported op \"sdy.manual_computation\" (manual SPMD regions with explicit collectives are not "
         "simulated)");
  if (op_name == "stablehlo.case" || op_name == "stablehlo.if")
    fail(op_at, "unsupported op \"" + op_name +
                    "\": which branch runs is known only at run time (podsim reads loops whose trip count folds to "
                    "a constant, not conditionals)");
  if (!supported) fail(op_at, "unsupported op \"" + op_name + "\"");
  if (generic)
    fail(op_at, "the generic op form is not read, print the module in its pretty form, got: \"" + op_name + "\"");
  const bool several = op_name == "stablehlo.while" || op_name == "stablehlo.optimization_barrier" || is_call;
  if (results > 1 && !several)
    fail(at, "\"" + op_name + "\" with several results is not read (only stablehlo.while, " +
                 "stablehlo.optimization_barrier and calls), got: " + ssa + ":" + std::to_string(results));
  const std::string name = prefix + tensor_name(ssa);
  if (scope.values.count(ssa) || scope.values.count(ssa + "#0")) fail(at, "value defined twice, got: " + ssa);
  if (module_.ops.size() > kMaxOps)
    fail(op_at, "more than " + std::to_string(kMaxOps) + " ops after inlining calls and unrolling loops");
  if (op_name == "stablehlo.while") {
    read_while(op_at, op_end, ssa, results, scope, name, depth, end);
    return;
  }

  // Operands: every `%name` between the op name and the type, outside quoted strings.
  const std::size_t type_colon = find_top(" : ", op_end);
  if (type_colon == std::string::npos) fail(op_at, "malformed op: no result type");
  std::vector<std::pair<std::string, std::size_t>> operands;
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
      if (!value(operand_at, operand_ssa, scope).constant)
        fail(operand_at, "the loop's trip count is unknown: its condition reads " + operand_ssa +
                             ", which is known only at run time (podsim unrolls loops whose condition folds to a "
                             "constant)");
  // The result types: after `->` in a functional type, else the listed types (an op of one result: the last).
  std::size_t type_at = skip_space(line_, type_colon + 3);
  std::vector<std::size_t> result_types;
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
  type_at = result_types.front();
  const TensorType out = read_tensor_type(type_at);
  // An optional `{sdy.sharding = #sdy.sharding_per_value<[<@mesh, ...>]>}` before the type.
  std::string value_sharding;
  if (const std::size_t attr = line_.find("sdy.sharding_per_value<[", op_end);
      attr != std::string::npos && attr < type_colon && results == 1)
    value_sharding = read_sharding_text(attr + 24, out.shape.size());

  auto need = [&](std::size_t n) {
    if (operands.size() != n)
      fail(op_at,
           "\"" + op_name + "\" takes " + std::to_string(n) + " operand(s), got: " + std::to_string(operands.size()));
  };
  auto operand = [&](std::size_t k) -> SsaValue& { return value(operands[k].second, operands[k].first, scope); };
  // A value that holds no op's output: a constant or a layout op's result.
  auto derived = [&](const TensorSharding& sharding) {
    SsaValue v;
    v.name = name;
    v.shape = out.shape;
    v.element = out.element;
    v.dtype = out.dtype;
    v.sharding = sharding;
    v.stablehlo_op = op_name;
    v.line = line_no_;
    return v;
  };
  auto add_op = [&](ImportedOp op) {
    if (folding_ > 0)
      fail(op_at, "the loop's condition must fold to a constant, got an op podsim would simulate: \"" + op_name + "\"");
    op.stablehlo_op = op_name;
    op.line = line_no_;
    if (op.out.empty()) op.out = op.name;
    if (!names_.insert(op.out).second) fail(op_at, "the scenario name \"" + op.out + "\" is used twice");
    module_.ops.push_back(op);
    return static_cast<int>(module_.ops.size()) - 1;
  };
  auto given = [&]() {
    return value_sharding.empty() ? std::nullopt : std::optional(parse_shardy_sharding(value_sharding));
  };

  if (is_constant || op_name == "stablehlo.iota") {
    need(0);
    SsaValue v = derived(given().value_or(replicated(out.shape.size())));
    v.constant = true;
    if (is_constant && is_integer_element(out.element) && product(out.shape) == 1) {
      const std::size_t dense = line_.find("dense<", op_end);
      if (dense != std::string::npos && dense < type_colon) v.scalar = integer_literal(line_.substr(dense + 6, 24));
    }
    scope.values[ssa] = v;
    return;
  }
  if (op_name == "stablehlo.optimization_barrier") {  // no time: each result is its operand
    need(results);
    for (std::size_t k = 0; k < results; ++k) {
      const TensorType type = read_tensor_type(result_types[k]);
      if (type.shape != operand(k).shape) fail(result_types[k], "the result type differs from the operand's");
      scope.values[results == 1 ? ssa : ssa + "#" + std::to_string(k)] = operand(k);
    }
    if (line_.find("sdy.sharding_per_value<[", op_end) < type_colon)
      approximate(op_name, line_no_, "the results' given shardings are not read: each result keeps its operand's");
    return;
  }
  if (is_call) {
    const auto [callee, callee_at] = symbol_at(line_, op_end);
    const auto it = functions_.find(callee);
    if (callee_at == std::string::npos || it == functions_.end()) fail(op_at, "call of an unknown function @" + callee);
    if (callee == "main") fail(op_at, "call of @main");
    if (depth + 1 > kMaxCallDepth)
      fail(op_at, "calls nested deeper than " + std::to_string(kMaxCallDepth) + " (recursion?), got: @" + callee);
    const std::size_t here = cur_;
    std::vector<SsaValue> args;
    for (std::size_t k = 0; k < operands.size(); ++k)
      args.push_back(operand(k));
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
    if (line_.find("sdy.sharding_per_value<[", op_end) < type_colon)
      fail(op_at, "a sharding on a call's result is not read");
    const auto returned = run_lines(fn.sig + 1, fn.end, inner, name + "_", depth + 1, false, "@" + callee);
    set_line(here);
    if (returned.size() != results)
      fail(op_at, "@" + callee + " returns " + std::to_string(returned.size()) + " value(s), the call takes " +
                      std::to_string(results));
    for (std::size_t k = 0; k < results; ++k) {
      if (returned[k].shape != read_tensor_type(result_types[k]).shape)
        fail(result_types[k], "the call's result type differs from @" + callee + "'s");
      scope.values[results == 1 ? ssa : ssa + "#" + std::to_string(k)] = returned[k];
    }
    return;
  }
  if (op_name == "stablehlo.dot_general" || op_name == "stablehlo.dot") {
    need(2);
    SsaValue& lhs = operand(0);
    SsaValue& rhs = operand(1);
    auto dims = [&](const std::string& key) -> std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> {
      const std::size_t k = line_.find(key + " = [", op_end);
      if (k == std::string::npos || k > type_colon) return {};
      const std::size_t l_open = k + key.size() + 3;
      const std::size_t l_close = line_.find(']', l_open);
      const std::size_t x = l_close == std::string::npos ? l_close : line_.find("x [", l_close);
      if (l_close == std::string::npos || x != skip_space(line_, l_close + 1)) fail(k, "malformed " + key);
      const std::size_t r_close = line_.find(']', x + 3);
      if (r_close == std::string::npos) fail(k, "malformed " + key);
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
    for (std::size_t k = 0; k < batch.first.size(); ++k) {
      const auto d = batch.first[k];
      out_labels += lhs_labels[d], computed.push_back(lhs.shape[d]);
    }
    for (std::size_t d = 0; d < lhs.shape.size(); ++d)
      if (lhs_role[d] == 0) out_labels += lhs_labels[d], computed.push_back(lhs.shape[d]);
    for (std::size_t d = 0; d < rhs.shape.size(); ++d)
      if (rhs_role[d] == 0) out_labels += rhs_labels[d], computed.push_back(rhs.shape[d]);
    if (computed != out.shape) fail(type_at, "the result type does not match the dot_general's dims");
    // The result's sharding as Shardy would propagate it, by the planner's rule (natural_out_sharding); the
    // contracting dims' axes are summed over, which podsim plans.
    const TensorSharding propagated =
        natural_out_sharding(Einsum{lhs_labels, rhs_labels, out_labels}, lhs.sharding, rhs.sharding, *mesh_);
    materialize(lhs, operands[0].second);
    materialize(rhs, operands[1].second);
    ImportedOp op;
    op.kind = ImportedOpKind::matmul;
    op.name = name;
    op.lhs = lhs.tensor;
    op.rhs = rhs.tensor;
    op.einsum = lhs_labels + "," + rhs_labels + "->" + out_labels;
    op.sharding = value_sharding;
    op.after = after_of({&lhs, &rhs}, {});
    const std::string lhs_dtype = lhs.dtype;
    const int index = add_op(op);
    SsaValue v = derived(given().value_or(propagated));
    v.tensor = v.writer = name;
    v.dtype = lhs_dtype;
    if (value_sharding.empty()) {
      v.pending = index;
      pinned_[index] = print_shardy_sharding(propagated);
    }
    scope.values[ssa] = v;
    return;
  }
  if (op_name == "sdy.sharding_constraint") {
    need(1);
    SsaValue& in = operand(0);
    const std::size_t s = line_.find('<', operands[0].second);
    if (s == std::string::npos || s > type_colon) fail(op_at, "malformed sdy.sharding_constraint: no sharding");
    const std::string to = read_sharding_text(s, in.shape.size());
    materialize(in, operands[0].second);
    ImportedOp op;
    op.kind = ImportedOpKind::reshard;
    op.name = name;
    op.lhs = in.tensor;
    op.sharding = to;
    op.after = after_of({&in}, {});
    add_op(op);
    SsaValue v = derived(parse_shardy_sharding(to));
    v.tensor = v.writer = name;
    v.dtype = in.dtype;
    scope.values[ssa] = v;
    return;
  }
  if (kLayout.count(op_name)) {
    need(1);
    SsaValue& in = operand(0);
    TensorSharding sharding = in.sharding;
    // The op's `dims = [...]` (transpose's permutation, broadcast_in_dim's map); `where` is set to where it starts.
    const auto dims_attribute = [&](std::size_t& where) {
      where = line_.find("dims = [", op_end);
      if (where == std::string::npos || where > type_colon) fail(op_at, "malformed " + op_name + ": no dims");
      try {
        return parse_int_list(line_.substr(where + 8, line_.find(']', where) - where - 8));
      } catch (const std::exception&) {
        fail(where, "malformed dims");
      }
    };
    if (op_name == "stablehlo.convert" || op_name == "stablehlo.bitcast_convert") {
      if (in.shape != out.shape) fail(type_at, op_name + " changes the shape; not read");
    } else if (op_name == "stablehlo.transpose") {
      std::size_t k = 0;
      const std::vector<std::int64_t> perm = dims_attribute(k);
      std::vector<bool> seen(in.shape.size(), false);
      if (perm.size() != in.shape.size() || out.shape.size() != in.shape.size()) fail(k, "transpose dims mismatch");
      for (std::size_t d = 0; d < perm.size(); ++d) {
        if (perm[d] < 0 || perm[d] >= static_cast<std::int64_t>(perm.size()) || seen[perm[d]] ||
            out.shape[d] != in.shape[perm[d]])
          fail(k, "transpose dims mismatch");
        seen[perm[d]] = true;
        sharding.dims[d] = in.sharding.dims[perm[d]];
      }
    } else if (op_name == "stablehlo.broadcast_in_dim") {
      std::size_t k = 0;
      const std::vector<std::int64_t> map = dims_attribute(k);
      if (map.size() != in.shape.size()) fail(k, "broadcast dims mismatch");
      sharding = replicated(out.shape.size());
      sharding.replicated = in.sharding.replicated;
      for (std::size_t d = 0; d < map.size(); ++d) {
        if (map[d] < 0 || map[d] >= static_cast<std::int64_t>(out.shape.size()) ||
            (in.shape[d] != 1 && in.shape[d] != out.shape[map[d]]))
          fail(k, "broadcast dims mismatch");
        if (in.shape[d] == out.shape[map[d]])
          sharding.dims[map[d]] = in.sharding.dims[d];
        else if (!in.sharding.dims[d].axes.empty())
          fail(op_at, op_name + ": cannot derive the result's sharding: operand dim " + std::to_string(d) +
                          " of size 1 is sharded");
      }
    } else {  // reshape
      std::string why;
      const auto r = reshape_sharding(in.shape, in.sharding, out.shape, *mesh_, why);
      if (!r && value_sharding.empty())
        fail(op_at, op_name + ": cannot derive the result's sharding from the operand's " +
                        print_shardy_sharding(in.sharding) + ": " + why +
                        "; give the result a sharding (sdy.sharding_constraint) before and after");
      if (!r)
        approximate(op_name, line_no_,
                    "the result takes its given sharding " + value_sharding +
                        " (none follows from the operand's: " + why + "); the resharding is not simulated");
      sharding = r ? *r : *given();
    }
    SsaValue v = derived(sharding);
    if (const auto g = given(); g && *g != sharding) {
      approximate(op_name, line_no_,
                  "the result's sharding " + value_sharding + " differs from the one derived from the operand (" +
                      print_shardy_sharding(sharding) + "); the resharding between them is not simulated");
      v.sharding = *g;
    }
    v.pending = value_sharding.empty() ? in.pending : -1;
    v.deps = in.deps;
    if (!in.writer.empty()) v.deps.push_back(in.writer);
    v.constant = in.constant;
    v.source = in.tensor.empty() ? in.source : storage_of(in);
    if (is_integer_element(out.element) && product(out.shape) == 1) v.scalar = in.scalar;
    scope.values[ssa] = v;
    return;
  }
  if (kStablehloDataMovement.count(op_name)) {
    if (operands.empty()) fail(op_at, "\"" + op_name + "\" takes an operand");
    SsaValue& in = operand(0);
    if (in.shape.size() != out.shape.size()) fail(type_at, op_name + ": result rank differs from the operand's");
    std::vector<bool> moved(in.shape.size(), false);
    for (std::size_t d = 0; d < in.shape.size(); ++d)
      moved[d] = in.shape[d] != out.shape[d];
    if (op_name == "stablehlo.concatenate") {
      const std::size_t k = line_.find("dim = ", op_end);
      if (k == std::string::npos || k > type_colon) fail(op_at, "malformed stablehlo.concatenate: no dim");
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
        fail(op_at, op_name + " along dim " + std::to_string(d) + ", which is sharded (" +
                        print_shardy_sharding(in.sharding) +
                        "): moving data across shards is not simulated; replicate that dim first");
    SsaValue v = derived(given().value_or(in.sharding));
    v.pending = value_sharding.empty() ? in.pending : -1;
    bool all_constant = true;
    std::vector<const SsaValue*> others;
    for (std::size_t k = 0; k < operands.size(); ++k) {
      all_constant = all_constant && operand(k).constant;
      if (k) others.push_back(&operand(k));
    }
    if (all_constant) {
      v.constant = true;
      scope.values[ssa] = v;
      return;
    }
    // The copy reads the result's bytes from the operand's buffer (a view of it in the result's shape) and writes
    // the result.
    materialize(in, operands[0].second);
    if (in.pending >= 0) pin(in.pending, op_name + " at line " + std::to_string(line_no_) + " reads a view of it");
    ImportedTensor window{name + "_window", out.shape, in.dtype, print_shardy_sharding(v.sharding), ""};
    window.view_of = storage_of(in);
    if (!names_.insert(window.name).second) fail(op_at, "the scenario name \"" + window.name + "\" is used twice");
    module_.tensors.push_back(window);
    views_[window.name] = window.view_of;
    ImportedOp op;
    op.kind = ImportedOpKind::elementwise;
    op.name = name + "_copy";
    op.out = name;
    op.lhs = window.name;
    op.flops_per_element = 0;
    others.insert(others.begin(), &in);  // the view has no writer: the copy waits for the operand's
    op.after = after_of({}, others);
    add_op(op);
    approximate(op_name, line_no_,
                "a memory-bound copy (elementwise \"" + op.name + "\", 0 flops per element) of the result's bytes, " +
                    "read through the view \"" + window.name + "\" of \"" + window.view_of + "\"");
    v.tensor = name;
    v.writer = op.name;
    v.dtype = in.dtype;
    v.pending = -1;
    scope.values[ssa] = v;
    return;
  }
  if (op_name == "stablehlo.dynamic_update_slice") {
    // `%r = stablehlo.dynamic_update_slice %buffer, %update, %i, %j : (...) -> ...`: in place, as XLA does it. A
    // copy of the update's bytes into the buffer; the result is the buffer, read after the copy.
    if (operands.size() < 2) fail(op_at, "\"" + op_name + "\" takes a buffer, an update and indices");
    SsaValue& buffer = operand(0);
    SsaValue& update = operand(1);
    if (buffer.shape != out.shape || update.shape.size() != out.shape.size())
      fail(type_at, op_name + ": the result type differs from the buffer's, or the update's rank");
    for (std::size_t d = 0; d < out.shape.size(); ++d)
      if (update.shape[d] != out.shape[d] && !buffer.sharding.dims[d].axes.empty())
        fail(op_at, op_name + " along dim " + std::to_string(d) + ", which is sharded (" +
                        print_shardy_sharding(buffer.sharding) +
                        "): moving data across shards is not simulated; replicate that dim first");
    std::vector<const SsaValue*> indices;
    bool all_constant = buffer.constant && update.constant;
    for (std::size_t k = 2; k < operands.size(); ++k) {
      indices.push_back(&operand(k));
      all_constant = all_constant && operand(k).constant;
    }
    if (all_constant) {
      SsaValue v = derived(buffer.sharding);
      v.constant = true;
      scope.values[ssa] = v;
      return;
    }
    // A constant initial buffer (the zeros a scan stacks its outputs into) takes no memory of its own: the updates'
    // copies, which podsim holds as buffers of their own, hold its bytes once every slot is written.
    const bool fresh_constant = buffer.constant && buffer.tensor.empty() && !materialized_.count(buffer.name);
    materialize(buffer, operands[0].second);
    if (fresh_constant)
      for (auto& t : module_.tensors)
        if (t.name == buffer.tensor) t.transient = true;
    materialize(update, operands[1].second);
    ImportedOp op;
    op.kind = ImportedOpKind::elementwise;
    op.name = name + "_update";
    op.lhs = update.tensor;
    op.flops_per_element = 0;
    std::vector<const SsaValue*> waited = indices;
    waited.push_back(&buffer);
    op.after = after_of({&update}, waited);
    add_op(op);
    approximate(op_name, line_no_,
                "a memory-bound copy of the update (elementwise \"" + op.name +
                    "\", 0 flops per element) into a buffer of its own, held while read or to the end; the result " +
                    "is \"" + storage_of(buffer) + "\" read after the copy" +
                    (fresh_constant ? ", a transient constant (no memory while nothing reads it)" : ""));
    SsaValue v = buffer;
    v.deps = {op.name};  // the copy waits for the buffer's writer and deps
    v.stablehlo_op = op_name;
    v.line = line_no_;
    scope.values[ssa] = v;
    return;
  }
  if (op_name == "stablehlo.reduce") {
    // `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : ...`, or the same without
    // `applies ...` followed by the region `reducer(%a: ..., %b: ...) { %r = stablehlo.add %a, %b ...; return }`.
    if (operands.size() != 2 || line_.find("), (", op_end) < type_colon)
      fail(op_at, "stablehlo.reduce of several operands (e.g. an argmax) is not read");
    SsaValue& in = operand(0);
    const std::size_t k = line_.find("dimensions = [", op_end);
    if (k == std::string::npos || k > type_colon) fail(op_at, "malformed stablehlo.reduce: no dimensions");
    std::vector<std::int64_t> reduced;
    try {
      reduced = parse_int_list(line_.substr(k + 14, line_.find(']', k) - k - 14));
    } catch (const std::exception&) {
      fail(k, "malformed dimensions");
    }
    std::string body;
    if (const std::size_t ap = line_.find("applies ", op_end); ap != std::string::npos && ap < type_colon) {
      std::size_t e = ap + 8;
      while (e < line_.size() && is_ident(line_[e]))
        ++e;
      body = line_.substr(ap + 8, e - ap - 8);
    } else {
      const std::size_t op_line = cur_;
      if (cur_ + 1 >= end) fail(op_at, "stablehlo.reduce without its region");
      set_line(cur_ + 1);
      std::size_t r = skip_space(line_, 0);
      if (line_.compare(r, 8, "reducer(") != 0 || brace_delta(line_) != 1)
        fail(r, "expected the reduce's region `reducer(...) {`, got: " + line_.substr(r, 40));
      int ops = 0;
      while (true) {
        if (cur_ + 1 >= end) {
          set_line(op_line);
          fail(op_at, "stablehlo.reduce's region is not closed");
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
      set_line(op_line);
      cur_ = last;  // read_op's caller goes on after the region
    }
    std::optional<Reduction> reduction;
    if (body == "stablehlo.add") reduction = Reduction::sum;
    if (body == "stablehlo.maximum" || body == "stablehlo.or") reduction = Reduction::max;
    if (body == "stablehlo.minimum" || body == "stablehlo.and") reduction = Reduction::min;
    const bool known = reduction || body == "stablehlo.multiply" || body == "stablehlo.xor";
    if (!known) fail(op_at, "stablehlo.reduce applying \"" + body + "\" is not read");
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
    if (kept_shape != out.shape) fail(type_at, "the reduce's result type does not match its dimensions");
    if (!summed.empty() && !reduction)
      fail(op_at, "stablehlo.reduce applying \"" + body + "\" over a sharded dim: podsim's collectives sum, take " +
                      "the max or the min only");
    SsaValue& init = operand(1);
    if (in.constant) {
      SsaValue v = derived(kept);
      v.constant = true;
      scope.values[ssa] = v;
      return;
    }
    materialize(in, operands[0].second);
    ImportedOp op;
    op.kind = ImportedOpKind::elementwise;
    op.name = name;
    op.out = name + "_scratch";
    op.lhs = in.tensor;
    op.after = after_of({&in}, {&init});
    const int pending = in.pending;
    add_op(op);
    std::string how = "an elementwise op \"" + name + "\" of 1 flop per input element (" + body +
                      "), writing an input-shaped scratch tensor \"" + op.out + "\"";
    SsaValue v = derived(kept);
    v.pending = pending;
    v.deps = {name};
    if (!summed.empty()) {
      // The partial results: a program input unreduced over the summed axes, and a reshard that reduces them
      // (podsim plans the all-reduce).
      if (pending >= 0) pin(pending, "the reduce at line " + std::to_string(line_no_) + " sums over its sharded dims");
      TensorSharding partial = kept;
      partial.unreduced = summed;
      partial.unreduced_reduction = *reduction;
      ImportedTensor t{name + "_partial", out.shape, "", print_shardy_sharding(partial), ""};
      t.dtype = need_dtype(out, type_at, op_name);
      if (!names_.insert(t.name).second) fail(op_at, "the scenario name \"" + t.name + "\" is used twice");
      module_.tensors.push_back(t);
      ImportedOp finish;
      finish.kind = ImportedOpKind::reshard;
      finish.name = name + "_finish";
      finish.out = name;
      finish.lhs = t.name;
      finish.sharding = value_sharding.empty() ? print_shardy_sharding(kept) : value_sharding;
      finish.after = {name};
      add_op(finish);
      how += "; the partial results are the program input \"" + t.name + "\" (" + t.sharding + ") and the reshard \"" +
             finish.name + "\" to " + finish.sharding + " makes podsim plan their reduction over the sharded dims";
      v.tensor = v.writer = name;
      v.deps.clear();
      v.pending = -1;
      v.dtype = t.dtype;
      if (!value_sharding.empty()) v.sharding = parse_shardy_sharding(value_sharding);
    } else if (const auto g = given(); g && *g != kept) {
      how += "; the result's sharding " + value_sharding + " differs from the kept dims' (" +
             print_shardy_sharding(kept) + "): the resharding between them is not simulated";
      v.sharding = *g;
      v.pending = -1;
    }
    approximate(op_name, line_no_, how);
    scope.values[ssa] = v;
    return;
  }
  // Elementwise ops: the op runs on one operand (its "primary": the first that is a tensor of the result's shape,
  // preferring the data operands of select and clamp); the others are waited for.
  const std::size_t arity = op_name == "stablehlo.select" || op_name == "stablehlo.clamp" ? 3
                            : kBinary.count(op_name)                                      ? 2
                                                                                          : 1;
  need(arity);
  std::vector<std::size_t> order;
  if (op_name == "stablehlo.select")
    order = {1, 2, 0};
  else if (op_name == "stablehlo.clamp")
    order = {1, 0, 2};
  else
    for (std::size_t k = 0; k < arity; ++k)
      order.push_back(k);
  int primary = -1;
  for (int pass = 0; pass < 3 && primary < 0; ++pass)
    for (const auto k : order) {
      const SsaValue& v = operand(k);
      if (v.shape == out.shape && (pass == 2 || (pass == 0 ? !v.tensor.empty() : !v.constant))) {
        primary = static_cast<int>(k);
        break;
      }
    }
  if (primary < 0) fail(type_at, "elementwise result shape differs from the operands'");
  SsaValue& in = operand(primary);
  std::vector<const SsaValue*> others;
  bool all_constant = true;
  for (std::size_t k = 0; k < arity; ++k) {
    all_constant = all_constant && operand(k).constant;
    if (static_cast<int>(k) != primary) others.push_back(&operand(k));
  }
  if (all_constant) {  // folded, as XLA does
    SsaValue v = derived(given().value_or(in.sharding));
    v.constant = true;
    if (is_integer_element(out.element) && product(out.shape) == 1) {
      std::vector<std::optional<std::int64_t>> args;
      for (std::size_t k = 0; k < arity; ++k)
        args.push_back(operand(k).scalar);
      std::string direction;  // `stablehlo.compare  LT, %a, %b, SIGNED`
      for (std::size_t k = skip_space(line_, op_end);
           k < line_.size() && std::isupper(static_cast<unsigned char>(line_[k])); ++k)
        direction += line_[k];
      v.scalar = fold_integer(op_name, direction, args);
    }
    scope.values[ssa] = v;
    return;
  }
  materialize(in, operands[primary].second);
  // The other operands held in tensors are read by `load` ops (their bytes from HBM, and their buffers kept until
  // then); a layout result by the tensor it comes from (a broadcast reads its source's bytes). Constants are not.
  std::vector<std::string> loads;
  for (const SsaValue* other : others) {
    const std::string& tensor = other->tensor.empty() ? other->source : other->tensor;
    if (other->constant || tensor.empty() || tensor == in.tensor) continue;
    ImportedOp load;
    load.kind = ImportedOpKind::load;
    load.name = name + "_read" + std::to_string(loads.size());
    load.lhs = tensor;
    load.after = after_of({}, {other});
    load.after.erase(std::remove(load.after.begin(), load.after.end(), other->writer), load.after.end());
    add_op(load);
    loads.push_back(load.name);
  }
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = name;
  op.lhs = in.tensor;
  op.after = after_of({&in}, others);
  op.after.insert(op.after.end(), loads.begin(), loads.end());
  const int pending = in.pending;
  const std::string in_dtype = in.dtype;
  const TensorSharding in_sharding = in.sharding;
  add_op(op);
  if (!out.dtype.empty() && out.dtype != in_dtype)
    approximate(op_name, line_no_,
                "the result (" + out.element + ") is held as " + in_dtype +
                    ": podsim's elementwise op keeps its operand's dtype");
  SsaValue v = derived(in_sharding);
  v.tensor = v.writer = name;
  v.dtype = in_dtype;
  v.pending = pending;
  if (!value_sharding.empty()) {  // the value's own sharding: a reshard of the result
    ImportedOp reshard;
    reshard.kind = ImportedOpKind::reshard;
    reshard.name = name + "_sharded";
    reshard.lhs = name;
    reshard.sharding = value_sharding;
    add_op(reshard);
    v.tensor = v.writer = reshard.name;
    v.sharding = parse_shardy_sharding(value_sharding);
    v.pending = -1;
  }
  scope.values[ssa] = v;
}

// `return %a, %b : types` (or `func.return`) of @main: each result with a sharding is resharded to it; a matmul
// result without an out_sharding takes it instead.
void StablehloReader::read_return(std::size_t at, Scope& scope) {
  std::size_t i = skip_space(line_, line_.find(' ', at) == std::string::npos ? line_.size() : line_.find(' ', at));
  std::size_t k = 0;
  while (i < line_.size() && line_[i] == '%') {
    const std::size_t e = ssa_end(line_, i);
    SsaValue& v = value(i, line_.substr(i, e - i), scope);
    const std::string sharding = k < result_shardings_.size() ? result_shardings_[k] : "";
    const bool pending = v.pending >= 0 && module_.ops[v.pending].sharding.empty() &&
                         module_.ops[v.pending].out == v.tensor && !v.tensor.empty();
    if (!sharding.empty() && pending) {  // the returned matmul's own result takes the result's sharding
      module_.ops[v.pending].sharding = sharding;
    } else if (!sharding.empty()) {
      materialize(v, i);
      ImportedOp reshard;
      reshard.kind = ImportedOpKind::reshard;
      reshard.name = reshard.out = "result" + std::to_string(k);
      reshard.stablehlo_op = "func.return";
      reshard.line = line_no_;
      reshard.lhs = v.tensor;
      reshard.sharding = sharding;
      reshard.after = after_of({&v}, {});
      if (!names_.insert(reshard.out).second) fail(i, "the scenario name \"" + reshard.out + "\" is used twice");
      module_.ops.push_back(reshard);
      module_.results.push_back(reshard.out);
      ++k;
      i = skip_space(line_, e);
      if (i < line_.size() && line_[i] == ',') i = skip_space(line_, i + 1);
      continue;
    }
    materialize(v, i);
    module_.results.push_back(v.tensor);
    ++k;
    i = skip_space(line_, e);
    if (i < line_.size() && line_[i] == ',') i = skip_space(line_, i + 1);
  }
  returned_ = true;
}

std::vector<SsaValue> StablehloReader::run_lines(std::size_t first, std::size_t end, Scope& scope,
                                                 const std::string& prefix, int depth, bool main,
                                                 const std::string& owner) {
  std::vector<SsaValue> results;
  bool done = false;
  for (std::size_t i = first; i < end; ++i) {
    set_line(i);
    if (++steps_ > kMaxLinesRead)
      fail(0, "more than " + std::to_string(kMaxLinesRead) + " lines read after inlining calls and unrolling loops");
    const std::size_t at = skip_space(line_, 0);
    if (at >= line_.size() || line_.compare(at, 2, "//") == 0) continue;
    if (done) fail(at, "op after the return, got: " + line_.substr(at, 40));
    const std::string_view rest = std::string_view(line_).substr(at);
    auto starts = [&](std::string_view p) { return rest.substr(0, p.size()) == p; };
    if (starts("return") || starts("func.return") || starts("stablehlo.return")) {
      done = true;
      if (main) {
        read_return(at, scope);
        continue;
      }
      std::size_t r = skip_space(line_, line_.find(' ', at) == std::string::npos ? line_.size() : line_.find(' ', at));
      while (r < line_.size() && line_[r] == '%') {
        const std::size_t e = ssa_end(line_, r);
        results.push_back(value(r, line_.substr(r, e - r), scope));
        r = skip_space(line_, e);
        if (r < line_.size() && line_[r] == ',') r = skip_space(line_, r + 1);
      }
      continue;
    }
    if (starts("%")) {
      read_op(at, scope, prefix, depth, end);
      i = cur_;
      continue;
    }
    std::size_t e = at;
    while (e < line_.size() && (is_ident(line_[e]) || line_[e] == '"'))
      ++e;
    fail(at, "unsupported op \"" + line_.substr(at, e - at) + "\"");
  }
  if (!done) throw InputError(file_, owner + " has no return");
  return results;
}

ImportedModule StablehloReader::read() {
  std::size_t pos = 0;
  while (pos <= text_.size()) {
    std::size_t nl = text_.find('\n', pos);
    if (nl == std::string_view::npos) nl = text_.size();
    lines_.emplace_back(text_.substr(pos, nl - pos));
    if (!lines_.back().empty() && lines_.back().back() == '\r') lines_.back().pop_back();
    pos = nl + 1;
  }
  // Pass 1: the mesh and the functions' extents (a function ends where its braces balance).
  const Function* main = nullptr;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    set_line(i);
    const std::size_t at = skip_space(line_, 0);
    if (at >= line_.size()) continue;
    const std::string_view rest = std::string_view(line_).substr(at);
    auto starts = [&](std::string_view p) { return rest.substr(0, p.size()) == p; };
    if (starts("//") || starts("#loc") || starts("}") || starts("module")) continue;
    if (starts("sdy.mesh")) {
      read_mesh(at);
      continue;
    }
    if (!starts("func.func")) {
      std::size_t e = at;
      while (e < line_.size() && (is_ident(line_[e]) || line_[e] == '"'))
        ++e;
      if (e == at)  // an op outside any function, e.g. a module cut from inside @main
        fail(at, "expected sdy.mesh or func.func at the module's top level, got: " + line_.substr(at, 40));
      fail(at, "unsupported op \"" + line_.substr(at, e - at) + "\"");
    }
    const auto [name, at_sign] = symbol_at(line_, at);
    const bool is_private = line_.compare(skip_space(line_, at + 9), 7, "private") == 0;
    if (name.empty()) fail(at, "malformed func.func: no @name");
    if (name != "main" && !is_private)
      fail(at, "unsupported function @" + name + " (only @main and the private functions it calls are imported)");
    if (name == "main" && module_.mesh_name.empty())
      fail(at, "no sdy.mesh before @main: the module must declare its mesh");
    if (functions_.count(name)) fail(at_sign, "function @" + name + " defined twice");
    // Shardings first: a malformed one would otherwise show as an unbalanced signature.
    for (std::size_t s = line_.find("#sdy.sharding<"); s != std::string::npos;
         s = line_.find("#sdy.sharding<", s + 1)) {
      const std::size_t open = s + 13;
      const std::size_t end = match_close(line_, open);
      const std::string text = line_.substr(open, end == std::string::npos ? std::string::npos : end - open);
      try {
        parse_shardy_sharding(text);
      } catch (const ParseError& e) {
        fail(open + e.column() - 1, std::string("malformed sharding: ") + e.what() + ", got: " + text);
      }
    }
    int depth = brace_delta(line_);
    if (depth != 1) fail(at, "malformed signature (it must fit on one line)");
    std::size_t j = i + 1;
    for (; j < lines_.size(); ++j) {
      const std::size_t b = skip_space(lines_[j], 0);
      if (lines_[j].compare(b, 2, "//") == 0) continue;
      depth += brace_delta(lines_[j]);
      if (depth <= 0) break;
    }
    functions_[name] = Function{name, i, j};
    if (name == "main") main = &functions_[name];
    i = j;
  }
  if (!main) throw InputError(file_, "no func.func @main in the module");
  Scope scope;
  set_line(main->sig);
  read_signature(skip_space(line_, 0), scope);
  run_lines(main->sig + 1, main->end, scope, "", 0, true, "@main");
  return module_;
}

}  // namespace stablehlo_read

ImportedModule parse_stablehlo_module(std::string_view text, const std::string& file) {
  require_utf8_module(text, file);
  stablehlo_read::StablehloReader reader(text, file);
  try {
    return reader.read();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // e.g. a number out of range, an axis the mesh does not have
    throw InputError(reader.where(), std::string("cannot read the module: ") + e.what());
  }
}

}  // namespace podsim::import
