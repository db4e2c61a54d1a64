// The precedence of DCN figures (models/hardware/hardware.hpp, dcn_figures): the user's, then (des only) the
// calibration's, then the preset's.
#include <gtest/gtest.h>

#include "models/hardware/hardware.hpp"

namespace podsim {
namespace {

HardwareSpec calibrated_preset() {
  HardwareSpec hw;
  hw.dcn_bandwidth_Bps = 6.25e9;  // the preset's 50 Gb/s a chip
  hw.dcn_latency_s = 10e-6;
  Calibration c;
  c.dcn_bandwidth_Bps = 5e9;
  c.dcn_latency_s = 20e-6;
  hw.calibration = c;
  return hw;
}

TEST(DcnFigures, TheBookTakesThePresetsAndTheDesTheCalibrations) {
  const HardwareSpec hw = calibrated_preset();
  const DcnFigures book = dcn_figures(hw, std::nullopt, std::nullopt, false);
  EXPECT_EQ(book.bandwidth_per_chip_Bps, 6.25e9);
  EXPECT_EQ(book.latency_s, 10e-6);
  const DcnFigures des = dcn_figures(hw, std::nullopt, std::nullopt, true);
  EXPECT_EQ(des.bandwidth_per_chip_Bps, 5e9);
  EXPECT_EQ(des.latency_s, 20e-6);
}

TEST(DcnFigures, TheUsersFigureComesFirstFigureByFigure) {
  const HardwareSpec hw = calibrated_preset();
  const DcnFigures des = dcn_figures(hw, 1e9, std::nullopt, true);
  EXPECT_EQ(des.bandwidth_per_chip_Bps, 1e9);
  EXPECT_EQ(des.latency_s, 20e-6);  // not given: the calibration's
  const DcnFigures book = dcn_figures(hw, std::nullopt, 1e-6, false);
  EXPECT_EQ(book.bandwidth_per_chip_Bps, 6.25e9);
  EXPECT_EQ(book.latency_s, 1e-6);
}

}  // namespace
}  // namespace podsim
