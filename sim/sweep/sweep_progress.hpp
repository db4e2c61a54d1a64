// The sweep's progress on stderr (docs/sweeps.md, "Progress"): a bar redrawn in place when stderr is a terminal,
// a plain line every few seconds when it is not (logs, CI).
#pragma once

#include <string>

#include "sim/sweep/sweep_runner.hpp"

namespace podsim {

// `[#########           ] 120/400 points, 35.2/s, 8s left, 2 failed` (width: the bar's characters).
std::string progress_bar(const SweepProgress& progress, int width = 30);

// `sweep: 120/400 points, 35.2/s, 8s left, 2 failed, 17 skipped (already in results.jsonl)`.
std::string progress_line(const SweepProgress& progress);

}  // namespace podsim
