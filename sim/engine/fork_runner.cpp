// fork() + pipe: each child writes one status byte and its payload, then _exit()s without running the parent's
// destructors: 'o' and its result; 'e' and a podsim::Error, typed (kind, fields) so that the parent rethrows the same
// input error; 'x' and the message of any other exception, which the parent turns into an InternalError. The parent
// polls the pipes of its running children, reaps each child at end of file, and reads the child's stderr from an
// in-memory file (memfd).
#include "sim/engine/fork_runner.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

constexpr std::size_t kStderrTailBytes = 2000;

// The kinds of podsim::Error a child reports, after the status byte 'e'.
enum class ErrorKind : char { error = 'E', verify = 'V', parse = 'P', input = 'I' };

void put_number(std::string& out, std::uint64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// 'e', the kind, then its fields: a column (parse, input), a stage and the where text (input), and the message.
std::string encode_error(const Error& error) {
  std::string out = "e";
  if (const auto* input = dynamic_cast<const InputError*>(&error)) {
    out += static_cast<char>(ErrorKind::input);
    put_number(out, input->column());
    out += input->stage() == InputError::Stage::parse ? 'p' : 'v';
    put_number(out, input->where().size());
    return out + input->where() + input->message();
  }
  if (const auto* parse = dynamic_cast<const ParseError*>(&error)) {
    out += static_cast<char>(ErrorKind::parse);
    put_number(out, parse->column());
    return out + parse->what();
  }
  out += static_cast<char>(dynamic_cast<const VerifyError*>(&error) != nullptr ? ErrorKind::verify : ErrorKind::error);
  return out + error.what();
}

// The error encode_error() wrote (without its 'e'), or an InternalError if the bytes are not one.
std::exception_ptr decode_error(std::string_view bytes) {
  const auto malformed = [] {
    return std::make_exception_ptr(InternalError("simulation failed: child returned a malformed error"));
  };
  std::size_t at = 1;
  const auto number = [&](std::uint64_t& value) {
    if (bytes.size() - at < sizeof(value)) return false;
    std::memcpy(&value, bytes.data() + at, sizeof(value));
    at += sizeof(value);
    return true;
  };
  if (bytes.empty()) return malformed();
  switch (static_cast<ErrorKind>(bytes[0])) {
    case ErrorKind::error:
      return std::make_exception_ptr(Error(std::string(bytes.substr(1))));
    case ErrorKind::verify:
      return std::make_exception_ptr(VerifyError(std::string(bytes.substr(1))));
    case ErrorKind::parse: {
      std::uint64_t column = 0;
      if (!number(column)) return malformed();
      return std::make_exception_ptr(ParseError(std::string(bytes.substr(at)), column));
    }
    case ErrorKind::input: {
      std::uint64_t column = 0, where_size = 0;
      if (!number(column) || at == bytes.size()) return malformed();
      const auto stage = bytes[at++] == 'p' ? InputError::Stage::parse : InputError::Stage::verify;
      if (!number(where_size) || bytes.size() - at < where_size) return malformed();
      const std::string where(bytes.substr(at, where_size));
      return std::make_exception_ptr(InputError(where, std::string(bytes.substr(at + where_size)), stage, column));
    }
  }
  return malformed();
}

// Closes the descriptors the child inherited besides the standard ones and its result pipe. Another thread of the
// parent (the plan search simulates candidates at once) may have opened its own child's pipe and not yet closed its
// writing end: a copy held here would keep that pipe open, and its reader waiting, until this child ended too.
void close_inherited(int result_fd) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
  if (result_fd > STDERR_FILENO + 1) ::close_range(STDERR_FILENO + 1, static_cast<unsigned>(result_fd) - 1, 0);
  ::close_range(static_cast<unsigned>(result_fd) + 1, ~0U, 0);  // a kernel without it (before 5.9) leaves them open
#else
  (void)result_fd;
#endif
}

[[noreturn]] void child_main(const ChildWork& work, int result_fd, int stderr_fd) {
  ::dup2(stderr_fd, STDERR_FILENO);
  close_inherited(result_fd);
  std::string out;
  try {
    out = "o" + work();
  } catch (const Error& error) {
    out = encode_error(error);
  } catch (const std::exception& error) {
    out = std::string(1, 'x') + error.what();
  } catch (...) {
    out = "xunknown exception";
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

// A system call of the parent failed (`error` its errno): not the input's fault.
[[noreturn]] void system_failure(const char* call, int error) {
  throw InternalError(fmt::format("simulation failed: {}: {}", call, std::strerror(error)));
}

Child spawn(const ChildWork& work, std::size_t index) {
  int fds[2];
  if (::pipe(fds) != 0) system_failure("pipe", errno);
  const int stderr_fd = ::memfd_create("podsim-child-stderr", 0);
  if (stderr_fd < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    system_failure("memfd_create", error);
  }
  std::fflush(nullptr);  // buffered output would otherwise be written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    ::close(stderr_fd);
    system_failure("fork", error);
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(work, fds[1], stderr_fd);
  }
  ::close(fds[1]);
  return Child{index, pid, fds[0], stderr_fd, {}};
}

// Reaps a child whose pipe reached end of file; returns what its failure becomes (the podsim::Error it threw, or an
// InternalError with its stderr tail), or nothing if it succeeded.
std::exception_ptr reap(Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string failure;
  std::exception_ptr error;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    failure = fmt::format("child killed by signal {} ({})", signal, ::strsignal(signal));
  } else if (WEXITSTATUS(status) != 0) {
    failure = fmt::format("child exited with code {}", WEXITSTATUS(status));
  } else if (child.bytes.empty()) {
    failure = "child returned no result";
  } else if (child.bytes[0] == 'e') {
    error = decode_error(std::string_view(child.bytes).substr(1));
  } else if (child.bytes[0] == 'x') {
    failure = child.bytes.substr(1);
  } else if (child.bytes[0] != 'o') {
    failure = "child returned a malformed result";
  }
  if (!failure.empty())
    error = std::make_exception_ptr(InternalError("simulation failed: " + failure, stderr_tail(child.stderr_fd)));
  ::close(child.stderr_fd);
  return error;
}

}  // namespace

std::vector<std::string> run_in_children(const std::vector<ChildWork>& works, int parallel) {
  const std::size_t limit = static_cast<std::size_t>(std::max(1, parallel));
  std::vector<std::string> results(works.size());
  std::vector<std::exception_ptr> failures(works.size());
  std::vector<Child> running;
  std::size_t next = 0;
  std::exception_ptr spawn_error;
  while (next < works.size() || !running.empty()) {
    while (!spawn_error && next < works.size() && running.size() < limit) {
      try {
        running.push_back(spawn(works[next], next));
        ++next;
      } catch (const InternalError&) {
        spawn_error = std::current_exception();
        next = works.size();
      }
    }
    if (running.empty()) break;
    std::vector<pollfd> polls;
    for (const Child& child : running)
      polls.push_back({child.result_fd, POLLIN, 0});
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      system_failure("poll", errno);
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
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  if (spawn_error) std::rethrow_exception(spawn_error);
  return results;
}

std::size_t simulation_threads(std::size_t requested) {
  if (!children_from_threads()) return 1;
  return requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

void for_each_on_threads(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t k = next++; k < count; k = next++) {
      try {
        work(k);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < std::min(threads, count); ++t)
      helpers.emplace_back(worker);
    worker();
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace podsim::engine
