// The line algorithm for an axis without wraparound: shards (or partial sums) flow both ways along the line
// at once, each link carrying one shard per step; the end chips' data crosses N-1 hops. Time without
// contention: (N-1) (alpha + S/W), the book's (N-1) x shard / W_uni.
#include "sim/collectives/phase.hpp"

namespace podsim {

void line_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase) {
  const auto n = static_cast<std::int32_t>(group.size());
  const PassPattern pattern =
      phase.op == CollectiveKind::reduce_scatter ? PassPattern::line_reduce : PassPattern::line_gather;
  const double flops = reduce_flops(phase, phase.shard_bytes);
  append_pass(graph, in, out, Pass{group, pattern, n - 1, phase.shard_bytes, flops}, phase.op_id, phase.first_step);
  append_pass(graph, in, out, Pass{reversed(group), pattern, n - 1, phase.shard_bytes, flops}, phase.op_id,
              phase.first_step);
}

}  // namespace podsim
