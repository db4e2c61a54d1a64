// Runs a sweep into its --out folder (docs/sweeps.md): the shard's points handed to an evaluator (forked worker
// processes, or MPI ranks: sweep_evaluator.hpp), records written in point order, one write per whole line, points
// already in results.jsonl (same hash and model) skipped, and results.jsonl and results.csv rewritten at the end.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "models/common/field_error.hpp"
#include "sim/sweep/sweep_evaluation.hpp"
#include "sim/sweep/sweep_evaluator.hpp"
#include "sim/sweep/sweep_shard.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

struct SweepProgress {
  std::size_t done = 0;      // points of this run finished (skipped ones not counted)
  std::size_t total = 0;     // points this run evaluates
  std::size_t failed = 0;    // of done, with an error
  std::size_t skipped = 0;   // found in results.jsonl
  std::size_t filtered = 0;  // left out by the sweep's filter (no record)
  double elapsed_s = 0;
};

struct SweepOptions {
  enum class Field { out_dir };  // the options a SweepError can be about

  std::string out_dir;
  SweepModel model = SweepModel::book;
  bool uncalibrated = false;  // the des runs without the hardware's calibration (`podsim sweep --uncalibrated`)
  SweepShard shard;
  std::size_t jobs = 1;                                // worker processes (when `evaluator` is null)
  PointEvaluator* evaluator = nullptr;                 // evaluates the points; null: `jobs` forked workers
  std::function<void(const SweepProgress&)> progress;  // after every point, and about once a second
  std::function<bool()> interrupted;                   // polled; true stops the sweep (whole lines kept)
};

// An option the sweep cannot honour (a results folder it cannot make or write); front ends name the option in their
// terms (the CLI's --out).
using SweepError = FieldError<SweepOptions::Field>;

struct SweepOutcome {
  SweepProgress progress;
  bool interrupted = false;
  int rank = 0;  // across MPI ranks (sim/sweep/mpi): this process's rank; only rank 0 writes and reports
};

// Whether `interrupted` says so now or within a quarter of a second: a worker killed by the signal that stops the
// sweep (a terminal's Ctrl-C, mpirun ending a job) can be seen dead before the sweep's own handler has run.
bool signalled_soon(const std::function<bool()>& interrupted);

// Throws SweepError in out_dir when the folder cannot be made or written, InputError when a filter condition cannot
// be evaluated (before any point runs), InternalError when a worker process dies. A given evaluator is finished (its
// workers end) on return.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

}  // namespace podsim
