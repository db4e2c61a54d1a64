// The launcher's environment variables: Open MPI's mpirun sets OMPI_COMM_WORLD_*, every PMIx launcher PMIX_RANK.
#include "sim/sweep/sweep_launcher.hpp"

#include <cstdlib>

namespace podsim {

std::optional<MpiLaunch> mpi_launch() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size != nullptr)
    return MpiLaunch{rank != nullptr ? std::atoi(rank) : 0, std::string("OMPI_COMM_WORLD_SIZE=") + size};
  if (const char* pmix = std::getenv("PMIX_RANK"); pmix != nullptr)
    return MpiLaunch{std::atoi(pmix), std::string("PMIX_RANK=") + pmix};
  return std::nullopt;
}

}  // namespace podsim
