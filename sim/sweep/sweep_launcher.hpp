// Whether `podsim sweep` was started by an MPI launcher (docs/sweeps.md, "Across machines"). Read from the
// environment the launcher sets, so an ordinary run never starts MPI and a build without MPI can still tell.
#pragma once

#include <optional>
#include <string>

namespace podsim {

struct MpiLaunch {
  std::string variable;  // the variable that told, e.g. OMPI_COMM_WORLD_SIZE=2 (for messages)
  // This process's rank as the launcher numbered it (OMPI_COMM_WORLD_RANK or PMIX_RANK; 0 when neither parses):
  // known before MPI starts, so that only rank 0 creates the files it alone writes (the --report page).
  int rank = 0;
};

// The launch when the process was started by mpirun (Open MPI: OMPI_COMM_WORLD_SIZE) or by a PMIx launcher such as
// Slurm's srun (PMIX_RANK); nullopt otherwise, a singleton `podsim sweep` included.
std::optional<MpiLaunch> mpi_launch();

}  // namespace podsim
