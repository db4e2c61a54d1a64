// The stream buffer podsim puts under standard output on a terminal (issue 33, class 4): control characters of
// names and paths written through it come out escaped, as terminal_safe writes them.
#include <gtest/gtest.h>

#include <ostream>
#include <sstream>

#include "sim/report/output_file.hpp"

namespace podsim::report {
namespace {

TEST(TerminalSafeBuffer, EscapesWhatIsWrittenThroughIt) {
  std::ostringstream sink;
  TerminalSafeBuffer buffer(sink.rdbuf());
  std::ostream out(&buffer);
  out << "name: "
      << "a\x1b]0;title\x07" << '\x1b' << "\n"
      << 42;
  out.flush();
  EXPECT_TRUE(out.good());
  EXPECT_EQ(sink.str(), "name: a\\x1b]0;title\\x07\\x1b\n42");
}

}  // namespace
}  // namespace podsim::report
