// Parser and printer of JAX's PartitionSpec. Grammar (whitespace allowed between tokens):
//   spec   ::= callee "(" [arg {"," arg} [","]] ")"      callee ::= ["jax." ["sharding."]] ("P" | "PartitionSpec")
//   arg    ::= "None" | string | "(" [string {"," string} [","]] ")" | "unreduced" "=" "{" string {"," string} [","]
//   "}" string ::= "'" chars "'" | '"' chars '"'             (no escapes; keyword arguments come last)
#include "models/sharding/partition_spec.hpp"

#include <array>
#include <string>

#include "models/common/error.hpp"
#include "models/common/text_cursor.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/expressible.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {
namespace {

bool is_word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
using Cursor = TextCursor;

// A word (identifier characters) after spaces.
std::string read_word(Cursor& cursor) {
  cursor.skip_spaces();
  return cursor.take_while(is_word_char);
}

// A quoted axis name; the cursor is on the opening quote.
std::string read_string(Cursor& cursor) {
  const char quote = cursor.current();
  cursor.advance();
  std::string name;
  while (cursor.current() != quote) {
    if (cursor.current() == '\0') cursor.fail(std::string("a closing ") + quote);
    if (cursor.current() == '\\')
      throw ParseError("escape sequences are not supported in axis names, got: '\\'", cursor.here());
    name += cursor.current();
    cursor.advance();
  }
  cursor.advance();
  return name;
}

bool is_quote(char c) {
  return c == '\'' || c == '"';
}

// `{'Z'}` or `('X', 'Y')`: strings up to `close`, with an optional trailing comma.
std::vector<AxisRef> parse_strings(Cursor& cursor, char close) {
  std::vector<AxisRef> refs;
  while (is_quote(cursor.peek())) {
    refs.push_back({read_string(cursor), std::nullopt});
    if (!cursor.consume(',')) break;
  }
  if (!cursor.consume(close))
    cursor.fail(refs.empty() ? "an axis name string or '" + std::string(1, close) + "'"
                             : "',' or '" + std::string(1, close) + "'");
  return refs;
}

void parse_callee(Cursor& cursor) {
  static constexpr std::array<std::string_view, 5> kCallees = {"P", "PartitionSpec", "jax.P", "jax.sharding.P",
                                                               "jax.sharding.PartitionSpec"};
  const std::size_t column = cursor.column();
  std::string callee = read_word(cursor);
  if (callee.empty()) cursor.fail("'P' or 'PartitionSpec'");
  while (cursor.consume('.')) {
    callee += '.';
    callee += read_word(cursor);
  }
  for (const auto& known : kCallees)
    if (callee == known) return;
  throw ParseError("expected 'P' or 'PartitionSpec', got: '" + callee + "'", column);
}

// Python literal of an axis name: single quotes, or double quotes when the name holds a single quote.
std::string quoted(const AxisRef& ref, const TensorSharding& s) {
  const bool has_single = ref.name.find('\'') != std::string::npos;
  const bool has_double = ref.name.find('"') != std::string::npos;
  if ((has_single && has_double) || ref.name.find('\\') != std::string::npos)
    cannot_express("a PartitionSpec", "axis name " + to_string(ref) + " (needs escapes)", s);
  return has_single ? "\"" + ref.name + "\"" : "'" + ref.name + "'";
}

}  // namespace

TensorSharding parse_partition_spec(std::string_view text, const std::string& mesh_name,
                                    std::optional<std::size_t> rank) {
  Cursor cursor(text);
  TensorSharding result;
  result.mesh_name = mesh_name;
  parse_callee(cursor);
  if (!cursor.consume('(')) cursor.fail("'('");
  bool seen_unreduced = false;
  while (cursor.peek() != ')') {
    const std::size_t column = cursor.column();
    const char next = cursor.peek();
    std::optional<DimSharding> dim;  // nullopt for a keyword argument
    if (is_quote(next)) {
      dim = DimSharding{};
      dim->axes.push_back({read_string(cursor), std::nullopt});
    } else if (cursor.consume('(')) {
      dim = DimSharding{};
      dim->axes = parse_strings(cursor, ')');
    } else if (is_word_char(next)) {
      const std::string word = read_word(cursor);
      if (cursor.consume('=')) {
        if (word != "unreduced") throw ParseError("unknown keyword argument, got: '" + word + "'", column);
        if (seen_unreduced) throw ParseError("keyword argument repeated, got: 'unreduced'", column);
        if (!cursor.consume('{')) cursor.fail("'{' (unreduced={'Z'})");
        result.unreduced = parse_strings(cursor, '}');
        seen_unreduced = true;
      } else if (word == "None") {
        dim = DimSharding{};
      } else {
        throw ParseError("expected an axis name string, a tuple of them or None, got: '" + word + "'", column);
      }
    } else {
      cursor.fail("an axis name string, a tuple of them or None");
    }
    if (dim) {
      if (seen_unreduced) throw ParseError("positional entry follows keyword argument", column);
      result.dims.push_back(std::move(*dim));
    }
    if (!cursor.consume(',')) break;
  }
  if (!cursor.consume(')')) cursor.fail("',' or ')'");
  if (!cursor.at_end()) cursor.fail("end of input");
  if (rank) {
    if (result.dims.size() > *rank)
      throw VerifyError("PartitionSpec has more entries than the tensor rank: " + std::to_string(result.dims.size()) +
                        " > " + std::to_string(*rank));
    result.dims.resize(*rank);  // JAX: missing trailing entries are replicated (closed, empty)
  }
  return result;
}

std::string print_partition_spec(const TensorSharding& s) {
  require_plain_sharding(s, "a PartitionSpec");
  std::string text = "P(";
  for (std::size_t i = 0; i < s.dims.size(); ++i) {
    const auto& axes = s.dims[i].axes;
    text += i ? ", " : "";
    if (axes.empty()) {
      text += "None";
    } else if (axes.size() == 1) {
      text += quoted(axes[0], s);
    } else {
      text += "(";
      for (std::size_t j = 0; j < axes.size(); ++j)
        text += (j ? ", " : "") + quoted(axes[j], s);
      text += ")";
    }
  }
  if (!s.unreduced.empty()) {
    text += s.dims.empty() ? "unreduced={" : ", unreduced={";
    for (std::size_t j = 0; j < s.unreduced.size(); ++j)
      text += (j ? ", " : "") + quoted(s.unreduced[j], s);
    text += "}";
  }
  return text + ")";
}

}  // namespace podsim
