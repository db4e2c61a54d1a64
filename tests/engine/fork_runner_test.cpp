// run_in_children(): results come back in order through the pipes; a child that throws a podsim::Error gives the
// same error (type and fields: bad input), and a child that throws anything else, exits non-zero or dies from a
// signal becomes a podsim::InternalError with the child's stderr tail.
#include "sim/engine/fork_runner.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

static_assert(!std::is_base_of_v<Error, InternalError>, "an internal error must never pass for bad input");

// Raises `signal` with its default disposition, so that the child dies from it even where a sanitizer's runtime
// handles it (ASan turns SIGSEGV into its own report and exit code 1): these tests are about the fork runner's
// handling of a child killed by a signal, which a crash in a build without sanitizers is.
void die_by_signal(int signal) {
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// The message of the `Expected` exception running `work` throws; a description of anything else.
template <typename Expected>
std::string failure_of(const ChildWork& work) {
  try {
    run_in_children({work}, 1);
  } catch (const Expected& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("another exception: ") + error.what();
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

TEST(ForkRunner, AnotherExceptionInTheChildIsAnInternalError) {
  EXPECT_EQ(failure_of<InternalError>([]() -> std::string { throw std::runtime_error("vector::_M_range_check"); }),
            "simulation failed: vector::_M_range_check");
}

TEST(ForkRunner, AVerifyErrorInTheChildIsThatError) {
  EXPECT_EQ(failure_of<VerifyError>([]() -> std::string { throw VerifyError("task 3: bytes must be > 0, got: 0"); }),
            "task 3: bytes must be > 0, got: 0");
  EXPECT_EQ(failure_of<Error>([]() -> std::string { throw Error("simulation: every task must complete"); }),
            "simulation: every task must complete");
}

TEST(ForkRunner, ParseAndInputErrorsKeepTheirFields) {
  try {
    run_in_children({[]() -> std::string { throw ParseError("expected '}'", 19); }}, 1);
    FAIL() << "expected a ParseError";
  } catch (const ParseError& error) {
    EXPECT_EQ(std::string(error.what()), "expected '}'");
    EXPECT_EQ(error.column(), 19u);
  }
  try {
    run_in_children({[]() -> std::string {
                      throw InputError("a.json: /program/2", "axis \"Z\" is not in mesh \"m\"",
                                       InputError::Stage::parse, 7);
                    }},
                    1);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.where(), "a.json: /program/2");
    EXPECT_EQ(error.message(), "axis \"Z\" is not in mesh \"m\"");
    EXPECT_EQ(error.stage(), InputError::Stage::parse);
    EXPECT_EQ(error.column(), 7u);
    EXPECT_EQ(std::string(error.what()), "a.json: /program/2: column 7: axis \"Z\" is not in mesh \"m\"");
  }
}

TEST(ForkRunner, AnAbortIsAnInternalErrorWithTheStderrTail) {
  try {
    run_in_children({[]() -> std::string {
                      std::fputs("xbt assertion failed: something in the kernel\n", stderr);
                      std::signal(SIGABRT, SIG_DFL);  // ASAN_OPTIONS=handle_abort=1 would report it instead
                      std::abort();
                    }},
                    1);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& error) {
    EXPECT_EQ(std::string(error.what()),
              "simulation failed: child killed by signal 6 (Aborted); its stderr ends with:\n"
              "xbt assertion failed: something in the kernel");
    EXPECT_EQ(error.stderr_tail(), "xbt assertion failed: something in the kernel");
  }
}

TEST(ForkRunner, ASegfaultIsAnInternalErrorWithTheStderrTail) {
  EXPECT_EQ(failure_of<InternalError>([]() -> std::string {
              std::fputs("routing chip 7\n", stderr);
              die_by_signal(SIGSEGV);
              return {};
            }),
            "simulation failed: child killed by signal 11 (Segmentation fault); its stderr ends with:\nrouting chip 7");
}

TEST(ForkRunner, ANonZeroExitIsAnInternalError) {
  EXPECT_EQ(failure_of<InternalError>([]() -> std::string { ::_exit(3); }),
            "simulation failed: child exited with code 3");
}

TEST(ForkRunner, TheFirstFailingRunIsReportedAfterAllEnded) {
  std::vector<ChildWork> works = {[] { return std::string("ok"); },
                                  []() -> std::string {
                                    die_by_signal(SIGSEGV);
                                    return {};
                                  },
                                  []() -> std::string { throw VerifyError("later"); }};
  try {
    run_in_children(works, 2);
    FAIL() << "expected an error";
  } catch (const InternalError& error) {
    EXPECT_EQ(std::string(error.what()), "simulation failed: child killed by signal 11 (Segmentation fault)");
  }
}

}  // namespace
}  // namespace podsim::engine
