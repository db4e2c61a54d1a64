#include "sim/import/module_text.hpp"

#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "models/common/error.hpp"

namespace podsim::import {
namespace {

// The length of the well-formed UTF-8 sequence starting at `i`, or 0 when it is not one (RFC 3629, table 3-7 of
// the Unicode standard: the second byte's range depends on the first).
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong form
    if (b0 == 0xED) hi = 0x9F;  // no surrogate
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong form
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

void require_utf8_module(std::string_view text, const std::string& file) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) {
      throw InputError(fmt::format("{}:{}:{}", file, line, i - line_start + 1),
                       fmt::format("invalid UTF-8 byte 0x{:02X} (the module must be UTF-8 text)",
                                   static_cast<std::uint8_t>(text[i])));
    }
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += n;
  }
}

}  // namespace podsim::import
