// One point of a sweep evaluated into its JSON Lines record (docs/sweeps.md, "results.jsonl"): the point's
// parameters, the content hash of its resolved scenario, and per plan the des and book time, memory per chip and
// whether it fits, or the error that stopped it. Never throws for the point's own failures: they become `error`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

// book: the closed form only (no simulation); des and both: every plan simulated, the closed form beside it.
enum class SweepModel { book, des, both };

std::string_view sweep_model_name(SweepModel model);

// Model-level scenarios (with `model`): the best candidates of the plan search reported per point, as
// `rank1`, `rank2`, ... (each with its `candidate` label).
inline constexpr std::size_t kSweepRankedCandidates = 3;

// The point's record as one line of compact JSON, without the newline. Keys in this order: point, params, hash,
// model, uncalibrated (only when true), error, plans. `uncalibrated` (`podsim sweep --uncalibrated`): the des runs
// without the hardware's calibration (drop_calibration; docs/hardware-model.md, "Calibration").
std::string evaluate_point(const SweepSpec& spec, std::size_t point, SweepModel model, bool uncalibrated = false);

}  // namespace podsim
