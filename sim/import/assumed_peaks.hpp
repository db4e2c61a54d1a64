// The peak FLOP/s both importers assume for a compute dtype the preset has no figure for (f32 on a TPU preset, which
// publishes bf16 and integer peaks only): the preset's bf16 peak, as XLA runs an f32 matmul on the MXU in bf16
// passes at JAX's default precision (docs/import.md, "Compute dtypes"). Written as a hardware override in the
// scenario, so that the assumption is visible where it acts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace podsim::import {

// The scenario's `hardware` value: `hardware` (the preset name) alone when `peak_flops` (the preset's figures by
// podsim dtype name) has every dtype of `dtypes`, else {"preset", "overrides": {"chip": {"peak_flops": {DTYPE:
// {"value", "source", "note"}}}}} with the bf16 peak for each missing one; `assumed` gets those dtypes in order.
// Throws InputError at `--hardware` when one is missing and the preset has no bf16 peak either.
nlohmann::ordered_json hardware_with_assumed_peaks(const std::string& hardware, const std::set<std::string>& dtypes,
                                                   const std::map<std::string, double>& peak_flops,
                                                   std::vector<std::string>& assumed);

// The note an importer records for each assumed dtype: "f32 compute runs at the preset's bf16 peak (a hardware
// override in the scenario)".
std::string assumed_peak_note(const std::string& dtype);

}  // namespace podsim::import
