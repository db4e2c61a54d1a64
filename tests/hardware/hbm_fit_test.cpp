// The HBM fit rule (models/hardware/hbm_fit.hpp) at its edges.
#include "models/hardware/hbm_fit.hpp"

#include <gtest/gtest.h>

namespace podsim {
namespace {

TEST(HbmFit, ExactlyFullFitsOneByteMoreDoesNot) {
  constexpr std::uint64_t kHbm = 16ull << 30;
  EXPECT_TRUE(fits_hbm(kHbm, kHbm));
  EXPECT_FALSE(fits_hbm(kHbm + 1, kHbm));
  EXPECT_EQ(bytes_over_hbm(kHbm, kHbm), 0u);
  EXPECT_EQ(bytes_over_hbm(kHbm + 4096, kHbm), 4096u);
}

TEST(HbmFit, AChipWithoutAnHbmFigureHoldsAnything) {
  EXPECT_TRUE(fits_hbm(UINT64_MAX, 0));
  EXPECT_EQ(bytes_over_hbm(UINT64_MAX, 0), 0u);
}

}  // namespace
}  // namespace podsim
