// Bidirectional ring with split halves: every shard is cut in two; one half goes around each way in N-1
// steps. Time without contention: (N-1) (alpha + S/(2W)) (the larger half when S is odd).
#include "sim/collectives/phase.hpp"

namespace podsim {

void ring_bidirectional_split(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                              const PhaseSpec& phase) {
  const auto n = static_cast<std::int32_t>(group.size());
  const std::uint64_t forward_bytes = (phase.shard_bytes + 1) / 2;
  const std::uint64_t backward_bytes = phase.shard_bytes / 2;
  append_pass(graph, in, out, Pass{group, PassPattern::ring, n - 1, forward_bytes, reduce_flops(phase, forward_bytes)},
              phase.op_id, phase.first_step);
  if (backward_bytes > 0)
    append_pass(graph, in, out,
                Pass{reversed(group), PassPattern::ring, n - 1, backward_bytes, reduce_flops(phase, backward_bytes)},
                phase.op_id, phase.first_step);
}

}  // namespace podsim
