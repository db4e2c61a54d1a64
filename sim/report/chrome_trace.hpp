// `podsim run --trace FILE`: a scenario's simulated event graphs in the Chrome trace event format (JSON object
// form), which Perfetto (ui.perfetto.dev) and chrome://tracing open. One process per plan; in it one track per
// chip (compute tasks and sends) and one per busy link (the bandwidth phase of every transfer crossing it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "models/common/ids.hpp"
#include "sim/run/run_result.hpp"

namespace podsim::report {

struct TraceOptions {
  // Most complete ("X") events written over all plans; 0 means no limit. A plan whose share is exceeded keeps its
  // earliest events and gets an instant note event saying how many were left out.
  std::size_t max_events = 200000;
  // Route of a transfer as directed link ids, in order. Empty: dimension-order routing on the run's slice; with
  // neither, no link tracks are written.
  std::function<std::vector<LinkId>(ChipId src, ChipId dst)> route;
  // Latency of one hop in seconds: a transfer's bandwidth phase on its links is [start + hops x hop_latency_s, end]
  // (clamped to end), as in the engine's link ledger.
  double hop_latency_s = 0;
};

// Writes {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}; times in microseconds. Plans without
// an event graph or simulation get their process name and a note event only.
void write_chrome_trace(const ScenarioRun& run, std::ostream& out, const TraceOptions& options = {});

}  // namespace podsim::report
