// The one cut of a value echoed in an error message ("got: VALUE"): long values are shortened so that a hostile
// input cannot flood stderr (docs/reliability.md, "Input limits").
#pragma once

#include <cstddef>
#include <string>

namespace podsim {

inline constexpr std::size_t kShownMaxChars = 80;

// `text` cut to kShownMaxChars bytes (never inside a UTF-8 sequence) followed by "..." when longer.
std::string cut_shown(std::string text);

}  // namespace podsim
