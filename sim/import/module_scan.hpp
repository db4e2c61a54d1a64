// The scanner both module readers of `podsim import` share (StableHLO/Shardy MLIR and partitioned HLO): brackets
// matched without recursion past quoted strings, top-level comma lists, and the one table from a module's element
// type to podsim's dtype. What differs between the dialects is data (a `Brackets` value, the element-type spelling),
// not a second scanner.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podsim::import::scan {

// What a dialect's text counts as brackets. MLIR nests types in `<...>` (and `->` is not a closing bracket); HLO
// nests `(`, `[`, `{` only, bounded so that hostile text cannot nest without end.
struct Brackets {
  bool angle = false;            // `<` and `>` are brackets
  int max_depth = 0;             // 0: unbounded
  bool stop_unbalanced = false;  // a closing bracket before the opening one ends the scan (npos)
  bool trim_parts = false;       // split_top: a part's end excludes trailing spaces
};
inline constexpr Brackets kMlirBrackets{true, 0, false, false};
inline constexpr Brackets kHloBrackets{false, 32, true, true};

std::size_t skip_space(std::string_view s, std::size_t i);

// Position of the quote closing the string whose opening quote is at `quote` (a backslash escapes the next
// character), or a position >= `to` when [quote, to) ends first.
std::size_t closing_quote(std::string_view s, std::size_t quote, std::size_t to);

// Position of the bracket closing the one at `open`, skipping quoted strings; npos when the text ends first, when
// the nesting passes `brackets.max_depth` (`*depth_exceeded` is then set) or, with `stop_unbalanced`, when a closing
// bracket comes first.
std::size_t closing_bracket(std::string_view s, std::size_t open, const Brackets& brackets,
                            bool* depth_exceeded = nullptr);

// [from, to) split at commas outside brackets and quoted strings: (begin, end) of each part, begin after spaces (end
// before them with `trim_parts`); a part of spaces only at the end is left out.
std::vector<std::pair<std::size_t, std::size_t>> split_top(std::string_view s, std::size_t from, std::size_t to,
                                                           const Brackets& brackets);

// The first `what` in [from, end of `s`) outside brackets and quoted strings (brackets opened before `from` do not
// count); npos when none.
std::size_t find_top(std::string_view s, std::string_view what, std::size_t from, const Brackets& brackets);

// Opening brackets minus closing ones in `s`, outside quoted strings (> 0: a bracket is left open).
int net_depth(std::string_view s, const Brackets& brackets);

// The two spellings of element types: MLIR's (`bf16`, `i32`, `f8E4M3FN`) and HLO's (`bf16`, `s32`, `f8e4m3fn`).
enum class Dialect { mlir, hlo };

// podsim's dtype for an element type: exact for the float and 8- and 4-bit integer types; other integers and
// predicates by their bytes per element (`exact` false). `dtype` is empty when podsim has none of that size.
struct ElementType {
  std::string dtype;
  bool exact = false;
};
ElementType element_type(Dialect dialect, std::string_view element);

}  // namespace podsim::import::scan
