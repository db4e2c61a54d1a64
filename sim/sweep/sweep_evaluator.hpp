// Where a sweep's points are evaluated (docs/sweeps.md, "Across machines"). The runner (sweep_runner.hpp) decides
// which points run and writes their records in point order; an evaluator runs them: on forked worker processes
// (sweep_worker_pool.hpp) or across MPI ranks (sim/sweep/mpi/). Points are handed out one at a time as slots free
// up (dynamic balancing: des points differ in cost), so the order records come back in is not the point order.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace podsim {

// A point's record (one line of compact JSON, without the newline), as evaluate_point writes it.
struct EvaluatedPoint {
  std::size_t point = 0;
  std::string record;
};

class PointEvaluator {
 public:
  virtual ~PointEvaluator() = default;

  // How many points may be in flight at once (at least 1).
  virtual std::size_t slots() const = 0;

  // Starts evaluating `point`; the caller keeps at most slots() points in flight. Throws InternalError when the
  // worker it would go to is gone.
  virtual void submit(std::size_t point) = 0;

  // Waits up to `timeout` for finished points and returns them (none when the time ran out). Throws InternalError
  // when a worker died while evaluating a point (the message names the point).
  virtual std::vector<EvaluatedPoint> collect(std::chrono::milliseconds timeout) = 0;

  // No more points: the workers end; with `interrupted`, at once, dropping the points in flight.
  virtual void finish(bool interrupted) = 0;
};

}  // namespace podsim
