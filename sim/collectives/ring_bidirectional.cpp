// Bidirectional ring, whole shards both ways, as the scaling book counts it: shards travel ceil((N-1)/2)
// steps one way and floor((N-1)/2) the other. Time without contention: ceil((N-1)/2) (alpha + S/W), which is
// the book's V / W_bidi = N S / (2 W) for even N (and S / (2 W) less for odd N).
#include "sim/collectives/phase.hpp"

namespace podsim {

void ring_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase) {
  const auto n = static_cast<std::int32_t>(group.size());
  const std::int32_t forward_steps = n / 2;  // ceil((n-1)/2)
  const std::int32_t backward_steps = (n - 1) / 2;
  const double flops = reduce_flops(phase, phase.shard_bytes);
  append_pass(graph, in, out, Pass{group, PassPattern::ring, forward_steps, phase.shard_bytes, flops}, phase.op_id,
              phase.first_step);
  append_pass(graph, in, out, Pass{reversed(group), PassPattern::ring, backward_steps, phase.shard_bytes, flops},
              phase.op_id, phase.first_step);
}

}  // namespace podsim
