// A position in a line of text for small hand-written parsers (the book notation, PartitionSpecs): skips
// spaces, matches characters, and fails with `expected X, got: 'c'` at the 1-based column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "models/common/error.hpp"

namespace podsim {

class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  void skip_spaces() {
    while (pos_ < text_.size() && is_space(text_[pos_]))
      ++pos_;
  }
  // The next character after spaces, or '\0' at the end.
  char peek() {
    skip_spaces();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool at_end() {
    skip_spaces();
    return pos_ == text_.size();
  }
  // Consumes `c` if it comes next (after spaces).
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Characters from here while `accept` holds (no spaces skipped inside).
  template <typename Pred>
  std::string take_while(Pred accept) {
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && accept(text_[pos_]))
      ++pos_;
    return std::string(text_.substr(begin, pos_ - begin));
  }
  // Character at the cursor ('\0' at the end) and a step past it, spaces included.
  char current() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void advance() { ++pos_; }
  // 1-based column of the next token.
  std::size_t column() {
    skip_spaces();
    return pos_ + 1;
  }
  // 1-based column of the cursor itself.
  std::size_t here() const { return pos_ + 1; }
  [[noreturn]] void fail(const std::string& expected) {
    const std::string got = at_end() ? "end of input" : "'" + std::string(1, text_[pos_]) + "'";
    throw ParseError("expected " + expected + ", got: " + got, pos_ + 1);
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace podsim
