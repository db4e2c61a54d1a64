// The cut of echoed values and the escape of control characters for a terminal.
#include "models/common/shown_text.hpp"

namespace podsim {
namespace {

bool escaped(unsigned char c) {
  return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F;
}

}  // namespace

std::string cut_shown(std::string text) {
  if (text.size() <= kShownMaxChars) return text;
  std::size_t end = kShownMaxChars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  text.resize(end);
  return text + "...";
}

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (escaped(byte)) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace podsim
