// The sweep's writer: which points run (the shard, the filter, resuming), handing them to the evaluator as its slots
// free up (dynamic balancing: des points differ in cost), and appending the records to results.jsonl as soon as they
// are contiguous in point order. The evaluator is the same interface for forked workers and for MPI ranks, so
// everything written is the same bytes however the points were evaluated.
#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/sweep/fd_write.hpp"
#include "sim/sweep/sweep_filter.hpp"
#include "sim/sweep/sweep_points.hpp"
#include "sim/sweep/sweep_results.hpp"
#include "sim/sweep/sweep_worker_pool.hpp"

namespace podsim {
namespace {

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

bool signalled_soon(const std::function<bool()>& interrupted) {
  if (!interrupted) return false;
  for (int i = 0; i < 25; ++i) {
    if (interrupted()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return interrupted();
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw SweepError(SweepOptions::Field::out_dir, "cannot create the folder, got: " + options.out_dir);
  const std::string jsonl = (std::filesystem::path(options.out_dir) / kSweepJsonl).string();

  // Resuming: the records already written, by hash and model; a partial last line is cut off.
  const ResultLines existing = read_result_lines(jsonl);
  std::unordered_map<std::string, std::string> done_lines;
  for (std::size_t i = 0; i < existing.lines.size(); ++i) {
    const RecordKey key = record_key(existing.lines[i], jsonl + ": line " + std::to_string(i + 1));
    done_lines.emplace(key_of(key.hash, key.model + (key.uncalibrated ? " uncalibrated" : "")), existing.lines[i]);
  }
  if (std::filesystem::exists(jsonl)) std::filesystem::resize_file(jsonl, existing.whole_bytes);

  const std::vector<std::size_t> points = shard_points(point_count(spec), options.shard);
  std::map<std::size_t, std::string> records;  // point -> record, this shard's points
  std::vector<std::size_t> pending;
  // Records of the other calibration choice are not this run's: never reused when resuming.
  const std::string model =
      std::string(sweep_model_name(options.model)) + (options.uncalibrated ? " uncalibrated" : "");
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

  std::unique_ptr<SweepWorkerPool> own_pool;
  PointEvaluator* evaluator = options.evaluator;
  if (!pending.empty() && evaluator == nullptr) {
    own_pool = std::make_unique<SweepWorkerPool>(spec, options.model, std::min(options.jobs, pending.size()),
                                                 options.uncalibrated);
    evaluator = own_pool.get();
  }
  if (!pending.empty()) {
    const int out_fd = ::open(jsonl.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) throw SweepError(SweepOptions::Field::out_dir, "cannot write the file, got: " + jsonl);
    std::size_t next = 0;                         // next pending point to hand out
    std::size_t next_write = 0;                   // next pending point to append
    std::size_t in_flight = 0;                    // handed out, not answered
    std::map<std::size_t, std::string> finished;  // pending index -> record, not yet appended
    std::unordered_map<std::size_t, std::size_t> pending_index;
    for (std::size_t i = 0; i < pending.size(); ++i)
      pending_index[pending[i]] = i;
    while (progress.done < pending.size()) {
      for (; in_flight < evaluator->slots() && next < pending.size(); ++in_flight)
        evaluator->submit(pending[next++]);
      if (options.interrupted && options.interrupted()) {
        outcome.interrupted = true;
        break;
      }
      std::vector<EvaluatedPoint> answers;
      try {
        answers = evaluator->collect(std::chrono::milliseconds(1000));
      } catch (const InternalError&) {
        if (!signalled_soon(options.interrupted)) throw;
        outcome.interrupted = true;  // a worker ended by the same signal
        break;
      }
      for (EvaluatedPoint& answer : answers) {
        --in_flight;
        ++progress.done;
        if (record_key(answer.record, point_name(spec, answer.point)).failed) ++progress.failed;
        finished[pending_index.at(answer.point)] = std::move(answer.record);
      }
      // Append what is contiguous in point order: one write per line, so an interrupt leaves whole lines.
      for (auto it = finished.find(next_write); it != finished.end(); it = finished.find(next_write)) {
        const std::string text = it->second + "\n";
        if (!write_all(out_fd, text.data(), text.size()))
          throw SweepError(SweepOptions::Field::out_dir, "cannot write the file, got: " + jsonl);
        records[pending[next_write]] = std::move(it->second);
        finished.erase(it);
        ++next_write;
      }
      report();
    }
    ::close(out_fd);
  }
  if (evaluator != nullptr) evaluator->finish(outcome.interrupted);
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
