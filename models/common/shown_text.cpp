// The cut of echoed values.
#include "models/common/shown_text.hpp"

namespace podsim {

std::string cut_shown(std::string text) {
  if (text.size() <= kShownMaxChars) return text;
  std::size_t end = kShownMaxChars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  text.resize(end);
  return text + "...";
}

}  // namespace podsim
