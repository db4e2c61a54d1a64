// Writers for `podsim calibrate`: the readable report of a fit (figures fitted and not, each row's measured value,
// book, des before and after, fit rows and held-out rows apart, the curves' ranges) and the overlay file it writes
// (a hardware file naming its base preset plus the fitted calibration; docs/hardware-model.md, "Calibration").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/calibrate/calibration_fit.hpp"

namespace podsim::report {

// The fit as text; `csv` is the measurement file's path and `hardware` the preset's name.
std::string calibration_fit_text(const CalibrationFit& fit, const std::string& csv, const std::string& hardware);

// {"schema": "podsim/1", "hardware", "fitted": [...], "unfitted": [{"figure", "reason"}], "iterations",
//  "rms_before", "rms_after", "calibration": {...the overlay's section...},
//  "rows": [{"id", "fit", "kind", "bound", "measured", "book", "des_before", "des_after", "error_before",
//  "error_after", "outside_range"}]}.
nlohmann::json calibration_fit_json(const CalibrationFit& fit, const std::string& hardware);

// The overlay: {"name": `name`, "description", "base": `base`, "sources": {"CAL": ...}, "calibration": {...}};
// every fitted figure's source names the fit rows it rests on ("CAL rows a, b").
nlohmann::json calibration_overlay_json(const CalibrationFit& fit, const std::string& name, const std::string& base,
                                        const std::string& csv);

}  // namespace podsim::report
