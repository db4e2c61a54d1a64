// Line-based reader of HLO module text (hlo_module.hpp). XLA prints one instruction per line, each computation's
// header on one line and `}` alone on the line that closes it; this reader relies on that layout, skips `//` lines
// and `/*...*/` comments (XLA prints `/*index=5*/` in long operand lists), and refuses what it does not recognise
// with the line and column.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "models/common/error.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/module_scan.hpp"
#include "sim/import/module_text.hpp"

namespace podsim::import {
namespace {

constexpr int kMaxDepth = scan::kHloBrackets.max_depth;  // bracket nesting (tuple shapes, attribute values)
constexpr double kMaxElements = 1125899906842624.0;      // 2^50 elements in one array

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$';
}

using scan::skip_space;

// Position of the bracket closing the one at `open` in HLO text; see scan::closing_bracket.
std::size_t match_close(std::string_view s, std::size_t open, bool* depth_exceeded = nullptr) {
  return scan::closing_bracket(s, open, scan::kHloBrackets, depth_exceeded);
}

std::vector<std::pair<std::size_t, std::size_t>> split_top(std::string_view s, std::size_t from, std::size_t to) {
  return scan::split_top(s, from, to, scan::kHloBrackets);
}

// A non-negative integer at `i` of `s`; advances `i`. Throws ParseError (1-based column) when there is none.
std::int64_t read_int(std::string_view s, std::size_t& i, bool allow_negative = false) {
  std::int64_t v = 0;
  const char* begin = s.data() + i;
  if (!allow_negative && i < s.size() && s[i] == '-') throw ParseError("expected a non-negative integer", i + 1);
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  if (ec != std::errc()) throw ParseError("expected an integer", i + 1);
  i += static_cast<std::size_t>(end - begin);
  return v;
}

// `{a,b,...}` or `[a,b,...]` at `i` (brackets given by `open`/`close`); advances past the closing bracket.
std::vector<std::int64_t> read_int_list(std::string_view s, std::size_t& i, char open, char close) {
  i = skip_space(s, i);
  if (i >= s.size() || s[i] != open) throw ParseError(std::string("expected '") + open + "'", i + 1);
  i = skip_space(s, i + 1);
  std::vector<std::int64_t> out;
  if (i < s.size() && s[i] == close) return ++i, out;
  while (true) {
    out.push_back(read_int(s, i));
    i = skip_space(s, i);
    if (i < s.size() && s[i] == ',') {
      i = skip_space(s, i + 1);
      continue;
    }
    if (i < s.size() && s[i] == close) return ++i, out;
    throw ParseError(std::string("expected ',' or '") + close + "'", i + 1);
  }
}

// `{{0,1},{2,3}}` or `{0,1}` pairs list -> lists.
std::vector<std::vector<std::int64_t>> read_nested_lists(std::string_view s, std::size_t& i) {
  i = skip_space(s, i);
  if (i >= s.size() || s[i] != '{') throw ParseError("expected '{'", i + 1);
  i = skip_space(s, i + 1);
  std::vector<std::vector<std::int64_t>> out;
  if (i < s.size() && s[i] == '}') return ++i, out;
  while (true) {
    out.push_back(read_int_list(s, i, '{', '}'));
    i = skip_space(s, i);
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') return ++i, out;
    throw ParseError("expected ',' or '}'", i + 1);
  }
}

// `f32[8,16]` or `(f32[8], s32[])`, layouts left out.
std::string shape_text(const HloShape& shape) {
  if (!shape.tuple) {
    std::string out = shape.element + "[";
    for (std::size_t k = 0; k < shape.dims.size(); ++k)
      out += (k ? "," : "") + std::to_string(shape.dims[k]);
    return out + "]";
  }
  std::string out = "(";
  for (std::size_t k = 0; k < shape.elements.size(); ++k)
    out += (k ? ", " : "") + shape_text(shape.elements[k]);
  return out + ")";
}

class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}
  HloModule read();

 private:
  [[noreturn]] void fail(std::size_t col, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(line_no_) + ":" + std::to_string(col + 1), message);
  }
  bool next_line(std::string& out);
  void read_header(std::size_t at);
  void read_computation_header(std::size_t at, bool entry);
  void read_instruction(std::size_t at);
  HloShape read_shape(std::size_t& i, int depth) const;
  std::string read_name(std::size_t& i) const;

  std::string_view text_;
  std::string file_;
  std::string line_;  // the current line, `/*...*/` comments blanked (columns stay those of the file)
  int line_no_ = 0;
  std::size_t pos_ = 0;      // the next physical line's offset in text_
  bool in_comment_ = false;  // inside a `/*...*/` comment spanning lines
  HloModule module_;
  HloComputation* current_ = nullptr;
  std::map<std::string, HloShape> names_;  // the current computation's instructions -> their shapes
};

// `%name` or `name` at `i`; advances past it.
std::string Reader::read_name(std::size_t& i) const {
  if (i < line_.size() && line_[i] == '%') ++i;
  const std::size_t b = i;
  while (i < line_.size() && is_name_char(line_[i]))
    ++i;
  if (i == b) fail(b, "expected a name, got: \"" + line_.substr(b, 20) + "\"");
  return line_.substr(b, i - b);
}

// `f32[128,512]{1,0:T(8,128)}`, `f32[]`, `token[]` or `(SHAPE, SHAPE, ...)` at `i`; advances past it.
HloShape Reader::read_shape(std::size_t& i, int depth) const {
  if (depth > kMaxDepth) fail(i, "shape nested deeper than " + std::to_string(kMaxDepth) + " tuples");
  HloShape shape;
  i = skip_space(line_, i);
  if (i < line_.size() && line_[i] == '(') {
    shape.tuple = true;
    i = skip_space(line_, i + 1);
    if (i < line_.size() && line_[i] == ')') return ++i, shape;
    while (true) {
      shape.elements.push_back(read_shape(i, depth + 1));
      i = skip_space(line_, i);
      if (i < line_.size() && line_[i] == ',') {
        ++i;
        continue;
      }
      if (i < line_.size() && line_[i] == ')') return ++i, shape;
      fail(i, "malformed tuple shape: expected ',' or ')'");
    }
  }
  const std::size_t b = i;
  while (i < line_.size() && std::isalnum(static_cast<unsigned char>(line_[i])))
    ++i;
  shape.element = line_.substr(b, i - b);
  if (shape.element.empty() || i >= line_.size() || line_[i] != '[')
    fail(b, "expected a shape like f32[8,16], got: \"" + line_.substr(b, 24) + "\"");
  const std::size_t close = line_.find(']', i);
  if (close == std::string::npos) fail(i, "malformed shape: unterminated '['");
  const std::string_view body = std::string_view(line_).substr(i + 1, close - i - 1);
  if (body.find_first_of("<?") != std::string_view::npos)
    fail(i, "dynamic shapes are not read, got: " + line_.substr(b, close + 1 - b));
  std::size_t k = skip_space(body, 0);
  while (k < body.size()) {
    try {
      shape.dims.push_back(read_int(body, k));
    } catch (const ParseError& e) {
      fail(i + 1 + e.column() - 1, std::string("malformed shape: ") + e.what());
    }
    k = skip_space(body, k);
    if (k < body.size() && body[k] != ',') fail(i + 1 + k, "malformed shape: expected ','");
    if (k < body.size()) k = skip_space(body, k + 1);
  }
  double elements = 1;
  for (const auto d : shape.dims)
    elements *= static_cast<double>(d);
  if (elements > kMaxElements)
    fail(b, "shape too large (more than 2^50 elements), got: " + line_.substr(b, close + 1 - b));
  i = close + 1;
  if (i < line_.size() && line_[i] == '{') {  // the layout
    const std::size_t end = match_close(line_, i);
    if (end == std::string::npos) fail(i, "malformed layout: unterminated '{'");
    i = end + 1;
  }
  return shape;
}

// `HloModule NAME, key=value, ...`.
void Reader::read_header(std::size_t at) {
  if (!module_.name.empty()) fail(at, "a second HloModule header");
  std::size_t i = skip_space(line_, at + 9);
  module_.name = read_name(i);
  for (const auto& part : split_top(line_, i, line_.size())) {
    const std::size_t b = part.first;  // a named copy: clang 14 cannot capture a structured binding
    auto read_count = [&](std::string_view key, std::int64_t& out) {
      if (line_.compare(b, key.size(), key) != 0) return;
      std::size_t k = b + key.size();
      try {
        out = read_int(line_, k);
      } catch (const ParseError& err) {
        fail(err.column() - 1, std::string(key) + ": " + err.what());
      }
      if (out < 1 || out > 1000000) fail(b, std::string(key) + " must be in [1, 1000000], got: " + std::to_string(out));
    };
    read_count("num_partitions=", module_.num_partitions);
    read_count("replica_count=", module_.replica_count);
  }
}

// `[ENTRY] %name (p: f32[8]) -> f32[8] {`.
void Reader::read_computation_header(std::size_t at, bool entry) {
  if (current_) fail(at, "a computation header inside computation %" + current_->name + " (missing '}')");
  std::size_t i = at;
  if (entry) i = skip_space(line_, i + 5);
  HloComputation c;
  c.name = read_name(i);
  c.entry = entry;
  c.line = line_no_;
  if (entry) {
    if (module_.entry >= 0) fail(at, "a second ENTRY computation");
    module_.entry = static_cast<int>(module_.computations.size());
  }
  for (const auto& other : module_.computations)
    if (other.name == c.name) fail(at, "computation %" + c.name + " is defined twice");
  module_.computations.push_back(std::move(c));
  current_ = &module_.computations.back();
  names_.clear();
}

// `[ROOT] %name = SHAPE opcode(operands), key=value, ...`.
void Reader::read_instruction(std::size_t at) {
  if (!current_) fail(at, "an instruction outside any computation");
  HloInstruction ins;
  std::size_t i = at;
  if (line_.compare(i, 5, "ROOT ") == 0) {
    ins.root = true;
    i = skip_space(line_, i + 5);
  }
  ins.name = read_name(i);
  if (names_.count(ins.name)) fail(at, "instruction %" + ins.name + " is defined twice");
  i = skip_space(line_, i);
  if (i >= line_.size() || line_[i] != '=') fail(i, "expected '=' after the instruction's name");
  ins.shape = read_shape(++i, 0);
  i = skip_space(line_, i);
  const std::size_t op_at = i;
  while (i < line_.size() && is_name_char(line_[i]))
    ++i;
  ins.opcode = line_.substr(op_at, i - op_at);
  ins.column = op_at + 1;
  ins.line = line_no_;
  if (ins.opcode.empty() || i >= line_.size() || line_[i] != '(')
    fail(op_at, "expected an opcode and '(', got: \"" + line_.substr(op_at, 24) + "\"");
  bool deep = false;
  const std::size_t close = match_close(line_, i, &deep);
  if (deep) fail(i, "operands nested deeper than " + std::to_string(kMaxDepth) + " brackets");
  if (close == std::string::npos) fail(i, "unterminated operand list");
  ins.arguments = line_.substr(i + 1, close - i - 1);
  const bool literal = ins.opcode == "constant" || ins.opcode == "parameter" || ins.opcode == "iota";
  if (!literal) {
    for (const auto& [b, e] : split_top(line_, i + 1, close)) {
      if (b == e) fail(b, "empty operand");
      // `f32[8]{0} %x`, `%x` or `x`: the name is the last word.
      std::size_t s = e;
      while (s > b && !std::isspace(static_cast<unsigned char>(line_[s - 1])) && line_[s - 1] != ')' &&
             line_[s - 1] != '}' && line_[s - 1] != ']')
        --s;
      std::size_t k = s;
      const std::string name = read_name(k);
      if (k != e) fail(k, "malformed operand, got: \"" + line_.substr(b, e - b) + "\"");
      const auto known = names_.find(name);
      if (known == names_.end()) fail(s, "unknown operand %" + name);
      if (std::size_t t = skip_space(line_, b); t < s) {  // the operand's shape written before it must be its own
        const HloShape written = read_shape(t, 0);
        if (skip_space(line_, t) != s) fail(t, "malformed operand, got: \"" + line_.substr(b, e - b) + "\"");
        if (!same_shape(written, known->second))
          fail(b, "operand %" + name + " is " + shape_text(known->second) + ", written as " + shape_text(written));
      }
      ins.operands.push_back(name);
    }
  }
  i = skip_space(line_, close + 1);
  if (i < line_.size()) {
    if (line_[i] != ',') fail(i, "expected ',' before the attributes, got: \"" + line_.substr(i, 20) + "\"");
    bool attr_deep = false;
    for (std::size_t k = i + 1; k < line_.size(); ++k) {  // bounded nesting of attribute values
      const char c = line_[k];
      if (c == '(' || c == '[' || c == '{') {
        const std::size_t end = match_close(line_, k, &attr_deep);
        if (attr_deep) fail(k, "attribute nested deeper than " + std::to_string(kMaxDepth) + " brackets");
        if (end == std::string::npos) fail(k, "unbalanced bracket in the attributes");
        k = end;
      } else if (c == '"') {
        k = scan::closing_quote(line_, k, line_.size());
        if (k >= line_.size()) fail(k, "unterminated string in the attributes");
      } else if (c == ')' || c == ']' || c == '}') {
        fail(k, "unbalanced bracket in the attributes");
      }
    }
    for (const auto& [b, e] : split_top(line_, i + 1, line_.size())) {
      const std::size_t eq = line_.find('=', b);
      if (b == e || eq == std::string::npos || eq >= e)
        fail(b, "expected an attribute key=value, got: \"" + line_.substr(b, std::min<std::size_t>(e - b, 40)) + "\"");
      const std::string key = line_.substr(b, eq - b);
      ins.attributes[key] = line_.substr(eq + 1, e - eq - 1);
      ins.attribute_column[key] = b + 1;
    }
  }
  if (const auto it = ins.attributes.find("replica_groups"); it != ins.attributes.end()) {
    try {
      ins.replica_groups = parse_replica_groups(it->second);
    } catch (const ParseError& e) {
      fail(ins.attribute_column["replica_groups"] + 15 + e.column() - 2,
           std::string("malformed replica_groups: ") + e.what() + ", got: " + it->second);
    }
  }
  if (const auto it = ins.attributes.find("source_target_pairs"); it != ins.attributes.end()) {
    try {
      std::size_t k = 0;
      for (const auto& pair : read_nested_lists(it->second, k)) {
        if (pair.size() != 2) throw ParseError("each pair has two device ids", 1);
        ins.source_target_pairs.emplace_back(pair[0], pair[1]);
      }
      if (skip_space(it->second, k) != it->second.size()) throw ParseError("unexpected text after the pairs", k + 1);
    } catch (const ParseError& e) {
      fail(ins.attribute_column["source_target_pairs"] + 20 + e.column() - 2,
           std::string("malformed source_target_pairs: ") + e.what() + ", got: " + it->second);
    }
  }
  names_[ins.name] = ins.shape;
  current_->instructions.push_back(std::move(ins));
}

// The next physical line into `out`, `/*...*/` comments (which may span lines) and a `//` comment to the end of
// the line blanked outside strings; false at the end of the text.
bool Reader::next_line(std::string& out) {
  if (pos_ > text_.size()) return false;
  std::size_t nl = text_.find('\n', pos_);
  if (nl == std::string_view::npos) nl = text_.size();
  out = std::string(text_.substr(pos_, nl - pos_));
  ++line_no_;
  pos_ = nl + 1;
  if (!out.empty() && out.back() == '\r') out.pop_back();
  bool in_string = false;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (in_comment_) {
      if (out.compare(k, 2, "*/") == 0) {
        out[k] = out[k + 1] = ' ';
        in_comment_ = false;
        ++k;
      } else {
        out[k] = ' ';
      }
      continue;
    }
    if (out[k] == '"' && (k == 0 || out[k - 1] != '\\')) in_string = !in_string;
    if (in_string) continue;
    if (out.compare(k, 2, "/*") == 0) {
      in_comment_ = true;
      out[k] = ' ';
    } else if (out.compare(k, 2, "//") == 0) {
      out.resize(k);
      break;
    }
  }
  return true;
}

// Whether an instruction goes on past the end of `s`: a bracket left open, or a trailing comma.
bool continues(const std::string& s) {
  const int depth = scan::net_depth(s, scan::kHloBrackets);
  std::size_t e = s.size();
  while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return depth > 0 || (e > 0 && s[e - 1] == ',');
}

HloModule Reader::read() {
  while (next_line(line_)) {
    const std::size_t at = skip_space(line_, 0);
    if (at >= line_.size()) continue;
    const std::string_view rest = std::string_view(line_).substr(at);
    std::string_view trimmed = rest;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
      trimmed.remove_suffix(1);
    if (rest.substr(0, 10) == "HloModule ") {
      read_header(at);
      continue;
    }
    if (module_.name.empty()) fail(at, "expected the `HloModule NAME, ...` header first");
    if (trimmed == "}") {
      if (!current_) fail(at, "'}' outside any computation");
      current_ = nullptr;
      continue;
    }
    if (rest.substr(0, 6) == "ENTRY ") {
      read_computation_header(at, true);
      continue;
    }
    // An instruction has `=` after its (optionally ROOT-prefixed) name; a computation header ends with `{`.
    std::size_t k = at;
    if (rest.substr(0, 5) == "ROOT ") k = skip_space(line_, k + 5);
    if (k < line_.size() && line_[k] == '%') ++k;
    while (k < line_.size() && is_name_char(line_[k]))
      ++k;
    k = skip_space(line_, k);
    if (k < line_.size() && line_[k] == '=') {
      // An instruction written over several lines (as in XLA's tests) is read joined with single spaces.
      const int first = line_no_;
      std::string more;
      for (int joined = 0; continues(line_) && joined < 10000 && next_line(more); ++joined)
        line_ += " " + more.substr(skip_space(more, 0));
      const int last = line_no_;
      line_no_ = first;
      read_instruction(at);
      line_no_ = last;
    } else if (!trimmed.empty() && trimmed.back() == '{')
      read_computation_header(at, false);
    else
      fail(at, "expected an instruction, a computation header or '}', got: \"" + line_.substr(at, 40) + "\"");
  }
  if (module_.name.empty()) throw InputError(file_, "no `HloModule` header: not an HLO module text");
  if (current_) throw InputError(file_, "computation %" + current_->name + " is not closed with '}'");
  if (module_.entry < 0) throw InputError(file_, "no ENTRY computation in the module");
  return module_;
}

}  // namespace

bool looks_like_hlo_module(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const std::size_t at = skip_space(line, 0);
    if (at >= line.size() || line.substr(at, 2) == "//") continue;
    return line.substr(at, 10) == "HloModule ";
  }
  return false;
}

std::vector<std::vector<std::int64_t>> parse_replica_groups(std::string_view text) {
  std::size_t i = skip_space(text, 0);
  std::vector<std::vector<std::int64_t>> groups;
  if (i < text.size() && text[i] == '[') {  // iota form
    const auto shape = read_int_list(text, i, '[', ']');
    if (shape.size() != 2) throw ParseError("the iota form has two group dims [groups,size]", 2);
    if (text.substr(i, 2) != "<=") throw ParseError("expected '<=' in the iota form", i + 1);
    i += 2;
    const std::size_t dims_at = i;
    const auto dims = read_int_list(text, i, '[', ']');
    std::vector<std::int64_t> perm;
    if (i < text.size() && text[i] == 'T') {
      ++i;
      perm = read_int_list(text, i, '(', ')');
    }
    if (skip_space(text, i) != text.size()) throw ParseError("unexpected text after the iota form", i + 1);
    constexpr std::int64_t kMax = 1 << 20;
    std::int64_t n = 1, m = 1;
    for (const auto d : dims) {
      if (d < 1 || d > kMax || (n *= d) > kMax) throw ParseError("iota dims must be in [1, 2^20]", dims_at + 1);
    }
    for (const auto d : shape)
      if (d < 1 || d > kMax || (m *= d) > kMax) throw ParseError("group dims must be in [1, 2^20]", 2);
    if (n != m) throw ParseError("the group dims and the iota dims hold different device counts", dims_at + 1);
    if (perm.empty())
      for (std::size_t k = 0; k < dims.size(); ++k)
        perm.push_back(static_cast<std::int64_t>(k));
    std::vector<std::int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k)
      if (sorted.size() != dims.size() || sorted[k] != static_cast<std::int64_t>(k))
        throw ParseError("the transpose must be a permutation of the iota dims", i);
    // The device at transposed position q: its index in the row-major iota of `dims`.
    const std::size_t r = dims.size();
    std::vector<std::int64_t> tdims(r), stride(r, 1);
    for (std::size_t k = 0; k < r; ++k)
      tdims[k] = dims[static_cast<std::size_t>(perm[k])];
    for (std::size_t k = r; k-- > 1;)
      stride[k - 1] = stride[k] * dims[k];
    std::vector<std::int64_t> devices;
    devices.reserve(static_cast<std::size_t>(n));
    for (std::int64_t q = 0; q < n; ++q) {
      std::int64_t rest = q, device = 0;
      for (std::size_t k = r; k-- > 0;) {
        const std::int64_t coord = rest % tdims[k];
        rest /= tdims[k];
        device += coord * stride[static_cast<std::size_t>(perm[k])];
      }
      devices.push_back(device);
    }
    for (std::int64_t g = 0; g < shape[0]; ++g)
      groups.emplace_back(devices.begin() + g * shape[1], devices.begin() + (g + 1) * shape[1]);
    return groups;
  }
  groups = read_nested_lists(text, i);
  if (skip_space(text, i) != text.size()) throw ParseError("unexpected text after the groups", i + 1);
  return groups;
}

HloModule parse_hlo_module(std::string_view text, const std::string& file) {
  require_utf8_module(text, file);
  return Reader(text, file).read();
}

bool same_shape(const HloShape& a, const HloShape& b) {
  if (a.tuple != b.tuple || a.element != b.element || a.dims != b.dims || a.elements.size() != b.elements.size())
    return false;
  for (std::size_t k = 0; k < a.elements.size(); ++k)
    if (!same_shape(a.elements[k], b.elements[k])) return false;
  return true;
}

}  // namespace podsim::import
