// Texts joined with a separator, for messages and reports: join({"X", "Y"}, ",") == "X,Y".
#pragma once

#include <string>
#include <string_view>

namespace podsim {

template <typename Range>
std::string join(const Range& parts, std::string_view separator) {
  std::string text;
  bool first = true;
  for (const auto& part : parts) {
    if (!first) text += separator;
    text += part;
    first = false;
  }
  return text;
}

}  // namespace podsim
