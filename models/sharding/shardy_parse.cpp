// Recursive-descent parser for Shardy attribute text with MLIR-like lexing (SHARDY.md §1): whitespace
// between tokens is ignored, strings are double-quoted with MLIR escapes, integers are signed 64-bit.
// Error messages reproduce Shardy's (parsers.cc and the MLIR parser it calls); columns are 1-based bytes.
#include "models/sharding/shardy_parse.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/common/utf8.hpp"

namespace podsim {

namespace {

enum class Tok {
  end,
  l_angle,
  r_angle,
  l_square,
  r_square,
  l_brace,
  r_brace,
  l_paren,
  r_paren,
  comma,
  equal,
  colon,
  question,
  minus,
  string,   // text_ holds the unescaped value
  integer,  // text_ holds the digits (or 0x... hex)
  bare_id,  // keyword / bare identifier: [A-Za-z_][A-Za-z0-9_$.]*
  at_id,    // `@name` or `@"name"`; text holds the name
  hash_id,  // `#sdy.sharding`; text holds the whole spelling
};

struct Token {
  Tok kind = Tok::end;
  std::string text;
  std::size_t column = 1;  // 1-based byte column of the first character
};

bool is_id_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Lexes on demand, so a lexing error is reported only when the parser reaches it, as MLIR does.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  const Token& peek() {
    if (!peeked_) {
      next_ = lex();
      peeked_ = true;
    }
    return next_;
  }
  Token take() {
    peek();
    peeked_ = false;
    return std::move(next_);
  }

 private:
  [[noreturn]] void fail(const std::string& message, std::size_t offset) const {
    throw ParseError(message, offset + 1);
  }

  Token lex() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    Token token;
    token.column = pos_ + 1;
    if (pos_ >= text_.size()) return token;
    const std::size_t start = pos_;
    const char c = text_[pos_];
    switch (c) {
      case '<':
        return punct(token, Tok::l_angle);
      case '>':
        return punct(token, Tok::r_angle);
      case '[':
        return punct(token, Tok::l_square);
      case ']':
        return punct(token, Tok::r_square);
      case '{':
        return punct(token, Tok::l_brace);
      case '}':
        return punct(token, Tok::r_brace);
      case '(':
        return punct(token, Tok::l_paren);
      case ')':
        return punct(token, Tok::r_paren);
      case ',':
        return punct(token, Tok::comma);
      case '=':
        return punct(token, Tok::equal);
      case ':':
        return punct(token, Tok::colon);
      case '?':
        return punct(token, Tok::question);
      case '-':
        return punct(token, Tok::minus);
      case '"':
        token.kind = Tok::string;
        token.text = lex_string();
        return token;
      case '@':
        ++pos_;
        token.kind = Tok::at_id;
        if (pos_ < text_.size() && text_[pos_] == '"') {
          token.text = lex_string();
        } else if (pos_ < text_.size() && is_id_start(text_[pos_])) {
          token.text = lex_id();
        } else {
          fail("invalid symbol reference, expected an identifier or a string after '@'", start);
        }
        return token;
      case '#':
        ++pos_;
        if (pos_ >= text_.size() || !is_id_start(text_[pos_]))
          fail("invalid attribute alias, expected an identifier after '#'", start);
        token.kind = Tok::hash_id;
        token.text = '#';
        token.text += lex_id();
        return token;
      default:
        break;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      token.kind = Tok::integer;
      if (c == '0' && pos_ + 2 < text_.size() && text_[pos_ + 1] == 'x' && hex_value(text_[pos_ + 2]) >= 0) {
        pos_ += 2;
        while (pos_ < text_.size() && hex_value(text_[pos_]) >= 0)
          ++pos_;
      } else {
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
          ++pos_;
      }
      token.text = std::string(text_.substr(start, pos_ - start));
      return token;
    }
    if (is_id_start(c)) {
      token.kind = Tok::bare_id;
      token.text = lex_id();
      return token;
    }
    fail(std::string("unexpected character '") + c + "'", start);
  }

  Token punct(Token& token, Tok kind) {
    token.kind = kind;
    token.text = std::string(1, text_[pos_]);
    ++pos_;
    return token;
  }

  std::string lex_id() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_id_char(text_[pos_]))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // At an opening `"`: returns the unescaped contents and moves past the closing quote.
  std::string lex_string() {
    const std::size_t start = pos_;
    ++pos_;
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n' || text_[pos_] == '\r')
        fail("expected '\"' in string literal", start);
      const char c = text_[pos_];
      if (c == '"') {
        // Names end up in JSON reports, which must be UTF-8: an escape such as `\dd` may make a byte that is not.
        if (first_invalid_utf8(value)) fail("string literal is not UTF-8 text (after its escapes)", start);
        ++pos_;
        return value;
      }
      if (c != '\\') {
        value += c;
        ++pos_;
        continue;
      }
      const char e = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
      if (e == '"' || e == '\\') {
        value += e;
        pos_ += 2;
      } else if (e == 'n') {
        value += '\n';
        pos_ += 2;
      } else if (e == 't') {
        value += '\t';
        pos_ += 2;
      } else if (hex_value(e) >= 0 && pos_ + 2 < text_.size() && hex_value(text_[pos_ + 2]) >= 0) {
        value += static_cast<char>(hex_value(e) * 16 + hex_value(text_[pos_ + 2]));
        pos_ += 3;
      } else {
        fail("unknown escape in string literal", pos_);
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  bool peeked_ = false;
  Token next_;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  [[noreturn]] void fail(const std::string& message) { throw ParseError(message, lexer_.peek().column); }

  bool accept(Tok kind) {
    if (lexer_.peek().kind != kind) return false;
    lexer_.take();
    return true;
  }
  void expect(Tok kind, const char* spelling) {
    if (!accept(kind)) fail(std::string("expected '") + spelling + "'");
  }
  bool accept_keyword(std::string_view keyword) {
    const Token& token = lexer_.peek();
    if (token.kind != Tok::bare_id || token.text != keyword) return false;
    lexer_.take();
    return true;
  }
  void expect_end() {
    if (lexer_.peek().kind != Tok::end) fail("expected end of input after '>', got: " + lexer_.peek().text);
  }

  // A signed 64-bit integer: optional `-`, then decimal or 0x-hex digits.
  std::pair<std::int64_t, std::size_t> parse_integer() {
    const std::size_t column = lexer_.peek().column;
    const bool negative = accept(Tok::minus);
    if (lexer_.peek().kind != Tok::integer) fail("expected integer value");
    const Token digits = lexer_.take();
    const bool hex = digits.text.size() > 2 && digits.text[1] == 'x';
    const std::string_view body = std::string_view(digits.text).substr(hex ? 2 : 0);
    std::uint64_t magnitude = 0;
    const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), magnitude, hex ? 16 : 10);
    const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (error != std::errc() || end != body.data() + body.size() || magnitude > limit)
      throw ParseError("integer value too large", digits.column);
    if (!negative) return {static_cast<std::int64_t>(magnitude), column};
    return {magnitude == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                                  : -static_cast<std::int64_t>(magnitude),
            column};
  }

  std::string parse_string() {
    if (lexer_.peek().kind != Tok::string) fail("expected string");
    return lexer_.take().text;
  }

  // axis_ref ::= string [ ":" "(" int ")" int ]
  AxisRef parse_axis_ref() {
    AxisRef ref{parse_string(), std::nullopt};
    if (accept(Tok::colon)) {
      expect(Tok::l_paren, "(");
      const std::int64_t pre_size = parse_integer().first;
      expect(Tok::r_paren, ")");
      const std::int64_t size = parse_integer().first;
      ref.sub = SubAxis{pre_size, size};
    }
    return ref;
  }

  // dim_sharding ::= "{" [axis_ref {"," axis_ref}] ["," "?" | "?"] "}" [priority], as
  // DimensionShardingAttr::parse reads it: `?` must be followed directly by `}`.
  DimSharding parse_dim_sharding() {
    DimSharding dim;
    expect(Tok::l_brace, "{");
    while (!accept(Tok::r_brace)) {
      if (!dim.axes.empty()) expect(Tok::comma, ",");
      if (accept(Tok::question)) {
        dim.is_closed = false;
        expect(Tok::r_brace, "}");
        break;
      }
      dim.axes.push_back(parse_axis_ref());
    }
    if (lexer_.peek().kind == Tok::bare_id) dim.priority = parse_priority(lexer_.take());
    return dim;
  }

  std::int64_t parse_priority(const Token& keyword) {
    const std::string& text = keyword.text;
    const std::string_view digits = std::string_view(text).substr(1);
    bool all_digits = true;
    for (const char c : digits)
      all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
    if (text.size() < 2 || text.front() != 'p' || !all_digits)
      throw ParseError("expecting priority in format 'p<number>', got: " + text, keyword.column);
    if (digits.size() > 1 && digits.front() == '0')
      throw ParseError("priorities with leading zeros are not allowed, got: " + text, keyword.column);
    std::int64_t priority = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), priority);
    if (error != std::errc() || end != digits.data() + digits.size())
      throw ParseError("expecting integer priority, got: " + text, keyword.column);
    return priority;
  }

  // mesh_attr ::= "<" "[" [mesh_axis {"," mesh_axis}] "]" ["," "device_ids" "=" "[" int {"," int} "]"] ">"
  Mesh parse_mesh_attr() {
    std::vector<MeshAxis> axes;
    std::vector<std::int64_t> device_ids;
    expect(Tok::l_angle, "<");
    expect(Tok::l_square, "[");
    if (!accept(Tok::r_square)) {
      do {
        MeshAxis axis;
        axis.name = parse_string();
        expect(Tok::equal, "=");
        const auto [size, column] = parse_integer();
        if (size < 1) throw ParseError("axis size must be at least 1, got: " + std::to_string(size), column);
        axis.size = size;
        axes.push_back(std::move(axis));
      } while (accept(Tok::comma));
      if (!accept(Tok::r_square)) fail("expected ',' or ']'");
    }
    if (accept(Tok::comma)) {
      if (!accept_keyword("device_ids")) fail("expected 'device_ids'");
      expect(Tok::equal, "=");
      expect(Tok::l_square, "[");
      do
        device_ids.push_back(parse_integer().first);
      while (accept(Tok::comma));
      if (!accept(Tok::r_square)) fail("expected ',' or ']'");
    }
    expect(Tok::r_angle, ">");
    return make_mesh(std::move(axes), std::move(device_ids));
  }

  Mesh parse_mesh_text() {
    accept_prefix("#sdy.mesh");
    Mesh mesh = parse_mesh_attr();
    expect_end();
    return mesh;
  }

  // An optional `#sdy.sharding` / `#sdy.mesh` before the `<`; any other alias is an error.
  void accept_prefix(std::string_view prefix) {
    const Token& token = lexer_.peek();
    if (token.kind != Tok::hash_id) return;
    if (token.text != prefix) fail("expected '" + std::string(prefix) + "' or '<', got: " + token.text);
    lexer_.take();
  }

  // Axis list of `replicated={...}` / `unreduced={...}`: at least one ref, then `}`.
  std::vector<AxisRef> parse_braced_axis_list() {
    expect(Tok::l_brace, "{");
    std::vector<AxisRef> refs;
    do
      refs.push_back(parse_axis_ref());
    while (accept(Tok::comma));
    expect(Tok::r_brace, "}");
    return refs;
  }

  TensorSharding parse_sharding_text() {
    accept_prefix("#sdy.sharding");
    TensorSharding sharding;
    expect(Tok::l_angle, "<");
    if (lexer_.peek().kind == Tok::at_id) {
      sharding.mesh_name = lexer_.take().text;
    } else if (accept_keyword("mesh")) {
      sharding.inline_mesh = parse_mesh_attr();
    } else {
      fail("expected a mesh symbol '@name' or an inlined 'mesh<[...]>'");
    }
    expect(Tok::comma, ",");
    expect(Tok::l_square, "[");
    if (!accept(Tok::r_square)) {
      do
        sharding.dims.push_back(parse_dim_sharding());
      while (accept(Tok::comma));
      if (!accept(Tok::r_square)) fail("expected ',' or ']'");
    }
    parse_named_axis_lists(sharding);
    expect(Tok::r_angle, ">");
    expect_end();
    return sharding;
  }

  // { "," ("replicated" "=" list | "unreduced" ["=" [sum|max|min]] list) }, each at most once, as
  // parseReplicatedAndUnreducedAxes reads them.
  void parse_named_axis_lists(TensorSharding& sharding) {
    while (accept(Tok::comma)) {
      if (sharding.replicated.empty() && accept_keyword("replicated")) {
        expect(Tok::equal, "=");
        sharding.replicated = parse_braced_axis_list();
      } else if (sharding.unreduced.empty() && accept_keyword("unreduced")) {
        if (accept(Tok::equal) && lexer_.peek().kind == Tok::bare_id) {
          const Token reduction = lexer_.take();
          if (reduction.text == "sum") {
            sharding.unreduced_reduction = Reduction::sum;
          } else if (reduction.text == "max") {
            sharding.unreduced_reduction = Reduction::max;
          } else if (reduction.text == "min") {
            sharding.unreduced_reduction = Reduction::min;
          } else {
            throw ParseError("expecting reduction 'sum', 'max' or 'min', got: " + reduction.text, reduction.column);
          }
        }
        sharding.unreduced = parse_braced_axis_list();
      } else {
        fail("failed to parse Sdy_TensorSharding, expected valid named axis list after comma");
      }
    }
  }

  DimSharding parse_dim_text() {
    DimSharding dim = parse_dim_sharding();
    if (lexer_.peek().kind != Tok::end) fail("expected end of input after '}', got: " + lexer_.peek().text);
    return dim;
  }

  AxisRef parse_axis_ref_text() {
    AxisRef ref = parse_axis_ref();
    if (lexer_.peek().kind != Tok::end) fail("expected end of input after axis ref, got: " + lexer_.peek().text);
    return ref;
  }

 private:
  Lexer lexer_;
};

}  // namespace

Mesh parse_shardy_mesh(std::string_view text) {
  return Parser(text).parse_mesh_text();
}

TensorSharding parse_shardy_sharding(std::string_view text) {
  return Parser(text).parse_sharding_text();
}

DimSharding parse_shardy_dim_sharding(std::string_view text) {
  return Parser(text).parse_dim_text();
}

AxisRef parse_shardy_axis_ref(std::string_view text) {
  return Parser(text).parse_axis_ref_text();
}

}  // namespace podsim
