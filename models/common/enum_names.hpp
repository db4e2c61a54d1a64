// One table of names per enum, as users write them: the canonical spelling for output, and a lenient reading
// for input (case-insensitive, `_` and `-` ignored) whose error lists the choices. A table may give a value
// more than one name: the first is canonical, the others are aliases that are read but never listed.
#pragma once

#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {

// `all_gather`, `All-Gather`, `all-gather` and `AllGather` fold to the same key (`allgather`).
inline std::string fold_name(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename Enum, std::size_t N>
class EnumNames {
 public:
  using Entry = std::pair<std::string_view, Enum>;

  // `what` names the kind of value in errors ("schedule", "algorithm").
  constexpr EnumNames(std::string_view what, std::array<Entry, N> entries) : what_(what), entries_(entries) {}

  // The canonical name (the first entry of the value); "unknown" for a value outside the table.
  constexpr std::string_view name(Enum value) const {
    for (const auto& [name, v] : entries_)
      if (v == value) return name;
    return "unknown";
  }

  // The value named by `text` (folded), or nullopt.
  std::optional<Enum> find(std::string_view text) const {
    const std::string key = fold_name(text);
    for (const auto& [name, value] : entries_)
      if (fold_name(name) == key) return value;
    return std::nullopt;
  }

  // The value named by `text` (folded); throws VerifyError `unknown WHAT, got: TEXT (expected one of A, B)`.
  Enum parse(std::string_view text) const {
    if (const auto value = find(text)) return *value;
    throw VerifyError("unknown " + std::string(what_) + ", got: " + std::string(text) + " (expected one of " +
                      choices() + ")");
  }

  // The canonical names in table order, each between `quote`s, separated by ", ": "a, b, c" or "\"a\", \"b\"".
  std::string choices(std::string_view quote = "") const {
    std::string text;
    for (std::size_t i = 0; i < N; ++i) {
      if (!canonical(i)) continue;
      text += (text.empty() ? "" : ", ") + std::string(quote) + std::string(entries_[i].first) + std::string(quote);
    }
    return text;
  }

  std::string_view what() const { return what_; }
  const std::array<Entry, N>& entries() const { return entries_; }

 private:
  // Whether entry `i` is the first (canonical) name of its value.
  constexpr bool canonical(std::size_t i) const {
    for (std::size_t k = 0; k < i; ++k)
      if (entries_[k].second == entries_[i].second) return false;
    return true;
  }

  std::string_view what_;
  std::array<Entry, N> entries_;
};

}  // namespace podsim
