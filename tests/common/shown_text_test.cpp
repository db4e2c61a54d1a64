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

}  // namespace
}  // namespace podsim
