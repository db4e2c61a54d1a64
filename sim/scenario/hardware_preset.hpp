// A hardware preset as typed values: the model values (HardwareSpec) and, for reports, every figure as the
// preset states it, with its source and alternatives. Loaded from configs/*.json by hardware_json.hpp; nothing
// here needs JSON.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/hardware/figure.hpp"
#include "models/hardware/hardware.hpp"

namespace podsim {

// One efficiency curve of the calibration section as the file states it (the points are in spec.calibration).
struct CalibrationCurveSource {
  std::string key;  // a calibration_curve name: "link_efficiency", "mxu_efficiency", "hbm_efficiency", ...
  std::string source;
  std::string note;
};

// A loaded preset: the model values and, for reports, every figure as the file states it.
struct HardwarePreset {
  std::string name;
  std::string description;
  std::string path;                                          // the file it was read from
  std::vector<std::pair<std::string, std::string>> sources;  // tag -> what it is, in file order
  std::vector<NamedFigure> figures;                          // in file order, keys like "ici.bandwidth_Bps"
  std::string wrap_rule_name;                                // as written, e.g. "full_pod_axis"; "never" if absent
  std::string slice_note;
  std::vector<NamedFigure> calibration_figures;  // the calibration section's figures, keys like "hop_latency_s"
  std::vector<CalibrationCurveSource> calibration_curves;  // its curves' sources, in file order
  HardwareSpec spec;
  // The calibration (the preset's, with the scenario's overrides) that a scenario's "calibrated": false set aside:
  // `podsim validate`'s calibrated des runs with it.
  std::optional<Calibration> calibration_set_aside;
};

}  // namespace podsim
