// `podsim plan --trace FILE` (docs/capacity.md): one candidate's simulated step in the Chrome trace event format. A
// candidate with pipeline stages shows its schedule (pipeline_trace.hpp); one without shows its layer program's run
// as `podsim run --trace` shows a plan (chrome_trace.hpp): each op once, in program order.
#pragma once

#include <ostream>

#include "sim/capacity/candidate_timeline.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/pipeline_trace.hpp"

namespace podsim::report {

// Writes the trace of `timeline` (kept by simulate_candidate). The layer program's process is named
// `plan candidate R: LABEL (layer program, each op once)`. Throws InternalError when the timeline holds no simulation.
void write_candidate_trace(const CandidateTimeline& timeline, const CandidateTraceInfo& info, std::ostream& out,
                           const PipelineTraceOptions& pipeline_options = {}, const TraceOptions& options = {});

}  // namespace podsim::report
