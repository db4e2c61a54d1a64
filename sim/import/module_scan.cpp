// The shared scanner and element-type table of module_scan.hpp.
#include "sim/import/module_scan.hpp"

#include <algorithm>
#include <cctype>

namespace podsim::import::scan {
namespace {

// One row per element type: its MLIR and HLO spellings (empty: the dialect has none), podsim's dtype, and whether
// the dtype is the type itself or only one of its size.
struct ElementRow {
  const char* mlir;
  const char* hlo;
  const char* dtype;
  bool exact;
};
constexpr ElementRow kElementTypes[] = {{"bf16", "bf16", "bf16", true},
                                        {"f32", "f32", "f32", true},
                                        {"f16", "f16", "f16", true},
                                        {"i8", "s8", "int8", true},
                                        {"", "s4", "int4", true},
                                        {"f8E4M3FN", "f8e4m3fn", "fp8_e4m3", true},
                                        {"f8E5M2", "f8e5m2", "fp8_e5m2", true},
                                        {"i1", "pred", "int8", false},
                                        {"si8", "", "int8", false},
                                        {"ui8", "u8", "int8", false},
                                        {"", "u4", "int4", false},
                                        {"i16", "s16", "bf16", false},
                                        {"si16", "", "bf16", false},
                                        {"ui16", "u16", "bf16", false},
                                        {"i32", "s32", "f32", false},
                                        {"si32", "", "f32", false},
                                        {"ui32", "u32", "f32", false}};

bool opens(char c, const Brackets& b) {
  return c == '(' || c == '[' || c == '{' || (b.angle && c == '<');
}

// `>` of `->` is an arrow, not a bracket.
bool closes(std::string_view s, std::size_t i, const Brackets& b) {
  const char c = s[i];
  if (c == ')' || c == ']' || c == '}') return true;
  return b.angle && c == '>' && !(i > 0 && s[i - 1] == '-');
}

}  // namespace

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  return i;
}

std::size_t closing_quote(std::string_view s, std::size_t quote, std::size_t to) {
  std::size_t i = quote + 1;
  for (; i < to && s[i] != '"'; ++i)
    if (s[i] == '\\') ++i;
  return i;
}

std::size_t closing_bracket(std::string_view s, std::size_t open, const Brackets& brackets, bool* depth_exceeded) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = closing_quote(s, i, s.size());
      continue;
    }
    if (opens(s[i], brackets)) {
      if (++depth > brackets.max_depth && brackets.max_depth > 0) {
        if (depth_exceeded) *depth_exceeded = true;
        return std::string_view::npos;
      }
    } else if (closes(s, i, brackets)) {
      if (--depth == 0) return i;
      if (depth < 0 && brackets.stop_unbalanced) return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

std::vector<std::pair<std::size_t, std::size_t>> split_top(std::string_view s, std::size_t from, std::size_t to,
                                                           const Brackets& brackets) {
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  int depth = 0;
  std::size_t start = from;
  const auto push = [&](std::size_t end) {
    const std::size_t b = skip_space(s, start);
    std::size_t e = end;
    if (brackets.trim_parts) {
      while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
      e = std::max(b, e);
    }
    parts.emplace_back(b, e);
  };
  for (std::size_t i = from; i < to; ++i) {
    if (s[i] == '"') {
      i = closing_quote(s, i, to);
      continue;
    }
    if (opens(s[i], brackets)) ++depth;
    if (closes(s, i, brackets)) --depth;
    if (s[i] == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  if (skip_space(s, start) < to) push(to);
  return parts;
}

std::size_t find_top(std::string_view s, std::string_view what, std::size_t from, const Brackets& brackets) {
  int depth = 0;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = closing_quote(s, i, s.size());
      continue;
    }
    if (depth == 0 && s.compare(i, what.size(), what) == 0) return i;
    if (opens(s[i], brackets)) ++depth;
    if (closes(s, i, brackets)) --depth;
  }
  return std::string_view::npos;
}

int net_depth(std::string_view s, const Brackets& brackets) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = closing_quote(s, i, s.size());
      continue;
    }
    if (opens(s[i], brackets)) ++depth;
    if (closes(s, i, brackets)) --depth;
  }
  return depth;
}

ElementType element_type(Dialect dialect, std::string_view element) {
  for (const auto& row : kElementTypes) {
    const std::string_view name = dialect == Dialect::mlir ? row.mlir : row.hlo;
    if (!name.empty() && name == element) return {row.dtype, row.exact};
  }
  return {};
}

}  // namespace podsim::import::scan
