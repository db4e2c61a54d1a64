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

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  const std::string text = terminal_safe(std::string_view(&ch, 1));
  const auto n = static_cast<std::streamsize>(text.size());
  return sink_->sputn(text.data(), n) == n ? c : traits_type::eof();
}

std::streamsize TerminalSafeBuffer::xsputn(const char* s, std::streamsize n) {
  const std::string text = terminal_safe(std::string_view(s, static_cast<std::size_t>(n)));
  const auto m = static_cast<std::streamsize>(text.size());
  return sink_->sputn(text.data(), m) == m ? n : 0;
}

}  // namespace podsim
