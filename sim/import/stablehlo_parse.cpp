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
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/module_scan.hpp"
#include "sim/import/module_text.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import {
namespace stablehlo_read {

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

std::vector<Argument> signature_arguments(const std::string& line, std::size_t open, std::size_t close) {
  std::vector<Argument> out;
  for (const auto& [b, e] : split_top(line, open + 1, close - 1)) {
    const std::size_t colon = line.find(':', b);
    std::string ssa = colon == std::string::npos || colon > e ? "" : line.substr(b, colon - b);
    ssa.erase(ssa.find_last_not_of(' ') + 1);  // `%arg0 : tensor<...>` as Shardy's tests write it
    out.push_back({ssa, b, e});
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

// `func.func public @main(%arg0: tensor<...> {sdy.sharding = ...}, ...) -> (tensor<...> {...}, ...) {`.
void StablehloReader::read_signature(std::size_t at, Scope& scope) {
  const auto [name, at_sign] = symbol_at(line_, at);
  const std::size_t open = line_.find('(', at_sign);
  const std::size_t close = open == std::string::npos ? open : match_close(line_, open);
  if (close == std::string::npos) fail(at, "malformed signature (it must fit on one line)");
  for (const auto& arg : signature_arguments(line_, open, close)) {
    const std::size_t b = arg.col, e = arg.end;
    if (line_[b] != '%' || arg.ssa.empty()) fail(b, "malformed argument, got: " + line_.substr(b, e - b));
    const std::size_t type_at = skip_space(line_, line_.find(':', b) + 1);
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
    if (starts("return") || starts("func.return") || starts("stablehlo.return") || starts("sdy.return")) {
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

// The function the import starts from: --function's, else @main, else the module's only public function.
const Function& StablehloReader::entry_function() const {
  auto names = [&](const std::vector<std::string>& list) {
    std::string text;
    for (const auto& n : list)
      text += (text.empty() ? "@" : ", @") + n;
    return text.empty() ? std::string("none") : text;
  };
  if (!requested_entry_.empty()) {
    const auto it = functions_.find(requested_entry_);
    if (it == functions_.end()) {
      std::vector<std::string> all;
      for (const auto& [n, f] : functions_)
        all.push_back(n);
      throw ImportOptionError(ImportOption::function, "the module has no function @" + requested_entry_ +
                                                          " (its functions: " + names(all) + ")");
    }
    return it->second;
  }
  if (const auto it = functions_.find("main"); it != functions_.end()) return it->second;
  if (public_.size() == 1) return functions_.at(public_.front());
  if (public_.empty()) throw InputError(file_, "no public function in the module to import (give --function NAME)");
  throw InputError(file_, "no @main and several public functions (" + names(public_) +
                              "): give the one to import with --function NAME");
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
    if (functions_.count(name)) fail(at_sign, "function @" + name + " defined twice");
    if (!is_private) public_.push_back(name);
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
    i = j;
  }
  const Function& entry = entry_function();
  entry_ = entry.name;
  set_line(entry.sig);
  if (module_.mesh_name.empty())
    fail(skip_space(line_, 0), "no sdy.mesh before @" + entry_ + ": the module must declare its mesh");
  explicit_reductions_ = std::any_of(lines_.begin(), lines_.end(), [](const std::string& l) {
    return l.find("= sdy.all_reduce ") != std::string::npos || l.find("= sdy.reduce_scatter ") != std::string::npos;
  });
  Scope scope;
  read_signature(skip_space(line_, 0), scope);
  run_lines(entry.sig + 1, entry.end, scope, "", 0, true, "@" + entry_);
  return module_;
}

}  // namespace stablehlo_read

ImportedModule parse_stablehlo_module(std::string_view text, const std::string& file, const std::string& entry) {
  require_utf8_module(text, file);
  stablehlo_read::StablehloReader reader(text, file, entry);
  try {
    return reader.read();
  } catch (const InputError&) {
    throw;
  } catch (const ImportOptionError&) {  // an option's refusal (the function asked for): the CLI names its flag
    throw;
  } catch (const std::exception& e) {  // e.g. a number out of range, an axis the mesh does not have
    throw InputError(reader.where(), std::string("cannot read the module: ") + e.what());
  }
}

}  // namespace podsim::import
