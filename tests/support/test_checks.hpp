// Small checks shared by tests of several folders: a relative comparison, and how many times a text occurs in
// another.
#pragma once

#include <cstddef>
#include <string>

#include <gtest/gtest.h>

namespace podsim::test {

// `actual` within 1e-9 of `expected`, relatively.
inline void expect_close(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-9 * expected);
}

// The number of non-overlapping occurrences of `what` in `text`.
inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

}  // namespace podsim::test
