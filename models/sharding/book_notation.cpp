// Parser and printer of the scaling-book notation. Grammar (whitespace allowed between tokens):
//   book  ::= [name] "[" [dim {"," dim}] "]" ["{" "U" "_" axes "}"]
//   dim   ::= label ["_" axes]          label ::= letter {letter | digit}
//   axes  ::= letter {letter}           (one axis per letter, no spaces)
//           | "{" word {"," word} "}"   word  ::= (letter | digit | "_")+
#include "models/sharding/book_notation.hpp"

#include <string>

#include "models/common/error.hpp"
#include "models/common/text_cursor.hpp"
#include "models/sharding/expressible.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {
namespace {

bool is_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_word_char(char c) {
  return is_letter(c) || is_digit(c) || c == '_';
}
using Cursor = TextCursor;

std::vector<AxisRef> parse_axes(Cursor& cursor) {
  std::vector<AxisRef> axes;
  if (cursor.consume('{')) {
    do {
      cursor.skip_spaces();
      std::string name = cursor.take_while(is_word_char);
      if (name.empty()) cursor.fail("an axis name");
      axes.push_back({std::move(name), std::nullopt});
    } while (cursor.consume(','));
    if (!cursor.consume('}')) cursor.fail("',' or '}'");
    return axes;
  }
  if (!is_letter(cursor.peek())) cursor.fail("mesh axis letters or '{'");
  for (const char letter : cursor.take_while(is_letter))
    axes.push_back({std::string(1, letter), std::nullopt});
  return axes;
}

DimSharding parse_dim(Cursor& cursor, std::string& label) {
  if (!is_letter(cursor.peek())) cursor.fail("a dim label");
  label = cursor.take_while([](char c) { return is_letter(c) || is_digit(c); });
  DimSharding dim;
  if (cursor.consume('_')) dim.axes = parse_axes(cursor);
  return dim;
}

bool is_label(const std::string& text) {
  if (text.empty() || !is_letter(text[0])) return false;
  for (const char c : text)
    if (!is_letter(c) && !is_digit(c)) return false;
  return true;
}

bool is_word(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!is_word_char(c)) return false;
  return true;
}

// I, J, K, ..., Z, A, ..., H, then the same letters numbered (I1, J1, ...).
std::string default_label(std::size_t index) {
  static constexpr std::string_view kOrder = "IJKLMNOPQRSTUVWXYZABCDEFGH";
  std::string label(1, kOrder[index % kOrder.size()]);
  if (index >= kOrder.size()) label += std::to_string(index / kOrder.size());
  return label;
}

// `XY` when every name is one letter, `{data,model}` otherwise.
std::string subscript(const std::vector<AxisRef>& axes) {
  bool all_letters = true;
  for (const auto& ref : axes)
    all_letters = all_letters && ref.name.size() == 1 && is_letter(ref.name[0]);
  std::string text;
  for (const auto& ref : axes)
    text += (all_letters || text.empty() ? "" : ",") + ref.name;
  return all_letters ? text : "{" + text + "}";
}

void check_expressible(const TensorSharding& s) {
  require_plain_sharding(s, "the book notation");
  const auto check_name = [&s](const AxisRef& ref) {
    if (!is_word(ref.name))
      cannot_express("the book notation", "axis name \"" + ref.name + "\" (not letters, digits or '_')", s);
  };
  for (const auto& dim : s.dims)
    for (const auto& ref : dim.axes)
      check_name(ref);
  for (const auto& ref : s.unreduced)
    check_name(ref);
}

}  // namespace

BookSharding parse_book_sharding(std::string_view text, const std::string& mesh_name) {
  Cursor cursor(text);
  BookSharding result;
  result.sharding.mesh_name = mesh_name;
  if (is_letter(cursor.peek())) result.tensor_name = cursor.take_while(is_word_char);
  if (!cursor.consume('[')) cursor.fail("'['");
  if (!cursor.consume(']')) {
    do {
      std::string label;
      result.sharding.dims.push_back(parse_dim(cursor, label));
      result.dim_labels.push_back(std::move(label));
    } while (cursor.consume(','));
    if (!cursor.consume(']')) cursor.fail("',' or ']'");
  }
  if (cursor.consume('{')) {
    if (!cursor.consume('U')) cursor.fail("'U' (unreduced axes read {U_X})");
    if (!cursor.consume('_')) cursor.fail("'_'");
    result.sharding.unreduced = parse_axes(cursor);
    if (!cursor.consume('}')) cursor.fail("'}'");
  }
  if (!cursor.at_end()) cursor.fail("end of input");
  return result;
}

std::string print_book_sharding(const TensorSharding& s, const std::string& tensor_name,
                                const std::vector<std::string>& dim_labels) {
  check_expressible(s);
  if (!dim_labels.empty() && dim_labels.size() != s.dims.size())
    throw VerifyError("dim labels don't match the sharding rank: " + std::to_string(dim_labels.size()) +
                      " != " + std::to_string(s.dims.size()));
  if (!tensor_name.empty() && (!is_letter(tensor_name[0]) || !is_word(tensor_name)))
    throw VerifyError("tensor name must be a letter then letters, digits or '_', got: \"" + tensor_name + "\"");
  std::string text = tensor_name + "[";
  for (std::size_t i = 0; i < s.dims.size(); ++i) {
    const std::string label = dim_labels.empty() ? default_label(i) : dim_labels[i];
    if (!is_label(label))
      throw VerifyError("dim label must be a letter then letters or digits, got: \"" + label + "\"");
    text += i ? ", " : "";
    text += label;
    if (!s.dims[i].axes.empty()) {
      text += '_';
      text += subscript(s.dims[i].axes);
    }
  }
  text += "]";
  if (!s.unreduced.empty()) text += "{U_" + subscript(s.unreduced) + "}";
  return text;
}

}  // namespace podsim
