// The peak FLOP/s both importers assume for a compute dtype the preset has no figure for (f32 on a TPU preset, which
// publishes bf16 and integer peaks only): the preset's bf16 peak, as XLA runs an f32 matmul on the MXU in bf16
// passes at JAX's default precision (docs/import.md, "Compute dtypes"). The scenario writer turns each into a
// hardware override, so that the assumption is visible where it acts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace podsim::import {

// One dtype's assumed peak, in FLOP/s.
struct AssumedPeak {
  std::string dtype;
  double flops = 0;
};

// The dtypes of `dtypes` (in order; "" skipped) that `peak_flops` (the preset's figures by podsim dtype name) lacks,
// each with the preset's bf16 peak. Throws ImportOptionError on the hardware option when one is missing and the
// preset `hardware` has no bf16 peak either.
std::vector<AssumedPeak> assumed_peaks(const std::string& hardware, const std::set<std::string>& dtypes,
                                       const std::map<std::string, double>& peak_flops);

// The note an importer records for each assumed dtype: "f32 compute runs at the preset's bf16 peak (a hardware
// override in the scenario)".
std::string assumed_peak_note(const std::string& dtype);

}  // namespace podsim::import
