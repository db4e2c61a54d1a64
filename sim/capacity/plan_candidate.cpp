// A scenario plan as a candidate of docs/parallelism.md.
#include "sim/capacity/plan_candidate.hpp"

namespace podsim {

Candidate plan_candidate(const ScenarioSpec& spec, const ScenarioPlan& plan) {
  Candidate candidate;
  candidate.hardware = spec.hardware;
  candidate.slice = spec.slice_shape;
  candidate.wraparound = spec.wraparound;
  candidate.twist = spec.twist;
  candidate.slices = spec.slice_count;
  candidate.dcn_bandwidth_Bps = spec.dcn_bandwidth_Bps;
  candidate.dcn_latency_s = spec.dcn_latency_s;
  candidate.mesh = spec.mesh;
  candidate.parallelism = plan.parallelism.value_or(Parallelism{});
  if (spec.workload) {
    candidate.microbatches = spec.workload->microbatches;
    candidate.remat = spec.workload->remat;
  }
  candidate.plan = plan.name;
  return candidate;
}

}  // namespace podsim
