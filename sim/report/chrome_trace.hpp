// `podsim run --trace FILE`: a scenario's simulated event graphs in the Chrome trace event format (JSON object
// form), which Perfetto (ui.perfetto.dev) and chrome://tracing open. One process per plan; in it one track per
// chip (compute tasks and sends) and one per busy link (the bandwidth phase of every transfer crossing it, on the
// route and from the phase start the simulation result publishes), and a memory counter per chip.
#pragma once

#include <cstddef>
#include <ostream>

#include "sim/run/run_result.hpp"

namespace podsim::report {

struct TraceOptions {
  // Most complete ("X") events written over all plans; 0 means no limit. A plan whose share is exceeded keeps its
  // earliest events and gets an instant note event saying how many were left out.
  std::size_t max_events = 200000;
  // Memory counter events ("C") have a budget of their own of the same size, per plan: the chip that reaches the
  // peak always gets its counter, the others while the budget lasts.
};

// Writes {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}; times in microseconds. Plans without
// an event graph or simulation get their process name and a note event only.
void write_chrome_trace(const ScenarioRun& run, std::ostream& out, const TraceOptions& options = {});

// `podsim run --trace`: write_chrome_trace with the default options (model_run_report.hpp has the model-level
// overload).
void write_run_trace(const ScenarioRun& run, std::ostream& out);

}  // namespace podsim::report
