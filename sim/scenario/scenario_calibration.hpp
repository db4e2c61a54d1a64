// `--uncalibrated` for a loaded scenario (docs/hardware-model.md, "Calibration"): the des then runs on the presets'
// own figures.
#pragma once

#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Drops the calibration of the scenario's hardware and of every preset its search tries.
void drop_calibration(ScenarioSpec& spec);

}  // namespace podsim
