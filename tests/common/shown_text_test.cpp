// The cut of echoed values: short texts unchanged, long ones cut to 80 bytes and "...", never inside a UTF-8
// sequence.
#include "models/common/shown_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace podsim {
namespace {

TEST(ShownText, ShortTextsAreKept) {
  EXPECT_EQ(cut_shown(""), "");
  EXPECT_EQ(cut_shown(std::string(80, 'b')), std::string(80, 'b'));
}

TEST(ShownText, LongTextsAreCutWithAnEllipsis) {
  EXPECT_EQ(cut_shown(std::string(81, 'b')), std::string(80, 'b') + "...");
  EXPECT_EQ(cut_shown(std::string(4000, '[')), std::string(80, '[') + "...");
}

TEST(ShownText, CutNeverSplitsAUtf8Sequence) {
  const std::string text = std::string(79, 'a') + "\xC3\xA9" + "tail";  // é spans bytes 80 and 81
  EXPECT_EQ(cut_shown(text), std::string(79, 'a') + "...");
}

// Issue 33, class 4: control characters in names and paths reached the terminal as they were (an ESC starts an
// escape sequence that recolours or rewrites the screen).
TEST(ShownText, ControlCharactersAreEscapedForATerminal) {
  EXPECT_EQ(terminal_safe("evil\x1b[31mRED\x07 \r\x7f\x01"), "evil\\x1b[31mRED\\x07 \\x0d\\x7f\\x01");
  EXPECT_EQ(terminal_safe("two\nlines\tand a tab, caf\xC3\xA9"), "two\nlines\tand a tab, caf\xC3\xA9");
  EXPECT_EQ(terminal_safe(std::string("nul\0end", 7)), "nul\\x00end");
}

}  // namespace
}  // namespace podsim
