// One table of names per enum, as users write them: the canonical spelling for output, and a lenient reading
// for input (case-insensitive, `_` and `-` alike) whose error lists the choices.
#pragma once

#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {

// `all_gather`, `All-Gather` and `all-gather` fold to the same key.
inline std::string fold_name(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text)
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename Enum, std::size_t N>
class EnumNames {
 public:
  using Entry = std::pair<std::string_view, Enum>;

  // `what` names the kind of value in errors ("schedule", "algorithm").
  constexpr EnumNames(std::string_view what, std::array<Entry, N> entries) : what_(what), entries_(entries) {}

  // The canonical name; "unknown" for a value outside the table.
  constexpr std::string_view name(Enum value) const {
    for (const auto& [name, v] : entries_)
      if (v == value) return name;
    return "unknown";
  }

  // The value named by `text` (folded); throws VerifyError `unknown WHAT, got: TEXT (expected one of A, B)`.
  Enum parse(std::string_view text) const {
    const std::string key = fold_name(text);
    for (const auto& [name, value] : entries_)
      if (fold_name(name) == key) return value;
    throw VerifyError("unknown " + std::string(what_) + ", got: " + std::string(text) + " (expected one of " +
                      choices() + ")");
  }

  // "a, b, c" in table order.
  std::string choices() const {
    std::string text;
    for (const auto& [name, value] : entries_)
      text += (text.empty() ? "" : ", ") + std::string(name);
    return text;
  }

  const std::array<Entry, N>& entries() const { return entries_; }

 private:
  std::string_view what_;
  std::array<Entry, N> entries_;
};

}  // namespace podsim
