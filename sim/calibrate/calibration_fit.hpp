// `podsim calibrate`'s fit (docs/hardware-model.md, "Calibration"): the calibration figures that the rows marked
// fit=yes constrain, by least squares on the des's relative errors, and every row's des before and after.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/common/bound.hpp"
#include "models/hardware/hardware.hpp"
#include "sim/calibrate/measurement.hpp"

namespace podsim {

// One row's predictions: the book, the des without calibration (before) and with the fitted one (after).
struct FittedRow {
  Measurement row;
  double book = 0;
  double before = 0;
  double after = 0;
  // What the row's time depends on: latency or bandwidth (collectives, by the book's bound), compute or memory
  // (matmuls by the roofline; copies are memory).
  Bound bound = Bound::memory;
  // The curve's size: one message's bytes (collectives), the matmul's FLOPs (compute-bound) or the bytes moved to
  // and from HBM (memory-bound matmuls and copies).
  double size = 0;
  bool outside_range = false;  // the size lies outside the fitted curve's range: the curve is held flat there
  double error_before() const { return (before - row.measured) / row.measured; }
  double error_after() const { return (after - row.measured) / row.measured; }
};

// A figure the fit left alone, and why.
struct UnfittedFigure {
  std::string figure;  // "hop_latency_s", ...
  std::string reason;
};

struct CalibrationFit {
  Calibration calibration;                              // the fitted figures; the others neutral (unset, 0 or 1)
  std::vector<std::string> fitted;                      // the figures fitted, in Calibration's order
  std::vector<UnfittedFigure> unfitted;                 // the others
  std::vector<FittedRow> rows;                          // every row of the file, in file order
  std::optional<std::pair<double, double>> link_range;  // message bytes the link-efficiency curve was fitted over
  std::optional<std::pair<double, double>> mxu_range;   // matmul FLOPs the MXU-efficiency curve was fitted over
  std::optional<std::pair<double, double>> hbm_range;   // HBM bytes the HBM-efficiency curve was fitted over
  int iterations = 0;                                   // Levenberg-Marquardt iterations taken
  double rms_before = 0, rms_after = 0;                 // root mean square relative error of the fit rows
};

// Fits a calibration of `hardware` (its own calibration is ignored: the fit starts from the preset's figures) on
// the rows with fit=yes, by Levenberg-Marquardt with finite differences on (des - measured) / measured:
//   collective_step_s  when a fit row is a latency-bound collective (one fixed cost per transfer, i.e. per step);
//   link_efficiency    one point per distinct message size of the bandwidth-bound collective rows;
//   mxu_efficiency     one point per distinct FLOP count of the compute-bound matmul rows;
//   hbm_efficiency     one point per distinct HBM byte count (read and written) of the memory-bound matmul and copy
//                      rows.
// hop_latency_s is never fitted (it and the step cost move a neighbour-to-neighbour step alike), nor are the DCN
// figures (no row runs across slices). `source` becomes the calibration's source. Throws InputError (located at
// a row) for a row that does not fit the hardware, a scenario row (podsim validate predicts those), or a file
// without a fit row.
CalibrationFit fit_calibration(const std::vector<Measurement>& rows, const HardwareSpec& hardware,
                               const std::string& source);

}  // namespace podsim
