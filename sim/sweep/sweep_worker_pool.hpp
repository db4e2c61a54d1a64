// The sweep's worker processes on one machine: `jobs` processes forked when the pool is made (after the sweep is
// parsed, so they share it without serialising it), each evaluating one point at a time; a simulated point forks
// its own SimGrid children from its worker as `podsim run` does. Points go down a pipe as 8-byte indices and records
// come back as a 4-byte length and the line.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "sim/sweep/sweep_evaluation.hpp"
#include "sim/sweep/sweep_evaluator.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

class SweepWorkerPool final : public PointEvaluator {
 public:
  // Forks `jobs` (at least 1) workers evaluating points with evaluate_point(spec, point, model, uncalibrated).
  // `spec` must outlive the pool. Throws InternalError when a pipe or a fork fails.
  SweepWorkerPool(const SweepSpec& spec, SweepModel model, std::size_t jobs, bool uncalibrated = false);
  SweepWorkerPool(const SweepWorkerPool&) = delete;
  SweepWorkerPool& operator=(const SweepWorkerPool&) = delete;
  ~SweepWorkerPool() override;  // kills and reaps the workers still running

  std::size_t slots() const override { return workers_.size(); }
  void submit(std::size_t point) override;
  std::vector<EvaluatedPoint> collect(std::chrono::milliseconds timeout) override;
  void finish(bool interrupted) override;

  // Points in flight.
  std::size_t busy() const;

 private:
  struct Worker {
    pid_t pid = -1;
    int task_fd = -1;                  // the pool writes point indices
    int result_fd = -1;                // the pool reads records
    std::optional<std::size_t> point;  // the point it is evaluating
  };

  const SweepSpec& spec_;
  std::vector<Worker> workers_;
};

}  // namespace podsim
