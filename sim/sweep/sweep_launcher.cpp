// The launcher's environment variables: Open MPI's mpirun sets OMPI_COMM_WORLD_*, every PMIx launcher PMIX_RANK.
#include "sim/sweep/sweep_launcher.hpp"

#include <cstdlib>
#include <limits>

namespace podsim {

namespace {

// The rank in `variable` (a whole non-negative number), else 0.
int rank_in(const char* variable) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long rank = std::strtol(text, &end, 10);
  return *end == '\0' && rank >= 0 && rank <= std::numeric_limits<int>::max() ? static_cast<int>(rank) : 0;
}

}  // namespace

std::optional<MpiLaunch> mpi_launch() {
  if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size != nullptr)
    return MpiLaunch{std::string("OMPI_COMM_WORLD_SIZE=") + size, std::getenv("OMPI_COMM_WORLD_RANK") != nullptr
                                                                      ? rank_in("OMPI_COMM_WORLD_RANK")
                                                                      : rank_in("PMIX_RANK")};
  if (const char* rank = std::getenv("PMIX_RANK"); rank != nullptr)
    return MpiLaunch{std::string("PMIX_RANK=") + rank, rank_in("PMIX_RANK")};
  return std::nullopt;
}

}  // namespace podsim
