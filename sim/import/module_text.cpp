#include "sim/import/module_text.hpp"

#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "models/common/utf8.hpp"

namespace podsim::import {

void require_utf8_module(std::string_view text, const std::string& file) {
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < *bad; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  throw InputError(fmt::format("{}:{}:{}", file, line, *bad - line_start + 1),
                   fmt::format("invalid UTF-8 byte 0x{:02X} (the module must be UTF-8 text)",
                               static_cast<std::uint8_t>(text[*bad])));
}

}  // namespace podsim::import
