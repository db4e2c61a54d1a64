// `podsim plan --trace FILE` for a candidate with pipeline stages (docs/overlap-pipeline-dcn.md, "In the trace"): the
// schedule's event graph as the engine ran it, in the Chrome trace event format. One process per stage, one track
// per chip of the stage (or per representative chip), each forward and backward a slice named by its microbatch and
// pass, the sends between stages on a track per direction and as flow arrows; the bubble shows as the gaps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "sim/capacity/candidate_timeline.hpp"

namespace podsim::report {

// Who the trace is of, for its otherData.
struct CandidateTraceInfo {
  std::string scenario;
  std::size_t rank = 1;   // in the printed ranking
  std::string candidate;  // its label (slice, parallelism, ...)
  double step_s = 0;      // the candidate's des step time
};

struct PipelineTraceOptions {
  // Chip tracks per stage: a stage with more chips gets tracks for its first `max_chips_per_stage` (in the stage's
  // order; every chip of a stage runs the same tasks). 0 means every chip.
  std::size_t max_chips_per_stage = 8;
};

// Writes {"displayTimeUnit": "ns", "traceEvents": [...], "otherData": {...}}; times in microseconds from the start of
// the schedule, every slice from its task's published start to its end. Throws InternalError when the timeline's
// roles or timings do not cover its graph.
void write_pipeline_trace(const PipelineTimeline& timeline, const CandidateTraceInfo& info, std::ostream& out,
                          const PipelineTraceOptions& options = {});

}  // namespace podsim::report
