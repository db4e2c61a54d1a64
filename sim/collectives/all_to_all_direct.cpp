// All-to-all by shortest path: every chip sends its chunk for each other chip of the group at once; the
// routes (dimension order) and link sharing decide the time, as the bisection bound predicts.
#include "models/common/integer.hpp"
#include "sim/collectives/phase.hpp"

namespace podsim {

void all_to_all_direct(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                       const PhaseSpec& phase) {
  if (group.size() < 2) return;
  const std::uint64_t chunk_bytes = ceil_div(phase.shard_bytes, static_cast<std::uint64_t>(group.size()));
  if (chunk_bytes == 0) return;
  for (const ChipId src : group)
    for (const ChipId dst : group) {
      if (src == dst) continue;
      Task send;
      send.kind = TaskKind::transfer;
      send.src_chip = src;
      send.dst_chip = dst;
      send.bytes = chunk_bytes;
      send.deps = in.per_chip[static_cast<std::size_t>(src)];
      send.op = phase.op_id;
      send.step = phase.first_step;
      const TaskId id = graph.add(std::move(send));
      out.per_chip[static_cast<std::size_t>(src)].push_back(id);
      out.per_chip[static_cast<std::size_t>(dst)].push_back(id);
    }
}

}  // namespace podsim
