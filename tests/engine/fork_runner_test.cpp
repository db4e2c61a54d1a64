// run_in_children(): results come back in order through the pipes, and a child that throws, exits non-zero or
// dies from a signal becomes a podsim::Error with the child's stderr tail.
#include "sim/engine/fork_runner.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

std::string failure_of(const ChildWork& work) {
  try {
    run_in_children({work}, 1);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ForkRunner, ReturnsEachChildsBytesInInputOrder) {
  std::vector<ChildWork> works;
  for (int i = 0; i < 5; ++i)
    works.emplace_back([i] { return std::string(static_cast<std::size_t>(100000 * i), 'a' + static_cast<char>(i)); });
  const std::vector<std::string> results = run_in_children(works, 2);
  ASSERT_EQ(results.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(results[static_cast<std::size_t>(i)],
              std::string(static_cast<std::size_t>(100000 * i), 'a' + static_cast<char>(i)));
}

TEST(ForkRunner, AnExceptionInTheChildBecomesAnError) {
  EXPECT_EQ(failure_of([]() -> std::string { throw std::runtime_error("no route from chip 3 to chip 9"); }),
            "simulation failed: no route from chip 3 to chip 9");
}

TEST(ForkRunner, AnAbortBecomesAnErrorWithTheStderrTail) {
  EXPECT_EQ(failure_of([]() -> std::string {
              std::fputs("xbt assertion failed: something in the kernel\n", stderr);
              std::abort();
            }),
            "simulation failed: child killed by signal 6 (Aborted); its stderr ends with:\n"
            "xbt assertion failed: something in the kernel");
}

TEST(ForkRunner, ANonZeroExitBecomesAnError) {
  EXPECT_EQ(failure_of([]() -> std::string { ::_exit(3); }), "simulation failed: child exited with code 3");
}

TEST(ForkRunner, TheFirstFailingRunIsReportedAfterAllEnded) {
  std::vector<ChildWork> works = {[] { return std::string("ok"); },
                                  []() -> std::string {
                                    std::raise(SIGSEGV);
                                    return {};
                                  },
                                  []() -> std::string { throw std::runtime_error("later"); }};
  try {
    run_in_children(works, 2);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "simulation failed: child killed by signal 11 (Segmentation fault)");
  }
}

}  // namespace
}  // namespace podsim::engine
