// The one cut of a value echoed in an error message ("got: VALUE"): long values are shortened so that a hostile
// input cannot flood stderr (docs/reliability.md, "Input limits"); and the one escape of control characters in what
// podsim prints to a terminal, so that a name or a path cannot drive the terminal (issue 33, class 4; the stream
// buffer that applies it to standard output is report::TerminalSafeBuffer, sim/report/output_file.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace podsim {

inline constexpr std::size_t kShownMaxChars = 80;

// `text` cut to kShownMaxChars bytes (never inside a UTF-8 sequence) followed by "..." when longer.
std::string cut_shown(std::string text);

// `text` with every ASCII control character but newline and tab (0x00-0x1F, 0x7F: ESC starts a terminal's escape
// sequences, CR overwrites a line, BEL rings) written as `\xNN`; everything else as it is.
std::string terminal_safe(std::string_view text);

}  // namespace podsim
