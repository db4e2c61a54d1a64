// PODSIM_SKIP_OR_FAIL_IN_CI(reason): a test that needs a tool the machine lacks (python3, its jsonschema module)
// skips on a developer's machine, and fails in CI (environment variable CI set, as CI=true), where
// scripts/install-deps.sh installs every tool the tests need: a test that silently skips there checks nothing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace podsim::test {

// True when the environment variable CI is set to anything but "", "0" or "false".
inline bool running_in_ci() {
  const char* value = std::getenv("CI");
  if (value == nullptr) return false;
  const std::string_view text(value);
  return !text.empty() && text != "0" && text != "false";
}

}  // namespace podsim::test

// A macro, because GTEST_SKIP() and FAIL() return from the test body.
#define PODSIM_SKIP_OR_FAIL_IN_CI(reason)                                                             \
  do {                                                                                                \
    if (::podsim::test::running_in_ci())                                                              \
      FAIL() << (reason) << ": CI is set, and scripts/install-deps.sh installs what this test needs"; \
    GTEST_SKIP() << (reason);                                                                         \
  } while (0)
