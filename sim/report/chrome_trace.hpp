// `podsim run --trace FILE`: a scenario's simulated event graphs in the Chrome trace event format (JSON object
// form), which Perfetto (ui.perfetto.dev) and chrome://tracing open. One process per plan; in it one track per
// chip (compute tasks and sends) and one per busy link (the bandwidth phase of every transfer crossing it, on the
// route and from the phase start the simulation result publishes), and a memory counter per chip.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

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

// `podsim run --trace`: write_chrome_trace with the default options; of a model-level run, its one plan's simulated
// step (write_model_run_trace, as `podsim plan --trace` shows a candidate). Throws InternalError when
// run_trace_problem names one.
void write_run_trace(const ScenarioRun& run, std::ostream& out);
// What keeps `run` from having a trace ("" for none): an op-level run always has one; a model-level run needs one
// plan, simulated.
std::string run_trace_problem(const ScenarioRun& run);

}  // namespace podsim::report
