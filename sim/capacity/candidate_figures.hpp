// What a candidate's closed form (candidate_evaluation.cpp) and its des (candidate_des.cpp) both use: the workload a
// candidate runs, the figures derived from its step time, and the stage whose tail ends a pipelined step.
#pragma once

#include <cstddef>

#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/pipeline_stages.hpp"

namespace podsim {

// The problem's workload with the candidate's own microbatches and remat policy (training).
Workload effective_workload(const CapacityProblem& problem, const Candidate& candidate);

// MFU, tokens per second per chip, latency and cost from the step time in force (des when simulated).
void derive(const CapacityProblem& problem, CandidateResult& r);

// The stage with the largest work after the last backward (the step ends when it is done).
std::size_t longest_tail(const StageWork& work);

}  // namespace podsim
