// The sweep's process pool. The parent hands out point indices one at a time (dynamic balancing: des points differ
// in cost), each worker answers with the point's record (4-byte length, then the line), and the parent appends the
// records to results.jsonl as soon as they are contiguous in point order. Workers are forked after the sweep is
// parsed, so they share it without serialising it.
#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/sweep/sweep_filter.hpp"
#include "sim/sweep/sweep_points.hpp"
#include "sim/sweep/sweep_results.hpp"

namespace podsim {
namespace {

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

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

struct Worker {
  pid_t pid = -1;
  int task_fd = -1;                  // parent writes point indices
  int result_fd = -1;                // parent reads records
  std::optional<std::size_t> point;  // the point it is evaluating
};

[[noreturn]] void worker_main(const SweepSpec& spec, SweepModel model, int task_fd, int result_fd) {
  ::signal(SIGINT, SIG_DFL);  // the front end's handlers stop the parent; a worker just ends
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  std::uint64_t point = 0;
  while (read_all(task_fd, reinterpret_cast<char*>(&point), sizeof(point))) {
    const std::string line = evaluate_point(spec, static_cast<std::size_t>(point), model);
    const auto size = static_cast<std::uint32_t>(line.size());
    if (!write_all(result_fd, reinterpret_cast<const char*>(&size), sizeof(size)) ||
        !write_all(result_fd, line.data(), line.size()))
      ::_exit(1);
  }
  ::_exit(0);
}

class WorkerPool {
 public:
  WorkerPool(const SweepSpec& spec, SweepModel model, std::size_t jobs) {
    for (std::size_t w = 0; w < jobs; ++w) {
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
        worker_main(spec, model, task[0], result[1]);
      }
      ::close(task[0]);
      ::close(result[1]);
      ::fcntl(task[1], F_SETFD, FD_CLOEXEC);
      ::fcntl(result[0], F_SETFD, FD_CLOEXEC);
      workers_.push_back({pid, task[1], result[0], std::nullopt});
    }
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() { stop(true); }

  std::vector<Worker>& workers() { return workers_; }

  void send(Worker& worker, std::size_t point) {
    const auto value = static_cast<std::uint64_t>(point);
    if (!write_all(worker.task_fd, reinterpret_cast<const char*>(&value), sizeof(value)))
      throw InternalError("a sweep worker stopped reading its points");
    worker.point = point;
  }

  // Closing a worker's task pipe lets it exit once it has answered.
  void retire(Worker& worker) {
    if (worker.task_fd >= 0) ::close(worker.task_fd);
    worker.task_fd = -1;
  }

  void stop(bool kill) {
    for (Worker& worker : workers_) {
      retire(worker);
      if (worker.result_fd >= 0) ::close(worker.result_fd);
      worker.result_fd = -1;
      if (worker.pid > 0) {
        if (kill) ::kill(worker.pid, SIGTERM);
        int status = 0;
        while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
        }
        worker.pid = -1;
      }
    }
  }

 private:
  std::vector<Worker> workers_;
};

std::string key_of(const std::string& hash, const std::string& model) {
  return hash + " " + model;
}

// A record found in results.jsonl, with the current point's index and parameters (the hash says the scenario is
// the same; the point's place in the sweep may have changed).
std::string reindexed(const std::string& line, const SweepSpec& spec, std::size_t point) {
  auto record = nlohmann::ordered_json::parse(line);
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (auto& [pointer, value] : point_params(spec, point))
    params[pointer] = std::move(value);
  record["point"] = point;
  record["params"] = std::move(params);
  return record.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw InputError("--out", "cannot create the folder, got: " + options.out_dir);
  const std::string jsonl = (std::filesystem::path(options.out_dir) / kSweepJsonl).string();

  // Resuming: the records already written, by hash and model; a partial last line is cut off.
  const ResultLines existing = read_result_lines(jsonl);
  std::unordered_map<std::string, std::string> done_lines;
  for (std::size_t i = 0; i < existing.lines.size(); ++i) {
    const RecordKey key = record_key(existing.lines[i], jsonl + ": line " + std::to_string(i + 1));
    done_lines.emplace(key_of(key.hash, key.model), existing.lines[i]);
  }
  if (std::filesystem::exists(jsonl)) std::filesystem::resize_file(jsonl, existing.whole_bytes);

  const std::vector<std::size_t> points = shard_points(point_count(spec), options.shard);
  std::map<std::size_t, std::string> records;  // point -> record, this shard's points
  std::vector<std::size_t> pending;
  const std::string model(sweep_model_name(options.model));
  std::size_t filtered = 0;
  for (const std::size_t point : points) {
    if (!done_lines.empty() || !spec.filter.empty()) {
      nlohmann::ordered_json resolved;
      try {
        resolved = resolve_point(spec, point);
      } catch (const Error&) {
        pending.push_back(point);  // its record says why; evaluate_point writes it
        continue;
      }
      if (!point_selected(spec, resolved)) {
        ++filtered;
        continue;
      }
      if (const auto it = done_lines.find(key_of(content_hash(resolved.dump()), model)); it != done_lines.end()) {
        records[point] = reindexed(it->second, spec, point);
        continue;
      }
    }
    pending.push_back(point);
  }

  SweepOutcome outcome;
  SweepProgress& progress = outcome.progress;
  progress.total = pending.size();
  progress.filtered = filtered;
  progress.skipped = points.size() - pending.size() - filtered;
  const auto report = [&] {
    progress.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) options.progress(progress);
  };

  if (!pending.empty()) {
    const int out_fd = ::open(jsonl.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) throw InputError("--out", "cannot write the file, got: " + jsonl);
    WorkerPool pool(spec, options.model, std::max<std::size_t>(1, std::min(options.jobs, pending.size())));
    std::size_t next = 0;                         // next pending point to hand out
    std::size_t next_write = 0;                   // next pending point to append
    std::map<std::size_t, std::string> finished;  // pending index -> record, not yet appended
    for (Worker& worker : pool.workers()) {
      if (next < pending.size())
        pool.send(worker, pending[next++]);
      else
        pool.retire(worker);
    }
    std::unordered_map<std::size_t, std::size_t> pending_index;
    for (std::size_t i = 0; i < pending.size(); ++i)
      pending_index[pending[i]] = i;
    while (progress.done < pending.size()) {
      if (options.interrupted && options.interrupted()) {
        outcome.interrupted = true;
        break;
      }
      std::vector<pollfd> fds;
      std::vector<Worker*> busy;
      for (Worker& worker : pool.workers())
        if (worker.point) {
          fds.push_back({worker.result_fd, POLLIN, 0});
          busy.push_back(&worker);
        }
      const int ready = ::poll(fds.data(), fds.size(), 1000);
      if (ready < 0 && errno == EINTR) continue;
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
        if (!ok) {
          if (options.interrupted && options.interrupted()) {
            outcome.interrupted = true;
            break;
          }
          throw InternalError("a sweep worker died while evaluating " + point_name(spec, *worker.point));
        }
        const std::size_t point = *worker.point;
        worker.point.reset();
        ++progress.done;
        if (record_key(line, point_name(spec, point)).failed) ++progress.failed;
        finished[pending_index.at(point)] = std::move(line);
        if (next < pending.size())
          pool.send(worker, pending[next++]);
        else
          pool.retire(worker);
      }
      if (outcome.interrupted) break;
      // Append what is contiguous in point order: one write per line, so an interrupt leaves whole lines.
      for (auto it = finished.find(next_write); it != finished.end(); it = finished.find(next_write)) {
        const std::string text = it->second + "\n";
        if (!write_all(out_fd, text.data(), text.size()))
          throw InputError("--out", "cannot write the file, got: " + jsonl);
        records[pending[next_write]] = std::move(it->second);
        finished.erase(it);
        ++next_write;
      }
      report();
    }
    pool.stop(outcome.interrupted);
    ::close(out_fd);
  }
  report();
  if (outcome.interrupted) {
    // results.jsonl holds whole lines; the CSV follows it.
    write_results(options.out_dir, read_result_lines(jsonl).lines);
    return outcome;
  }
  std::vector<std::string> lines;
  lines.reserve(records.size());
  for (auto& [point, line] : records)
    lines.push_back(std::move(line));
  write_results(options.out_dir, lines);
  return outcome;
}

}  // namespace podsim
