// Whether an MPI launcher started the process (sim/sweep/sweep_launcher.hpp): Open MPI's mpirun variables, a PMIx
// launcher's, or neither (an ordinary run, which must never start MPI).
#include "sim/sweep/sweep_launcher.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace podsim {
namespace {

// The launcher variables cleared, whatever the test runner's environment holds.
void clear_launcher() {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMIX_RANK");
}

TEST(MpiLaunch, AnOrdinaryRunIsNoLaunch) {
  clear_launcher();
  EXPECT_FALSE(mpi_launch().has_value());
}

TEST(MpiLaunch, OpenMpisMpirunIsALaunch) {
  clear_launcher();
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  setenv("PMIX_RANK", "3", 1);
  const auto launch = mpi_launch();
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->variable, "OMPI_COMM_WORLD_SIZE=4");
  EXPECT_EQ(launch->rank, 3);
  clear_launcher();
}

TEST(MpiLaunch, APmixLauncherAloneIsALaunch) {
  clear_launcher();
  setenv("PMIX_RANK", "2", 1);
  const auto launch = mpi_launch();
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->variable, "PMIX_RANK=2");
  EXPECT_EQ(launch->rank, 2);
  clear_launcher();
}

TEST(MpiLaunch, ARankThatDoesNotParseIsRankZero) {
  clear_launcher();
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  setenv("OMPI_COMM_WORLD_RANK", "1x", 1);
  EXPECT_EQ(mpi_launch()->rank, 0);
  setenv("OMPI_COMM_WORLD_RANK", "-1", 1);
  EXPECT_EQ(mpi_launch()->rank, 0);
  unsetenv("OMPI_COMM_WORLD_RANK");
  setenv("PMIX_RANK", "1", 1);
  EXPECT_EQ(mpi_launch()->rank, 1);  // Open MPI's size with a PMIx rank
  clear_launcher();
}

}  // namespace
}  // namespace podsim
