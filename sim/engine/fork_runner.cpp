// fork() + pipe: each child writes one status byte ('o' ok, 'e' error) and its result or error message, then
// _exit()s without running the parent's destructors. The parent polls the pipes of its running children, reaps
// each child at end of file, and reads the child's stderr from an in-memory file (memfd).
#include "sim/engine/fork_runner.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>

#include <fmt/format.h>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

constexpr std::size_t kStderrTailBytes = 2000;

[[noreturn]] void child_main(const ChildWork& work, int result_fd, int stderr_fd) {
  ::dup2(stderr_fd, STDERR_FILENO);
  std::string out(1, 'o');
  try {
    out += work();
  } catch (const std::exception& error) {
    out = std::string(1, 'e') + error.what();
  } catch (...) {
    out = "eunknown exception";
  }
  const char* data = out.data();
  std::size_t left = out.size();
  while (left > 0) {
    const ssize_t written = ::write(result_fd, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) ::_exit(3);
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  std::fflush(stderr);
  ::_exit(0);
}

std::string stderr_tail(int fd) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0) return {};
  const off_t from = std::max<off_t>(0, size - static_cast<off_t>(kStderrTailBytes));
  std::string text(static_cast<std::size_t>(size - from), '\0');
  const ssize_t got = ::pread(fd, text.data(), text.size(), from);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

struct Child {
  std::size_t index = 0;
  pid_t pid = -1;
  int result_fd = -1;
  int stderr_fd = -1;
  std::string bytes;
};

Child spawn(const ChildWork& work, std::size_t index) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("simulation failed: pipe: {}", std::strerror(errno)));
  const int stderr_fd = ::memfd_create("podsim-child-stderr", 0);
  if (stderr_fd < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("simulation failed: memfd_create: {}", std::strerror(errno)));
  }
  std::fflush(nullptr);  // buffered output would otherwise be written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    ::close(stderr_fd);
    throw Error(fmt::format("simulation failed: fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(work, fds[1], stderr_fd);
  }
  ::close(fds[1]);
  return Child{index, pid, fds[0], stderr_fd, {}};
}

// Reaps a child whose pipe reached end of file; returns its failure message, or nothing if it succeeded.
std::optional<std::string> reap(Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string failure;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    failure = fmt::format("child killed by signal {} ({})", signal, ::strsignal(signal));
  } else if (WEXITSTATUS(status) != 0) {
    failure = fmt::format("child exited with code {}", WEXITSTATUS(status));
  } else if (child.bytes.empty()) {
    failure = "child returned no result";
  } else if (child.bytes[0] == 'e') {
    failure = child.bytes.substr(1);
  } else if (child.bytes[0] != 'o') {
    failure = "child returned a malformed result";
  }
  std::optional<std::string> result;
  if (!failure.empty()) {
    const std::string tail = stderr_tail(child.stderr_fd);
    result = "simulation failed: " + failure + (tail.empty() ? "" : "; its stderr ends with:\n" + tail);
  }
  ::close(child.stderr_fd);
  return result;
}

}  // namespace

std::vector<std::string> run_in_children(const std::vector<ChildWork>& works, int parallel) {
  const std::size_t limit = static_cast<std::size_t>(std::max(1, parallel));
  std::vector<std::string> results(works.size());
  std::vector<std::optional<std::string>> failures(works.size());
  std::vector<Child> running;
  std::size_t next = 0;
  std::optional<Error> spawn_error;
  while (next < works.size() || !running.empty()) {
    while (!spawn_error && next < works.size() && running.size() < limit) {
      try {
        running.push_back(spawn(works[next], next));
        ++next;
      } catch (const Error& error) {
        spawn_error = error;
        next = works.size();
      }
    }
    if (running.empty()) break;
    std::vector<pollfd> polls;
    for (const Child& child : running)
      polls.push_back({child.result_fd, POLLIN, 0});
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("simulation failed: poll: {}", std::strerror(errno)));
    }
    for (std::size_t i = polls.size(); i-- > 0;) {
      if (polls[i].revents == 0) continue;
      Child& child = running[i];
      char buffer[1 << 16];
      const ssize_t got = ::read(child.result_fd, buffer, sizeof(buffer));
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        child.bytes.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      ::close(child.result_fd);
      failures[child.index] = reap(child);
      if (!failures[child.index]) results[child.index] = child.bytes.substr(1);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (const auto& failure : failures)
    if (failure) throw Error(*failure);
  if (spawn_error) throw *spawn_error;
  return results;
}

}  // namespace podsim::engine
