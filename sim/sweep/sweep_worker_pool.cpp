// The forked worker processes of a sweep: a worker reads point indices from its task pipe until it closes, and
// answers each with the point's record on its result pipe. The pool polls the result pipes of the busy workers.
#include "sim/sweep/sweep_worker_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "models/common/error.hpp"
#include "sim/sweep/fd_write.hpp"
#include "sim/sweep/sweep_points.hpp"

namespace podsim {
namespace {

// false at end of file (or an error) before `size` bytes.
bool read_all(int fd, char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void worker_main(const SweepSpec& spec, SweepModel model, bool uncalibrated, int task_fd, int result_fd) {
  ::signal(SIGINT, SIG_DFL);  // the front end's handlers stop the parent; a worker just ends
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  std::uint64_t point = 0;
  while (read_all(task_fd, reinterpret_cast<char*>(&point), sizeof(point))) {
    const std::string line = evaluate_point(spec, static_cast<std::size_t>(point), model, uncalibrated);
    const auto size = static_cast<std::uint32_t>(line.size());
    if (!write_all(result_fd, reinterpret_cast<const char*>(&size), sizeof(size)) ||
        !write_all(result_fd, line.data(), line.size()))
      ::_exit(1);
  }
  ::_exit(0);
}

}  // namespace

SweepWorkerPool::SweepWorkerPool(const SweepSpec& spec, SweepModel model, std::size_t jobs, bool uncalibrated)
    : spec_(spec) {
  for (std::size_t w = 0; w < std::max<std::size_t>(1, jobs); ++w) {
    int task[2], result[2];
    if (::pipe(task) != 0 || ::pipe(result) != 0) throw InternalError("cannot create a pipe for a sweep worker");
    const pid_t pid = ::fork();
    if (pid < 0) throw InternalError("cannot fork a sweep worker");
    if (pid == 0) {
      for (const Worker& other : workers_) {
        ::close(other.task_fd);
        ::close(other.result_fd);
      }
      ::close(task[1]);
      ::close(result[0]);
      worker_main(spec, model, uncalibrated, task[0], result[1]);
    }
    ::close(task[0]);
    ::close(result[1]);
    ::fcntl(task[1], F_SETFD, FD_CLOEXEC);
    ::fcntl(result[0], F_SETFD, FD_CLOEXEC);
    workers_.push_back({pid, task[1], result[0], std::nullopt});
  }
}

SweepWorkerPool::~SweepWorkerPool() {
  finish(true);
}

std::size_t SweepWorkerPool::busy() const {
  std::size_t count = 0;
  for (const Worker& worker : workers_)
    count += worker.point ? 1 : 0;
  return count;
}

void SweepWorkerPool::submit(std::size_t point) {
  for (Worker& worker : workers_) {
    if (worker.point || worker.task_fd < 0) continue;
    const auto value = static_cast<std::uint64_t>(point);
    if (!write_all(worker.task_fd, reinterpret_cast<const char*>(&value), sizeof(value)))
      throw InternalError("a sweep worker stopped reading its points");
    worker.point = point;
    return;
  }
  throw InternalError("a point was handed to a sweep pool with no free worker");
}

std::vector<EvaluatedPoint> SweepWorkerPool::collect(std::chrono::milliseconds timeout) {
  std::vector<pollfd> fds;
  std::vector<Worker*> busy;
  for (Worker& worker : workers_)
    if (worker.point) {
      fds.push_back({worker.result_fd, POLLIN, 0});
      busy.push_back(&worker);
    }
  std::vector<EvaluatedPoint> done;
  const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
  if (ready < 0 && errno == EINTR) return done;
  if (ready < 0) throw InternalError("poll failed while waiting for sweep workers");
  for (std::size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents == 0) continue;
    Worker& worker = *busy[k];
    std::uint32_t size = 0;
    std::string line;
    bool ok = read_all(worker.result_fd, reinterpret_cast<char*>(&size), sizeof(size));
    if (ok) {
      line.resize(size);
      ok = read_all(worker.result_fd, line.data(), size);
    }
    if (!ok) throw InternalError("a sweep worker died while evaluating " + point_name(spec_, *worker.point));
    done.push_back({*worker.point, std::move(line)});
    worker.point.reset();
  }
  return done;
}

void SweepWorkerPool::finish(bool interrupted) {
  for (Worker& worker : workers_) {
    // Closing a worker's task pipe lets it exit once it has answered.
    if (worker.task_fd >= 0) ::close(worker.task_fd);
    worker.task_fd = -1;
    if (worker.result_fd >= 0) ::close(worker.result_fd);
    worker.result_fd = -1;
    if (worker.pid > 0) {
      if (interrupted) ::kill(worker.pid, SIGTERM);
      int status = 0;
      while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
      }
      worker.pid = -1;
    }
  }
}

}  // namespace podsim
