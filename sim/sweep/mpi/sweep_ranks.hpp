// A sweep across the ranks of an MPI job (docs/sweeps.md, "Across machines"): `mpirun -n K podsim sweep`. Rank 0 is
// the writer of a single-process run (sweep_runner.hpp: shard, filter, resuming, records in point order) with an
// evaluator that hands points to its own forked workers and, on request, to the other ranks; every other rank
// evaluates the points it is sent on its own forked workers and sends the records back. The only library that
// sees MPI (podsim_mpi); built when PODSIM_WITH_MPI is on.
#pragma once

#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

// Runs `spec` on every rank of MPI_COMM_WORLD, each with options.jobs forked workers (forked before MPI starts, so
// they never hold MPI state). MPI is initialised here and finalised on return. Rank 0 returns the run's outcome;
// another rank returns rank != 0 and whether a signal stopped it. Throws as run_sweep does (on rank 0; a worker that
// died on another rank is an InternalError there naming the rank and the point).
SweepOutcome run_sweep_on_ranks(const SweepSpec& spec, const SweepOptions& options);

}  // namespace podsim
