// The launcher's environment variables: Open MPI's mpirun sets OMPI_COMM_WORLD_*, every PMIx launcher PMIX_RANK.
#include "sim/sweep/sweep_launcher.hpp"

#include <cstdlib>

namespace podsim {

std::optional<MpiLaunch> mpi_launch() {
  if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size != nullptr)
    return MpiLaunch{std::string("OMPI_COMM_WORLD_SIZE=") + size};
  if (const char* rank = std::getenv("PMIX_RANK"); rank != nullptr) return MpiLaunch{std::string("PMIX_RANK=") + rank};
  return std::nullopt;
}

}  // namespace podsim
