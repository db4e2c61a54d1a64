// Unidirectional ring: N-1 steps; at each step every chip passes one shard (all-gather) or one reduced
// chunk (reduce-scatter) to the next chip. Time without contention: (N-1) (alpha + S/W).
#include "sim/collectives/phase.hpp"

namespace podsim {

void ring_unidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                         const PhaseSpec& phase) {
  const auto n = static_cast<std::int32_t>(group.size());
  append_pass(graph, in, out,
              Pass{group, PassPattern::ring, n - 1, phase.shard_bytes, reduce_flops(phase, phase.shard_bytes)},
              phase.op_id, phase.first_step);
}

}  // namespace podsim
